#pragma once

#include "models/actionsummary.h"
#include "models/chargebudget.h"
#include "models/chargesnapshot.h"

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

    // The refunds at the provider nobody made through Countersign (no countersign_action_id).
    QList<ChargeSnapshot::Refund> refundsMadeOutside() const;
    // The action behind a refund, when it is one of `actions`.
    const ActionSummary *actionOf(const ChargeSnapshot::Refund &refund) const;
    // The id to show: the charge when known, else what was asked.
    QString shownId() const { return chargeId.isEmpty() ? id : chargeId; }

    static std::optional<ChargeOverview> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ChargeOverview &, const ChargeOverview &) = default;
};

} // namespace cs
