#include "server/ledger/ledgercopy.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ledger.h"
#include "server/ledger/ledgerconnections.h"
#include "server/ledger/ledgerlog.h"
#include "server/ledger/migrations.h"
#include "server/ledger/sqlstatement.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QSqlDriver>
#include <QSqlField>
#include <QSqlQuery>
#include <QtEndian>

#include <memory>

namespace cs {

using Code = LedgerError::Code;

namespace {

enum class Kind { Integer, Text, Blob };

struct Column
{
    QString name;
    Kind kind = Kind::Text;
    bool generated = false; // computed by the database: digested, never inserted
};

// What the copy knows of each table: the columns that order it (its primary key) and whether it
// is derived — the count tables are kept by the target's own triggers, not copied.
struct TableSpec
{
    QString name;
    QStringList key;
    bool derived = false;
    QList<Column> columns; // filled from the source, checked against the target
};

QList<TableSpec> knownTables()
{
    const auto spec = [](const char *name, const char *key, bool derived = false) {
        return TableSpec{QLatin1String(name), QString::fromLatin1(key).split(u','), derived, {}};
    };
    return {
        spec("schema_version", "version"),
        spec("users", "name"),
        spec("actions", "id"),
        spec("approvals", "action_id,version"),
        // Before attempts: an expiry is refused once its action has an attempt (migration 13).
        spec("approval_expiries", "action_id,approval_version"),
        spec("attempts", "action_id,seq"),
        spec("lookups", "action_id,seq"),
        spec("reconciliations", "action_id,seq"),
        spec("conflicts", "action_id,seq"),
        // After actions: a settlement is refused unless its action is COMPLETED (migration 14).
        spec("settlements", "action_id"),
        spec("settlement_changes", "action_id,seq"),
        // After actions: a discrepancy is refused unless its action is COMPLETED or REJECTED (migration 15).
        spec("discrepancies", "action_id"),
        spec("audit", "seq"),
        spec("reconcile_schedule", "action_id"),
        spec("webhook_events", "event_id"),
        spec("api_requests", "user_name,idempotency_key"),
        spec("charges", "charge_key"),
        spec("charge_snapshots", "charge_key,seq"),
        spec("policy_versions", "version"),
        spec("approval_signatures", "action_id,seq"),
        // GET /health/ready's writes (migration 16): copied like the rest, harmless.
        spec("readiness_probe", "instance"),
        spec("execution_pauses", "id"),
        spec("action_state_counts", "state", true),
        spec("action_requester_state_counts", "requested_by,state", true),
    };
}

LedgerError failure(Code code, const QString &message)
{
    return LedgerError(code, message);
}

// A query whose rows the caller reads (SQL assembled here from the schema's own names).
bool select(QSqlQuery &query, const QString &sql, const QVariantList &values, LedgerError *error)
{
    return sql::runOnce(query, sql, values, error);
}

// A column as both engines read it for the copy and the digest: integers as numbers, text as its
// stored UTF-8 bytes, blobs as bytes.
QString readExpression(const QSqlDatabase &db, const Column &column)
{
    switch (column.kind) {
    case Kind::Integer:
        return column.name;
    case Kind::Text:
        return sql::storedBytesOf(db, column.name);
    case Kind::Blob:
        return sql::isPostgres(db) ? column.name : QStringLiteral("CAST(%1 AS BLOB)").arg(column.name);
    }
    return column.name;
}

QString readList(const QSqlDatabase &db, const QList<Column> &columns)
{
    QStringList out;
    for (const Column &column : columns)
        out << readExpression(db, column);
    return out.join(QStringLiteral(", "));
}

// Primary-key order, text keys compared as their bytes: the same order on both engines.
QString keyOrder(const QSqlDatabase &db, const TableSpec &table)
{
    QStringList out;
    for (const QString &key : table.key) {
        for (const Column &column : table.columns) {
            if (column.name == key)
                out << readExpression(db, column);
        }
    }
    return out.join(QStringLiteral(", "));
}

LedgerError sourceColumns(QSqlDatabase &db, TableSpec *table)
{
    LedgerError error;
    QSqlQuery q(db);
    // table_xinfo, not table_info: it lists generated columns too (hidden 2 and 3).
    if (!select(q, QStringLiteral("PRAGMA table_xinfo(%1)").arg(table->name), {}, &error))
        return error;
    while (q.next()) {
        const QString type = q.value(2).toString().toUpper();
        const int hidden = q.value(6).toInt();
        table->columns.append({q.value(1).toString(),
                               type.contains(QLatin1String("INT")) ? Kind::Integer
                                   : type.contains(QLatin1String("BLOB")) ? Kind::Blob
                                                                          : Kind::Text,
                               hidden == 2 || hidden == 3});
    }
    if (table->columns.isEmpty())
        return failure(Code::Storage, QStringLiteral("the source ledger has no table %1").arg(table->name));
    return {};
}

// The target's columns must be the source's: the same names, kinds and generated columns.
LedgerError checkTargetColumns(QSqlDatabase &db, const TableSpec &table)
{
    LedgerError error;
    QSqlQuery q(db);
    if (!select(q,
                QStringLiteral("SELECT column_name, data_type, is_generated FROM information_schema.columns"
                               " WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"),
                {table.name}, &error))
        return error;
    QHash<QString, Column> target;
    while (q.next()) {
        const QString type = q.value(1).toString();
        const Kind kind = type == u"bytea" ? Kind::Blob
            : (type == u"integer" || type == u"bigint" || type == u"smallint") ? Kind::Integer
                                                                               : Kind::Text;
        target.insert(q.value(0).toString(), {q.value(0).toString(), kind, q.value(2).toString() == u"ALWAYS"});
    }
    bool same = target.size() == table.columns.size();
    for (const Column &column : table.columns) {
        const auto found = target.constFind(column.name);
        same = same && found != target.constEnd() && found->kind == column.kind && found->generated == column.generated;
    }
    if (!same)
        return failure(Code::Conflict, QStringLiteral("table %1 has other columns in the target than in the source:"
                                                      " not the same schema").arg(table.name));
    return {};
}

void addDigest(QCryptographicHash &hash, char tag, qint64 number)
{
    char buffer[9];
    buffer[0] = tag;
    qToBigEndian<qint64>(number, buffer + 1);
    hash.addData(QByteArrayView(buffer, sizeof buffer));
}

// Row count and SHA-256 of a table's rows in key order, every value as its kind and exact bytes.
LedgerResult<LedgerCopy::Table> digestOf(QSqlDatabase &db, const TableSpec &table)
{
    LedgerError error;
    QSqlQuery q(db);
    if (!select(q, QStringLiteral("SELECT %1 FROM %2 ORDER BY %3")
                       .arg(readList(db, table.columns), table.name, keyOrder(db, table)),
                {}, &error))
        return error;
    QCryptographicHash hash(QCryptographicHash::Sha256);
    LedgerCopy::Table out;
    out.name = table.name;
    while (q.next()) {
        ++out.rows;
        for (int i = 0; i < table.columns.size(); ++i) {
            const QVariant value = q.value(i);
            if (value.isNull()) {
                hash.addData(QByteArrayView("N", 1));
            } else if (table.columns.at(i).kind == Kind::Integer) {
                const int type = value.typeId();
                if (type != QMetaType::LongLong && type != QMetaType::Int && type != QMetaType::ULongLong
                    && type != QMetaType::UInt)
                    return failure(Code::Conflict, QStringLiteral("table %1, column %2 holds a value that is not an"
                                                                  " integer").arg(table.name, table.columns.at(i).name));
                addDigest(hash, 'I', value.toLongLong());
            } else {
                const QByteArray bytes = value.toByteArray();
                addDigest(hash, table.columns.at(i).kind == Kind::Text ? 'T' : 'B', bytes.size());
                hash.addData(bytes);
            }
        }
    }
    out.digest = QString::fromLatin1(hash.result().toHex());
    return out;
}

// Rows for one INSERT … VALUES (…), (…) at a time: one round trip per batch instead of per row.
// The values are written as literals by the driver's own formatValue (what QPSQL's prepared
// statements do too), sent as one simple query: nothing to PREPARE, so nothing to DEALLOCATE
// in a transaction a refused batch has aborted.
class BatchInsert
{
public:
    BatchInsert(QSqlDatabase &db, const QString &table, const QStringList &columns, int batchRows,
                const QString &suffix = QString())
        : m_db(db), m_table(table), m_columns(columns), m_suffix(suffix), m_batchRows(std::max(1, batchRows))
    {
    }

