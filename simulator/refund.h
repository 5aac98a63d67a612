#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace cs::paysim {

// A refund of (part of) a charge. Amount in minor units of `currency`.
struct Refund
{
    QString id; // re_…
    QString charge;
    QString paymentIntent;
    qint64 amount = 0;
    QString currency;
    qint64 created = 0; // unix seconds, simulator clock
    QString reason;     // duplicate | fraudulent | requested_by_customer, or empty
    QString status = QStringLiteral("succeeded"); // pending | requires_action | succeeded | failed | canceled
    QString failureReason; // Stripe's failure_reason; set while status is failed, empty otherwise
    QString paymentMethod; // the charge's pm_…: the card the money goes back to
    QJsonObject metadata;
    // Simulator bookkeeping, never in the API object:
    QString idempotencyKey; // the key of the request that created it, if any
    QString requestId;      // the request that created it
    qint64 visibleAtMs = 0; // lookup lag: hidden from GET /v1/refunds* before this (simulator clock)
    // refund_settles: at settleAtMs (simulator clock) a pending refund becomes settleTo (with
    // settleFailureReason when that is failed). 0: nothing scheduled.
    qint64 settleAtMs = 0;
    QString settleTo;
    QString settleFailureReason;
    qint64 seq = 0;

    // Whether this refund still counts against the charge (failed and canceled refunds give it back).
    bool holdsFunds() const;
    // failure_reason as the API shows it: empty unless failed.
    QString effectiveFailureReason() const;

    QJsonObject toApiJson() const;     // Stripe's refund object
    QJsonObject toOracleJson() const;  // the ground-truth row of GET /_sim/refunds
    QJsonObject toStorageJson() const;
    static Refund fromStorageJson(const QJsonObject &json);
    static bool isValidStatus(const QString &status);
    // Stripe's failure_reason values (Refund object, spec3.json): lost_or_stolen_card, …, unknown.
    static bool isValidFailureReason(const QString &reason);
    static QStringList failureReasons();
    static QString defaultFailureReason() { return QStringLiteral("declined"); }
};

} // namespace cs::paysim
