#pragma once

#include "models/actionstate.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

// What may still be refunded of one charge (issue 14), at one of the three points that decide on
// it: captured − refunded at the provider − what Countersign holds. Which actions Countersign
// holds depends on the point:
//   Proposal  every action on the charge that is not REJECTED and not a COMPLETED refund the
//             provider already lists: PENDING ones with or without an approval, in flight,
//             unknown, under review, and COMPLETED ones newer than the snapshot;
//   Approval  the same but PENDING ones not approved yet (the approver decides between them);
//   Claim     only what has gone further than PENDING (in flight, unknown, under review,
//             COMPLETED newer than the snapshot): every approved PENDING one was counted when it
//             was approved, and counting them again would make two approved halves block each
//             other.
// An unknown (CONFIRMATION_UNKNOWN) or REQUIRES_REVIEW action counts as possibly committed.
// The provider's figures come from the newest FOUND ChargeSnapshot; without one the budget is not
// known and nothing is refused for it (the provider itself refuses a refund over what is left).
struct ChargeBudget
{
    enum class Stage { Proposal, Approval, Claim };

    struct Reservation
    {
        QString actionId;
        ActionState state = ActionState::Pending;
        bool approved = false; // PENDING with a current approval
        qint64 amount = 0;     // minor units of the charge's currency
        QString currency;
        QString requestedBy;
        QDateTime createdAt;
        friend bool operator==(const Reservation &, const Reservation &) = default;
    };

    Stage stage = Stage::Proposal;
    bool known = false;       // a FOUND snapshot exists
    QString chargeId;         // ch_…
    QString paymentIntentId;  // its payment intent, when it has one
    QString currency;         // the charge's, lowercase
    int snapshotSeq = 0;      // the snapshot the provider's figures come from
    QDateTime readAt;         // when the provider said them
    qint64 captured = 0;
    qint64 refundedAtProvider = 0;
    qint64 reserved = 0; // the sum of reservations
    QList<Reservation> reservations; // oldest first

    // May be negative: the charge is already over-committed.
    qint64 available() const { return captured - refundedAtProvider - reserved; }
    // Whether `amount` of `currency` fits: always when the budget is not known.
    bool fits(qint64 amount, const QString &currency) const;
    // "captured 99.00 USD, refunded at the provider 0.00 USD (read 2026-12-02T02:59:01Z),
    // reserved 59.40 USD by act_… (EXECUTING); 39.60 USD left, 59.40 USD requested" — the reason an
    // action is refused or stopped for review.
    QString describe(qint64 requested, const QString &requestedCurrency) const;

    QJsonObject toJson() const;
    // Reads toJson()'s object (`available` is derived, not read); absent figures are 0, an absent
    // stage is Approval (the action detail's budget). For the console: the server decided it.
    static std::optional<ChargeBudget> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ChargeBudget &, const ChargeBudget &) = default;
};

QString toWire(ChargeBudget::Stage stage); // "proposal", "approval", "claim"
std::optional<ChargeBudget::Stage> budgetStageFromWire(QStringView wire);

} // namespace cs