    LedgerError add(const QVariantList &row)
    {
        QStringList literals;
        literals.reserve(row.size());
        for (const QVariant &value : row) {
            QSqlField field(QString(), value.metaType());
            field.setValue(value);
            literals << m_db.driver()->formatValue(field);
        }
        const QString tuple = u'(' + literals.join(QStringLiteral(", ")) + u')';
        m_bytes += tuple.size();
        m_tuples << tuple;
        if (m_tuples.size() >= m_batchRows || m_bytes > (4 << 20))
            return flush();
        return {};
    }

    LedgerError flush()
    {
        if (m_tuples.isEmpty())
            return {};
        const QString sql = QStringLiteral("INSERT INTO %1 (%2) VALUES %3%4")
                                .arg(m_table, m_columns.join(QStringLiteral(", ")), m_tuples.join(QStringLiteral(", ")),
                                     m_suffix);
        LedgerError error;
        if (!sql::plain(m_db, sql, &error))
            return LedgerError(error.code(), QStringLiteral("copying table %1: %2").arg(m_table, error.message().left(600)));
        m_tuples.clear();
        m_bytes = 0;
        return {};
    }

private:
    QSqlDatabase &m_db;
    const QString m_table;
    const QStringList m_columns;
    const QString m_suffix;
    const int m_batchRows;
    QStringList m_tuples;
    qint64 m_bytes = 0;
};

// One copied table: its source rows, read in key order (or `order`), each turned into the
// target's binding values (text as the valid UTF-8 it is stored as: PostgreSQL stores text as
// UTF-8, so the same bytes arrive), then `onRow` decides what is inserted.
class TableCopy
{
public:
    TableCopy(QSqlDatabase &source, const TableSpec &table) : m_source(source), m_table(table)
    {
        for (const Column &column : table.columns) {
            if (!column.generated)
                m_insertColumns << column.name;
        }
    }

