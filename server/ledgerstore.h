#pragma once

#include "clock.h"
#include "ledgererror.h"
#include "ledgerresult.h"

#include "actionrecord.h"
#include "actionstate.h"
#include "approval.h"
#include "attempt.h"
#include "auditevent.h"
#include "providerlookup.h"
#include "reconciliation.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QMutex>
#include <QSqlDatabase>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace cs {

class LedgerConnections;

// The durable action ledger (DESIGN.md): every action, approval, attempt, lookup, reconciliation
// and audit entry, on SQLite through Qt SQL. Its job is that no refund is executed twice: the
// attempt row is committed before a request may leave the process, a claim is atomic across
// threads and processes, and the payload and key of an action that was sent can never change —
// enforced by triggers in the database as well as here.
//
// Thread-safe: each thread gets its own named connection ("countersign.ledger.<store>.<thread>"),
// removed when the thread exits or the store is destroyed. Destroy the store only when no thread
// is inside one of its calls. Several processes may open the same file: every write runs in a
// BEGIN IMMEDIATE transaction (processes serialize instead of failing midway; SQLITE_BUSY is
// retried a bounded number of times), and reads never take the write lock (WAL).
//
// Every mutation is one transaction that writes one audit row (actor, event, reason, before/after
// JSON, hash-chained) and bumps state_version when it changes the action row. State changes go
// only through StateMachine::apply. Mutations that take an expectedStateVersion refuse a stale
// one with LedgerError::Code::StaleVersion.
//
// Amounts are integer minor units. Timestamps are UTC with millisecond precision, stored as
// BIGINT ms since the epoch; "now" comes from Options::clock.
//
// Writers of one process queue on a mutex (not in SQLite's busy handler); statements are
// prepared once per thread and connection and reused.
class LedgerStore
{
public:
    struct Options
    {
        Clock clock;                          // null: the system clock (UTC)
        bool recoverExpiredLeasesOnOpen = true;
        int busyTimeoutMs = 5000;             // SQLite busy_timeout of every connection
        int busyRetries = 5;                  // whole-transaction retries after SQLITE_BUSY
    };

    // What an agent proposes. Amount in minor units of currency (case-insensitive ISO-4217).
    struct ProposalInput
    {
        QString kind = QStringLiteral("refund");
        TargetType targetType = TargetType::Charge;
        QString targetId;
        QString businessReference;
        qint64 amount = 0;
        QString currency;
        QString reason;          // empty | duplicate | fraudulent | requested_by_customer
        QString clientReference; // the agent's stable reference; (requestedBy, clientReference) is unique
        QString provider;
        QString providerAccount;
        QString parentId;        // for a follow-up: an existing action; empty otherwise
        QString note;            // why, in the proposer's words: kept in the "proposed" audit event
                                 // (its reason and after.note), not part of the payload
    };

