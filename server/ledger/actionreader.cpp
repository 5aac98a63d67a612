#include "server/ledger/actionreader.h"

#include "server/ledger/actioncolumns.h"
#include "server/ledger/auditchain.h"
#include "server/ledger/ids.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"
#include "server/ledger/settlementrows.h"
#include "server/ledger/discrepancyrows.h"
#include "server/ledger/searchterms.h"

#include "models/money.h"

#include <QSet>
#include <QSqlQuery>

#include <algorithm>
#include <functional>

namespace cs {

using sql::runOnce;
using namespace rows;

namespace {

// The record's columns (actioncolumns.h), then the list's own (from column kActionColumnCount on).
const QString &summaryColumns()
{
    // attempt_count and last_event_at are kept by triggers (migration 5); amount_scaled is
    // generated. The three sort keys are selected by name: the index search orders by them.
    static const QString columns = actionColumnList(QStringLiteral("a"))
        + QStringLiteral(", a.attempt_count, a.last_event_at,"
                         " (SELECT MIN(t.started_at) FROM attempts t WHERE t.action_id = a.id), a.amount_scaled,"
                         // issue 18: a probe of the settlement's primary key per row
                         " (SELECT s.status FROM settlements s WHERE s.action_id = a.id),"
                         " (SELECT s.attention FROM settlements s WHERE s.action_id = a.id),"
                         // issue 33: a probe of the discrepancy's primary key per row
                         " (SELECT d.attention FROM discrepancies d WHERE d.action_id = a.id)");
    return columns;
}
constexpr int kSummaryColumnCount = kActionColumnCount + 7;

// The columns a list in this order is ordered by, the whole keyset key: the sort key's own
// column(s), then created_at and id. Each is one index's leading columns (migrations 1, 5, 17).
QStringList keyColumns(ActionReader::SortKey key)
{
    const QStringList ties = {QStringLiteral("created_at"), QStringLiteral("id")};
    switch (key) {
    case ActionReader::SortKey::CreatedAt:
        return ties;
    case ActionReader::SortKey::Amount:
        return QStringList{QStringLiteral("currency"), QStringLiteral("amount")} + ties;
    case ActionReader::SortKey::AttemptCount:
        return QStringList{QStringLiteral("attempt_count")} + ties;
    case ActionReader::SortKey::LastEventAt:
        return QStringList{QStringLiteral("last_event_at")} + ties;
    }
    return ties;
}

// The cursor's values for keyColumns(query.sort), in that order.
QVariantList cursorValues(const ActionReader::ListQuery &query)
{
    QVariantList values;
    if (query.sort == ActionReader::SortKey::Amount)
        values << query.cursorCurrency;
    if (query.sort != ActionReader::SortKey::CreatedAt)
        values << query.cursorSortValue;
    return values << query.cursorCreatedAtMs << query.cursorId;
}

// This row's value of the sort key, for the cursor (the currency of an amount is its record's).
qint64 sortValueOf(const ActionReader::Summary &row, ActionReader::SortKey key)
{
    switch (key) {
    case ActionReader::SortKey::CreatedAt:
        return row.record.createdAt.toMSecsSinceEpoch();
    case ActionReader::SortKey::Amount:
        return row.record.amount;
    case ActionReader::SortKey::AttemptCount:
        return row.attemptCount;
    case ActionReader::SortKey::LastEventAt:
        return row.lastEventAtMs;
    }
    return 0;
}

using sql::fromMs;

ActionReader::Summary summaryFromQuery(const QSqlQuery &q)
{
    ActionReader::Summary s;
    ActionRecord &r = s.record;
    readActionColumns(q, 0, &r);
    constexpr int at = kActionColumnCount;
    s.attemptCount = q.value(at).toInt();
    s.lastEventAtMs = q.value(at + 1).toLongLong();
    // 0: no audit row (only rows written by hand, as the benchmarks do).
    s.lastEventAt = s.lastEventAtMs > 0 ? fromMs(s.lastEventAtMs) : r.updatedAt;
    if (!q.value(at + 2).isNull())
        s.firstAttemptAt = fromMs(q.value(at + 2).toLongLong());
    s.amountScaled = q.value(at + 3).toLongLong();
    s.settlementStatus = q.value(at + 4).toString();
    s.settlementReview = q.value(at + 5).toString() == u"open";
    s.discrepancyOpen = q.value(at + 6).toString() == u"open";
    return s;
}

// Above this many index candidates the text is common enough that the newest-first walk fills a
// page sooner than sorting every candidate.
constexpr int kIndexCandidateCap = 5000;

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

// "?, ?, ?" for an IN list, appending the bound values in order.
QString inListMarks(const QStringList &items, QVariantList *values)
{
    QStringList marks;
    for (const QString &item : items) {
        marks << QStringLiteral("?");
        *values << item;
    }
    return marks.join(QStringLiteral(", "));
}

// Fills each summary's possibleDuplicates with one statement for all of them.
LedgerError addDuplicateCounts(const ActionReader &reader, QList<ActionReader::Summary> *rows)
{
    QStringList ids;
    for (const ActionReader::Summary &s : std::as_const(*rows))
        ids << s.record.id;
    if (ids.isEmpty())
        return {};
    const auto counts = reader.possibleDuplicateCounts(ids);
    if (!counts.ok())
        return counts.error();
    for (ActionReader::Summary &s : *rows)
        s.possibleDuplicates = counts->value(s.record.id, 0);
    return {};
}

// SQLite: the partial index actions_queued named, for the statements its condition serves. Its
// planner does not weigh a partial index it has no statistics for (ANALYZE ran while it was
// empty, as it mostly is) and chose actions_by_lease (state = ?) instead: every PENDING row read
// from the table, ~860 ms per count on bench_console's 10^6 actions (80,000 PENDING). Named, the
// statement fails rather than read anything else. PostgreSQL weighs the index by its size.
QString queuedIndex(bool postgres)
{
    return postgres ? QString() : QStringLiteral(" INDEXED BY actions_queued");
}

// The conditions of `query` other than its keyset position ("a" the actions' alias), their
// values appended in order. The search is LIKE on five columns, or'ed with the amount when the
// text is a number.
QStringList listConditions(const ActionReader::ListQuery &query, bool postgres, QVariantList *values)
{
    QStringList where;
    if (!query.states.isEmpty()) {
        QStringList states;
        for (ActionState state : query.states)
            states << toWire(state);
        where << QStringLiteral("a.state IN (%1)").arg(inListMarks(states, values));
    }
    if (query.settlementReview)
        where << QStringLiteral("a.id IN (SELECT s.action_id FROM settlements s WHERE s.attention = 'open')");
    if (query.discrepancyOpen)
        where << QStringLiteral("a.id IN (SELECT d.action_id FROM discrepancies d WHERE d.attention = 'open')");
    // ActionRecord::isQueued, as a probe of actions_queued (migration 17) by the id, which every
    // order's index holds: the walk stays in the index (PostgreSQL's id-first read below stays
    // index-only).
    if (query.awaitingDecision)
        where << QStringLiteral("NOT EXISTS (SELECT 1 FROM actions q%1 WHERE q.id = a.id AND q.state = 'PENDING'"
                                " AND q.idempotency_key <> '')")
                     .arg(queuedIndex(postgres));
    if (!query.requestedBy.isEmpty()) {
        where << QStringLiteral("a.requested_by = ?");
        *values << query.requestedBy;
    }
    if (!query.text.isEmpty()) {
        const QString pattern = likePattern(query.text);
        QStringList matches;
        for (const char *column : {"a.id", "a.target_id", "a.business_reference", "a.requested_by", "a.client_reference"}) {
            matches << QStringLiteral("LOWER(%1) LIKE ? ESCAPE '\\'").arg(QLatin1String(column));
            *values << pattern;
        }
        if (const auto amount = Money::searchedTenThousandths(query.text)) {
            matches << QStringLiteral("a.amount_scaled = ?");
            *values << *amount;
        }
        where << QLatin1Char('(') + matches.join(QStringLiteral(" OR ")) + QLatin1Char(')');
    }
    return where;
}

} // namespace

void ActionReader::ListQuery::continueAfter(const Summary &last)
{
    afterCursor = true;
    cursorCurrency = last.record.currency;
    cursorSortValue = last.sortValue;
    cursorCreatedAtMs = last.record.createdAt.toMSecsSinceEpoch();
    cursorId = last.record.id;
}

ActionReader::ActionReader(const LedgerDatabase &database) : m_db(database)
{
    m_samplePool.setMaxThreadCount(1);
}

ActionReader::~ActionReader()
{
    m_samplePool.waitForDone();
}

namespace {

// The statement of list()'s index path, bound as: the index's own values (the trigram
// expression or runs, then the amount when `byAmount`), then the list's. c: the text's candidates
// from the trigram index; m: the actions with the searched amount (actions_by_amount_scaled); n:
// how many, each capped (a row in both is counted twice: n only chooses the path). The page is
// read from the candidates only when n is within the cap, else the statement yields only n.
QString candidatePageSql(bool postgres, const QString &textCandidates, bool byAmount, const QString &conditions,
                         const QString &order, const QString &outerOrder)
{
    const int cap = kIndexCandidateCap;
    const QString amountCandidates = byAmount
        ? QStringLiteral(" m AS MATERIALIZED (SELECT id FROM actions WHERE amount_scaled = ? LIMIT %1),").arg(cap + 1)
        : QString();
    const QString count = byAmount ? QStringLiteral("SELECT (SELECT COUNT(*) FROM c) + (SELECT COUNT(*) FROM m) AS n")
                                   : QStringLiteral("SELECT COUNT(*) AS n FROM c");
    const QString amountIds = byAmount ? QStringLiteral(" UNION ALL SELECT id FROM m WHERE (SELECT n FROM n) <= %1").arg(cap)
                                       : QString();
    // SQLite: c holds the candidates' index rowids (cheap: no read of the index's stored
    // columns); their ids are read (s.id) only within the cap. IN, not a join: each candidate is
    // looked up by its key (a join lets SQLite build a Bloom filter over all of actions first).
    const QString textIds = postgres
        ? QStringLiteral("SELECT id FROM c WHERE (SELECT n FROM n) <= %1").arg(cap)
        : QStringLiteral("SELECT s.id FROM actions_search s WHERE s.rowid IN (SELECT r FROM c WHERE (SELECT n FROM n) <= %1)")
              .arg(cap);
    return QStringLiteral("WITH c AS MATERIALIZED (%1 LIMIT %2),%3 n AS MATERIALIZED (%4)"
                          " SELECT p.*, n.n FROM n LEFT JOIN ("
                          "SELECT %5 FROM actions a WHERE a.id IN (%6%7) AND %8%9) p ON %10%11")
        .arg(textCandidates)
        .arg(cap + 1)
        .arg(amountCandidates, count, summaryColumns(), textIds, amountIds, conditions, order,
             postgres ? QStringLiteral("true") : QStringLiteral("1"), outerOrder);
}

} // namespace

LedgerResult<ActionReader::Page> ActionReader::list(const ListQuery &query) const
{
    LedgerError error;
    QSqlDatabase db = m_db.connection(&error);
    if (!error.ok())
        return error;
    const bool postgres = sql::isPostgres(db);
    QVariantList values;
    QStringList where = listConditions(query, postgres, &values);
    // Keyset paging in the sort's order: the whole key (keyColumns), all in the same direction, so
    // one row-value comparison continues after the cursor's row and the key's index serves both
    // the order and the condition.
    const QStringList key = keyColumns(query.sort);
    const bool byCreation = query.sort == SortKey::CreatedAt;
    const QLatin1String direction = query.descending ? QLatin1String("DESC") : QLatin1String("ASC");
    if (query.afterCursor) {
        QStringList columns;
        QStringList marks;
        for (const QString &column : key) {
            columns << QStringLiteral("a.") + column;
            marks << QStringLiteral("?");
        }
        where << QStringLiteral("(%1) %2 (%3)")
                     .arg(columns.join(QStringLiteral(", ")),
                          query.descending ? QStringLiteral("<") : QStringLiteral(">"), marks.join(QStringLiteral(", ")));
        values << cursorValues(query);
    }
    const int limit = qBound(1, query.limit, 200);
    values << limit + 1;
    const QString conditions = where.join(QStringLiteral(" AND "));
    const auto orderBy = [&](const QString &alias) -> QString { // not a QStringBuilder of locals
        QStringList terms;
        for (const QString &column : key)
            terms << QStringLiteral("%1.%2 %3").arg(alias, column, direction);
        return QStringLiteral(" ORDER BY ") + terms.join(QStringLiteral(", "));
    };
    const QString order = orderBy(QStringLiteral("a")) + QStringLiteral(" LIMIT ?");
    Page page;
    // candidates: the index query's candidate count (its last column), nullptr for the walk.
    const auto readRows = [&](QSqlQuery &q, qint64 *candidates) {
        while (q.next()) {
            if (candidates)
                *candidates = q.value(kSummaryColumnCount).toLongLong();
            if (!q.value(0).isNull()) // null: no page row, only the candidate count
                page.rows.append(summaryFromQuery(q));
        }
        if (page.rows.size() > limit) {
            page.rows.resize(limit);
            page.hasMore = true;
        }
        for (Summary &s : page.rows)
            s.sortValue = sortValueOf(s, query.sort);
    };

    // Three characters or more: candidates from the trigram index (actions_search, migration 4),
    // in the same statement as the page, so the index is read once. The index is asked only for
    // the text's parts without near-universal trigrams (searchterms.h): a superset of the rows.
    // A text that is a number adds the actions of that amount (actions_by_amount_scaled,
    // migration 17) to the candidates.
    // Above kIndexCandidateCap candidates the page part is skipped (the statement yields only the
    // candidate count) and the walk below in the sort's order, which fills a page sooner for
    // common text, answers instead. The search's condition (LIKE, or the amount) is applied in
    // both cases, so the rows are exactly its semantics.
    // PostgreSQL's copy is a plain table, actions_search (migration 8), whose one pg_trgm GIN index
    // over the five lowercased columns joined (postgresSearchDocument()) gives the candidates, by
    // the same rule: it is asked for the text's runs without common trigrams (LIKE '%run%' per
    // run; postgresRuns(): without separators at their ends, which pg_trgm pads), because a GIN
    // scan costs about as much as the rows its trigrams occur in (on bench_console's 10^6
    // actions, LIKE '%ord-0500000%' on one column took ~25 ms, '%0500000%' ~0.6 ms). Asking for
    // them in a CTE of their own also keeps the planner from ANDing the candidates with a bitmap
    // of every row of the queue's states (it did: 100,000 entries, ~70 ms of a 180 ms search).
    if (query.text.toUcs4().size() >= 3) {
        const std::shared_ptr<const TrigramSample> current = currentTrigramSample();
        const TrigramSample sample = current ? *current : TrigramSample();
        QString textCandidates;
        QVariantList indexValues;
        if (postgres) {
            QStringList likes;
            for (const QString &run : postgresRuns(query.text, sample)) {
                likes << postgresSearchDocument() + QStringLiteral(" LIKE ? ESCAPE '\\'");
                indexValues << likePattern(run);
            }
            textCandidates = QStringLiteral("SELECT id FROM actions_search WHERE ") + likes.join(QStringLiteral(" AND "));
        } else {
            textCandidates = QStringLiteral("SELECT rowid AS r FROM actions_search WHERE actions_search MATCH ?");
            indexValues << trigramMatchExpression(query.text, sample);
        }
        const std::optional<qint64> amount = Money::searchedTenThousandths(query.text);
        if (amount)
            indexValues << *amount;
        const QString sql = candidatePageSql(postgres, textCandidates, amount.has_value(), conditions, order,
                                             orderBy(QStringLiteral("p")));
        QSqlQuery q(db);
        if (!runOnce(q, sql, indexValues + values, &error))
            return error;
        qint64 candidates = 0;
        readRows(q, &candidates);
        if (candidates <= kIndexCandidateCap) {
            if (const LedgerError counted = addDuplicateCounts(*this, &page.rows); !counted.ok())
                return counted;
            return page;
        }
        page = Page(); // over the cap: the page part was skipped
    }

    // PostgreSQL, in another order than creation: the page's ids first, then their rows. The walk
    // of a sort key's index checks the state filter in the heap row of every row it passes (only
    // SQLite checks it in the index), ~1,000 random heap reads for a queue page on 10^6 actions
    // (-amount: ~24 ms); the ids alone are an index-only scan of (key…, created_at, id, state),
    // which checks the state in the index, and only the page's rows are read (~0.5 ms).
    const QString filter = where.isEmpty() ? QString() : QStringLiteral(" WHERE ") + conditions;
    const QString sql = postgres && !byCreation
        ? QStringLiteral("SELECT %1 FROM actions a WHERE a.id IN (SELECT a.id FROM actions a%2%3)%4")
              .arg(summaryColumns(), filter, order, orderBy(QStringLiteral("a")))
        : QStringLiteral("SELECT %1 FROM actions a%2%3").arg(summaryColumns(), filter, order);
    QSqlQuery q(db);
    if (!runOnce(q, sql, values, &error))
        return error;
    readRows(q, nullptr);
    if (const LedgerError counted = addDuplicateCounts(*this, &page.rows); !counted.ok())
        return counted;
    return page;
}

std::shared_ptr<const TrigramSample> ActionReader::trigramSample() const
{
    std::lock_guard<std::mutex> lock(m_sampleMutex);
    return m_sample;
}

void ActionReader::prepareSearch() const
{
    currentTrigramSample();
}

std::shared_ptr<const TrigramSample> ActionReader::currentTrigramSample() const
{
    std::lock_guard<std::mutex> lock(m_sampleMutex);
    const bool stale = !m_sample || m_sampleAge.elapsed() >= kTrigramSampleMaxAgeMs;
    if (stale && !m_sampleRefreshing) {
        m_sampleRefreshing = true;
        m_samplePool.start([this] { refreshTrigramSample(); });
    }
    return m_sample;
}

void ActionReader::refreshTrigramSample(int sampleRows) const
{
    LedgerError error;
    QSqlDatabase db = m_db.connection(&error);
    QList<QStringList> rows;
    QSqlQuery q(db);
    const QString columns = QStringLiteral("id, target_id, business_reference, requested_by, client_reference");
    // A small ledger is read whole (at most sampleRows + 1 index entries to know it is small).
    bool read = error.ok()
        && runOnce(q, QStringLiteral("SELECT COUNT(*) FROM (SELECT 1 FROM actions LIMIT %1) s").arg(sampleRows + 1),
               {}, &error)
        && q.next();
    QString sql = QStringLiteral("SELECT %1 FROM actions").arg(columns);
    QVariantList probes;
    if (read && q.value(0).toInt() > sampleRows) {
        // A larger one by probes of the primary key at random ids: each reads the next kRun ids,
        // random actions from anywhere in the ledger, whatever their age. One statement, the same
        // text on both engines; a row two probes reach is counted once.
        constexpr int kRun = 10;
        QStringList parts;
        for (int i = 0; i < std::max(1, sampleRows / kRun); ++i) {
            parts << QStringLiteral("SELECT * FROM (SELECT %1 FROM actions WHERE id >= ? ORDER BY id LIMIT %2) p%3")
                         .arg(columns)
                         .arg(kRun)
                         .arg(i);
            probes << QVariant(QStringLiteral("act_") + Ids::randomBase32(4));
        }
        sql = parts.join(QStringLiteral(" UNION ALL "));
    }
    read = read && runOnce(q, sql, probes, &error);
    if (read) {
        QSet<QString> seen;
        while (q.next()) {
            const QString id = q.value(0).toString();
            if (seen.contains(id))
                continue;
            seen.insert(id);
            rows.append({id, q.value(1).toString(), q.value(2).toString(), q.value(3).toString(),
                         q.value(4).toString()});
        }
    }
    auto sample = std::make_shared<TrigramSample>();
    sample->reset(rows);
    std::lock_guard<std::mutex> lock(m_sampleMutex);
    m_sampleRefreshing = false;
    if (!read)
        return; // keep what there is (or none); the next search asks again
    m_sample = std::move(sample);
    m_sampleAge.start();
}

LedgerResult<QMap<ActionState, qint64>> ActionReader::counts(const QString &requestedBy) const
{
    LedgerError error;
    QSqlDatabase db = m_db.connection(&error);
    if (!error.ok())
        return error;
    QMap<ActionState, qint64> counts;
    for (ActionState state : allStates())
        counts.insert(state, 0);
    QSqlQuery q(db);
    // Maintained by triggers (migration 4): no walk over the ledger.
    const bool ok = requestedBy.isEmpty()
        ? runOnce(q, QStringLiteral("SELECT state, n FROM action_state_counts"), {}, &error)
        : runOnce(q, QStringLiteral("SELECT state, n FROM action_requester_state_counts WHERE requested_by = ?"),
              {requestedBy}, &error);
    if (!ok)
        return error;
    while (q.next()) {
        if (const auto state = stateFromWire(q.value(0).toString()))
            counts[*state] = q.value(1).toLongLong();
    }
    return counts;
}

namespace {

// The open attention items of `table` (settlements, discrepancies: a row per action with an
// `attention` column), over every action or one requester's. runOnce, not a pooled statement: a
// pooled QPSQL statement left after its one row keeps the session from telling that the server
// ended it, and the next request on this thread then fails once
// (tst_api_postgres::terminatedSessionsReconnect).
LedgerResult<qint64> openItems(const LedgerDatabase &database, QLatin1String table, const QString &requestedBy)
{
    LedgerError error;
    QSqlDatabase db = database.connection(&error);
    if (!error.ok())
        return error;
    QSqlQuery q(db);
    const bool ok = requestedBy.isEmpty()
        ? runOnce(q, QStringLiteral("SELECT COUNT(*) FROM %1 WHERE attention = 'open'").arg(table), {}, &error)
        : runOnce(q, QStringLiteral("SELECT COUNT(*) FROM %1 i JOIN actions a ON a.id = i.action_id"
                                    " WHERE i.attention = 'open' AND a.requested_by = ?").arg(table),
                  {requestedBy}, &error);
    if (!ok)
        return error;
    return q.next() ? q.value(0).toLongLong() : 0;
}

} // namespace

LedgerResult<qint64> ActionReader::queuedCount(const QString &requestedBy) const
{
    LedgerError error;
    QSqlDatabase db = m_db.connection(&error);
    if (!error.ok())
        return error;
    // The partial index's condition word for word, so that both engines read only its entries.
    QString sql = QStringLiteral("SELECT COUNT(*) FROM actions%1 WHERE state = 'PENDING' AND idempotency_key <> ''")
                      .arg(queuedIndex(sql::isPostgres(db)));
    QVariantList values;
    if (!requestedBy.isEmpty()) {
        sql += QStringLiteral(" AND requested_by = ?");
        values << requestedBy;
    }
    QSqlQuery q(db);
    if (!runOnce(q, sql, values, &error))
        return error;
    return q.next() ? q.value(0).toLongLong() : 0;
}

LedgerResult<qint64> ActionReader::settlementReviewCount(const QString &requestedBy) const
{
    return openItems(m_db, QLatin1String("settlements"), requestedBy);
}

LedgerResult<qint64> ActionReader::discrepancyCount(const QString &requestedBy) const
{
    return openItems(m_db, QLatin1String("discrepancies"), requestedBy);
}

LedgerResult<ActionReader::DiscrepancyGauges> ActionReader::discrepancyGauges() const
{
    DiscrepancyGauges out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        sql::Statement q(db);
        if (!sql::run(q, QStringLiteral("SELECT COUNT(*), MIN(opened_at) FROM discrepancies WHERE attention = 'open'"),
                      {}, &e))
            return e;
        if (q.next()) {
            out.open = q.value(0).toLongLong();
            out.oldestOpenedAt = q.value(1).isNull() ? QDateTime() : fromMs(q.value(1).toLongLong());
        }
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<std::optional<Discrepancy>> ActionReader::discrepancy(const QString &actionId) const
{
    std::optional<Discrepancy> out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        discrepancies::loadIn(db, actionId, &out, &e);
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<ActionReader::SettlementGauges> ActionReader::settlementGauges(const QDateTime &now) const
{
    SettlementGauges out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        sql::Statement review(db);
        if (!sql::run(review, QStringLiteral("SELECT COUNT(*), MIN(attention_since) FROM settlements WHERE attention = 'open'"),
                      {}, &e))
            return e;
        if (review.next()) {
            out.reviewOpen = review.value(0).toLongLong();
            out.oldestReviewSince = review.value(1).isNull() ? QDateTime() : fromMs(review.value(1).toLongLong());
        }
        sql::Statement unsettled(db);
        if (!sql::run(unsettled,
                      QStringLiteral("SELECT COUNT(*), COALESCE(SUM(CASE WHEN next_check_at <= ? THEN 1 ELSE 0 END), 0)"
                                     " FROM settlements WHERE next_check_at IS NOT NULL"),
                      {sql::toMs(now)}, &e))
            return e;
        if (unsettled.next()) {
            out.unsettled = unsettled.value(0).toLongLong();
            out.checksDue = unsettled.value(1).toLongLong();
        }
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<QString> ActionReader::actionForProviderRefs(const QString &idempotencyKey, const QString &refundId) const
{
    QString out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        if (!idempotencyKey.isEmpty()) {
            sql::Statement q(db);
            if (!sql::run(q, QStringLiteral("SELECT action_id FROM approvals WHERE idempotency_key = ?"), {idempotencyKey}, &e))
                return e;
            if (q.next()) {
                out = q.value(0).toString();
                return e;
            }
        }
        if (!refundId.isEmpty()) {
            sql::Statement q(db);
            if (!sql::run(q, QStringLiteral("SELECT action_id FROM settlements WHERE refund_id = ?"), {refundId}, &e))
                return e;
            if (q.next())
                out = q.value(0).toString();
        }
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<std::optional<Settlement>> ActionReader::settlement(const QString &actionId) const
{
    std::optional<Settlement> out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        settlements::loadIn(db, actionId, &out, &e);
        return e;
    });
    return resultOf(error, out);
}

LedgerResult<QMap<ActionState, QDateTime>> ActionReader::oldestChange(const QList<ActionState> &states) const
{
    QMap<ActionState, QDateTime> out;
    for (const ActionState state : states) {
        const LedgerError error = m_db.query(QStringLiteral("SELECT MIN(updated_at) FROM actions WHERE state = ?"),
                                             {toWire(state)}, [&](const sql::Statement &q) {
                                                 if (!q.value(0).isNull())
                                                     out.insert(state, fromMs(q.value(0).toLongLong()));
                                             });
        if (!error.ok())
            return error;
    }
    return out;
}

LedgerResult<qint64> ActionReader::reconcileBacklog(const QDateTime &now) const
{
    qint64 count = 0;
    const LedgerError error = m_db.query(
        QStringLiteral("SELECT COUNT(*) FROM actions a LEFT JOIN reconcile_schedule s ON s.action_id = a.id"
                       " WHERE a.state = 'CONFIRMATION_UNKNOWN' AND (s.next_check_at IS NULL OR s.next_check_at <= ?)"),
        {sql::toMs(now)}, [&](const sql::Statement &q) { count = q.value(0).toLongLong(); });
    return resultOf(error, count);
}

LedgerResult<QString> ActionReader::proposalId(const QString &requestedBy, const QString &clientReference) const
{
    LedgerError error;
    QSqlDatabase db = m_db.connection(&error);
    if (!error.ok())
        return error;
    QSqlQuery q(db);
    if (!runOnce(q, QStringLiteral("SELECT id FROM actions WHERE requested_by = ? AND client_reference = ?"),
                 {requestedBy, clientReference}, &error))
        return error;
    return q.next() ? q.value(0).toString() : QString();
}

LedgerResult<ActionReader::RequesterRecord> ActionReader::requesterRecord(const QString &requestedBy,
                                                                          const QDateTime &now) const
{
    LedgerError error;
    QSqlDatabase db = m_db.connection(&error);
    if (!error.ok())
        return error;
    RequesterRecord record;
    record.requestedBy = requestedBy;
    const QDateTime utc = now.toUTC();
    record.today.since = QDateTime(utc.date(), QTime(0, 0), Qt::UTC);
    record.week.since = utc.addDays(-7);
    const qint64 todayMs = record.today.since.toMSecsSinceEpoch();
    const qint64 weekMs = record.week.since.toMSecsSinceEpoch();
    const qint64 fromMs = std::min(todayMs, weekMs);
    // Per currency: [today count, total, rejected, review], [week count, total, rejected, review].
    QSqlQuery q(db);
    const QString sql = QStringLiteral(
        "SELECT r.currency,"
        " SUM(CASE WHEN r.created_at >= ? THEN 1 ELSE 0 END), SUM(CASE WHEN r.created_at >= ? THEN r.amount ELSE 0 END),"
        " SUM(CASE WHEN r.created_at >= ? THEN r.rejected ELSE 0 END), SUM(CASE WHEN r.created_at >= ? THEN r.reviewed ELSE 0 END),"
        " SUM(CASE WHEN r.created_at >= ? THEN 1 ELSE 0 END), SUM(CASE WHEN r.created_at >= ? THEN r.amount ELSE 0 END),"
        " SUM(CASE WHEN r.created_at >= ? THEN r.rejected ELSE 0 END), SUM(CASE WHEN r.created_at >= ? THEN r.reviewed ELSE 0 END)"
        " FROM (SELECT a.currency, a.amount, a.created_at,"
        "  CASE WHEN EXISTS (SELECT 1 FROM approvals p WHERE p.action_id = a.id AND p.decision = 'rejected')"
        "   THEN 1 ELSE 0 END AS rejected,"
        "  CASE WHEN a.state = 'REQUIRES_REVIEW' OR EXISTS (SELECT 1 FROM reconciliations c WHERE c.action_id = a.id)"
        "   THEN 1 ELSE 0 END AS reviewed"
        "  FROM actions a WHERE a.requested_by = ? AND a.created_at >= ?) r"
        " GROUP BY r.currency ORDER BY r.currency");
    if (!runOnce(q, sql,
                 {todayMs, todayMs, todayMs, todayMs, weekMs, weekMs, weekMs, weekMs, requestedBy, fromMs}, &error))
        return error;
    const auto add = [&q](RequesterWindow *window, int first) {
        const qint64 count = q.value(first).toLongLong();
        if (count == 0)
            return;
        window->count += count;
        window->rejected += q.value(first + 2).toLongLong();
        window->sentToReview += q.value(first + 3).toLongLong();
        window->totals.append({q.value(0).toString(), count, q.value(first + 1).toLongLong()});
    };
    while (q.next()) {
        add(&record.today, 1);
        add(&record.week, 5);
    }
    return record;
}

namespace {

// Runs "SELECT <columns> FROM actions a WHERE a.id IN (<ids>)" and hands each row to onRow.
LedgerError forEachById(const LedgerDatabase &database, const QString &columns, const QStringList &ids,
                        const std::function<void(const QSqlQuery &)> &onRow)
{
    if (ids.isEmpty())
        return {};
    LedgerError error;
    QSqlDatabase db = database.connection(&error);
    if (!error.ok())
        return error;
    QVariantList values;
    const QString marks = inListMarks(ids, &values);
    QSqlQuery q(db);
    if (runOnce(q, QStringLiteral("SELECT %1 FROM actions a WHERE a.id IN (%2)").arg(columns, marks), values, &error)) {
        while (q.next())
            onRow(q);
    }
    return error;
}

} // namespace

LedgerResult<QList<ActionReader::Summary>> ActionReader::summaries(const QStringList &ids) const
{
    QHash<QString, Summary> byId;
    const LedgerError error = forEachById(m_db, summaryColumns(), ids, [&](const QSqlQuery &q) {
        Summary s = summaryFromQuery(q);
        byId.insert(s.record.id, s);
    });
    QList<Summary> out;
    for (const QString &id : ids) {
        if (byId.contains(id))
            out.append(byId.value(id));
    }
    if (!error.ok())
        return error;
    if (const LedgerError counted = addDuplicateCounts(*this, &out); !counted.ok())
        return counted;
    return out;
}

LedgerResult<ActionReader::Page> ActionReader::onTargets(const QStringList &targetIds, int limit) const
{
    Page page;
    if (targetIds.isEmpty() || limit <= 0)
        return page;
    LedgerError error;
    QSqlDatabase db = m_db.connection(&error);
    if (!error.ok())
        return error;
    QVariantList values;
    const QString marks = inListMarks(targetIds, &values);
    values << limit + 1; // one more than asked: whether older ones exist
    QSqlQuery q(db);
    if (!runOnce(q, QStringLiteral("SELECT %1 FROM actions a WHERE a.target_id IN (%2) ORDER BY a.created_at DESC, a.id DESC LIMIT ?")
                        .arg(summaryColumns(), marks),
                 values, &error)) {
        return error;
    }
    while (q.next())
        page.rows.append(summaryFromQuery(q));
    if (page.rows.size() > limit) {
        page.rows.removeLast();
        page.hasMore = true;
    }
    std::reverse(page.rows.begin(), page.rows.end());
    if (const LedgerError counted = addDuplicateCounts(*this, &page.rows); !counted.ok())
        return counted;
    return page;
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
    QSqlDatabase db = m_db.connection(&error);
    if (!error.ok())
        return error;
    QSqlQuery q(db);
    if (!runOnce(q, QStringLiteral("SELECT COALESCE(MAX(seq), 0) FROM audit"), {}, &error))
        return error;
    return q.next() ? q.value(0).toLongLong() : qint64(0);
}

LedgerResult<QHash<QString, QString>> ActionReader::requesters(const QStringList &ids) const
{
    QHash<QString, QString> out;
    const LedgerError error = forEachById(m_db, QStringLiteral("a.id, a.requested_by"), ids, [&](const QSqlQuery &q) {
        out.insert(q.value(0).toString(), q.value(1).toString());
    });
    return resultOf(error, out);
}

// --- point reads: one action's record and history ----------------------------------------------

namespace {

// Every row of sql (bound to values) mapped by fromRow, in the order the SQL gives.
template <typename T, typename FromRow>
LedgerResult<QList<T>> readRows(const LedgerDatabase &database, const QString &sql, const QVariantList &values,
                                FromRow fromRow)
{
    QList<T> out;
    const LedgerError error = database.query(sql, values, [&](const sql::Statement &q) { out.append(fromRow(q)); });
    return resultOf(error, out);
}

// The rows of one action in one of its append-only tables, oldest first.
template <typename T, typename FromRow>
LedgerResult<QList<T>> historyOf(const LedgerDatabase &database, const QString &columns, const char *table,
                                 const char *order, const QString &actionId, FromRow fromRow)
{
    return readRows<T>(database,
                       QStringLiteral("SELECT %1 FROM %2 WHERE action_id = ? ORDER BY %3")
                           .arg(columns, QLatin1String(table), QLatin1String(order)),
                       {actionId}, fromRow);
}

} // namespace

LedgerResult<ActionRecord> ActionReader::action(const QString &actionId) const
{
    const auto info = executionInfo(actionId);
    return info.ok() ? LedgerResult<ActionRecord>(info->record) : LedgerResult<ActionRecord>(info.error());
}

LedgerResult<ActionReader::ExecutionInfo> ActionReader::executionInfo(const QString &actionId) const
{
    ActionRow row;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        loadAction(db, actionId, &row, &e);
        return e;
    });
    ExecutionInfo info;
    info.record = row.record;
    info.leaseOwner = row.leaseOwner;
    if (row.leaseExpiresAtMs)
        info.leaseExpiresAt = fromMs(*row.leaseExpiresAtMs);
    info.reviewRequested = row.reviewRequested;
    return resultOf(error, info);
}

LedgerResult<QList<Attempt>> ActionReader::attempts(const QString &actionId) const
{
    return historyOf<Attempt>(m_db, attemptColumns(), "attempts", "seq", actionId, attemptFromRow);
}

LedgerResult<QList<ProviderLookup>> ActionReader::lookups(const QString &actionId) const
{
    return historyOf<ProviderLookup>(m_db, lookupColumns(), "lookups", "seq", actionId, lookupFromRow);
}

LedgerResult<QList<Approval>> ActionReader::approvals(const QString &actionId) const
{
    return historyOf<Approval>(m_db, approvalHistoryColumns(), "approvals", "version", actionId,
                               approvalHistoryFromRow);
}

LedgerResult<QList<Reconciliation>> ActionReader::reconciliations(const QString &actionId) const
{
    return historyOf<Reconciliation>(m_db, reconciliationColumns(), "reconciliations", "seq", actionId,
                                     reconciliationFromRow);
}

LedgerResult<QList<AuditEvent>> ActionReader::audit(const QString &actionId) const
{
    return historyOf<AuditEvent>(m_db, AuditChain::columns(), "audit", "seq", actionId, AuditChain::fromRow);
}

LedgerResult<QList<AuditEvent>> ActionReader::auditLog(qint64 afterSeq, int limit) const
{
    return readRows<AuditEvent>(m_db,
                                QStringLiteral("SELECT %1 FROM audit WHERE seq > ? ORDER BY seq LIMIT ?")
                                    .arg(AuditChain::columns()),
                                {afterSeq, qBound(1, limit, 100000)}, AuditChain::fromRow);
}

LedgerResult<QList<ActionRecord>> ActionReader::followUps(const QString &actionId) const
{
    return readRows<ActionRecord>(m_db,
                                  QStringLiteral("SELECT %1 FROM actions WHERE parent_id = ? ORDER BY created_at, id")
                                      .arg(actionColumns()),
                                  {actionId}, [](const sql::Statement &q) { return actionFromRow(q).record; });
}

LedgerResult<AuditChain::Verification> ActionReader::verifyAudit() const
{
    AuditChain::Verification v;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        const auto verified = AuditChain::verify(db);
        if (!verified.ok())
            return verified.error();
        v = *verified;
        return LedgerError();
    });
    return resultOf(error, v);
}

