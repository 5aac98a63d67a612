#include "server/ledger/discrepancyrows.h"

#include "server/ledger/ledgerlog.h"
#include "server/ledger/ledgerrows.h"
#include "server/ledger/sqlstatement.h"

namespace cs::discrepancies {

using namespace sql;
using namespace rows;

namespace {

const QString &columns()
{
    static const QString c = QStringLiteral(
        "action_id, kind, refund_ids, detail, evidence, found_by, opened_at, last_seen_at, sightings, attention,"
        " resolved_by, resolved_at, resolution_note");
    return c;
}

Discrepancy fromRow(const Statement &q)
{
    Discrepancy d;
    d.actionId = q.value(0).toString();
    d.kind = discrepancyKindFromWire(q.value(1).toString()).value_or(Discrepancy::Kind::DuplicateRefund);
    d.refundIds = q.value(2).toString().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    d.detail = q.value(3).toString();
    d.evidence = q.value(4).toString();
    d.foundBy = q.value(5).toString();
    d.openedAt = fromMs(q.value(6).toLongLong());
    d.lastSeenAt = fromMs(q.value(7).toLongLong());
    d.sightings = q.value(8).toInt();
    d.attention = discrepancyAttentionFromWire(q.value(9).toString()).value_or(Discrepancy::Attention::Open);
    d.resolvedBy = q.value(10).toString();
    d.resolvedAt = timeOrNull(q.value(11));
    d.resolutionNote = q.value(12).toString();
    return d;
}

// The audit row of a change of the item, saving the action's row (its state_version moves: what
// the API shows of it changed).
LedgerError audit(QSqlDatabase &db, const QDateTime &now, const ActionRow &row, const Discrepancy &d,
                  const QString &actor, const QString &event, const QString &reason)
{
    ActionRow after = row;
    after.recordChanged = true; // what the API shows of it changed: a reviewer's If-Match goes stale
    return commitChange(db, now, row, after, {actor, event, reason, QStringLiteral("discrepancy"), d.toJson()});
}

} // namespace

bool loadIn(QSqlDatabase &db, const QString &actionId, std::optional<Discrepancy> *out, LedgerError *error)
{
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT %1 FROM discrepancies WHERE action_id = ?").arg(columns()), {actionId}, error))
        return false;
    *out = q.next() ? std::optional<Discrepancy>(fromRow(q)) : std::nullopt;
    return true;
}

LedgerError flagIn(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const EvidenceFinding &finding,
                   const QString &evidence, const QString &actor, bool *changed)
{
    if (changed)
        *changed = false;
    LedgerError e;
    ActionRow row;
    if (!loadAction(db, actionId, &row, &e))
        return e;
    if (!isTerminal(row.record.state))
        return err(Code::IllegalTransition, QStringLiteral("%1 is %2: an open action that meets contradictory evidence"
                                                           " goes to REQUIRES_REVIEW, it is not flagged")
                                                .arg(actionId, toWire(row.record.state)));
    std::optional<Discrepancy> existing;
    if (!loadIn(db, actionId, &existing, &e))
        return e;
    const QString detail = truncated(finding.reason, kExcerptLimit);
    if (!existing) {
        Discrepancy d;
        d.actionId = actionId;
        d.kind = finding.duplicate ? Discrepancy::Kind::DuplicateRefund : Discrepancy::Kind::ContradictingRefund;
        for (const QString &id : finding.refundIds)
            if (!id.isEmpty() && !d.refundIds.contains(id))
                d.refundIds << truncated(id, 255);
        d.detail = detail;
        d.evidence = truncated(evidence, kMaxTextField);
        d.foundBy = truncated(actor, kMaxTextField);
        d.openedAt = now;
        d.lastSeenAt = now;
        Statement insert(db);
        if (!run(insert,
                 QStringLiteral("INSERT INTO discrepancies (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, 'open', '', NULL, '')")
                     .arg(columns()),
                 {actionId, toWire(d.kind), d.refundIds.join(QLatin1Char(' ')), text(d.detail), text(d.evidence),
                  text(d.foundBy), toMs(now), toMs(now)},
                 &e))
            return e;
        qCWarning(lcLedger) << actionId << toWire(row.record.state) << "flagged:" << detail;
        if (changed)
            *changed = true;
        return audit(db, now, row, d, actor, QStringLiteral("discrepancy"), detail);
    }
    Discrepancy d = *existing;
    QStringList added;
    for (const QString &id : finding.refundIds)
        if (!id.isEmpty() && !d.refundIds.contains(id))
            added << truncated(id, 255);
    d.refundIds << added;
    d.lastSeenAt = now;
    d.sightings += 1;
    const bool reopen = !added.isEmpty();
    if (reopen) {
        if (finding.duplicate || d.refundIds.size() > 1)
            d.kind = Discrepancy::Kind::DuplicateRefund;
        d.detail = detail;
        d.evidence = truncated(evidence, kMaxTextField);
        d.attention = Discrepancy::Attention::Open;
        d.resolvedBy.clear();
        d.resolvedAt = QDateTime();
        d.resolutionNote.clear();
    }
    Statement update(db);
    if (!run(update,
             QStringLiteral("UPDATE discrepancies SET kind = ?, refund_ids = ?, detail = ?, evidence = ?, last_seen_at = ?,"
                            " sightings = ?, attention = ?, resolved_by = ?, resolved_at = ?, resolution_note = ?"
                            " WHERE action_id = ?"),
             {toWire(d.kind), d.refundIds.join(QLatin1Char(' ')), text(d.detail), text(d.evidence), toMs(now),
              d.sightings, toWire(d.attention), text(d.resolvedBy), msOrNull(d.resolvedAt), text(d.resolutionNote),
              actionId},
             &e))
        return e;
    if (!reopen)
        return {};
    if (changed)
        *changed = true;
    return audit(db, now, row, d, actor, QStringLiteral("discrepancy"),
                 QStringLiteral("another refund at the provider: %1 (%2)").arg(added.join(QStringLiteral(", ")), detail));
}

LedgerError closeIn(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const QString &supervisor,
                    const QString &note, std::optional<qint64> expectedStateVersion, Discrepancy *closed)
{
    LedgerError e;
    ActionRow row;
    if (!loadForChange(db, actionId, expectedStateVersion, &row, &e))
        return e;
    std::optional<Discrepancy> existing;
    if (!loadIn(db, actionId, &existing, &e))
        return e;
    if (!existing || !existing->isOpen())
        return err(Code::Conflict, QStringLiteral("%1 has no open discrepancy to close").arg(actionId));
    Discrepancy d = *existing;
    d.attention = Discrepancy::Attention::Closed;
    d.resolvedBy = supervisor;
    d.resolvedAt = now;
    d.resolutionNote = note;
    Statement update(db);
    if (!run(update,
             QStringLiteral("UPDATE discrepancies SET attention = 'closed', resolved_by = ?, resolved_at = ?,"
                            " resolution_note = ? WHERE action_id = ? AND attention = 'open'"),
             {supervisor, toMs(now), text(note), actionId}, &e))
        return e;
    *closed = d;
    return audit(db, now, row, d, supervisor, QStringLiteral("discrepancy_closed"), note);
}

} // namespace cs::discrepancies
