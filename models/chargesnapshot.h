#pragma once

#include "models/actionrecord.h" // TargetType

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

// What the provider said about a charge (or a payment intent's charge) when it was asked: the
// timed evidence behind a charge's refund budget (issue 14) and the approver's view of the
// purchase (issue 19). Append-only in the ledger, like look-ups; never edited.
struct ChargeSnapshot
{
    enum class Result { Found, NotFound, Error };

    // One refund the provider holds for the charge, whoever made it (Countersign or its dashboard).
    struct Refund
    {
        QString id;        // re_…
        qint64 amount = 0; // minor units
        QString status;    // pending | requires_action | succeeded | failed | canceled
        QDateTime created; // UTC
        QString actionId;  // metadata[countersign_action_id]; empty for a refund made elsewhere

        // Whether it still takes money from the charge: failed and canceled refunds give it back.
        bool counts() const;
        friend bool operator==(const Refund &, const Refund &) = default;
    };

    TargetType targetType = TargetType::Charge; // as asked
    QString targetId;                           // as asked: ch_… or pi_…
    QString chargeId;                           // the charge (a payment intent's latest charge)
    QString paymentIntentId;                    // empty when the charge has none
    QString askedBy;                            // "proposal", "approve", "claim", a user name
    QDateTime readAt;                           // UTC, when the answer arrived
    Result result = Result::NotFound;
    int httpStatus = 0;
    QString excerpt; // at most 500 characters of what the provider said when it was not FOUND

    // When FOUND: the provider's own figures, in minor units of `currency` (lowercase).
    qint64 amount = 0;
    qint64 amountCaptured = 0;
    qint64 amountRefunded = 0; // the provider's sum; refunds lists them
    QString currency;
    QDateTime created;          // the purchase
    QString paymentMethodBrand; // "visa", … (card charges)
    QString paymentMethodLast4;
    bool disputed = false;
    QList<Refund> refunds; // newest first, every page followed

    QJsonObject toJson() const;
    static std::optional<ChargeSnapshot> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ChargeSnapshot &, const ChargeSnapshot &) = default;
};

QString toWire(ChargeSnapshot::Result result); // "FOUND", "NOT_FOUND", "ERROR"
std::optional<ChargeSnapshot::Result> chargeResultFromWire(QStringView wire);

} // namespace cs
