#pragma once

#include "server/ledger/ledgerresult.h"

#include "models/actionrecord.h"
#include "models/actionstate.h"
#include "models/providerlookup.h"
#include "models/reconciliation.h"
#include "models/settlement.h"
#include "models/discrepancy.h"
#include "models/evidencerule.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <chrono>
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
        // Issue 18: the charge and refund a refund event touched, and what it said of the refund
        // ({status, amount, currency, failure_reason, event_created}); empty for other events.
        QString chargeId;
        QString refundId;
        QJsonObject summary;
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
    // `contradiction`: what the lookup shows contradicts the action's final state
    // (Reconciler::contradictsFinalState): its discrepancy is flagged in the same transaction
    // (discrepancyrows.h, issue 33).
    LedgerResult<RecordedLookup> recordLookup(const ProviderLookup &lookup, std::optional<Trigger> trigger,
                                              const QString &reason,
                                              const std::optional<EvidenceFinding> &contradiction = std::nullopt);

    // Evidence in hand (issue 33): applies `trigger` on the strength of lookup `lookupSeq` already
    // stored for the action (a webhook that arrived while an attempt was open, an earlier look-up),
    // under the same rules as recordLookup — the stored lookup must support the trigger, no attempt
    // may be open — and without asking the provider again. The audit row names the lookup; a
    // COMPLETED action's settlement starts from it. NotFound when there is no such lookup.
    LedgerResult<ActionRecord> applyStoredLookup(const QString &actionId, int lookupSeq, Trigger trigger,
                                                 const QString &actor, const QString &reason);

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
                                                     std::optional<Trigger> trigger, const QString &reason,
                                                     const std::optional<EvidenceFinding> &contradiction = std::nullopt);
    LedgerResult<std::optional<WebhookEvent>> webhookEvent(const QString &eventId) const;
    // Refund events for `chargeId` that matched no action of this ledger — refunds Countersign
    // never asked for (made in the dashboard, by another system) — newest first, at most `limit`.
    LedgerResult<QList<WebhookEvent>> unmatchedRefundEvents(const QString &chargeId, int limit = 50) const;

    // CONFIRMATION_UNKNOWN actions that no live lease holds and whose next check is due (no
    // schedule row, or next_check_at <= now), earliest first. A read.
    LedgerResult<QList<ActionRecord>> dueForReconciliation(int limit = 16) const;
    LedgerResult<ReconcileSchedule> reconcileSchedule(const QString &actionId) const;
    // Upserts the action's schedule row. Bookkeeping, not a state change, so no audit row: every
    // decision it leads to writes its own.
    LedgerError scheduleReconciliation(const QString &actionId, int tries, const QDateTime &nextCheckAt,
                                       const QString &note);

    // --- settlement after COMPLETED (issue 18, settlementrows.h) ---------------------------------
    // Lookups and webhook events of a COMPLETED action update its settlement by themselves
    // (recordLookup, recordWebhookEvent); these are the rest.

    // Closes the open review item of a refund that failed after COMPLETED without re-sending
    // anything (the customer was refunded another way, the refund is no longer owed): supervisor
    // and a note required. Conflict when no review item is open; StaleVersion on If-Match.
    struct ClosedSettlement
    {
        ActionRecord record;   // as saved (its state_version moved)
        Settlement settlement; // as closed, with its history
    };
    LedgerResult<ClosedSettlement> closeSettlement(const QString &actionId, const QString &supervisor,
                                                   const QString &note, qint64 expectedStateVersion);
    // The follow-up `followUpId` re-proposes the failed refund of `actionId`: its open review item
    // is decided (followed_up). false when there was no open item (nothing written).
    LedgerResult<bool> markSettlementFollowedUp(const QString &actionId, const QString &followUpId,
                                                const QString &decidedBy);

    // --- discrepancies (issue 33, discrepancyrows.h) ------------------------------------------
    // Closes the open discrepancy of a final action once a supervisor has dealt with it (with the
    // customer and the provider: nothing is sent or undone here); a note is required. Conflict when
    // none is open; StaleVersion on If-Match. A refund not seen before reopens it.
    struct ClosedDiscrepancy
    {
        ActionRecord record;
        Discrepancy discrepancy;
    };
    LedgerResult<ClosedDiscrepancy> closeDiscrepancy(const QString &actionId, const QString &supervisor,
                                                     const QString &note, qint64 expectedStateVersion);

    struct SettlementCheck
    {
        ActionRecord record;
        QString refundId;
        QString status;
        int checks = 0;
    };
    // Unsettled refunds whose next scheduled look-up is due, earliest first, each taken: its next
    // check moved to now + lease, so that another follower (thread, process, host) does not take it
    // meanwhile; a follower that dies leaves it due again once the lease passes.
    LedgerResult<QList<SettlementCheck>> takeDueSettlementChecks(std::chrono::milliseconds lease, int limit = 8);
    // After a scheduled look-up: counts it and sets the next one (a null time: none, e.g. settled).
    // Leaves a row that settled meanwhile without a next check.
    LedgerError scheduleSettlementCheck(const QString &actionId, int checks, const QDateTime &nextCheckAt);

private:
    LedgerDatabase &m_db;
};

} // namespace cs
