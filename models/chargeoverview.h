#pragma once

#include "models/actionsummary.h"
#include "models/chargebudget.h"
#include "models/chargesnapshot.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

// Everything Countersign knows about one charge or payment intent, as GET /charges/{id} and
// POST /charges/{id}/lookups serve it (docs/API.md, "The charge view"): the newest read of the
// provider's view (or the read just made), the charge's refund budget at the proposal stage, and
// every action on the charge, oldest first. A plain value read from the wire: the server decided
// every figure, the console only shows them. Amounts are minor units of the charge's currency.
// A refund event from the provider's webhooks on this charge that matched no action of this
// ledger (issue 18, docs/SETTLEMENT.md): a refund Countersign never asked for — made in the
// dashboard or by another system. As GET /charges/{id} lists it in `unmatched_refund_events`.
struct UnmatchedRefundEvent
{
    QString eventId;       // evt_…
    QString type;          // refund.created, refund.updated, refund.failed, charge.refund.updated
    QString refundId;      // re_…
    QDateTime receivedAt;  // UTC, when Countersign received it
    QString status;        // the refund's status the event carried
    qint64 amount = 0;     // minor units of `currency`
    QString currency;      // lowercase
    QString failureReason; // for failed; else empty
    QString paymentIntent; // may be empty
    QDateTime eventCreated; // the event's own time; invalid when not given
    QString namedAction;   // the countersign_action_id it carried (another ledger's), usually empty

    static std::optional<UnmatchedRefundEvent> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const UnmatchedRefundEvent &, const UnmatchedRefundEvent &) = default;
};

// One refund of the charge as the charge window lists it: from the shown read, from webhook
// events that matched no action, or both — one row per refund id. An event's status replaces
// the read's only when it is newer news (settlementSupersedes: pending, then succeeded, then
// failed or canceled), so a late refund.created never undoes a refund.failed.
struct ProviderRefund
{
    ChargeSnapshot::Refund refund; // status: the newest known; amount in minor units of `currency`
    QString currency;
    bool inRead = false;           // the shown read lists it
    QString readStatus;            // what the read said, when an event said something newer; else ""
    QString failureReason;         // an event's, for failed
    QList<UnmatchedRefundEvent> events; // newest first; empty: known from the read only

    bool fromWebhook() const { return !events.isEmpty(); }
    bool madeOutside() const { return refund.actionId.isEmpty(); }
    friend bool operator==(const ProviderRefund &, const ProviderRefund &) = default;
};

struct ChargeOverview
{
    QString id; // as asked: ch_… or pi_…
    TargetType targetType = TargetType::Charge;
    QString chargeId;        // "" while a payment intent was never read FOUND
    QString paymentIntentId; // "" when the charge has none (or it is not known)
    std::optional<ChargeSnapshot> snapshot; // none: never read
    int snapshotSeq = 0;
    ChargeBudget budget;
    QList<ActionSummary> actions; // oldest first
    bool actionsTruncated = false;
    // Newest first (at most 50); empty from a backend older than issue 18.
    QList<UnmatchedRefundEvent> unmatchedRefundEvents;

    // The refunds at the provider nobody made through Countersign (no countersign_action_id).
    QList<ChargeSnapshot::Refund> refundsMadeOutside() const;
    // The read's refunds merged with the unmatched webhook events by refund id: refunds the events
    // alone announced first (newest first), then the read's in its order.
    QList<ProviderRefund> providerRefunds() const;
    // The action behind a refund, when it is one of `actions`.
    const ActionSummary *actionOf(const ChargeSnapshot::Refund &refund) const;
    // The id to show: the charge when known, else what was asked.
    QString shownId() const { return chargeId.isEmpty() ? id : chargeId; }

    static std::optional<ChargeOverview> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ChargeOverview &, const ChargeOverview &) = default;
};

} // namespace cs
