#include "models/followupplan.h"

#include "models/displayformat.h"
#include "models/refundstatus.h"

#include <QCoreApplication>

namespace cs {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("cs::FollowUpPlan", text);
}

FollowUpPlan::Part partOf(const ActionDetail &detail, bool isParent)
{
    FollowUpPlan::Part part;
    part.actionId = detail.record.id;
    part.isParent = isParent;
    part.state = detail.record.state;
    part.committed = detail.committedAmount();
    if (detail.record.state == ActionState::Rejected) {
        part.basis = tr("rejected: nothing was refunded");
    } else if (detail.record.state != ActionState::Completed) {
        part.basis = tr("outcome not known yet (%1)").arg(display::stateName(detail.record.state));
    } else {
        part.basis = tr("recorded amount");
        for (auto it = detail.lookups.crbegin(); it != detail.lookups.crend(); ++it) {
            if (it->result == ProviderLookup::Result::Found
                && provesCommitted(it->status)) {
                part.basis = tr("provider lookup #%1: %2 %3").arg(it->seq).arg(it->providerObjectId, it->status);
                return part;
            }
        }
        for (const Attempt &attempt : detail.attempts) {
            if (attempt.outcome == Attempt::Outcome::Succeeded) {
                part.basis = tr("attempt #%1 answered %2 (%3)")
                                 .arg(attempt.seq).arg(attempt.httpStatus).arg(attempt.providerObjectId);
                break;
            }
        }
    }
    return part;
}

FollowUpPlan::Part partOf(const ActionSummary &summary)
{
    FollowUpPlan::Part part;
    part.actionId = summary.record.id;
    part.state = summary.record.state;
    if (summary.record.state == ActionState::Completed) {
        part.committed = summary.record.amount;
        part.basis = tr("recorded amount (completed)");
    } else if (summary.record.state == ActionState::Rejected) {
        part.committed = 0;
        part.basis = tr("rejected: nothing was refunded");
    } else {
        part.basis = tr("outcome not known yet (%1)").arg(display::stateName(summary.record.state));
    }
    return part;
}

} // namespace

FollowUpPlan FollowUpPlan::compute(const ActionDetail &parent, const QList<ActionDetail> &followUps)
{
    FollowUpPlan plan;
    plan.currency = parent.record.currency;
    plan.parts.append(partOf(parent, true));
    for (const ActionSummary &summary : parent.followUps) {
        const auto detail = std::find_if(followUps.cbegin(), followUps.cend(), [&](const ActionDetail &d) {
            return d.record.id == summary.record.id;
        });
        plan.parts.append(detail != followUps.cend() ? partOf(*detail, false) : partOf(summary));
    }

    plan.possible = true;
    for (const Part &part : std::as_const(plan.parts)) {
        if (part.committed)
            plan.committed += *part.committed;
        else if (plan.possible) {
            plan.possible = false;
            plan.blockedReason = part.isParent
                ? tr("The outcome of this action is not known yet (%1): a follow-up could refund "
                     "the customer twice. Resolve it first.").arg(display::stateName(part.state))
                : tr("The outcome of follow-up %1 is not known yet (%2). Resolve it first.")
                      .arg(part.actionId, display::stateName(part.state));
        }
    }
    if (!parent.record.parentId.isEmpty()) {
        plan.possible = false;
        plan.blockedReason = tr("This action is itself a follow-up of %1: adjust the original action instead.")
                                 .arg(parent.record.parentId);
    }
    return plan;
}

std::optional<qint64> FollowUpPlan::remainder(qint64 desiredTotal) const
{
    if (!possible)
        return std::nullopt;
    return desiredTotal - committed;
}

} // namespace cs
