#pragma once

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerresult.h"

#include "models/actionrecord.h"
#include "models/actionstate.h"
#include "models/approval.h"
#include "models/attempt.h"
#include "models/auditevent.h"
#include "models/providerlookup.h"
#include "models/reconciliation.h"
#include "models/settlement.h"
#include "models/discrepancy.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <QVariantList>

#include <memory>
#include <mutex>
#include <optional>

class QSqlDatabase;

namespace cs {

class LedgerDatabase;
class TrigramSample;

// The ledger's one read path: the queue (filtered by state, text, requester; sorted, keyset
// paged), per-requester counts, one action's record and history (attempts, lookups, approvals,
// reconciliations, audit, follow-ups), the whole audit log and its verification. Runs on the
// ledger's per-thread connections; never takes the write lock (WAL). Thread-safe.
class ActionReader
{
public:
    // One row of the list: the record plus what the list shows about its history.
    struct Summary
    {
        ActionRecord record;
        int attemptCount = 0;
        QDateTime lastEventAt;       // newest audit event of the action (updated_at if none)
        QDateTime firstAttemptAt;    // null until the first attempt
        qint64 lastEventAtMs = 0;    // as stored (0: no audit event)
        qint64 amountScaled = 0;     // the amount in 1/10,000 of the major unit (migration 5)
        qint64 sortValue = 0;        // in a list: this row's value of the list's sort key (cursor;
                                     // for Amount the amount in minor units, beside its currency)
        int possibleDuplicates = 0;  // list() and summaries(): possibleDuplicatesIn's count, when read
        QString settlementStatus;    // issue 18: a COMPLETED action's refund status (empty: none)
        bool settlementReview = false; // its refund failed after COMPLETED and the review item is open
        bool discrepancyOpen = false;  // issue 33: the provider holds what contradicts it, unclosed
    };

    // What a list is ordered by; ties by created_at, then id, in the same direction.
    enum class SortKey {
        CreatedAt,    // the default, descending: newest first
        Amount,       // currency (its code), then amount in minor units, both in the list's direction
        AttemptCount,
        LastEventAt,
    };

    struct ListQuery
    {
        SortKey sort = SortKey::CreatedAt;
        bool descending = true;
        QList<ActionState> states;   // empty: all
        QString text;                // case-insensitive substring of id, target id, business_reference,
                                     // requested_by, client_reference; or, when it is a decimal number
                                     // (Money::searchedTenThousandths), the action's amount in its own
                                     // currency (amount_scaled); empty: none
        QString requestedBy;         // exact; empty: anyone
        bool settlementReview = false; // only actions whose settlement review item is open (issue 18)
        bool discrepancyOpen = false;  // only actions with an open discrepancy (issue 33)
        bool awaitingDecision = false; // leave out PENDING actions approved and queued for the executor
        bool afterCursor = false;    // keyset position: rows strictly after ([currency,] sortValue,
                                     // createdAtMs, id) in the list's order
        QString cursorCurrency;      // only when sorting by amount
        qint64 cursorSortValue = 0;  // ignored when sorting by created_at
        qint64 cursorCreatedAtMs = 0;
        QString cursorId;
        int limit = 50;              // 1..200 (the caller validates)

        // The keyset position after `last`, a row of a page read for this query.
        void continueAfter(const Summary &last);
    };

    struct Page
    {
        QList<Summary> rows;
        bool hasMore = false;
    };

    // Execution bookkeeping that is not part of ActionRecord.
    struct ExecutionInfo
    {
        ActionRecord record;
        QString leaseOwner;       // empty when no lease
        QDateTime leaseExpiresAt; // null when no lease
        bool reviewRequested = false;
    };

    // One requester's proposals in one window, per currency (issue 19, "the agent's record").
    struct RequesterWindow
    {
        struct PerCurrency
        {
            QString currency;  // lowercase ISO 4217
            qint64 count = 0;
            qint64 total = 0;  // minor units of currency
        };
        QDateTime since;            // UTC, inclusive
        qint64 count = 0;           // proposals created since `since`
        qint64 rejected = 0;        // of them, rejected by an approver (an approval row "rejected")
        qint64 sentToReview = 0;    // of them, in REQUIRES_REVIEW now or reconciled out of it
        QList<PerCurrency> totals;  // by currency, alphabetical
    };
    struct RequesterRecord
    {
        QString requestedBy;
        RequesterWindow today; // since 00:00 UTC of `now`'s day
        RequesterWindow week;  // since now − 7 × 24 h
    };