    const QStringList &insertColumns() const { return m_insertColumns; }
    int indexOf(const QString &column) const { return int(m_insertColumns.indexOf(column)); }

    LedgerError each(const QString &where, const QString &order, const std::function<LedgerError(QVariantList &)> &onRow)
    {
        QList<Column> columns;
        for (const Column &column : m_table.columns) {
            if (!column.generated)
                columns << column;
        }
        LedgerError error;
        QSqlQuery q(m_source);
        if (!select(q, QStringLiteral("SELECT %1 FROM %2%3 ORDER BY %4")
                           .arg(readList(m_source, columns), m_table.name, where,
                                order.isEmpty() ? m_table.key.join(QStringLiteral(", ")) : order),
                    {}, &error))
            return error;
        while (q.next()) {
            QVariantList row;
            row.reserve(columns.size());
            for (int i = 0; i < columns.size(); ++i) {
                QVariant value;
                if (const LedgerError e = bindable(columns.at(i), q.value(i), &value, q); !e.ok())
                    return e;
                row << value;
            }
            if (const LedgerError e = onRow(row); !e.ok())
                return e;
            ++m_rows;
        }
        return {};
    }

    qint64 rows() const { return m_rows; }

private:
    QString keyOf(const QSqlQuery &q) const
    {
        QStringList parts;
        int i = 0;
        for (const Column &column : m_table.columns) {
            if (column.generated)
                continue;
            if (m_table.key.contains(column.name))
                parts << column.name + u'=' + QString::fromUtf8(q.value(i).toByteArray());
            ++i;
        }
        return parts.join(QStringLiteral(", "));
    }

