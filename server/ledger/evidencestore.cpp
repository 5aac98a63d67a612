#include "server/ledger/evidencestore.h"

#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"
#include "server/ledger/settlementrows.h"
#include "server/ledger/discrepancyrows.h"

#include "models/refundstatus.h"

#include <algorithm>

namespace cs {

using namespace sql;
using namespace rows;

namespace {

// The checks of a lookup and its trigger that need no database.
LedgerError checkLookup(const ProviderLookup &lookup, std::optional<Trigger> trigger)
{
    LedgerError error = requireText(lookup.askedBy, QStringLiteral("asked_by"));
    if (!error.ok())
        return error;
    const bool found = lookup.result == ProviderLookup::Result::Found;
    if (trigger == Trigger::ProviderSucceeded && !(found && provesCommitted(lookup.status)))
        return err(Code::Invalid, QStringLiteral("provider_succeeded needs a FOUND refund with status succeeded or"
                                                 " pending"));
    if (trigger == Trigger::ProviderRejected && !(found && provesNotCommitted(lookup.status)))
        return err(Code::Invalid, QStringLiteral("provider_rejected needs a FOUND refund with status failed or"
                                                 " canceled; NOT_FOUND is not evidence of absence"));
    if (trigger && *trigger != Trigger::ProviderSucceeded && *trigger != Trigger::ProviderRejected
        && *trigger != Trigger::StopForReview) {
        return err(Code::Invalid, QStringLiteral("%1 cannot follow a lookup").arg(toWire(*trigger)));
    }
    return {};
}

// Weighs every FOUND lookup of a final action against `onRecord` (the evidence rule) and opens its
// discrepancy when they contradict it.
LedgerError flagInHandIn(QSqlDatabase &db, const QDateTime &now, const ActionRecord &record, const QString &onRecord,
                         const QString &actor, bool *flagged)
{
    *flagged = false;
    if (!isTerminal(record.state))
        return {};
    LedgerError e;
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT %1 FROM lookups WHERE action_id = ? AND result = 'FOUND' ORDER BY seq")
                    .arg(lookupColumns()),
             {record.id}, &e))
        return e;
    QList<ProviderLookup> found;
    while (q.next())
        found << lookupFromRow(q);
    q.finish();
    const EvidenceFinding finding = judgeEvidence(record, sightingsOf(found), onRecord);
    if (!contradictsFinalState(record.state, finding))
        return {};
    return discrepancies::flagIn(db, now, record.id, finding, QStringLiteral("the evidence in hand"), actor, flagged);
}