    // Another action that may refund the same business need as the one asked about (issue 14, "Two
    // refunds for one business need"; docs/POLICY.md "Possible duplicates").
    struct PossibleDuplicate
    {
        QString of;             // the action asked about
        Summary other;          // the other action (its possibleDuplicates not read)
        bool sameBusinessReference = false; // else: the same charge
    };

    explicit ActionReader(const LedgerDatabase &database);
    ~ActionReader();
    Q_DISABLE_COPY_MOVE(ActionReader)

    // In query.sort's order (default: newest first), keyset paged.
    LedgerResult<Page> list(const ListQuery &query) const;
    // All six states, zeros included; requestedBy empty: every action.
    LedgerResult<QMap<ActionState, qint64>> counts(const QString &requestedBy) const;
    // PENDING actions whose approval is complete (the key minted), waiting for the executor: the
    // entries of the partial index actions_queued (migration 17); requestedBy empty: every action.
    LedgerResult<qint64> queuedCount(const QString &requestedBy) const;
    // Issue 18: actions whose refund failed after COMPLETED with the review item open (the partial
    // index settlements_review); requestedBy empty: every action.
    LedgerResult<qint64> settlementReviewCount(const QString &requestedBy) const;
    // For monitoring (/metrics): settlements by state of their review item and whether they are
    // settled, at `now`: open review items, refunds not settled yet, and of those the ones whose
    // scheduled look-up is due (the partial indexes; COMPLETED actions settled long ago are not read).
    struct SettlementGauges
    {
        qint64 reviewOpen = 0;
        qint64 unsettled = 0;
        qint64 checksDue = 0;
        QDateTime oldestReviewSince; // null when none is open
    };
    LedgerResult<SettlementGauges> settlementGauges(const QDateTime &now) const;
    // Issue 33: final actions the provider contradicts (two refunds for one action, …) whose
    // discrepancy is open (the partial index discrepancies_open); requestedBy empty: every action.
    LedgerResult<qint64> discrepancyCount(const QString &requestedBy) const;
    struct DiscrepancyGauges
    {
        qint64 open = 0;
        QDateTime oldestOpenedAt; // null when none is open
    };
    LedgerResult<DiscrepancyGauges> discrepancyGauges() const;
    // The action's discrepancy (open or closed); nullopt when it has none.
    LedgerResult<std::optional<Discrepancy>> discrepancy(const QString &actionId) const;
    // Issue 18: the action's settlement with its history; nullopt when it has none (not
    // COMPLETED, or completed before the ledger followed settlements and not looked up since).
    LedgerResult<std::optional<Settlement>> settlement(const QString &actionId) const;
    // For monitoring (/metrics): per state, the oldest last change (updated_at) of an action in
    // it; states with no action are left out. A scan of each state's rows (index by state): meant
    // for the few actions waiting for a human, not for COMPLETED.
    LedgerResult<QMap<ActionState, QDateTime>> oldestChange(const QList<ActionState> &states) const;
    // CONFIRMATION_UNKNOWN actions whose next reconciliation round is due at `now` (or was never
    // scheduled), whatever their lease: the reconciler's backlog.
    LedgerResult<qint64> reconcileBacklog(const QDateTime &now) const;
    // Summaries of the given actions, in the given order (unknown ids are left out).
    LedgerResult<QList<Summary>> summaries(const QStringList &ids) const;
    // Every action whose target is one of `targetIds` (a charge, its payment intent: the charge
    // view, docs/API.md "The charge view"), REJECTED ones included: the newest `limit` of them,
    // returned oldest first (created_at, then id), hasMore when older ones were left out. One
    // probe of actions_by_target per id; possible duplicates counted as in list().
    LedgerResult<Page> onTargets(const QStringList &targetIds, int limit) const;
    LedgerResult<Summary> summary(const QString &id) const; // NotFound for an unknown id
    // The newest audit seq (0 for an empty log).
    LedgerResult<qint64> latestAuditSeq() const;
    // requested_by of each given action (for filtering the event stream).
    LedgerResult<QHash<QString, QString>> requesters(const QStringList &ids) const;

    // Issue 18, matching a provider event that carries no countersign_action_id: the action whose
    // approval minted `idempotencyKey` (approvals_unique_key), else the COMPLETED action whose
    // settlement follows refund `refundId` (settlements_by_refund); empty when neither.
    LedgerResult<QString> actionForProviderRefs(const QString &idempotencyKey, const QString &refundId) const;

