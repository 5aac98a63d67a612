#pragma once

#include "models/actionrecord.h"
#include "models/actionstate.h"
#include "server/ledger/executionstore.h"
#include "server/providerclient.h"

#include <QString>

#include <optional>

namespace cs {

// The one place that maps a classified provider answer to what happens to the action
// (DESIGN.md's diagram), shared by the executor (action EXECUTING) and the reconciler's
// same-key retries (action CONFIRMATION_UNKNOWN):
//
// | answer                         | EXECUTING                 | CONFIRMATION_UNKNOWN        |
// |--------------------------------|---------------------------|-----------------------------|
// | 2xx, same amount, succeeded/pending | COMPLETED            | COMPLETED                   |
// | 2xx, other amount, currency or status, or another refund than one in hand (evidence rule)     |
// |                                | REQUIRES_REVIEW           | REQUIRES_REVIEW             |
// | definitive 4xx                 | REJECTED                  | REJECTED                    |
// | 401 / 403                      | REQUIRES_REVIEW (credentials) | REQUIRES_REVIEW         |
// | 400 idempotency_error          | REQUIRES_REVIEW, no new key | REQUIRES_REVIEW, no new key |
// | 429, 409                       | stays, same key after a wait | stays, rescheduled       |
// | timeout, reset, 5xx, ambiguous | CONFIRMATION_UNKNOWN      | stays, rescheduled          |
class AttemptPolicy
{
public:
    enum class Next {
        Done,         // the trigger (if any) settles it
        WaitAndRetry, // 429 / 409: same key again after Retry-After or backoff
        Reconcile,    // unknown: the reconciler looks it up
    };
    struct Decision
    {
        std::optional<Trigger> trigger;
        QString reason;
        Next next = Next::Done;
    };

    // inHand: what the ledger already holds for the action (models/evidencerule.h); an answer that
    // names another refund than one in hand is contradictory (two refunds for one action).
    static Decision decide(const ActionRecord &action, const RefundOutcome &outcome, ActionState current,
                           const QList<RefundSighting> &inHand = {});
    static ExecutionStore::AttemptResult attemptResult(const RefundOutcome &outcome);
};

} // namespace cs
