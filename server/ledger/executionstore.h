#pragma once

#include "server/ledger/ledgerresult.h"

#include "models/actionrecord.h"
#include "models/actionstate.h"
#include "models/attempt.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>
#include <vector>

namespace cs {

class LedgerDatabase;

// Execution (DESIGN.md invariants 3, 4, 6, 8): atomic claims with leases, attempt rows committed
// before a request may leave the process, same-key retries, finishing attempts, the executor's
// group commit, and the recovery of expired leases. What the Executor and the Reconciler's
// same-key retries need; nothing else. Thread-safe; every mutation is one transaction with one
// audit row per action it changes.
class ExecutionStore
{
public:
    // A successful claim: the action is EXECUTING under the caller's lease and the attempt row is
    // committed (outcome open). Only now may the caller send attempt's request.
    struct Claim
    {
        ActionRecord record;
        Attempt attempt;
    };

    // What the provider answered to one attempt.
    struct AttemptResult
    {
        Attempt::Outcome outcome = Attempt::Outcome::Unknown; // never Open
        int httpStatus = 0;
        QString errorCode;
        QString providerRequestId;
        QString providerObjectId;
        bool replayed = false;
        QString errorExcerpt; // truncated to 500 characters
        QString refundStatus; // the refund's status in a 2xx answer (not stored with the attempt: it
                              // starts the action's settlement, settlementrows.h)
    };

    struct FinishedAttempt
    {
        ActionRecord record;
        Attempt attempt;
        bool escalated = false; // review_requested turned the outcome into REQUIRES_REVIEW
    };

    struct FinishRequest
    {
        QString actionId;
        int seq = 0;
        AttemptResult result;
        std::optional<Trigger> trigger;
        QString reason;
        QString executorId;
    };
    struct Batch
    {
        QList<FinishRequest> finishes;      // applied first, in order
        QStringList claimFor;               // then one claimNext per executor id, in order
        std::chrono::milliseconds leaseDuration{0};
    };
    struct BatchOutcome
    {
        // One per finish, in order: exactly what finishAttempt would have returned.
        std::vector<LedgerResult<FinishedAttempt>> finished;
        // One per claimFor entry, in order (the same executor may ask more than once): empty when
        // nothing was left to claim or the claim was refused, with the reason in claimErrors.
        std::vector<std::optional<Claim>> claims;
        std::vector<LedgerError> claimErrors;
    };

    explicit ExecutionStore(LedgerDatabase &database) : m_db(database) {}

    // The statement claimNext reads its next `fetch` candidates with (oldest approved PENDING
    // first, none that a pause in force covers: PauseStore), without its row lock; public so that
    // tests can check its plan on both engines.
    static QString candidateSql(bool postgres, int fetch);

    bool isOpen() const;
    // Closes the calling thread's session and forgets its prepared statements. A thread that used
    // the ledger calls it before it ends, when the ledger may be destroyed right after the thread
    // is joined: otherwise the thread's statements outlive their driver (QPSQL crashes then).
    void releaseThread();
    // "Now" as the ledger stamps it: key windows are measured with it so they agree with attempt
    // start times.
    QDateTime currentTime() const;

    // Atomically: an approved PENDING action -> EXECUTING under executorId's lease, with its open
    // attempt row (same key and fingerprint) committed in the same transaction. If the action's
    // request no longer matches what the current approval signed, it is stopped for review
    // instead (invariant 10): claim() then fails with Conflict, claimNext() moves on. Nothing a
    // pause in force covers is claimed (PauseStore): claimNext() leaves it PENDING and moves on,
    // claim() fails with Conflict.
    LedgerResult<std::optional<Claim>> claimNext(const QString &executorId, std::chrono::milliseconds leaseDuration);
    LedgerResult<Claim> claim(const QString &actionId, const QString &executorId,
                              std::chrono::milliseconds leaseDuration);

    // Leases on CONFIRMATION_UNKNOWN actions, for the reconciler's same-key retries and lookups.
    // acquireLease refuses while another live lease exists (Conflict); an expired holder's open
    // attempt is finished as Unknown first.
    LedgerResult<ActionRecord> acquireLease(const QString &actionId, const QString &executorId,
                                            std::chrono::milliseconds leaseDuration);
    // EXECUTING or CONFIRMATION_UNKNOWN, live lease held by executorId (else LeaseLost).
    LedgerResult<ActionRecord> renewLease(const QString &actionId, const QString &executorId,
                                          std::chrono::milliseconds leaseDuration);
    // Not while EXECUTING or while an attempt is open.
    LedgerResult<ActionRecord> releaseLease(const QString &actionId, const QString &executorId);

    // A new open attempt with the action's SAME key and fingerprint (never a new key), under a live
    // lease held by executorId, when no attempt is open. CONFIRMATION_UNKNOWN (same-key retry),
    // or EXECUTING after an attempt finished without a transition (429, key in use).
    LedgerResult<Attempt> beginRetryAttempt(const QString &actionId, const QString &executorId);

    // Finishes the open attempt `seq` and applies `trigger` (if any) in the same transaction.
    // LeaseLost, recording nothing, if executorId no longer holds a live lease. If a changed
    // resubmission requested review meanwhile and the result is not terminal, the action goes to
    // REQUIRES_REVIEW instead. ProviderSucceeded needs outcome Succeeded, ProviderRejected needs
    // outcome Rejected (a timeout never becomes REJECTED: invariant 6). The lease is released when
    // the state changes.
    LedgerResult<FinishedAttempt> finishAttempt(const QString &actionId, int seq, const AttemptResult &result,
                                                std::optional<Trigger> trigger, const QString &reason,
                                                const QString &executorId);

    // Group commit: many executors' steps in one transaction (one fsync; the executor's committer
    // calls it). Steps are isolated: if one is refused (LeaseLost, Conflict, ...), the batch is run
    // again with a savepoint around each step, so the refused one changes nothing, does not affect
    // the others and gets the same error finishAttempt / claimNext would give. An error for the
    // whole batch (Busy, Storage at commit) means nothing was written.
    LedgerResult<BatchOutcome> commitBatch(const Batch &batch);

    // Generic transition for the triggers with no dedicated operation: StopForReview (e.g. the key
    // window passed) and OutcomeUnknown (an executor handing over to the reconciler). Refused while
    // an attempt is open. Other triggers need their evidence and go through claim, reject,
    // finishAttempt, EvidenceStore::recordLookup or EvidenceStore::reconcile.
    LedgerResult<ActionRecord> transition(const QString &actionId, Trigger trigger, const QString &actor,
                                          const QString &reason,
                                          std::optional<qint64> expectedStateVersion = std::nullopt);

    // EXECUTING with an expired lease -> CONFIRMATION_UNKNOWN (REQUIRES_REVIEW if review was
    // requested), open attempts finished as Unknown ("executor lease expired (process died?)"),
    // never failed or rejected; CONFIRMATION_UNKNOWN with an expired lease -> open attempts
    // Unknown, lease cleared. Returns how many actions it touched.
    LedgerResult<int> recoverExpiredLeases();
    // Approval expiry's sweep (ApprovalStore::expireDue): up to `limit` unsent approvals past
    // their expiry recorded as expired; how many. The claim checks expiry itself as well.
    LedgerResult<int> expireDueApprovals(int limit = 100);

private:
    LedgerDatabase &m_db;
};

} // namespace cs
