#include "actionreader.h"

#include "apisql.h"
#include "ledgerconnections.h"

#include <QSqlQuery>

namespace cs {

using apisql::run;

namespace {

const QString kSummaryColumns = QStringLiteral(
    "a.id, a.kind, a.target_type, a.target_id, a.business_reference, a.amount, a.currency, a.reason, a.provider,"
    " a.provider_account, a.requested_by, a.client_reference, a.parent_id, a.request_fingerprint,"
    " a.idempotency_key, a.approval_version, a.state, a.state_version, a.review_reason, a.created_at,"
    " a.updated_at,"
    " (SELECT COUNT(*) FROM attempts t WHERE t.action_id = a.id),"
    " (SELECT MAX(u.at) FROM audit u WHERE u.action_id = a.id),"
    " (SELECT MIN(t.started_at) FROM attempts t WHERE t.action_id = a.id)");

QDateTime fromMs(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
}

ActionReader::Summary summaryFromQuery(const QSqlQuery &q)
{
    ActionReader::Summary s;
    ActionRecord &r = s.record;
    r.id = q.value(0).toString();
    r.kind = q.value(1).toString();
    r.targetType = targetTypeFromWire(q.value(2).toString()).value_or(TargetType::Charge);
    r.targetId = q.value(3).toString();
    r.businessReference = q.value(4).toString();
    r.amount = q.value(5).toLongLong();
    r.currency = q.value(6).toString();
    r.reason = q.value(7).toString();
    r.provider = q.value(8).toString();
    r.providerAccount = q.value(9).toString();
    r.requestedBy = q.value(10).toString();
    r.clientReference = q.value(11).toString();
    r.parentId = q.value(12).toString();
    r.requestFingerprint = q.value(13).toString();
    r.idempotencyKey = q.value(14).toString();
    r.approvalVersion = q.value(15).toInt();
    r.state = stateFromWire(q.value(16).toString()).value_or(ActionState::RequiresReview);
    r.stateVersion = q.value(17).toLongLong();
    r.reviewReason = q.value(18).toString();
    r.createdAt = fromMs(q.value(19).toLongLong());
    r.updatedAt = fromMs(q.value(20).toLongLong());
    s.attemptCount = q.value(21).toInt();
    s.lastEventAt = q.value(22).isNull() ? r.updatedAt : fromMs(q.value(22).toLongLong());
    if (!q.value(23).isNull())
        s.firstAttemptAt = fromMs(q.value(23).toLongLong());
    return s;
}

// Above this many index candidates the text is common enough that the newest-first walk fills a
// page sooner than sorting every candidate.
constexpr int kIndexCandidateCap = 5000;

// The text as one FTS5 string (a phrase: a substring under the trigram tokenizer).
QString ftsLiteral(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString likePattern(const QString &text)
{
    QString escaped = text.toLower();
    escaped.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    escaped.replace(QLatin1Char('%'), QStringLiteral("\\%"));
    escaped.replace(QLatin1Char('_'), QStringLiteral("\\_"));
    return QLatin1Char('%') + escaped + QLatin1Char('%');
}

const QList<ActionState> &allStates()
{
    static const QList<ActionState> states = {ActionState::Pending, ActionState::Executing,
                                              ActionState::ConfirmationUnknown, ActionState::Completed,
                                              ActionState::Rejected, ActionState::RequiresReview};
    return states;
}

} // namespace

ActionReader::ActionReader(LedgerConnections *connections) : m_connections(connections) {}

LedgerResult<ActionReader::Page> ActionReader::list(const ListQuery &query) const
{
    LedgerError error;
    QSqlDatabase db = m_connections->forCurrentThread(&error);
    if (!error.ok())
        return error;
    QStringList where;
    QVariantList values;
    if (!query.states.isEmpty()) {
        QStringList marks;
        for (ActionState state : query.states) {
            marks << QStringLiteral("?");
            values << toWire(state);
        }
        where << QStringLiteral("a.state IN (%1)").arg(marks.join(QStringLiteral(", ")));
    }
    if (!query.requestedBy.isEmpty()) {
        where << QStringLiteral("a.requested_by = ?");
        values << query.requestedBy;
    }
    // Three characters or more: candidates from the trigram index (actions_search, migration 4),
    // unless the text is so common that walking newest-first finds a page sooner. The LIKE
    // condition below is applied in both cases, so the rows are exactly the LIKE semantics.
    bool useIndex = false;
    if (query.text.toUcs4().size() >= 3) {
        QSqlQuery probe(db);
        if (!run(probe, QStringLiteral("SELECT COUNT(*) FROM (SELECT 1 FROM actions_search WHERE actions_search MATCH ?"
                                       " LIMIT %1) c").arg(kIndexCandidateCap + 1),
                 {ftsLiteral(query.text)}, &error)) {
            return error;
        }
        useIndex = probe.next() && probe.value(0).toLongLong() <= kIndexCandidateCap;
    }
    if (useIndex)
        values.prepend(ftsLiteral(query.text)); // the first placeholder (prepended below)
    if (!query.text.isEmpty()) {
        const QString pattern = likePattern(query.text);
        QStringList likes;
        for (const char *column : {"a.id", "a.target_id", "a.business_reference", "a.requested_by", "a.client_reference"}) {
            likes << QStringLiteral("LOWER(%1) LIKE ? ESCAPE '\\'").arg(QLatin1String(column));
            values << pattern;
        }
        where << QLatin1Char('(') + likes.join(QStringLiteral(" OR ")) + QLatin1Char(')');
    }
    if (query.afterCursor) {
        where << QStringLiteral("(a.created_at < ? OR (a.created_at = ? AND a.id < ?))");
        values << query.cursorCreatedAtMs << query.cursorCreatedAtMs << query.cursorId;
    }
    const int limit = qBound(1, query.limit, 200);
    values << limit + 1;
    if (useIndex) {
        // CROSS JOIN fixes the order: the index's candidates first, then each action by its key.
        where.prepend(QStringLiteral("actions_search MATCH ? AND a.id = actions_search.id"));
    }
    const QString from = useIndex ? QStringLiteral("actions_search CROSS JOIN actions a") : QStringLiteral("actions a");
    const QString sql = QStringLiteral("SELECT %1 FROM %2%3 ORDER BY a.created_at DESC, a.id DESC LIMIT ?")
                            .arg(kSummaryColumns, from,
                                 where.isEmpty() ? QString() : QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND ")));
    QSqlQuery q(db);
    if (!run(q, sql, values, &error))
        return error;
    Page page;
    while (q.next())
        page.rows.append(summaryFromQuery(q));
    if (page.rows.size() > limit) {
        page.rows.resize(limit);
        page.hasMore = true;
    }
    return page;
}

LedgerResult<QMap<ActionState, qint64>> ActionReader::counts(const QString &requestedBy) const
{
    LedgerError error;
    QSqlDatabase db = m_connections->forCurrentThread(&error);
    if (!error.ok())
        return error;
    QMap<ActionState, qint64> counts;
    for (ActionState state : allStates())
        counts.insert(state, 0);
    QSqlQuery q(db);
    // Maintained by triggers (migration 4): no walk over the ledger.
    const bool ok = requestedBy.isEmpty()
        ? run(q, QStringLiteral("SELECT state, n FROM action_state_counts"), {}, &error)
        : run(q, QStringLiteral("SELECT state, n FROM action_requester_state_counts WHERE requested_by = ?"),
              {requestedBy}, &error);
    if (!ok)
        return error;
    while (q.next()) {
        if (const auto state = stateFromWire(q.value(0).toString()))
            counts[*state] = q.value(1).toLongLong();
    }
    return counts;
}

LedgerResult<QList<ActionReader::Summary>> ActionReader::summaries(const QStringList &ids) const
{
    QList<Summary> out;
    if (ids.isEmpty())
        return out;
    LedgerError error;
    QSqlDatabase db = m_connections->forCurrentThread(&error);
    if (!error.ok())
        return error;
    QStringList marks;
    QVariantList values;
    for (const QString &id : ids) {
        marks << QStringLiteral("?");
        values << id;
    }
    QSqlQuery q(db);
    if (!run(q, QStringLiteral("SELECT %1 FROM actions a WHERE a.id IN (%2)").arg(kSummaryColumns, marks.join(u',')),
             values, &error)) {
        return error;
    }
    QHash<QString, Summary> byId;
    while (q.next()) {
        Summary s = summaryFromQuery(q);
        byId.insert(s.record.id, s);
    }
    for (const QString &id : ids) {
        if (byId.contains(id))
            out.append(byId.value(id));
    }
    return out;
}

LedgerResult<ActionReader::Summary> ActionReader::summary(const QString &id) const
{
    const auto rows = summaries({id});
    if (!rows.ok())
        return rows.error();
    if (rows->isEmpty())
        return LedgerError(LedgerError::Code::NotFound, QStringLiteral("no action %1").arg(id));
    return rows->constFirst();
}

LedgerResult<qint64> ActionReader::latestAuditSeq() const
{
    LedgerError error;
    QSqlDatabase db = m_connections->forCurrentThread(&error);
    if (!error.ok())
        return error;
    QSqlQuery q(db);
    if (!run(q, QStringLiteral("SELECT COALESCE(MAX(seq), 0) FROM audit"), {}, &error))
        return error;
    return q.next() ? q.value(0).toLongLong() : qint64(0);
}

LedgerResult<QHash<QString, QString>> ActionReader::requesters(const QStringList &ids) const
{
    QHash<QString, QString> out;
    if (ids.isEmpty())
        return out;
    LedgerError error;
    QSqlDatabase db = m_connections->forCurrentThread(&error);
    if (!error.ok())
        return error;
    QStringList marks;
    QVariantList values;
    for (const QString &id : ids) {
        marks << QStringLiteral("?");
        values << id;
    }
    QSqlQuery q(db);
    if (!run(q, QStringLiteral("SELECT id, requested_by FROM actions WHERE id IN (%1)").arg(marks.join(u',')), values,
             &error)) {
        return error;
    }
    while (q.next())
        out.insert(q.value(0).toString(), q.value(1).toString());
    return out;
}

} // namespace cs