    LedgerError bindable(const Column &column, const QVariant &value, QVariant *out, const QSqlQuery &q) const
    {
        switch (column.kind) {
        case Kind::Integer:
            *out = value.isNull() ? QVariant(QMetaType::fromType<qlonglong>()) : QVariant(value.toLongLong());
            return {};
        case Kind::Blob: // an empty value must not bind as NULL (a null QByteArray does)
            *out = value.isNull() ? QVariant(QMetaType::fromType<QByteArray>())
                                  : QVariant(value.toByteArray().isNull() ? QByteArray("") : value.toByteArray());
            return {};
        case Kind::Text:
            break;
        }
        if (value.isNull()) {
            *out = QVariant(QMetaType::fromType<QString>());
            return {};
        }
        const QByteArray bytes = value.toByteArray();
        if (!QByteArrayView(bytes).isValidUtf8() || bytes.contains('\0')) {
            return failure(Code::Conflict,
                           QStringLiteral("table %1 (%2), column %3 holds bytes that PostgreSQL cannot store as text"
                                          " (not UTF-8, or a NUL character); nothing was copied")
                               .arg(m_table.name, keyOf(q), column.name));
        }
        *out = sql::text(QString::fromUtf8(bytes)); // "" stays "", not NULL
        return {};
    }