// recordLookup's work inside the caller's write transaction.
LedgerError recordLookupIn(QSqlDatabase &db, const QDateTime &now, const ProviderLookup &lookup,
                           std::optional<Trigger> trigger, const QString &reason, EvidenceStore::RecordedLookup *out,
                           const std::optional<EvidenceFinding> &contradiction, const QString &evidenceSuffix = QString())
{
    LedgerError e;
    ActionRow row;
    if (!loadAction(db, lookup.actionId, &row, &e))
        return e;
    if (trigger == Trigger::ProviderSucceeded && lookup.amount != row.record.amount)
        return err(Code::Invalid, QStringLiteral("the refund found is %1 minor units, the action %2: stop for"
                                                 " review instead").arg(lookup.amount).arg(row.record.amount));
    if (trigger
        && !requireNoOpenAttempt(db, lookup.actionId,
                                 QStringLiteral("is in flight; record the lookup without a transition"), nullptr, &e))
        return e;
    ProviderLookup stored = lookup;
    if (!nextSeq(db, QStringLiteral("lookups"), lookup.actionId, &stored.seq, &e))
        return e;
    stored.at = now;
    stored.excerpt = truncated(lookup.excerpt, kExcerptLimit);
    Statement insert(db);
    if (!run(insert, QStringLiteral("INSERT INTO lookups (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                         .arg(lookupColumns()),
             {stored.actionId, stored.seq, toWire(stored.method), stored.askedBy, toMs(now), toWire(stored.result),
              text(stored.providerObjectId), text(stored.status), stored.amount, text(stored.currency),
              stored.httpStatus, text(stored.excerpt), text(truncated(stored.failureReason, kMaxTextField))},
             &e)) {
        return e;
    }
    ActionRow after = row;
    if (trigger)
        e = applyTrigger(after, *trigger, reason);
    if (e.ok())
        e = commitChange(db, now, row, after,
                         {stored.askedBy, QStringLiteral("lookup"), reason, QStringLiteral("lookup"), stored.toJson()},
                         trigger.has_value());
    // What the lookup says about the refund of a COMPLETED action: its settlement (issue 18) starts
    // with the evidence that completed it, or follows it from the evidence that came later.
    if (e.ok() && stored.result == ProviderLookup::Result::Found && after.record.state == ActionState::Completed) {
        const settlements::Report report{stored.providerObjectId, stored.status, stored.failureReason,
                                         settlements::sourceOf(stored), QStringLiteral("lookup %1").arg(stored.seq),
                                         stored.askedBy};
        e = row.record.state == ActionState::Completed ? settlements::observeIn(db, now, after, report)
                                                       : settlements::startIn(db, now, after, report);
    }
    if (e.ok() && contradiction) {
        bool changed = false;
        e = discrepancies::flagIn(db, now, lookup.actionId, *contradiction,
                                  QStringLiteral("lookup %1%2").arg(stored.seq).arg(evidenceSuffix), stored.askedBy,
                                  &changed);
        if (e.ok() && changed && !loadAction(db, lookup.actionId, &after, &e))
            return e;
    }
    out->record = after.record;
    out->lookup = stored;
    return e;
}

// Whether `evidence` supports the supervisor's outcome for an action whose attempts are loaded.
LedgerError checkEvidence(QSqlDatabase &db, const QString &actionId, Reconciliation::Outcome outcome,
                          const ProviderLookup &evidence)
{
    const int seq = evidence.seq;
    const bool found = evidence.result == ProviderLookup::Result::Found;
    if (outcome == Reconciliation::Outcome::Committed) {
        if (found && provesCommitted(evidence.status))
            return {};
        return err(Code::Forbidden, QStringLiteral("committed needs a FOUND lookup with status succeeded or pending;"
                                                   " lookup %1 is %2 %3")
                                        .arg(seq).arg(toWire(evidence.result), evidence.status));
    }
    const bool notFound = evidence.result == ProviderLookup::Result::NotFound;
    if (!notFound && !(found && provesNotCommitted(evidence.status)))
        return err(Code::Forbidden, QStringLiteral("not_committed needs a NOT_FOUND lookup or a FOUND one with"
                                                   " status failed or canceled; lookup %1 is %2 %3")
                                        .arg(seq).arg(toWire(evidence.result), evidence.status));
    // Absence observed before the last request was sent proves nothing about that request.
    LedgerError e;
    QList<Attempt> attempts;
    if (!loadAttempts(db, actionId, &attempts, &e))
        return e;
    if (!attempts.isEmpty() && evidence.at < attempts.constLast().startedAt)
        return err(Code::Forbidden, QStringLiteral("lookup %1 predates attempt %2: look up again")
                                        .arg(seq).arg(attempts.constLast().seq));
    return {};
}

} // namespace

QDateTime EvidenceStore::currentTime() const
{
    return m_db.now();
}

LedgerResult<EvidenceStore::RecordedLookup> EvidenceStore::recordLookup(const ProviderLookup &lookup,
                                                                        std::optional<Trigger> trigger,
                                                                        const QString &reason,
                                                                        const std::optional<EvidenceFinding> &contradiction)
{
    LedgerError error = checkLookup(lookup, trigger);
    if (!error.ok())
        return error;
    RecordedLookup out;
    error = m_db.write("recordLookup", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        return recordLookupIn(db, now, lookup, trigger, reason, &out, contradiction);
    });
    return resultOf(error, out);
}

