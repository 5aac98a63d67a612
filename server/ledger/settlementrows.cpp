#include "server/ledger/settlementrows.h"

#include "server/ledger/ledgerlog.h"

#include "models/refundstatus.h"

#include <QList>

namespace cs::settlements {

using namespace sql;
using namespace rows;

namespace {

const QString &columns()
{
    static const QString c = QStringLiteral(
        "action_id, refund_id, status, failure_reason, started_at, confirmed_at, confirmed_by, settled_at,"
        " next_check_at, checks, attention, attention_since, resolved_by, resolved_at, resolution_note, follow_up_id");
    return c;
}

Settlement fromRow(const Statement &q)
{
    Settlement s;
    s.actionId = q.value(0).toString();
    s.refundId = q.value(1).toString();
    s.status = q.value(2).toString();
    s.failureReason = q.value(3).toString();
    s.startedAt = fromMs(q.value(4).toLongLong());
    s.confirmedAt = fromMs(q.value(5).toLongLong());
    s.confirmedBy = q.value(6).toString();
    s.settledAt = timeOrNull(q.value(7));
    s.nextCheckAt = timeOrNull(q.value(8));
    s.checks = q.value(9).toInt();
    s.attention = settlementAttentionFromWire(q.value(10).toString()).value_or(Settlement::Attention::None);
    s.attentionSince = timeOrNull(q.value(11));
    s.resolvedBy = q.value(12).toString();
    s.resolvedAt = timeOrNull(q.value(13));
    s.resolutionNote = q.value(14).toString();
    s.followUpId = q.value(15).toString();
    return s;
}

bool loadRow(QSqlDatabase &db, const QString &actionId, std::optional<Settlement> *out, LedgerError *e)
{
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT %1 FROM settlements WHERE action_id = ?").arg(columns()), {actionId}, e))
        return false;
    *out = q.next() ? std::optional<Settlement>(fromRow(q)) : std::nullopt;
    return true;
}

bool appendChange(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const QString &from,
                  const Report &report, SettlementChange *out, LedgerError *e)
{
    SettlementChange c;
    if (!nextSeq(db, QStringLiteral("settlement_changes"), actionId, &c.seq, e))
        return false;
    c.at = now;
    c.fromStatus = from;
    c.toStatus = truncated(report.status, kMaxTextField);
    c.failureReason = truncated(report.failureReason, kMaxTextField);
    c.source = report.source;
    c.evidence = truncated(report.evidence, kMaxTextField);
    Statement insert(db);
    if (!run(insert,
             QStringLiteral("INSERT INTO settlement_changes (action_id, seq, at, from_status, to_status, failure_reason,"
                            " source, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
             {actionId, c.seq, toMs(now), text(c.fromStatus), text(c.toStatus), text(c.failureReason), text(c.source),
              text(c.evidence)},
             e)) {
        return false;
    }
    if (out)
        *out = c;
    return true;
}

// The audit sentence of a change.
QString describe(const Settlement &s, const QString &from)
{
    const QString reason = s.failureReason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(s.failureReason);
    if (s.moneyReturned())
        return QStringLiteral("refund %1 %2%3 after the action was COMPLETED (was %4): no money moved; a supervisor"
                              " decides — a follow-up as a new operation, or close it with a note")
            .arg(s.refundId, s.status, reason, from);
    return QStringLiteral("refund %1: %2 -> %3").arg(s.refundId, from, s.status);
}

// Applies `report` over `s` (already known to supersede it) in memory.
void advance(Settlement &s, const Report &report, const QDateTime &now)
{
    s.status = report.status;
    s.failureReason = report.failureReason;
    s.confirmedAt = now;
    s.confirmedBy = report.source;
    if (s.isSettled()) {
        if (!s.settledAt.isValid())
            s.settledAt = now;
        s.nextCheckAt = QDateTime();
    }
    if (s.moneyReturned() && s.attention == Settlement::Attention::None) {
        s.attention = Settlement::Attention::Open;
        s.attentionSince = now;
    }
}

} // namespace

QString sourceOf(const ProviderLookup &lookup)
{
    if (lookup.method == ProviderLookup::Method::Webhook)
        return QStringLiteral("webhook");
    if (lookup.askedBy == kFollowerName)
        return QStringLiteral("schedule");
    return QStringLiteral("lookup");
}

LedgerError startIn(QSqlDatabase &db, const QDateTime &now, const ActionRow &after, const Report &report)
{
    LedgerError e;
    const QString &actionId = after.record.id;
    Settlement s;
    s.actionId = actionId;
    s.refundId = truncated(report.refundId, kMaxTextField);
    s.status = truncated(report.status, kMaxTextField);
    s.failureReason = truncated(report.failureReason, kMaxTextField);
    s.startedAt = now;
    s.confirmedAt = now;
    s.confirmedBy = report.source;
    // What earlier lookups of the same refund already showed (a webhook that overtook the POST's
    // own answer while the attempt was open): a later status wins, as it would have on arrival.
    QList<Report> later;
    {
        Statement q(db);
        if (!run(q, QStringLiteral("SELECT seq, method, asked_by, provider_object_id, status, failure_reason FROM lookups"
                                   " WHERE action_id = ? AND result = 'FOUND' ORDER BY seq"),
                 {actionId}, &e)) {
            return e;
        }
        QString current = s.status;
        while (q.next()) {
            ProviderLookup l;
            l.method = lookupMethodFromWire(q.value(1).toString()).value_or(ProviderLookup::Method::ListByMetadata);
            l.askedBy = q.value(2).toString();
            const QString refundId = q.value(3).toString();
            const QString status = q.value(4).toString();
            if ((!s.refundId.isEmpty() && refundId != s.refundId) || !settlementSupersedes(status, current))
                continue;
            current = status;
            later << Report{refundId, status, q.value(5).toString(), sourceOf(l),
                            QStringLiteral("lookup %1").arg(q.value(0).toInt()), report.actor};
        }
    }
    const Settlement first = s;
    for (const Report &r : std::as_const(later))
        advance(s, r, now);
    if (!s.isSettled())
        s.nextCheckAt = now.addMSecs(std::chrono::milliseconds(kFirstCheck).count());
    else if (!s.settledAt.isValid())
        s.settledAt = now;
    Statement insert(db);
    if (!run(insert,
             QStringLiteral("INSERT INTO settlements (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, '', NULL, '', '')")
                 .arg(columns()),
             {actionId, text(s.refundId), text(s.status), text(s.failureReason), toMs(s.startedAt),
              toMs(s.confirmedAt), text(s.confirmedBy), msOrNull(s.settledAt), msOrNull(s.nextCheckAt),
              toWire(s.attention), msOrNull(s.attentionSince)},
             &e)) {
        return e;
    }
    if (!appendChange(db, now, actionId, QString(), report, nullptr, &e))
        return e;
    QString from = first.status;
    for (const Report &r : std::as_const(later)) {
        SettlementChange change;
        if (!appendChange(db, now, actionId, from, r, &change, &e))
            return e;
        Settlement shown = s;
        shown.status = r.status;
        shown.failureReason = r.failureReason;
        e = auditChange(db, now, after, after,
                        {report.actor, QStringLiteral("settlement"), describe(shown, from),
                         QStringLiteral("settlement_change"), change.toJson()});
        if (!e.ok())
            return e;
        from = r.status;
    }
    if (s.needsReview())
        qCWarning(lcLedger) << actionId << "refund" << s.refundId << s.status << "before its COMPLETED was recorded:"
                            << "review item opened";
    return {};
}

LedgerError observeIn(QSqlDatabase &db, const QDateTime &now, ActionRow &row, const Report &report, bool *changed)
{
    if (changed)
        *changed = false;
    LedgerError e;
    std::optional<Settlement> stored;
    if (!loadRow(db, row.record.id, &stored, &e))
        return e;
    if (!stored) {
        if (refundStatusFromWire(report.status) == RefundStatus::Unrecognised)
            return {};
        // Completed before this ledger followed settlements: the first report starts it.
        if (changed)
            *changed = true;
        return startIn(db, now, row, report);
    }
    Settlement s = *stored;
    if (!report.refundId.isEmpty() && !s.refundId.isEmpty() && report.refundId != s.refundId) {
        qCWarning(lcLedger) << row.record.id << "evidence names refund" << report.refundId << "but the action completed"
                            << "with" << s.refundId << ": kept as evidence only";
        return {};
    }
    if (report.status == s.status) {
        Statement touch(db);
        run(touch, QStringLiteral("UPDATE settlements SET confirmed_at = ?, confirmed_by = ? WHERE action_id = ?"),
            {toMs(now), text(report.source), row.record.id}, &e);
        return e;
    }
    if (!settlementSupersedes(report.status, s.status))
        return {}; // older news (out of order, a lagging list): the lookup row keeps it
    const QString from = s.status;
    if (s.refundId.isEmpty())
        s.refundId = truncated(report.refundId, kMaxTextField);
    advance(s, report, now);
    Statement update(db);
    if (!run(update,
             QStringLiteral("UPDATE settlements SET refund_id = ?, status = ?, failure_reason = ?, confirmed_at = ?,"
                            " confirmed_by = ?, settled_at = ?, next_check_at = ?, attention = ?, attention_since = ?"
                            " WHERE action_id = ?"),
             {text(s.refundId), text(truncated(s.status, kMaxTextField)), text(truncated(s.failureReason, kMaxTextField)),
              toMs(s.confirmedAt), text(s.confirmedBy), msOrNull(s.settledAt), msOrNull(s.nextCheckAt),
              toWire(s.attention), msOrNull(s.attentionSince), row.record.id},
             &e)) {
        return e;
    }
    SettlementChange change;
    if (!appendChange(db, now, row.record.id, from, report, &change, &e))
        return e;
    ActionRow after = row;
    after.recordChanged = true;
    e = commitChange(db, now, row, after,
                     {report.actor, QStringLiteral("settlement"), describe(s, from), QStringLiteral("settlement_change"),
                      change.toJson()});
    if (!e.ok())
        return e;
    row = after;
    if (changed)
        *changed = true;
    if (s.needsReview())
        qCWarning(lcLedger) << row.record.id << "refund" << s.refundId << s.status << "after COMPLETED: review item opened";
    return {};
}

bool loadIn(QSqlDatabase &db, const QString &actionId, std::optional<Settlement> *out, LedgerError *error)
{
    if (!loadRow(db, actionId, out, error))
        return false;
    if (!*out)
        return true;
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT seq, at, from_status, to_status, failure_reason, source, evidence"
                               " FROM settlement_changes WHERE action_id = ? ORDER BY seq"),
             {actionId}, error)) {
        return false;
    }
    while (q.next()) {
        SettlementChange c;
        c.seq = q.value(0).toInt();
        c.at = fromMs(q.value(1).toLongLong());
        c.fromStatus = q.value(2).toString();
        c.toStatus = q.value(3).toString();
        c.failureReason = q.value(4).toString();
        c.source = q.value(5).toString();
        c.evidence = q.value(6).toString();
        (*out)->history.append(c);
    }
    return true;
}

} // namespace cs::settlements