    QSqlDatabase &m_source;
    const TableSpec &m_table;
    QStringList m_insertColumns;
    qint64 m_rows = 0;
};

// The target's state before the copy: nothing at all, an empty ledger at the latest schema, or
// something that must not be overwritten (refused with what was found).
enum class TargetState { Fresh, EmptyLedger };

LedgerResult<TargetState> inspectTarget(QSqlDatabase &db, const QList<TableSpec> &tables)
{
    LedgerError error;
    QStringList found;
    {
        QSqlQuery q(db);
        if (!select(q, QStringLiteral("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
                                      " AND table_type = 'BASE TABLE' ORDER BY table_name"),
                    {}, &error))
            return error;
        while (q.next())
            found << q.value(0).toString();
    }
    if (found.isEmpty())
        return TargetState::Fresh;
    // PostgreSQL's copy of the searchable columns (migration 8) is a ledger's table too; the
    // target's own trigger fills it from the copied actions, like SQLite's FTS5 index.
    found.removeAll(QStringLiteral("actions_search"));
    QStringList known;
    for (const TableSpec &table : tables)
        known << table.name;
    QStringList foreign;
    for (const QString &name : std::as_const(found)) {
        if (!known.contains(name))
            foreign << name;
    }
    const QString refuse = QStringLiteral("the target database is not empty (%1): migrate --from copies only into an"
                                          " empty database; nothing was written");
    if (!foreign.isEmpty())
        return failure(Code::Conflict, refuse.arg(QStringLiteral("it holds tables that are not a Countersign ledger's: ")
                                                  + foreign.join(QStringLiteral(", "))));
    if (found.size() != known.size())
        return failure(Code::Conflict, refuse.arg(QStringLiteral("it holds part of a ledger's tables")));
    const int version = Migrations::currentVersion(db, &error);
    if (!error.ok())
        return error;
    if (version != Migrations::latestVersion())
        return failure(Code::Conflict, refuse.arg(QStringLiteral("it holds a ledger at schema version %1, not %2")
                                                      .arg(version).arg(Migrations::latestVersion())));
    QStringList withRows;
    for (const TableSpec &table : tables) {
        if (table.name == u"schema_version")
            continue;
        QSqlQuery q(db);
        if (!select(q, QStringLiteral("SELECT 1 FROM %1 LIMIT 1").arg(table.name), {}, &error))
            return error;
        if (q.next())
            withRows << table.name;
    }
    if (!withRows.isEmpty())
        return failure(Code::Conflict, refuse.arg(QStringLiteral("a ledger whose tables %1 have rows")
                                                      .arg(withRows.join(QStringLiteral(", ")))));
    return TargetState::EmptyLedger;
}

// The schema, created inside the copy's transaction: the statements Migrations::migrate runs on
// PostgreSQL (which applies each migration in a transaction of its own), so a failed copy leaves
// not even the tables behind.
LedgerError createSchema(QSqlDatabase &db)
{
    LedgerError error;
    if (!sql::plain(db, QStringLiteral("CREATE TABLE schema_version (version INTEGER NOT NULL PRIMARY KEY,"
                                       " name TEXT NOT NULL, applied_at BIGINT NOT NULL)"), &error))
        return error;
    for (const Migrations::Migration &migration : Migrations::all()) {
        for (const QString &statement : migration.postgres) {
            if (!sql::plain(db, statement, &error))
                return LedgerError(error.code(), QStringLiteral("creating the schema (migration %1): %2")
                                                     .arg(migration.version).arg(error.message()));
        }
    }
    return {};
}

// actions: parents before the partial refunds that name them (a foreign key), attempt_count from
// 0 (the target's trigger counts the attempts as they arrive).
LedgerError copyActions(QSqlDatabase &source, QSqlDatabase &target, const TableSpec &table, int batchRows, qint64 *rows)
{
    TableCopy copy(source, table);
    BatchInsert insert(target, table.name, copy.insertColumns(), batchRows);
    const int attemptCount = copy.indexOf(QStringLiteral("attempt_count"));
    const int idColumn = copy.indexOf(QStringLiteral("id"));
    const int parentColumn = copy.indexOf(QStringLiteral("parent_id"));
    const auto add = [&](QVariantList &row) {
        row[attemptCount] = qlonglong(0);
        return insert.add(row);
    };
    LedgerError error = copy.each(QStringLiteral(" WHERE parent_id IS NULL"), QString(), add);
    if (!error.ok())
        return error;
    // Children: each one whose parent is a root or already written goes now; the others (a
    // child of a child created out of order) wait for their parent.
    QSet<QString> roots;
    QSet<QString> written;
    QList<QVariantList> waiting;
    {
        QSqlQuery q(source);
        if (!select(q, QStringLiteral("SELECT DISTINCT %1 FROM actions WHERE parent_id IS NOT NULL AND parent_id IN"
                                      " (SELECT id FROM actions WHERE parent_id IS NULL)")
                           .arg(sql::storedBytesOf(source, QStringLiteral("parent_id"))),
                    {}, &error))
            return error;
        while (q.next())
            roots.insert(QString::fromUtf8(q.value(0).toByteArray()));
    }
    error = copy.each(QStringLiteral(" WHERE parent_id IS NOT NULL"), QStringLiteral("created_at, id"),
                      [&](QVariantList &row) {
                          const QString parent = row.at(parentColumn).toString();
                          if (!roots.contains(parent) && !written.contains(parent)) {
                              waiting.append(row);
                              return LedgerError();
                          }
                          written.insert(row.at(idColumn).toString());
                          return add(row);
                      });
    while (error.ok() && !waiting.isEmpty()) {
        const qsizetype before = waiting.size();
        for (qsizetype i = 0; i < waiting.size() && error.ok();) {
            if (written.contains(waiting.at(i).at(parentColumn).toString())) {
                written.insert(waiting.at(i).at(idColumn).toString());
                error = add(waiting[i]);
                waiting.removeAt(i);
            } else {
                ++i;
            }
        }
        if (waiting.size() == before)
            return failure(Code::Conflict, QStringLiteral("actions: %1 rows name a parent that is not in the ledger")
                                               .arg(waiting.size()));
    }
    if (error.ok())
        error = insert.flush();
    *rows = copy.rows();
    return error;
}

// attempts: each inserted open, as the target's triggers require of a new attempt (open, the
// action's one key and fingerprint), then finished with its recorded outcome (open -> outcome,
// once: what attempts_finish_once allows).
LedgerError copyAttempts(QSqlDatabase &source, QSqlDatabase &target, const TableSpec &table, int batchRows, qint64 *rows)
{
    LedgerError error;
    if (!sql::plain(target, QStringLiteral("CREATE TEMPORARY TABLE countersign_copy_outcomes (action_id TEXT COLLATE \"C\""
                                           " NOT NULL, seq INTEGER NOT NULL, outcome TEXT NOT NULL) ON COMMIT DROP"),
                    &error))
        return error;
    TableCopy copy(source, table);
    BatchInsert insert(target, table.name, copy.insertColumns(), batchRows);
    BatchInsert outcomes(target, QStringLiteral("countersign_copy_outcomes"),
                         {QStringLiteral("action_id"), QStringLiteral("seq"), QStringLiteral("outcome")}, batchRows);
    const int actionColumn = copy.indexOf(QStringLiteral("action_id"));
    const int seqColumn = copy.indexOf(QStringLiteral("seq"));
    const int outcomeColumn = copy.indexOf(QStringLiteral("outcome"));
    error = copy.each(QString(), QString(), [&](QVariantList &row) {
        const QString outcome = row.at(outcomeColumn).toString();
        if (outcome != u"open") {
            if (const LedgerError e = outcomes.add({row.at(actionColumn), row.at(seqColumn), outcome}); !e.ok())
                return e;
        }
        row[outcomeColumn] = QStringLiteral("open");
        return insert.add(row);
    });
    if (error.ok())
        error = insert.flush();
    if (error.ok())
        error = outcomes.flush();
    if (error.ok()
        && !sql::plain(target, QStringLiteral("UPDATE attempts SET outcome = o.outcome FROM countersign_copy_outcomes o"
                                              " WHERE attempts.action_id = o.action_id AND attempts.seq = o.seq"),
                       &error))
        error = LedgerError(error.code(), QStringLiteral("finishing the copied attempts: ") + error.message());
    *rows = copy.rows();
    return error;
}

LedgerError copyPlain(QSqlDatabase &source, QSqlDatabase &target, const TableSpec &table, int batchRows, qint64 *rows,
                      const QString &where = QString(), const QString &suffix = QString())
{
    TableCopy copy(source, table);
    BatchInsert insert(target, table.name, copy.insertColumns(), batchRows, suffix);
    LedgerError error = copy.each(where, QString(), [&insert](QVariantList &row) { return insert.add(row); });
    if (error.ok())
        error = insert.flush();
    *rows = copy.rows();
    return error;
}

struct SourceFacts
{
    QList<TableSpec> tables;
    QList<LedgerCopy::Table> digests;
    AuditChain::Verification chain;
};

LedgerResult<SourceFacts> readSource(QSqlDatabase &source)
{
    SourceFacts facts;
    facts.tables = knownTables();
    LedgerError error;
    // Every table of the file must be one the copy knows (FTS5's search index is rebuilt by the
    // target's own indexes), so a table added by a later migration cannot be left behind.
    {
        QSqlQuery q(source);
        if (!select(q, QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
                                      " AND name <> 'actions_search' AND name NOT LIKE 'actions_search_%'"),
                    {}, &error))
            return error;
        QStringList known;
        for (const TableSpec &table : std::as_const(facts.tables))
            known << table.name;
        while (q.next()) {
            if (!known.contains(q.value(0).toString()))
                return failure(Code::Conflict, QStringLiteral("the source ledger has a table this program cannot copy: %1")
                                                   .arg(q.value(0).toString()));
        }
    }
    for (TableSpec &table : facts.tables) {
        if (error = sourceColumns(source, &table); !error.ok())
            return error;
        auto digest = digestOf(source, table);
        if (!digest.ok())
            return digest.error();
        facts.digests << *digest;
    }
    auto chain = AuditChain::verify(source);
    if (!chain.ok())
        return chain.error();
    if (!chain->ok)
        return failure(Code::Conflict, QStringLiteral("the source ledger's audit chain is broken at seq %1 (%2):"
                                                      " not copied").arg(chain->firstBrokenSeq).arg(chain->reason));
    facts.chain = *chain;
    return facts;
}

// Everything on the target, inside its one transaction (begun and ended by the caller).
LedgerError copyInto(QSqlDatabase &source, QSqlDatabase &target, const SourceFacts &facts,
                     const LedgerCopy::Options &options, LedgerCopy::Report *report)
{
    LedgerError error;
    // A long copy is not an idle session; and the chain's lock keeps any other writer of this
    // database (an instance started too early) waiting until the copy has committed.
    if (!sql::plain(target, QStringLiteral("SET LOCAL idle_in_transaction_session_timeout = 0"), &error))
        return error;
    {
        QSqlQuery lock(target);
        if (!select(lock, QStringLiteral("SELECT pg_advisory_xact_lock(?)"), {AuditChain::kChainLockKey}, &error))
            return error;
    }
    const auto state = inspectTarget(target, facts.tables);
    if (!state.ok())
        return state.error();
    report->createdSchema = *state == TargetState::Fresh;
    if (*state == TargetState::Fresh) {
        if (error = createSchema(target); !error.ok())
            return error;
    } else if (!sql::plain(target, QStringLiteral("DELETE FROM schema_version"), &error)) {
        return error; // replaced by the source's history of its migrations
    }
    for (const TableSpec &table : facts.tables) {
        if (error = checkTargetColumns(target, table); !error.ok())
            return error;
    }
    for (const TableSpec &table : facts.tables) {
        qint64 rows = 0;
        if (table.derived)
            continue;
        if (table.name == u"actions")
            error = copyActions(source, target, table, options.batchRows, &rows);
        else if (table.name == u"attempts")
            error = copyAttempts(source, target, table, options.batchRows, &rows);
        else
            error = copyPlain(source, target, table, options.batchRows, &rows);
        if (!error.ok())
            return error;
        if (options.progress)
            options.progress(table.name, rows);
    }
    // The count tables: the target's deferred triggers counted every copied action (run now,
    // not at COMMIT, so they can be compared); a state no action is in any more keeps its zero row.
    if (!sql::plain(target, QStringLiteral("SET CONSTRAINTS ALL IMMEDIATE"), &error))
        return error;
    for (const TableSpec &table : facts.tables) {
        qint64 rows = 0;
        if (table.derived
            && !(error = copyPlain(source, target, table, options.batchRows, &rows, QStringLiteral(" WHERE n = 0"),
                                   QStringLiteral(" ON CONFLICT DO NOTHING")))
                    .ok())
            return error;
    }
    // Verified before COMMIT: a difference rolls everything back.
    for (qsizetype i = 0; i < facts.tables.size(); ++i) {
        const auto copied = digestOf(target, facts.tables.at(i));
        if (!copied.ok())
            return copied.error();
        const LedgerCopy::Table &original = facts.digests.at(i);
        if (copied->rows != original.rows || copied->digest != original.digest)
            return failure(Code::Conflict, QStringLiteral("table %1 differs after the copy (source %2 rows, digest %3;"
                                                          " target %4 rows, digest %5): nothing was committed")
                                               .arg(original.name).arg(original.rows).arg(original.digest.left(16))
                                               .arg(copied->rows).arg(copied->digest.left(16)));
        report->tables << *copied;
    }
    const auto chain = AuditChain::verify(target);
    if (!chain.ok())
        return chain.error();
    if (!chain->ok || chain->rowsChecked != facts.chain.rowsChecked)
        return failure(Code::Conflict, QStringLiteral("the copied audit chain does not verify (seq %1: %2; %3 of %4 rows):"
                                                      " nothing was committed")
                                           .arg(chain->firstBrokenSeq).arg(chain->reason).arg(chain->rowsChecked)
                                           .arg(facts.chain.rowsChecked));
    report->auditRows = chain->rowsChecked;
    QSqlQuery head(target);
    if (!select(head, QStringLiteral("SELECT hash FROM audit ORDER BY seq DESC LIMIT 1"), {}, &error))
        return error;
    if (head.next())
        report->auditHead = head.value(0).toString();
    return {};
}

} // namespace