LedgerResult<ActionRecord> EvidenceStore::applyStoredLookup(const QString &actionId, int lookupSeq, Trigger trigger,
                                                             const QString &actor, const QString &reason)
{
    LedgerError error = requireText(actor, QStringLiteral("actor"));
    if (!error.ok())
        return error;
    ActionRecord out;
    error = m_db.write("applyStoredLookup", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        Statement q(db);
        if (!run(q, QStringLiteral("SELECT %1 FROM lookups WHERE action_id = ? AND seq = ?").arg(lookupColumns()),
                 {actionId, lookupSeq}, &e))
            return e;
        if (!q.next())
            return err(Code::NotFound, QStringLiteral("%1 has no lookup %2").arg(actionId).arg(lookupSeq));
        const ProviderLookup stored = lookupFromRow(q);
        q.finish();
        e = checkLookup(stored, trigger);
        if (e.ok() && trigger == Trigger::ProviderSucceeded && stored.amount != row.record.amount)
            e = err(Code::Invalid, QStringLiteral("lookup %1 shows %2 minor units, the action %3: stop for review"
                                                  " instead").arg(lookupSeq).arg(stored.amount).arg(row.record.amount));
        if (!e.ok())
            return e;
        if (!requireNoOpenAttempt(db, actionId, QStringLiteral("is in flight; evidence in hand waits for its answer"),
                                  nullptr, &e))
            return e;
        ActionRow after = row;
        e = applyTrigger(after, trigger, reason);
        if (e.ok())
            e = commitChange(db, now, row, after,
                             {actor, QStringLiteral("evidence"), reason, QStringLiteral("lookup"), stored.toJson()});
        if (e.ok() && after.record.state == ActionState::Completed)
            e = settlements::startIn(db, now, after,
                                     {stored.providerObjectId, stored.status, stored.failureReason,
                                      settlements::sourceOf(stored), QStringLiteral("lookup %1").arg(stored.seq), actor});
        out = after.record;
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<EvidenceStore::Reconciled> EvidenceStore::reconcile(const QString &actionId, const QString &supervisor,
                                                                 Reconciliation::Outcome outcome, int evidenceLookupSeq,
                                                                 const QString &note, qint64 expectedStateVersion)
{
    LedgerError error = requireText(supervisor, QStringLiteral("supervisor"));
    if (error.ok())
        error = checkNote(note);
    if (!error.ok())
        return error;
    Reconciled out;
    error = m_db.write("reconcile", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadInState(db, actionId, expectedStateVersion, ActionState::RequiresReview, QStringLiteral("is reconciled"),
                         &row, &e))
            return e;
        Statement q(db);
        if (!run(q, QStringLiteral("SELECT %1 FROM lookups WHERE action_id = ? AND seq = ?").arg(lookupColumns()),
                 {actionId, evidenceLookupSeq}, &e)) {
            return e;
        }
        if (!q.next())
            return err(Code::Forbidden, QStringLiteral("a reconciliation needs a lookup of %1 as evidence; lookup %2"
                                                       " does not exist").arg(actionId).arg(evidenceLookupSeq));
        const ProviderLookup evidence = lookupFromRow(q);
        q.finish();
        e = checkEvidence(db, actionId, outcome, evidence);
        if (!e.ok())
            return e;
        Reconciliation rec;
        rec.actionId = actionId;
        if (!nextSeq(db, QStringLiteral("reconciliations"), actionId, &rec.seq, &e))
            return e;
        rec.decidedBy = supervisor;
        rec.outcome = outcome;
        rec.evidenceLookupSeq = evidenceLookupSeq;
        rec.note = note;
        rec.decidedAt = now;
        Statement insert(db);
        if (!run(insert, QStringLiteral("INSERT INTO reconciliations (%1) VALUES (?, ?, ?, ?, ?, ?, ?)")
                             .arg(reconciliationColumns()),
                 {rec.actionId, rec.seq, rec.decidedBy, toWire(rec.outcome), rec.evidenceLookupSeq, text(rec.note),
                  toMs(now)},
                 &e)) {
            return e;
        }
        ActionRow after = row;
        e = applyTrigger(after, outcome == Reconciliation::Outcome::Committed ? Trigger::ConfirmCommitted
                                                                              : Trigger::ConfirmNotCommitted,
                         note);
        if (e.ok())
            e = commitChange(db, now, row, after,
                             {supervisor, QStringLiteral("reconciled"), note, QStringLiteral("reconciliation"),
                              rec.toJson()});
        if (e.ok() && after.record.state == ActionState::Completed)
            e = settlements::startIn(db, now, after,
                                     {evidence.providerObjectId, evidence.status, evidence.failureReason,
                                      QStringLiteral("reconciliation"),
                                      QStringLiteral("reconciliation %1 (lookup %2)").arg(rec.seq).arg(evidence.seq),
                                      supervisor});
        // What is in hand may already contradict the outcome just confirmed (two refunds for the
        // action, issue 33): the decision stands and the discrepancy opens with it, never silent.
        if (e.ok()) {
            bool flagged = false;
            e = flagInHandIn(db, now, after.record, evidence.providerObjectId, supervisor, &flagged);
            if (e.ok() && flagged && !loadAction(db, actionId, &after, &e))
                return e;
        }
        out.record = after.record;
        out.reconciliation = rec;
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<EvidenceStore::WebhookRecorded> EvidenceStore::recordWebhookEvent(const WebhookEvent &event,
                                                                               const std::optional<ProviderLookup> &lookup,
                                                                               std::optional<Trigger> trigger,
                                                                               const QString &reason,
                                                                               const std::optional<EvidenceFinding> &contradiction)
{
    LedgerError error = requireText(event.eventId, QStringLiteral("event id"));
    if (error.ok() && lookup)
        error = checkLookup(*lookup, trigger);
    if (error.ok() && trigger && !lookup)
        error = err(Code::Invalid, QStringLiteral("a transition from a webhook needs the lookup it rests on"));
    if (!error.ok())
        return error;
    WebhookRecorded out;
    error = m_db.write("recordWebhookEvent", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        out = WebhookRecorded();
        LedgerError e;
        {
            Statement known(db);
            if (!run(known, QStringLiteral("SELECT 1 FROM webhook_events WHERE event_id = ?"), {event.eventId}, &e))
                return e;
            if (known.next()) {
                out.duplicate = true;
                return {};
            }
        }
        Statement insert(db);
        if (!run(insert,
                 QStringLiteral("INSERT INTO webhook_events (event_id, type, action_id, disposition, received_at,"
                                " charge_id, refund_id, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                 {event.eventId, text(event.type), text(event.actionId), text(event.disposition), toMs(now),
                  text(truncated(event.chargeId, kMaxTextField)), text(truncated(event.refundId, kMaxTextField)),
                  text(compactJson(event.summary))},
                 &e)) {
            return e;
        }
        if (lookup) {
            RecordedLookup recorded;
            e = recordLookupIn(db, now, *lookup, trigger, reason, &recorded, contradiction,
                               QStringLiteral(" (event %1)").arg(event.eventId));
            if (!e.ok())
                return e;
            out.lookup = recorded;
        }
        return {};
    });
    return resultOf(error, out);
}

LedgerResult<EvidenceStore::ClosedDiscrepancy> EvidenceStore::closeDiscrepancy(const QString &actionId,
                                                                                const QString &supervisor,
                                                                                const QString &note,
                                                                                qint64 expectedStateVersion)
{
    LedgerError error = requireText(supervisor, QStringLiteral("supervisor"));
    if (error.ok())
        error = checkNote(note);
    if (error.ok() && note.trimmed().isEmpty())
        error = err(Code::Invalid, QStringLiteral("closing a discrepancy needs a note: what was done about it"));
    if (!error.ok())
        return error;
    ClosedDiscrepancy out;
    error = m_db.write("closeDiscrepancy", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e = discrepancies::closeIn(db, now, actionId, supervisor, note, expectedStateVersion,
                                               &out.discrepancy);
        ActionRow row;
        if (e.ok() && loadAction(db, actionId, &row, &e))
            out.record = row.record;
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<std::optional<EvidenceStore::WebhookEvent>> EvidenceStore::webhookEvent(const QString &eventId) const
{
    std::optional<WebhookEvent> out;
    const LedgerError error = m_db.query(
        QStringLiteral("SELECT event_id, type, action_id, disposition, received_at FROM webhook_events WHERE event_id = ?"),
        {eventId}, [&](const Statement &q) {
            out = WebhookEvent{q.value(0).toString(), q.value(1).toString(), q.value(2).toString(),
                               q.value(3).toString(), fromMs(q.value(4).toLongLong()), {}, {}, {}};
        });
    return resultOf(error, out);
}

LedgerResult<QList<EvidenceStore::WebhookEvent>> EvidenceStore::unmatchedRefundEvents(const QString &chargeId,
                                                                                      int limit) const
{
    QList<WebhookEvent> out;
    const LedgerError error = m_db.query(
        QStringLiteral("SELECT event_id, type, action_id, disposition, received_at, charge_id, refund_id, summary"
                       " FROM webhook_events WHERE charge_id = ? AND charge_id <> '' AND action_id = ''"
                       " ORDER BY received_at DESC, event_id LIMIT ?"),
        {chargeId, std::clamp(limit, 1, kMaxListLimit)}, [&](const Statement &q) {
            out.append(WebhookEvent{q.value(0).toString(), q.value(1).toString(), q.value(2).toString(),
                                    q.value(3).toString(), fromMs(q.value(4).toLongLong()), q.value(5).toString(),
                                    q.value(6).toString(), parseJson(q.value(7).toString())});
        });
    return resultOf(error, out);
}

LedgerResult<QList<ActionRecord>> EvidenceStore::dueForReconciliation(int limit) const
{
    QList<ActionRecord> out;
    const qint64 nowMs = toMs(m_db.now());
    const LedgerError error = m_db.query(
        QStringLiteral("SELECT %1 FROM actions a LEFT JOIN reconcile_schedule s ON s.action_id = a.id"
                       " WHERE a.state = 'CONFIRMATION_UNKNOWN'"
                       " AND (a.lease_owner IS NULL OR a.lease_expires_at IS NULL OR a.lease_expires_at <= ?)"
                       " AND (s.next_check_at IS NULL OR s.next_check_at <= ?)"
                       " ORDER BY COALESCE(s.next_check_at, 0), a.created_at, a.id LIMIT ?")
            .arg(qualifiedActionColumns(QStringLiteral("a"))),
        {nowMs, nowMs, std::clamp(limit, 1, kMaxListLimit)},
        [&](const Statement &q) { out.append(actionFromRow(q).record); });
    return resultOf(error, out);
}

LedgerResult<EvidenceStore::ReconcileSchedule> EvidenceStore::reconcileSchedule(const QString &actionId) const
{
    ReconcileSchedule out;
    out.actionId = actionId;
    const LedgerError error = m_db.query(
        QStringLiteral("SELECT tries, next_check_at, note, updated_at FROM reconcile_schedule WHERE action_id = ?"),
        {actionId}, [&](const Statement &q) {
            out.tries = q.value(0).toInt();
            out.nextCheckAt = fromMs(q.value(1).toLongLong());
            out.note = q.value(2).toString();
            out.updatedAt = fromMs(q.value(3).toLongLong());
        });
    return resultOf(error, out);
}

LedgerError EvidenceStore::scheduleReconciliation(const QString &actionId, int tries, const QDateTime &nextCheckAt,
                                                  const QString &note)
{
    if (tries < 0 || !nextCheckAt.isValid())
        return err(Code::Invalid, QStringLiteral("a schedule needs tries >= 0 and a valid time"));
    return m_db.write("scheduleReconciliation", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        Statement q(db);
        run(q,
            QStringLiteral("INSERT INTO reconcile_schedule (action_id, tries, next_check_at, note, updated_at)"
                           " VALUES (?, ?, ?, ?, ?) ON CONFLICT (action_id) DO UPDATE SET"
                           " tries = excluded.tries, next_check_at = excluded.next_check_at,"
                           " note = excluded.note, updated_at = excluded.updated_at"),
            {actionId, tries, toMs(nextCheckAt), text(truncated(note, kExcerptLimit)), toMs(now)}, &e);
        return e;
    });
}

} // namespace cs

// --- settlement after COMPLETED ------------------------------------------------------------------

namespace cs {

namespace {

bool loadOpenItem(QSqlDatabase &db, const QString &actionId, std::optional<Settlement> *settlement, LedgerError *e)
{
    if (!settlements::loadIn(db, actionId, settlement, e))
        return false;
    if (!*settlement || !(*settlement)->needsReview()) {
        *e = err(Code::Conflict, QStringLiteral("%1 has no open settlement review item").arg(actionId));
        return false;
    }
    return true;
}

} // namespace

LedgerResult<EvidenceStore::ClosedSettlement> EvidenceStore::closeSettlement(const QString &actionId,
                                                                           const QString &supervisor,
                                                                           const QString &note,
                                                                           qint64 expectedStateVersion)
{
    LedgerError error = requireText(supervisor, QStringLiteral("supervisor"));
    if (error.ok())
        error = requireText(note, QStringLiteral("note"), kMaxNote);
    if (!error.ok())
        return error;
    ClosedSettlement out;
    error = m_db.write("closeSettlement", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ActionRow row;
        if (!loadForChange(db, actionId, expectedStateVersion, &row, &e))
            return e;
        std::optional<Settlement> settlement;
        if (!loadOpenItem(db, actionId, &settlement, &e))
            return e;
        Statement update(db);
        if (!run(update,
                 QStringLiteral("UPDATE settlements SET attention = 'closed', resolved_by = ?, resolved_at = ?,"
                                " resolution_note = ? WHERE action_id = ? AND attention = 'open'"),
                 {supervisor, toMs(now), note, actionId}, &e)) {
            return e;
        }
        ActionRow after = row;
        after.recordChanged = true;
        e = commitChange(db, now, row, after,
                         {supervisor, QStringLiteral("settlement_closed"), note, QStringLiteral("settlement"),
                          QJsonObject{{QStringLiteral("refund_id"), settlement->refundId},
                                      {QStringLiteral("status"), settlement->status},
                                      {QStringLiteral("attention"), QStringLiteral("closed")}}});
        out.record = after.record;
        out.settlement = *settlement;
        out.settlement.attention = Settlement::Attention::Closed;
        out.settlement.resolvedBy = supervisor;
        out.settlement.resolvedAt = now;
        out.settlement.resolutionNote = note;
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<bool> EvidenceStore::markSettlementFollowedUp(const QString &actionId, const QString &followUpId,
                                                           const QString &decidedBy)
{
    LedgerError error = requireText(followUpId, QStringLiteral("follow-up id"));
    if (!error.ok())
        return error;
    bool marked = false;
    error = m_db.write("markSettlementFollowedUp", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        marked = false;
        LedgerError e;
        ActionRow row;
        if (!loadAction(db, actionId, &row, &e))
            return e;
        std::optional<Settlement> settlement;
        if (!settlements::loadIn(db, actionId, &settlement, &e))
            return e;
        if (!settlement || !settlement->needsReview())
            return {};
        Statement update(db);
        if (!run(update,
                 QStringLiteral("UPDATE settlements SET attention = 'followed_up', resolved_by = ?, resolved_at = ?,"
                                " resolution_note = ?, follow_up_id = ? WHERE action_id = ? AND attention = 'open'"),
                 {decidedBy, toMs(now), QStringLiteral("re-proposed as %1").arg(followUpId), followUpId, actionId}, &e)) {
            return e;
        }
        ActionRow after = row;
        after.recordChanged = true;
        e = commitChange(db, now, row, after,
                         {decidedBy, QStringLiteral("settlement_followed_up"),
                          QStringLiteral("the failed refund %1 is re-proposed as %2, a new operation with its own"
                                         " approval and key").arg(settlement->refundId, followUpId),
                          QStringLiteral("settlement"),
                          QJsonObject{{QStringLiteral("refund_id"), settlement->refundId},
                                      {QStringLiteral("status"), settlement->status},
                                      {QStringLiteral("attention"), QStringLiteral("followed_up")},
                                      {QStringLiteral("follow_up_id"), followUpId}}});
        marked = e.ok();
        return e;
    });
    return resultOf(error, marked);
}

LedgerResult<QList<EvidenceStore::SettlementCheck>>
EvidenceStore::takeDueSettlementChecks(std::chrono::milliseconds lease, int limit)
{
    QList<SettlementCheck> out;
    const LedgerError error = m_db.write("takeDueSettlementChecks", [&](QSqlDatabase &db, const QDateTime &now) {
        out.clear();
        LedgerError e;
        QList<SettlementCheck> due;
        {
            Statement q(db);
            if (!run(q, QStringLiteral("SELECT s.action_id, s.refund_id, s.status, s.checks FROM settlements s"
                                       " WHERE s.next_check_at IS NOT NULL AND s.next_check_at <= ?"
                                       " ORDER BY s.next_check_at, s.action_id LIMIT ?%1")
                            .arg(rowLock(db, QStringLiteral("s"), true)),
                     {toMs(now), std::clamp(limit, 1, kMaxListLimit)}, &e)) {
                return e;
            }
            while (q.next()) {
                SettlementCheck c;
                c.record.id = q.value(0).toString();
                c.refundId = q.value(1).toString();
                c.status = q.value(2).toString();
                c.checks = q.value(3).toInt();
                due << c;
            }
        }
        for (SettlementCheck &c : due) {
            ActionRow row;
            if (!loadAction(db, c.record.id, &row, &e))
                return e;
            c.record = row.record;
            Statement take(db);
            if (!run(take, QStringLiteral("UPDATE settlements SET next_check_at = ? WHERE action_id = ?"),
                     {toMs(now) + lease.count(), c.record.id}, &e)) {
                return e;
            }
            out << c;
        }
        return LedgerError();
    });
    return resultOf(error, out);
}

LedgerError EvidenceStore::scheduleSettlementCheck(const QString &actionId, int checks, const QDateTime &nextCheckAt)
{
    return m_db.write("scheduleSettlementCheck", [&](QSqlDatabase &db, const QDateTime &) {
        LedgerError e;
        Statement waiting(db);
        if (!run(waiting,
                 QStringLiteral("UPDATE settlements SET checks = ?, next_check_at = ?"
                                " WHERE action_id = ? AND status NOT IN ('succeeded', 'failed', 'canceled')"),
                 {std::max(checks, 0), msOrNull(nextCheckAt), actionId}, &e)) {
            return e;
        }
        Statement settled(db);
        run(settled,
            QStringLiteral("UPDATE settlements SET checks = ?, next_check_at = NULL"
                           " WHERE action_id = ? AND status IN ('succeeded', 'failed', 'canceled')"),
            {std::max(checks, 0), actionId}, &e);
        return e;
    });
}

} // namespace cs