    struct ProposeResult
    {
        enum class Status {
            Created,  // a new PENDING action
            Existing, // same (requestedBy, clientReference) and same payload: nothing written
            Conflict, // same reference, changed payload: stored record unchanged, conflict
                      // recorded, execution stopped (the API answers 409)
        };
        Status status = Status::Created;
        ActionRecord record;            // as stored after the call
        QJsonObject storedPayload;      // the payload compared against (the original proposal)
        QJsonObject conflictingPayload; // for Conflict: what was resubmitted
        bool reviewRequested = false;   // for Conflict on an action in flight: escalates when it finishes
    };

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
    };

    struct FinishedAttempt
    {
        ActionRecord record;
        Attempt attempt;
        bool escalated = false; // review_requested turned the outcome into REQUIRES_REVIEW
    };

    struct RecordedLookup
    {
        ActionRecord record;
        ProviderLookup lookup; // with its seq and time as stored
    };

    struct Reconciled
    {
        ActionRecord record;
        Reconciliation reconciliation;
    };

    // Execution bookkeeping that is not part of ActionRecord.
    struct ExecutionInfo
    {
        QString leaseOwner;       // empty when no lease
        QDateTime leaseExpiresAt; // null when no lease
        bool reviewRequested = false;
    };

    // A changed resubmission under an existing (requested_by, client_reference).
    struct ResubmissionConflict
    {
        QString actionId;
        int seq = 0;
        QString submittedBy;
        QDateTime at;
        QJsonObject storedPayload;
        QJsonObject conflictingPayload;
    };

    struct ListQuery
    {
        QList<ActionState> states; // empty: all
        QString text;              // substring of id, target_id, business_reference, requested_by,
                                   // client_reference (case-insensitive); empty: no text filter
        QString cursor;            // from Page::nextCursor; empty: first page
        int limit = 50;            // clamped to 1..200
    };

    // Newest first (created_at, then id, descending); keyset paging, stable under inserts.
    struct Page
    {
        QList<ActionRecord> records;
        QString nextCursor; // empty on the last page
    };

    struct AuditVerification
    {
        bool ok = true;
        qint64 rowsChecked = 0;
        qint64 firstBrokenSeq = 0; // 0 when ok
        QString reason;
    };

    LedgerStore();
    ~LedgerStore();
    Q_DISABLE_COPY_MOVE(LedgerStore)

    // Opens (creating if needed) the ledger file, migrates it to the latest schema and, unless
    // disabled, recovers expired leases. Call once, before any other call.
    LedgerError open(const QString &path);
    LedgerError open(const QString &path, const Options &options);
    bool isOpen() const { return m_connections != nullptr; }
    QString path() const;
    int schemaVersion() const;

    // --- Mutations (each one transaction) ----------------------------------------------------

    LedgerResult<ProposeResult> propose(const ProposalInput &input, const QString &requestedBy);

    // PENDING only, never by the requester (four-eyes), never once an attempt exists. Appends
    // approval version n+1 with a freshly minted key signing the current fingerprint.
    LedgerResult<ActionRecord> approve(const QString &actionId, const QString &approver,
                                       const QString &note, qint64 expectedStateVersion);
    // PENDING -> REJECTED, with a rejected approval row.
    LedgerResult<ActionRecord> reject(const QString &actionId, const QString &who,
                                      const QString &note, qint64 expectedStateVersion);
    // PENDING with no attempt: new amount/reason, fingerprint recomputed, key cleared (a new
    // approval is needed and mints a fresh key).
    LedgerResult<ActionRecord> amendBeforeSending(const QString &actionId, const QString &who,
                                                  qint64 newAmount, const QString &newReason,
                                                  qint64 expectedStateVersion);

    // Atomically: an approved PENDING action -> EXECUTING under executorId's lease, with its open
    // attempt row (same key and fingerprint) committed in the same transaction. If the action's
    // request no longer matches what the current approval signed, it is stopped for review
    // instead (invariant 10): claim() then fails with Conflict, claimNext() moves on.
    LedgerResult<std::optional<Claim>> claimNext(const QString &executorId,
                                                 std::chrono::milliseconds leaseDuration);
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
    LedgerResult<FinishedAttempt> finishAttempt(const QString &actionId, int seq,
                                                const AttemptResult &result,
                                                std::optional<Trigger> trigger,
                                                const QString &reason, const QString &executorId);

    // --- Group commit: many executors' steps in one transaction (one fsync) -------------------

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
    // One transaction for all of it (the executor's committer calls it). Steps are isolated: if
    // one is refused (LeaseLost, Conflict, ...), the batch is run again with a savepoint around
    // each step, so the refused one changes nothing, does not affect the others and gets the same
    // error finishAttempt / claimNext would give. An error for the whole batch (Busy, Storage at
    // commit) means nothing was written.
    LedgerResult<BatchOutcome> commitBatch(const Batch &batch);

    // Appends lookup seq n+1 (lookup.seq and lookup.at are assigned here) and optionally applies
    // ProviderSucceeded (FOUND, status succeeded|pending), ProviderRejected (FOUND, status
    // failed|canceled — never on NOT_FOUND) or StopForReview. A transition is refused while an
    // attempt is open (Conflict): record the lookup without one.
    LedgerResult<RecordedLookup> recordLookup(const ProviderLookup &lookup, std::optional<Trigger> trigger,
                                              const QString &reason);

    // Generic transition for the triggers with no dedicated operation: StopForReview (e.g. the key
    // window passed) and OutcomeUnknown. Refused while an attempt is open. Other triggers need
    // their evidence and go through claim, reject, finishAttempt, recordLookup or reconcile.
    LedgerResult<ActionRecord> transition(const QString &actionId, Trigger trigger,
                                          const QString &actor, const QString &reason,
                                          std::optional<qint64> expectedStateVersion = std::nullopt);

    // REQUIRES_REVIEW only, with a lookup of this action as evidence. Committed needs a FOUND
    // lookup with status succeeded|pending; NotCommitted needs a NOT_FOUND lookup, or a FOUND one
    // with status failed|canceled, taken after the last attempt started.
    LedgerResult<Reconciled> reconcile(const QString &actionId, const QString &supervisor,
                                       Reconciliation::Outcome outcome, int evidenceLookupSeq,
                                       const QString &note, qint64 expectedStateVersion);

    // EXECUTING with an expired lease -> CONFIRMATION_UNKNOWN (REQUIRES_REVIEW if review was
    // requested), open attempts finished as Unknown ("executor lease expired (process died?)"),
    // never failed or rejected; CONFIRMATION_UNKNOWN with an expired lease -> open attempts
    // Unknown, lease cleared. Returns how many actions it touched.
    LedgerResult<int> recoverExpiredLeases();

    // --- Reads (never take the write lock) ---------------------------------------------------

    LedgerResult<ActionRecord> action(const QString &actionId) const;
    LedgerResult<ExecutionInfo> executionInfo(const QString &actionId) const;
    LedgerResult<QList<Attempt>> attempts(const QString &actionId) const;
    LedgerResult<QList<ProviderLookup>> lookups(const QString &actionId) const;
    LedgerResult<QList<Approval>> approvals(const QString &actionId) const;
    LedgerResult<QList<Reconciliation>> reconciliations(const QString &actionId) const;
    LedgerResult<QList<AuditEvent>> audit(const QString &actionId) const;
    // The whole log in seq order, `limit` rows after afterSeq.
    LedgerResult<QList<AuditEvent>> auditLog(qint64 afterSeq = 0, int limit = 1000) const;
    LedgerResult<QList<ResubmissionConflict>> conflicts(const QString &actionId) const;
    LedgerResult<QList<ActionRecord>> followUps(const QString &actionId) const;
    LedgerResult<Page> list(const ListQuery &query) const;
    LedgerResult<QMap<ActionState, qint64>> countsByState() const; // all six states, zeros included

    // Recomputes the hash chain with AuditEvent::chainHash and reports the first row whose seq,
    // prev_hash or hash does not match. (A truncated tail is not detectable by a chain alone.)
    LedgerResult<AuditVerification> verifyAudit() const;

    // --- Execution bookkeeping (migration 2): reconciler schedule, webhook events ---------------

    struct ReconcileSchedule
    {
        QString actionId;
        int tries = 0;         // reconciliation rounds started so far
        QDateTime nextCheckAt; // null: no row yet, due now
        QString note;          // why the next check is then
        QDateTime updatedAt;
    };

    // CONFIRMATION_UNKNOWN actions that no live lease holds and whose next check is due (no
    // schedule row, or next_check_at <= now), earliest first. A read.
    LedgerResult<QList<ActionRecord>> dueForReconciliation(int limit = 16) const;
    LedgerResult<ReconcileSchedule> reconcileSchedule(const QString &actionId) const;
    // Upserts the action's schedule row. Bookkeeping, not a state change, so no audit row: every
    // decision it leads to writes its own.
    LedgerError scheduleReconciliation(const QString &actionId, int tries, const QDateTime &nextCheckAt,
                                       const QString &note);

    struct WebhookEvent
    {
        QString eventId;     // "evt_…", unique
        QString type;        // "refund.created", ...
        QString actionId;    // what the event named (metadata.countersign_action_id); may be empty
        QString disposition; // what was done with it: "lookup", "ignored", ...
        QDateTime receivedAt; // assigned here
    };
    struct WebhookRecorded
    {
        bool duplicate = false;               // the event id was already handled: nothing written
        std::optional<RecordedLookup> lookup; // when a lookup was given and recorded
    };
    // One transaction: remembers event.eventId and, if given, records `lookup` (with its optional
    // trigger, under the same rules as recordLookup). A known event id writes nothing.
    LedgerResult<WebhookRecorded> recordWebhookEvent(const WebhookEvent &event,
                                                     const std::optional<ProviderLookup> &lookup,
                                                     std::optional<Trigger> trigger, const QString &reason);
    LedgerResult<std::optional<WebhookEvent>> webhookEvent(const QString &eventId) const;

    // "Now" as the ledger stamps it (Options::clock, ms precision). Key windows and schedules are
    // measured with it so they agree with attempt start times.
    QDateTime currentTime() const { return now(); }

private:
    using WriteBody = std::function<LedgerError(QSqlDatabase &db, const QDateTime &now)>;
    using ReadBody = std::function<LedgerError(QSqlDatabase &db)>;

    QDateTime now() const;
    LedgerError write(const char *operation, const WriteBody &body);
    LedgerError read(const ReadBody &body) const;

    Options m_options;
    std::unique_ptr<LedgerConnections> m_connections;
    // Writers of this process queue here instead of in SQLite's busy handler, which sleeps in
    // steps of milliseconds while the lock is free again after a fraction of one.
    QMutex m_writeMutex;
    int m_schemaVersion = 0;
};

} // namespace cs
