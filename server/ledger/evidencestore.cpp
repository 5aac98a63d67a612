#include "server/ledger/evidencestore.h"

#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"

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

// recordLookup's work inside the caller's write transaction.
LedgerError recordLookupIn(QSqlDatabase &db, const QDateTime &now, const ProviderLookup &lookup,
                           std::optional<Trigger> trigger, const QString &reason, EvidenceStore::RecordedLookup *out)
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
    if (!run(insert, QStringLiteral("INSERT INTO lookups (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                         .arg(lookupColumns()),
             {stored.actionId, stored.seq, toWire(stored.method), stored.askedBy, toMs(now), toWire(stored.result),
              text(stored.providerObjectId), text(stored.status), stored.amount, text(stored.currency),
              stored.httpStatus, text(stored.excerpt)},
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
                                                                        const QString &reason)
{
    LedgerError error = checkLookup(lookup, trigger);
    if (!error.ok())
        return error;
    RecordedLookup out;
    error = m_db.write("recordLookup", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        return recordLookupIn(db, now, lookup, trigger, reason, &out);
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
        out.record = after.record;
        out.reconciliation = rec;
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<EvidenceStore::WebhookRecorded> EvidenceStore::recordWebhookEvent(const WebhookEvent &event,
                                                                               const std::optional<ProviderLookup> &lookup,
                                                                               std::optional<Trigger> trigger,
                                                                               const QString &reason)
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
                 QStringLiteral("INSERT INTO webhook_events (event_id, type, action_id, disposition, received_at)"
                                " VALUES (?, ?, ?, ?, ?)"),
                 {event.eventId, text(event.type), text(event.actionId), text(event.disposition), toMs(now)}, &e)) {
            return e;
        }
        if (lookup) {
            RecordedLookup recorded;
            e = recordLookupIn(db, now, *lookup, trigger, reason, &recorded);
            if (!e.ok())
                return e;
            out.lookup = recorded;
        }
        return {};
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
                               q.value(3).toString(), fromMs(q.value(4).toLongLong())};
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
