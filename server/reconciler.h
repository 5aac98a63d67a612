#pragma once

#include "server/backoff.h"
#include "server/executionconfig.h"
#include "server/ledger/actionreader.h"
#include "server/ledger/evidencestore.h"
#include "server/ledger/executionstore.h"
#include "server/providerclient.h"

#include <QString>

#include <functional>

namespace cs {

class Ledger;

// Resolves CONFIRMATION_UNKNOWN actions from provider evidence, one step at a time:
//
//   1. lease the action, count the round (persisted first, so crash loops stay bounded);
//   2. look it up by metadata (and by a refund id an attempt already named);
//   3. FOUND, one refund, same amount and currency, succeeded|pending -> COMPLETED;
//      FOUND failed|canceled -> REJECTED; several refunds, another amount, another status ->
//      REQUIRES_REVIEW (contradictory);
//   4. NOT_FOUND (or a failed lookup) while now < first attempt start + key window - margin ->
//      a same-key retry with the same body (a new attempt row first). The provider replays a
//      committed answer, so lookup lag never becomes a duplicate. Its answer decides as in the
//      executor; 429, 409 and unknown answers reschedule with backoff and jitter;
//   5. outside the window, after an ambiguous charge_already_refunded, or after
//      maxReconcileTries rounds -> never a send, only REQUIRES_REVIEW with the reason.
//
// Every lookup is stored with its result; every state change writes an audit row saying why.
// Thread-safe: several workers (and processes) may call it at once; the ledger's lease makes
// sure only one works on an action.
class Reconciler
{
public:
    enum class Step {
        NothingDue,   // no due action this worker could lease
        Busy,         // leased elsewhere, or resolved meanwhile: nothing done
        Completed,    // -> COMPLETED
        Rejected,     // -> REJECTED
        Review,       // -> REQUIRES_REVIEW
        StillUnknown, // still CONFIRMATION_UNKNOWN, next round scheduled
        Settlement,   // nothing CONFIRMATION_UNKNOWN was due: a scheduled look-up of an unsettled
                      // refund of a COMPLETED action was made (issue 18)
        Failed,       // a ledger error; the lease expires and a later round tries again
    };
    struct StepResult
    {
        Step step = Step::NothingDue;
        QString actionId;
        QString reason;
    };
    using ChangeObserver = std::function<void(const ActionRecord &)>;

    // The ledger's pieces a reconciler works with: leases and same-key retries, evidence and the
    // schedule, reads.
    struct Stores
    {
        ExecutionStore &execution;
        EvidenceStore &evidence;
        const ActionReader &reader;
    };
    static Stores storesOf(Ledger &ledger);

    Reconciler(Stores stores, ProviderClient &provider, ExecutionConfig config);

    // Set before use: called (from the calling thread) after each state change it makes.
    void setChangeObserver(ChangeObserver observer) { m_observer = std::move(observer); }

    // One round on the earliest due CONFIRMATION_UNKNOWN action that this worker can lease; when
    // none is due, followNextSettlement().
    StepResult reconcileNextDue(const QString &workerId);
    // Settlement after COMPLETED (issue 18): the scheduled look-up of the earliest due refund that
    // is not settled yet (pending, requires_action): retrieved by its id, stored as a lookup (which
    // moves the settlement, settlementrows.h), the next look-up scheduled with backoff
    // (ExecutionConfig::settlementCheck*) unless it settled. Webhooks usually come first; this is
    // the fallback. NothingDue when no look-up is due.
    StepResult followNextSettlement(const QString &workerId);
    // One round on this action, if it is CONFIRMATION_UNKNOWN and not leased by someone else.
    StepResult reconcile(const QString &actionId, const QString &workerId);

    // "Look up now", for whoever asks (a supervisor through the API, a script): looks the action
    // up by metadata and stores the lookup with its result. For a CONFIRMATION_UNKNOWN action
    // conclusive evidence is applied (COMPLETED / REJECTED) unless an attempt is in flight.
    // Blocks on the provider: call it off the HTTP server's thread.
    LedgerResult<EvidenceStore::RecordedLookup> lookUpNow(const QString &actionId, const QString &askedBy);

    static QString windowText(const QDateTime &firstStart, const ExecutionConfig &config);

private:
    StepResult round(const ActionRecord &leased, const QString &workerId, int tries);
    StepResult applyEvidence(const ActionRecord &record, const ProviderLookup &lookup, const QStringList &matches,
                             const QString &context);
    StepResult sameKeyRetry(const ActionRecord &record, const QString &workerId, int tries, const QDateTime &windowEnd);
    StepResult stopForReview(const ProviderLookup &lookup, const QString &reason);
    StepResult recordAndReschedule(const ActionRecord &record, const ProviderLookup &lookup, const QString &workerId,
                                   int tries, std::chrono::milliseconds retryAfter, const QString &note);
    StepResult fromRecorded(const QString &actionId, const LedgerResult<EvidenceStore::RecordedLookup> &recorded,
                            const QString &reason);
    void release(const QString &actionId, const QString &workerId);
    void notify(const ActionRecord &record) const;

    ExecutionStore &m_execution;
    EvidenceStore &m_evidence;
    const ActionReader &m_reader;
    ProviderClient &m_provider;
    ExecutionConfig m_config;
    Backoff m_backoff;
    ChangeObserver m_observer;
};

QString toString(Reconciler::Step step);

} // namespace cs
