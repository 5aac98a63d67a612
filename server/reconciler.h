#pragma once

#include "server/backoff.h"
#include "server/executionconfig.h"
#include "server/keywindow.h"
#include "models/evidencerule.h"
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
//   2. evidence in hand first: every look-up and webhook already stored for it goes through the
//      evidence rule (models/evidencerule.h); a refund shown there resolves it, never a resend;
//   3. look it up by metadata (and by a refund id an attempt already named), judged together with
//      what is in hand: committed -> COMPLETED; not committed -> REJECTED; unsettled or
//      contradictory (two refunds, another amount, currency or charge) -> REQUIRES_REVIEW;
//   4. NOT_FOUND (or a failed lookup) while the key window is open on both clocks — ours and the
//      provider's as the Date of its answer told it (KeyWindow) -> the evidence in hand weighed
//      once more, then a same-key retry with the same body (a new attempt row first). The
//      provider replays a committed answer, so lookup lag never becomes a duplicate. Its answer
//      decides as in the executor; 429, 409 and unknown answers reschedule with backoff and jitter;
//      no answer at all (the provider's clock unknown) -> nothing sent, looked at again later;
//   5. outside the window on either clock, after an ambiguous charge_already_refunded, or after
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

    // What the verdict of the evidence rule makes of an open action: COMPLETED, REJECTED, or review
    // (unsettled, contradictory); nothing for an inconclusive one.
    static std::optional<Trigger> triggerFor(const EvidenceFinding &finding);
    // The refund the ledger holds for the action: a COMPLETED action's settlement's, else the one
    // an attempt's answer named (refundNamedByAttempts); empty when none.
    static LedgerResult<QString> refundOnRecord(const ActionReader &reader, const ActionRecord &record);

private:
    StepResult round(const ActionRecord &leased, const QString &workerId, int tries);
    StepResult applyEvidence(const ActionRecord &record, const ProviderLookup &lookup, const EvidenceFinding &finding,
                             const QString &context);
    // Evidence in hand: applies the verdict on the strength of the stored look-up it rests on.
    StepResult resolveFromStored(const ActionRecord &record, const QList<ProviderLookup> &stored,
                                 const EvidenceFinding &finding);
    // A search that listed several refunds for the action is stored as one look-up per refund (the
    // others here, before the look-up it is decided by), so the evidence in hand keeps every one.
    LedgerError recordAlsoListed(const RefundSearch &search);
    StepResult sameKeyRetry(const ActionRecord &record, const QString &workerId, int tries, const KeyWindow &window,
                            const ProviderClock &providerClock);
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