    // The id of the action `requestedBy` proposed under `clientReference`; empty when none.
    LedgerResult<QString> proposalId(const QString &requestedBy, const QString &clientReference) const;
    // What `requestedBy` proposed today and in the last 7 days, at `now`: one statement over the
    // index actions_by_requested_by (requested_by, created_at); each row's rejection and review
    // are probes of the approvals' and reconciliations' primary keys.
    LedgerResult<RequesterRecord> requesterRecord(const QString &requestedBy, const QDateTime &now) const;

    // The possible duplicates of one action, oldest first: computed when read, never stored.
    LedgerResult<QList<PossibleDuplicate>> possibleDuplicates(const QString &actionId) const;
    // How many possible duplicates each given action has (ids without any are left out): one
    // statement for a whole page.
    LedgerResult<QHash<QString, int>> possibleDuplicateCounts(const QStringList &ids) const;
    // The rule itself, on the caller's connection (inside a write, e.g. ApprovalStore's check): for
    // each of `ids`, every other action, not REJECTED, whose charge is the same (its target, or
    // the charge a FOUND charge snapshot maps a payment intent to, either way round) or whose
    // non-empty business_reference is the same — leaving out the action's own follow-up chain
    // (its parent, its follow-ups, its parent's other follow-ups). Oldest first per action. Each
    // step is an index probe (actions_by_target, actions_by_business_reference,
    // charge_snapshots_by_target, the snapshots' primary key).
    static LedgerError possibleDuplicatesIn(QSqlDatabase &db, const QStringList &ids,
                                            QList<PossibleDuplicate> *out);
    static LedgerError possibleDuplicateCountsIn(QSqlDatabase &db, const QStringList &ids,
                                                 QHash<QString, int> *out);
    // The statement possibleDuplicateCountsIn runs for `ids` (its values appended), for the plan checks.
    static QString possibleDuplicateCountsSql(const QStringList &ids, QVariantList *values);

    // --- one action (NotFound for an unknown id where a record is returned) ----------------------
    LedgerResult<ActionRecord> action(const QString &actionId) const;
    LedgerResult<ExecutionInfo> executionInfo(const QString &actionId) const;
    LedgerResult<QList<Attempt>> attempts(const QString &actionId) const;
    LedgerResult<QList<ProviderLookup>> lookups(const QString &actionId) const;
    LedgerResult<QList<Approval>> approvals(const QString &actionId) const;
    LedgerResult<QList<Reconciliation>> reconciliations(const QString &actionId) const;
    LedgerResult<QList<AuditEvent>> audit(const QString &actionId) const;
    LedgerResult<QList<ActionRecord>> followUps(const QString &actionId) const; // oldest first
    // The whole log in seq order, `limit` rows after afterSeq.
    LedgerResult<QList<AuditEvent>> auditLog(qint64 afterSeq = 0, int limit = 1000) const;
    // AuditChain::verify over the whole log (invariant 9).
    LedgerResult<AuditChain::Verification> verifyAudit() const;

    // How many actions the search's trigram sample reads, and how long it is kept.
    static constexpr int kTrigramSampleRows = 1000;
    static constexpr qint64 kTrigramSampleMaxAgeMs = 60'000;

    // Reads the trigram sample (searchterms.h) now, on the calling thread: every action when the
    // ledger has at most sampleRows, else about sampleRows drawn across the whole ledger (runs of
    // 10 consecutive ids from random points of the id space: action ids are random, so these are
    // random actions, old and new alike, at the cost of sampleRows / 10 index probes). list()
    // never waits for it: it uses the sample it has (none: the whole text) and, when that is
    // missing or older than kTrigramSampleMaxAgeMs, has it read again on a background thread.
    // Only the speed of a search depends on the sample, never its rows.
    void refreshTrigramSample(int sampleRows = kTrigramSampleRows) const;
    // The sample list() uses now (null before the first read); does not ask for a newer one.
    std::shared_ptr<const TrigramSample> trigramSample() const;
    // Has the sample read on the background thread now, so that the first search after a start
    // does not go without one (countersignd serve calls it once the ledger is open). Returns at
    // once.
    void prepareSearch() const;

private:
    // trigramSample(), asking for a newer one in the background when it is missing or stale.
    std::shared_ptr<const TrigramSample> currentTrigramSample() const;

    const LedgerDatabase &m_db;
    mutable std::mutex m_sampleMutex;
    mutable std::shared_ptr<const TrigramSample> m_sample;
    mutable QElapsedTimer m_sampleAge;
    mutable bool m_sampleRefreshing = false;
    // Last: destroyed first, waiting for a refresh still running.
    mutable QThreadPool m_samplePool;
};

} // namespace cs
