#pragma once

#include "server/ledger/ledgerresult.h"

#include "models/actionrecord.h"
#include "models/actionstate.h"
#include "models/providerlookup.h"
#include "models/reconciliation.h"

#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

class LedgerDatabase;

// Evidence (DESIGN.md): provider lookups and what they prove, a supervisor's reconciliation of a
// REQUIRES_REVIEW action, webhook events, and the reconciler's schedule. What a status proves is
// models/refundstatus.h; this store refuses a transition its evidence does not support. Used by
// the Reconciler, the WebhookReceiver and the API's look-up and reconcile. Thread-safe.
class EvidenceStore
{
public:
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

    struct ReconcileSchedule
    {
        QString actionId;
        int tries = 0;         // reconciliation rounds started so far
        QDateTime nextCheckAt; // null: no row yet, due now
        QString note;          // why the next check is then
        QDateTime updatedAt;
    };

    struct WebhookEvent
    {
        QString eventId;      // "evt_…", unique
        QString type;         // "refund.created", ...
        QString actionId;     // what the event named (metadata.countersign_action_id); may be empty
        QString disposition;  // what was done with it: "lookup", "ignored", ...
        QDateTime receivedAt; // assigned here
    };
    struct WebhookRecorded
    {
        bool duplicate = false;               // the event id was already handled: nothing written
        std::optional<RecordedLookup> lookup; // when a lookup was given and recorded
    };

    explicit EvidenceStore(LedgerDatabase &database) : m_db(database) {}

    // "Now" as the ledger stamps it (schedules are measured with it).
    QDateTime currentTime() const;

    // Appends lookup seq n+1 (lookup.seq and lookup.at are assigned here) and optionally applies
    // ProviderSucceeded (FOUND, a status that proves committed), ProviderRejected (FOUND, a status
    // that proves not committed — never on NOT_FOUND) or StopForReview. A transition is refused
    // while an attempt is open (Conflict): record the lookup without one.
    LedgerResult<RecordedLookup> recordLookup(const ProviderLookup &lookup, std::optional<Trigger> trigger,
                                              const QString &reason);

    // REQUIRES_REVIEW only, with a lookup of this action as evidence. Committed needs a FOUND
    // lookup whose status proves committed; NotCommitted needs a NOT_FOUND lookup, or a FOUND one
    // whose status proves not committed, taken after the last attempt started.
    LedgerResult<Reconciled> reconcile(const QString &actionId, const QString &supervisor,
                                       Reconciliation::Outcome outcome, int evidenceLookupSeq, const QString &note,
                                       qint64 expectedStateVersion);

    // One transaction: remembers event.eventId and, if given, records `lookup` (with its optional
    // trigger, under the same rules as recordLookup). A known event id writes nothing.
    LedgerResult<WebhookRecorded> recordWebhookEvent(const WebhookEvent &event,
                                                     const std::optional<ProviderLookup> &lookup,
                                                     std::optional<Trigger> trigger, const QString &reason);
    LedgerResult<std::optional<WebhookEvent>> webhookEvent(const QString &eventId) const;

    // CONFIRMATION_UNKNOWN actions that no live lease holds and whose next check is due (no
    // schedule row, or next_check_at <= now), earliest first. A read.
    LedgerResult<QList<ActionRecord>> dueForReconciliation(int limit = 16) const;
    LedgerResult<ReconcileSchedule> reconcileSchedule(const QString &actionId) const;
    // Upserts the action's schedule row. Bookkeeping, not a state change, so no audit row: every
    // decision it leads to writes its own.
    LedgerError scheduleReconciliation(const QString &actionId, int tries, const QDateTime &nextCheckAt,
                                       const QString &note);

private:
    LedgerDatabase &m_db;
};

} // namespace cs