// --- possible duplicates (issue 14, "Two refunds for one business need") ----------------------

namespace {

// The pairs (id: asked, other, by_reference) of the rule in ActionReader::possibleDuplicatesIn,
// as a CTE "d" over the asked ids, bound in order. p: the asked actions with their charge (the
// target, or the charge the newest FOUND snapshot of the target named: a payment intent's); t:
// every target sharing that charge (the charge, the action's own target, and each target a FOUND
// snapshot of the charge was read under: a payment intent and its charge); m: the other actions
// on one of those targets or under the same non-empty business reference. Each step is an index
// probe: charge_snapshots_by_target, the snapshots' primary key (charge_key, seq),
// actions_by_target, actions_by_business_reference, the actions' primary key.
QString duplicatePairs(const QStringList &ids, QVariantList *values)
{
    return QStringLiteral(
               "WITH p AS (SELECT a.id, a.target_id, a.business_reference, a.parent_id,"
               "  COALESCE((SELECT s.charge_key FROM charge_snapshots s WHERE s.target_id = a.target_id"
               "   AND s.result = 'FOUND' ORDER BY s.read_at DESC, s.seq DESC LIMIT 1), a.target_id) AS charge_key"
               "  FROM actions a WHERE a.id IN (%1)),"
               " t AS (SELECT p.id, p.target_id FROM p"
               "  UNION SELECT p.id, p.charge_key FROM p"
               "  UNION SELECT p.id, s.target_id FROM p JOIN charge_snapshots s ON s.charge_key = p.charge_key"
               "   AND s.result = 'FOUND'),"
               " m AS (SELECT t.id, b.id AS other, 0 AS by_reference FROM t JOIN actions b ON b.target_id = t.target_id"
               "  UNION SELECT p.id, b.id, 1 FROM p JOIN actions b ON b.business_reference = p.business_reference"
               "   WHERE p.business_reference <> ''),"
               " d AS (SELECT m.id, m.other, MAX(m.by_reference) AS by_reference FROM m"
               "  JOIN p ON p.id = m.id JOIN actions b ON b.id = m.other"
               "  WHERE b.id <> p.id AND b.state <> 'REJECTED'"
               "   AND (b.parent_id IS NULL OR b.parent_id <> p.id)"
               "   AND (p.parent_id IS NULL OR (b.id <> p.parent_id"
               "    AND (b.parent_id IS NULL OR b.parent_id <> p.parent_id)))"
               "  GROUP BY m.id, m.other)")
        .arg(inListMarks(ids, values));
}

} // namespace

