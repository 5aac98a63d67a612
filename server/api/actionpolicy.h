#pragma once

#include "server/api/role.h"

#include "models/actionrecord.h"
#include "models/approval.h"
#include "models/attempt.h"
#include "models/providerlookup.h"
#include "models/settlement.h"
#include "models/discrepancy.h"

#include <QList>
#include <QString>

#include <optional>

namespace cs {

// Who may do what (docs/API.md, "Role × endpoint matrix") and the domain rules a decision must
// pass, in one place: the handlers refuse with these verdicts and GET /actions/{id} shows them as
// `permissions`, so the console's advice and the server's answer cannot drift apart.
class ActionPolicy
{
public:
    enum class Operation {
        Me, ListActions, GetAction, Propose, Approve, Reject, Lookup, ChargeLookup, Reconcile, FollowUp, Events,
        ReadPolicy, ReloadPolicy,      // GET /policy (every role), POST /policy/reload (admin)
        ReadExecution, PauseExecution, // the stop switch: GET /execution; pause and resume
        ReadMetrics,                   // GET /metrics (auditor, admin: a monitoring user is an auditor)
        ReadCharge,                    // GET /charges/{id}: every requester's actions on it (not agents)
        CloseSettlement,               // POST /actions/{id}/settlement/close (supervisor, admin)
        CloseDiscrepancy,              // POST /actions/{id}/discrepancy/close (supervisor, admin; issue 33)
    };

    // The role × operation matrix. Own-only roles (agents reading) are allowed here; the handler
    // then restricts them with ownOnly().
    static bool mayCall(Role role, Operation operation);
    static bool ownOnly(Role role, Operation operation);
    static QString operationName(Operation operation); // "approve", "list actions", ...

    struct Verdict
    {
        bool allowed = true;
        QString code;   // the problem code when refused: forbidden, four_eyes, illegal_state, ...
        QString reason; // for a human
    };

    // approve: role, four-eyes, PENDING, not already approved, never sent, fingerprint intact.
    static Verdict approve(const User &user, const ActionRecord &action, const QList<Attempt> &attempts,
                           const QList<Approval> &approvals);
    // reject: role, PENDING.
    static Verdict reject(const User &user, const ActionRecord &action);
    // lookup: role only (allowed in every state).
    static Verdict lookup(const User &user);
    // reconcile: role, REQUIRES_REVIEW; for the console's advice also that some lookup supports an
    // outcome (the handler checks the named lookup itself).
    static Verdict reconcile(const User &user, const ActionRecord &action, const QList<ProviderLookup> &lookups,
                             const QList<Attempt> &attempts, bool adviceOnly);
    // follow-up: role, original action, the parent and all its follow-ups COMPLETED or REJECTED.
    static Verdict followUp(const User &user, const ActionRecord &parent, const QList<ActionRecord> &followUps);
    // close a settlement review item (issue 18): role, COMPLETED, its refund failed or was canceled
    // afterwards and the item is still open.
    static Verdict closeSettlement(const User &user, const ActionRecord &action,
                                   const std::optional<Settlement> &settlement);
    // close a discrepancy (issue 33): role, an open one (two refunds at the provider for one
    // action, or a refund that contradicts a final action).
    static Verdict closeDiscrepancy(const User &user, const std::optional<Discrepancy> &discrepancy);

    // Whether `lookup` supports `committed` / `not_committed` for an action with these attempts.
    static bool supportsCommitted(const ProviderLookup &lookup);
    static bool supportsNotCommitted(const ProviderLookup &lookup, const QList<Attempt> &attempts);
    // The approval that signs the action's current request, if any.
    // Past its expiry (docs/POLICY.md) an approval is not current, recorded as expired or not yet.
    static bool hasCurrentApproval(const ActionRecord &action, const QList<Approval> &approvals,
                                   const QDateTime &now = QDateTime::currentDateTimeUtc());
};

} // namespace cs