const QStringList &LedgerCopy::tables()
{
    static const QStringList names = [] {
        QStringList out;
        for (const TableSpec &table : knownTables())
            out << table.name;
        return out;
    }();
    return names;
}

LedgerResult<LedgerCopy::Report> LedgerCopy::copy(const QString &sqliteFile, const QString &postgresUri,
                                                  const Options &options)
{
    QElapsedTimer clock;
    clock.start();
    if (LedgerLocation::isUri(sqliteFile))
        return failure(Code::Invalid, QStringLiteral("the source must be a SQLite ledger file, not a database URI"));
    if (!QFileInfo(sqliteFile).isFile())
        return failure(Code::Invalid, QStringLiteral("no ledger file %1").arg(sqliteFile));
    if (!LedgerLocation::isUri(postgresUri))
        return failure(Code::Invalid, QStringLiteral("the target must be a PostgreSQL URI (postgresql://USER@HOST:PORT/DBNAME)"));
    LedgerError error;
    const LedgerLocation where = LedgerLocation::parse(postgresUri, options.passwordFile, &error);
    if (!error.ok())
        return error;

    // The source: brought to the latest schema, then held still (BEGIN IMMEDIATE) for the copy.
    Ledger ledger;
    Ledger::Options sourceOptions;
    sourceOptions.recoverExpiredLeasesOnOpen = false;
    sourceOptions.busyTimeoutMs = options.busyTimeoutMs;
    if (error = ledger.open(sqliteFile, sourceOptions); !error.ok())
        return LedgerError(error.code(), QStringLiteral("cannot open the source ledger: ") + error.message());
    QSqlDatabase source = ledger.database().connection(&error);
    if (!error.ok())
        return error;
    if (!sql::plain(source, QStringLiteral("BEGIN IMMEDIATE"), &error))
        return LedgerError(error.code(), QStringLiteral("cannot lock the source ledger against writes (is its countersignd"
                                                        " still running? stop it first): ") + error.message());
    Report report;
    report.source = sqliteFile;
    report.target = where.display();
    report.schemaVersion = ledger.schemaVersion();
    const auto facts = readSource(source);
    if (!facts.ok()) {
        sql::plain(source, QStringLiteral("ROLLBACK"), &error);
        return facts.error();
    }

    LedgerError outcome;
    {
        LedgerConnections connections(where, options.busyTimeoutMs);
        QSqlDatabase target = connections.forCurrentThread(&outcome);
        if (outcome.ok() && sql::plain(target, QStringLiteral("BEGIN"), &outcome)) {
            outcome = copyInto(source, target, *facts, options, &report);
            if (outcome.ok() && !sql::plain(target, QStringLiteral("COMMIT"), &outcome)) {
                if (outcome.code() == Code::Unavailable)
                    outcome = LedgerError(Code::Unavailable,
                                          QStringLiteral("the connection was lost during COMMIT, so whether the copy"
                                                         " committed is unknown; run it again (it refuses the target if"
                                                         " it did): ") + outcome.message());
            }
            if (!outcome.ok()) {
                LedgerError ignored;
                sql::plain(target, QStringLiteral("ROLLBACK"), &ignored);
            } else {
                // Statistics for the copied tables now, not at autovacuum's next round: until then
                // the planner takes every table for a small one (the claim's candidates, a queue
                // page). A failure here costs only that wait, so the copy still succeeded.
                LedgerError analyzed;
                if (!sql::plain(target, QStringLiteral("ANALYZE"), &analyzed))
                    qCWarning(lcLedger) << "ANALYZE after the copy failed (autovacuum will do it):" << analyzed.toString();
            }
        }
        if (target.isValid())
            sql::forgetStatements(target.connectionName());
    }
    LedgerError ignored;
    sql::plain(source, QStringLiteral("ROLLBACK"), &ignored); // the source was only read
    if (!outcome.ok())
        return outcome;
    report.elapsedMs = clock.elapsed();
    qCInfo(lcLedger) << "copied" << sqliteFile << "to" << report.target << "in" << report.elapsedMs << "ms";
    return report;
}

} // namespace cs