LedgerError ActionReader::possibleDuplicatesIn(QSqlDatabase &db, const QStringList &ids,
                                               QList<PossibleDuplicate> *out)
{
    out->clear();
    if (ids.isEmpty())
        return {};
    QVariantList values;
    const QString sql = duplicatePairs(ids, &values)
        + QStringLiteral(" SELECT %1, d.id, d.by_reference FROM d JOIN actions a ON a.id = d.other"
                         " ORDER BY d.id, a.created_at, a.id")
              .arg(summaryColumns());
    LedgerError error;
    QSqlQuery q(db);
    if (!runOnce(q, sql, values, &error))
        return error;
    while (q.next()) {
        PossibleDuplicate d;
        d.other = summaryFromQuery(q);
        d.of = q.value(kSummaryColumnCount).toString();
        d.sameBusinessReference = q.value(kSummaryColumnCount + 1).toInt() != 0;
        out->append(std::move(d));
    }
    return error;
}

QString ActionReader::possibleDuplicateCountsSql(const QStringList &ids, QVariantList *values)
{
    return duplicatePairs(ids, values) + QStringLiteral(" SELECT d.id, COUNT(*) FROM d GROUP BY d.id");
}

LedgerError ActionReader::possibleDuplicateCountsIn(QSqlDatabase &db, const QStringList &ids,
                                                    QHash<QString, int> *out)
{
    out->clear();
    if (ids.isEmpty())
        return {};
    QVariantList values;
    const QString sql = possibleDuplicateCountsSql(ids, &values);
    LedgerError error;
    QSqlQuery q(db);
    if (!runOnce(q, sql, values, &error))
        return error;
    while (q.next())
        out->insert(q.value(0).toString(), q.value(1).toInt());
    return error;
}

LedgerResult<QList<ActionReader::PossibleDuplicate>> ActionReader::possibleDuplicates(const QString &actionId) const
{
    QList<PossibleDuplicate> out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) { return possibleDuplicatesIn(db, {actionId}, &out); });
    return resultOf(error, out);
}

LedgerResult<QHash<QString, int>> ActionReader::possibleDuplicateCounts(const QStringList &ids) const
{
    QHash<QString, int> out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) { return possibleDuplicateCountsIn(db, ids, &out); });
    return resultOf(error, out);
}


} // namespace cs
