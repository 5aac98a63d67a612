#include "server/api/actionpolicy.h"

#include "models/refundstatus.h"

#include "models/fingerprint.h"

namespace cs {

namespace {

ActionPolicy::Verdict refuse(const QString &code, const QString &reason)
{
    return ActionPolicy::Verdict{false, code, reason};
}

ActionPolicy::Verdict roleRefusal(const User &user, ActionPolicy::Operation operation)
{
    return refuse(QStringLiteral("forbidden"), QStringLiteral("the %1 role may not %2")
                                                   .arg(toWire(user.role), ActionPolicy::operationName(operation)));
}

} // namespace

bool ActionPolicy::mayCall(Role role, Operation operation)
{
    switch (operation) {
    case Operation::Me:
    case Operation::ListActions:
    case Operation::GetAction:
    case Operation::Events:
    case Operation::ReadPolicy:
    case Operation::ReadExecution:
        return true;
    case Operation::ReloadPolicy:
        return role == Role::Admin;
    case Operation::ReadMetrics:
        return role == Role::Auditor || role == Role::Admin;
    // The charge view lists every requester's actions on the charge and the provider's refunds
    // naming them: an agent reads only its own actions (GET /actions/{id}), so not this.
    case Operation::ReadCharge:
        return role != Role::Agent;
    case Operation::Propose:
        return role == Role::Agent || role == Role::Admin;
    case Operation::Approve:
    case Operation::Reject:
        return role == Role::Approver || role == Role::Admin;
    case Operation::ChargeLookup: // what an approver reads before deciding; it writes evidence only
        return role == Role::Approver || role == Role::Supervisor || role == Role::Admin;
    case Operation::Lookup:
    case Operation::Reconcile:
    case Operation::FollowUp:
    case Operation::CloseSettlement:
    case Operation::CloseDiscrepancy:
    case Operation::PauseExecution:
        return role == Role::Supervisor || role == Role::Admin;
    }
    return false;
}

bool ActionPolicy::ownOnly(Role role, Operation operation)
{
    return role == Role::Agent
        && (operation == Operation::ListActions || operation == Operation::GetAction || operation == Operation::Events);
}

QString ActionPolicy::operationName(Operation operation)
{
    switch (operation) {
    case Operation::Me:
        return QStringLiteral("read its identity");
    case Operation::ListActions:
        return QStringLiteral("list actions");
    case Operation::GetAction:
        return QStringLiteral("read an action");
    case Operation::Propose:
        return QStringLiteral("propose actions");
    case Operation::Approve:
        return QStringLiteral("approve actions");
    case Operation::Reject:
        return QStringLiteral("reject actions");
    case Operation::Lookup:
        return QStringLiteral("look up actions at the provider");
    case Operation::ChargeLookup:
        return QStringLiteral("read charges at the provider");
    case Operation::Reconcile:
        return QStringLiteral("reconcile actions");
    case Operation::FollowUp:
        return QStringLiteral("propose follow-ups");
    case Operation::Events:
        return QStringLiteral("follow events");
    case Operation::ReadPolicy:
        return QStringLiteral("read the approval policy");
    case Operation::ReloadPolicy:
        return QStringLiteral("reload the approval policy");
    case Operation::ReadExecution:
        return QStringLiteral("read the execution pauses");
    case Operation::PauseExecution:
        return QStringLiteral("pause and resume execution");
    case Operation::ReadMetrics:
        return QStringLiteral("read the metrics");
    case Operation::ReadCharge:
        return QStringLiteral("read a charge's actions and refunds");
    case Operation::CloseSettlement:
        return QStringLiteral("close settlement review items");
    case Operation::CloseDiscrepancy:
        return QStringLiteral("close discrepancies");
    }
    return QString();
}

bool ActionPolicy::hasCurrentApproval(const ActionRecord &action, const QList<Approval> &approvals, const QDateTime &now)
{
    if (action.approvalVersion <= 0)
        return false;
    for (const Approval &approval : approvals) {
        if (approval.version == action.approvalVersion)
            return approval.decision == Approval::Decision::Approved
                && approval.approvedFingerprint == action.requestFingerprint && !action.idempotencyKey.isEmpty()
                && !approval.expiredAt.isValid() && !(approval.expiresAt.isValid() && approval.expiresAt <= now);
    }
    return false;
}

ActionPolicy::Verdict ActionPolicy::approve(const User &user, const ActionRecord &action,
                                            const QList<Attempt> &attempts, const QList<Approval> &approvals)
{
    if (!mayCall(user.role, Operation::Approve))
        return roleRefusal(user, Operation::Approve);
    if (action.requestedBy == user.name)
        return refuse(QStringLiteral("four_eyes"), QStringLiteral("you requested this action (four-eyes)"));
    if (action.state != ActionState::Pending)
        return refuse(QStringLiteral("illegal_state"),
                      QStringLiteral("the action is %1; only a PENDING action can be approved").arg(toWire(action.state)));
    if (hasCurrentApproval(action, approvals))
        return refuse(QStringLiteral("already_approved"),
                      QStringLiteral("approval %1 already signs this request").arg(action.approvalVersion));
    if (!attempts.isEmpty())
        return refuse(QStringLiteral("already_sent"),
                      QStringLiteral("the action was sent; a fresh key is only minted for an action never sent"));
    if (requestFingerprint(action.providerRequest()) != action.requestFingerprint)
        return refuse(QStringLiteral("fingerprint_mismatch"),
                      QStringLiteral("the stored fingerprint does not match the payload: refusing to sign it"));
    return {};
}

ActionPolicy::Verdict ActionPolicy::reject(const User &user, const ActionRecord &action)
{
    if (!mayCall(user.role, Operation::Reject))
        return roleRefusal(user, Operation::Reject);
    if (action.state != ActionState::Pending)
        return refuse(QStringLiteral("illegal_state"),
                      QStringLiteral("the action is %1; only a PENDING action can be rejected").arg(toWire(action.state)));
    return {};
}

ActionPolicy::Verdict ActionPolicy::lookup(const User &user)
{
    if (!mayCall(user.role, Operation::Lookup))
        return roleRefusal(user, Operation::Lookup);
    return {};
}

bool ActionPolicy::supportsCommitted(const ProviderLookup &lookup)
{
    return lookup.result == ProviderLookup::Result::Found
        && provesCommitted(lookup.status);
}

bool ActionPolicy::supportsNotCommitted(const ProviderLookup &lookup, const QList<Attempt> &attempts)
{
    const bool absent = lookup.result == ProviderLookup::Result::NotFound
        || (lookup.result == ProviderLookup::Result::Found
            && provesNotCommitted(lookup.status));
    if (!absent)
        return false;
    return attempts.isEmpty() || !(lookup.at < attempts.constLast().startedAt);
}

ActionPolicy::Verdict ActionPolicy::reconcile(const User &user, const ActionRecord &action,
                                              const QList<ProviderLookup> &lookups, const QList<Attempt> &attempts,
                                              bool adviceOnly)
{
    if (!mayCall(user.role, Operation::Reconcile))
        return roleRefusal(user, Operation::Reconcile);
    if (action.state != ActionState::RequiresReview)
        return refuse(QStringLiteral("illegal_state"),
                      QStringLiteral("the action is %1; only a REQUIRES_REVIEW action is reconciled")
                          .arg(toWire(action.state)));
    if (adviceOnly) {
        for (const ProviderLookup &lookup : lookups) {
            if (supportsCommitted(lookup) || supportsNotCommitted(lookup, attempts))
                return {};
        }
        return refuse(QStringLiteral("no_evidence"),
                      QStringLiteral("no lookup supports an outcome yet: look up the provider first"));
    }
    return {};
}

ActionPolicy::Verdict ActionPolicy::followUp(const User &user, const ActionRecord &parent,
                                             const QList<ActionRecord> &followUps)
{
    if (!mayCall(user.role, Operation::FollowUp))
        return roleRefusal(user, Operation::FollowUp);
    if (!parent.parentId.isEmpty())
        return refuse(QStringLiteral("not_original_action"),
                      QStringLiteral("this is a follow-up of %1; adjust that action instead").arg(parent.parentId));
    if (!isTerminal(parent.state))
        return refuse(QStringLiteral("outcome_unknown"),
                      QStringLiteral("the action is %1: its outcome is not known yet").arg(toWire(parent.state)));
    for (const ActionRecord &followUp : followUps) {
        if (!isTerminal(followUp.state))
            return refuse(QStringLiteral("outcome_unknown"),
                          QStringLiteral("follow-up %1 is %2: its outcome is not known yet")
                              .arg(followUp.id, toWire(followUp.state)));
    }
    return {};
}

ActionPolicy::Verdict ActionPolicy::closeSettlement(const User &user, const ActionRecord &action,
                                                    const std::optional<Settlement> &settlement)
{
    if (!mayCall(user.role, Operation::CloseSettlement))
        return roleRefusal(user, Operation::CloseSettlement);
    if (action.state != ActionState::Completed)
        return refuse(QStringLiteral("illegal_state"),
                      QStringLiteral("only a COMPLETED action has a settlement; this one is %1").arg(toWire(action.state)));
    if (!settlement || !settlement->needsReview())
        return refuse(QStringLiteral("illegal_state"),
                      QStringLiteral("no settlement review item is open: its refund has not failed or been canceled,"
                                     " or the item was decided already"));
    return {};
}

ActionPolicy::Verdict ActionPolicy::closeDiscrepancy(const User &user, const std::optional<Discrepancy> &discrepancy)
{
    if (!mayCall(user.role, Operation::CloseDiscrepancy))
        return roleRefusal(user, Operation::CloseDiscrepancy);
    if (!discrepancy || !discrepancy->isOpen())
        return refuse(QStringLiteral("illegal_state"),
                      QStringLiteral("no discrepancy is open: the provider has shown nothing that contradicts this"
                                     " action, or it was closed already"));
    return {};
}

} // namespace cs
