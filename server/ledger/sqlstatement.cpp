#include "server/ledger/sqlstatement.h"

#include <QJsonDocument>
#include <QSqlError>

#include <optional>
#include <unordered_map>
#include <vector>

namespace cs::sql {

namespace {

bool isBusy(const QSqlError &error)
{
    const QString native = error.nativeErrorCode();
    return native == u"5" || native == u"6" // SQLITE_BUSY, SQLITE_LOCKED
        || error.databaseText().contains(QStringLiteral("database is locked"));
}

thread_local bool t_inWriteTransaction = false;

struct StorageRefusal
{
    LedgerError::Code code;
    QString words;
};

// The storage refuses: the statement was fine, the disk or the database is not (issue 34).
// SQLite's primary codes (an extended code's low byte), PostgreSQL's SQLSTATEs.
std::optional<StorageRefusal> storageRefusal(const QSqlError &error)
{
    using Code = LedgerError::Code;
    const QString native = error.nativeErrorCode();
    if (native.size() == 5) {
        if (native == u"53100")
            return StorageRefusal{Code::CannotWrite, QStringLiteral("the ledger database's disk is full")};
        if (native == u"25006")
            return StorageRefusal{Code::CannotWrite, QStringLiteral("the ledger database is read-only")};
        if (native == u"58030")
            return StorageRefusal{Code::CannotWrite, QStringLiteral("the ledger database reported an I/O error")};
        if (native == u"XX001" || native == u"XX002")
            return StorageRefusal{Code::Damaged, QStringLiteral("the ledger database is damaged")};
        return std::nullopt;
    }
    bool number = false;
    const int code = native.toInt(&number) & 0xff;
    if (!number)
        return std::nullopt;
    switch (code) {
    case 13: // SQLITE_FULL
        return StorageRefusal{Code::CannotWrite, QStringLiteral("the ledger's disk is full")};
    case 8: // SQLITE_READONLY
        return StorageRefusal{Code::CannotWrite, QStringLiteral("the ledger file is read-only")};
    case 10: // SQLITE_IOERR
        return StorageRefusal{Code::CannotWrite, QStringLiteral("the ledger's disk reported an I/O error")};
    case 14: // SQLITE_CANTOPEN
        return StorageRefusal{Code::CannotWrite, QStringLiteral("the ledger file cannot be opened")};
    case 11: // SQLITE_CORRUPT
    case 26: // SQLITE_NOTADB
        return StorageRefusal{Code::Damaged, QStringLiteral("the ledger file is damaged")};
    default:
        return std::nullopt;
    }
}

// PostgreSQL's SQLSTATE classes (QPSQL reports them as the native code).
enum class PgClass { None, Retry, Constraint, ConnectionLost };

// SQLite's native codes are decimal numbers of at most four digits; a SQLSTATE has five
// characters, so the two never mix.
PgClass classifyPostgres(const QSqlError &error)
{
    const QString state = error.nativeErrorCode().size() == 5 ? error.nativeErrorCode() : QString();
    // 40001 serialization_failure, 40P01 deadlock_detected, 55P03 lock_not_available
    // (lock_timeout): the whole transaction is retried. 23505 unique_violation too: two
    // transactions inserted the same key at once (one proposal reference, one user, one client
    // Idempotency-Key); run again, the loser sees the winner's row and answers as SQLite would.
    if (state == u"40001" || state == u"40P01" || state == u"55P03" || state == u"23505")
        return PgClass::Retry;
    // 23xxx integrity constraints, P0001 the RAISE of our triggers.
    if (state.startsWith(u"23") || state == u"P0001")
        return PgClass::Constraint;
    // 08xxx connection exceptions, 57P01..57P03 administrator shutdown / crash shutdown / cannot
    // connect now; no SQLSTATE at all when libpq lost the socket.
    const QString text = error.databaseText() + u' ' + error.driverText();
    // 26000 (a prepared statement the session does not know) means the session is not the one
    // the statement was prepared on: treated as a lost session, so the transaction runs again on
    // a fresh one with its statements prepared anew.
    if (state.startsWith(u"08") || state == u"57P01" || state == u"57P02" || state == u"57P03" || state == u"26000"
        || text.contains(QStringLiteral("server closed the connection"))
        || text.contains(QStringLiteral("no connection to the server"))
        || text.contains(QStringLiteral("terminating connection"))
        || text.contains(QStringLiteral("could not connect"))
        || text.contains(QStringLiteral("connection to server")))
        return PgClass::ConnectionLost;
    return PgClass::None;
}

// Prepared statements kept per thread and connection, so a statement is compiled once, not once
// per call (compiling an UPDATE of actions also compiles its triggers). Connection names are
// never reused, so statements of a removed connection are never looked up again; their
// destruction is harmless (Qt finalizes them when the connection closes).
class StatementPool
{
public:
    std::optional<QSqlQuery> take(const QString &connection, const QString &sql)
    {
        const auto c = m_pool.find(connection);
        if (c == m_pool.end())
            return std::nullopt;
        const auto s = c->second.find(sql);
        if (s == c->second.end() || s->second.empty())
            return std::nullopt;
        std::optional<QSqlQuery> query(std::move(s->second.back()));
        s->second.pop_back();
        return query;
    }
    void give(const QString &connection, const QString &sql, QSqlQuery query)
    {
        std::vector<QSqlQuery> &idle = m_pool[connection][sql];
        if (idle.size() < 4)
            idle.push_back(std::move(query));
    }
    void clear() { m_pool.clear(); }
    void forget(const QString &connection) { m_pool.erase(connection); }

private:
    struct Hash
    {
        size_t operator()(const QString &s) const noexcept { return qHash(s); }
    };
    std::unordered_map<QString, std::unordered_map<QString, std::vector<QSqlQuery>, Hash>, Hash> m_pool;
};

StatementPool &statementPool()
{
    thread_local StatementPool pool;
    return pool;
}

} // namespace

Statement::~Statement()
{
    if (m_query && m_reusable) {
        m_query->finish(); // sqlite3_reset: releases the statement's read snapshot
        statementPool().give(m_db.connectionName(), m_sql, std::move(*m_query));
    }
}

bool run(Statement &statement, const QString &sql, const QVariantList &values, LedgerError *error)
{
    Q_ASSERT(!statement.m_query);
    statement.m_sql = sql;
    statement.m_query = statementPool().take(statement.m_db.connectionName(), sql);
    if (!statement.m_query) {
        statement.m_query.emplace(statement.m_db);
        statement.m_query->setForwardOnly(true);
        if (!statement.m_query->prepare(sql)) {
            *error = sqlError(statement.m_query->lastError(), sql);
            return false;
        }
    }
    QSqlQuery &query = *statement.m_query;
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec()) {
        *error = sqlError(query.lastError(), sql);
        return false; // not reused: a failed statement is finalized with its QSqlQuery
    }
    statement.m_reusable = true;
    return true;
}

bool runOnce(QSqlQuery &query, const QString &sql, const QVariantList &values, LedgerError *error)
{
    query.setForwardOnly(true);
    if (!query.prepare(sql)) {
        *error = sqlError(query.lastError(), sql);
        return false;
    }
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec()) {
        *error = sqlError(query.lastError(), sql);
        return false;
    }
    return true;
}

bool plain(QSqlDatabase &db, const QString &sql, LedgerError *error)
{
    if (isPostgres(db)) {
        // Transaction control cannot be PREPAREd on PostgreSQL: sent as a simple query.
        QSqlQuery query(db);
        if (query.exec(sql))
            return true;
        *error = sqlError(query.lastError(), sql);
        return false;
    }
    Statement q(db);
    return run(q, sql, {}, error);
}

void clearStatementCache()
{
    statementPool().clear();
}

void forgetStatements(const QString &connection)
{
    statementPool().forget(connection);
}

Engine engineOf(const QSqlDatabase &db)
{
    return db.driverName() == u"QPSQL" ? Engine::Postgres : Engine::Sqlite;
}

void setInWriteTransaction(bool inside)
{
    t_inWriteTransaction = inside;
}

bool inWriteTransaction()
{
    return t_inWriteTransaction;
}

QString rowLock(const QSqlDatabase &db, const QString &alias, bool skipLocked)
{
    if (!t_inWriteTransaction || !isPostgres(db))
        return QString();
    QString lock = QStringLiteral(" FOR UPDATE");
    if (!alias.isEmpty())
        lock += QStringLiteral(" OF ") + alias;
    if (skipLocked)
        lock += QStringLiteral(" SKIP LOCKED");
    return lock;
}

QString storedBytesOf(const QSqlDatabase &db, const QString &column)
{
    return isPostgres(db) ? QStringLiteral("convert_to(%1, 'UTF8')").arg(column)
                          : QStringLiteral("CAST(%1 AS BLOB)").arg(column);
}

QVariant textBytes(const QSqlDatabase &db, const QByteArray &utf8)
{
    if (isPostgres(db))
        return QVariant(QString::fromUtf8(utf8));
    return QVariant(utf8);
}

LedgerError sqlError(const QSqlError &error, const QString &sql)
{
    switch (classifyPostgres(error)) {
    case PgClass::Retry:
        return LedgerError(LedgerError::Code::Busy, QStringLiteral("the ledger database asked for a retry: ") + error.text());
    case PgClass::Constraint:
        return LedgerError(LedgerError::Code::Conflict, QStringLiteral("%1 [%2]").arg(error.text(), sql.simplified().left(160)));
    case PgClass::ConnectionLost:
        return LedgerError(LedgerError::Code::Unavailable,
                           QStringLiteral("the ledger database cannot be reached: ") + error.text());
    case PgClass::None:
        break;
    }
    if (isBusy(error))
        return LedgerError(LedgerError::Code::Busy, QStringLiteral("the ledger database is busy: ") + error.text());
    if (const std::optional<StorageRefusal> refusal = storageRefusal(error))
        return LedgerError(refusal->code, QStringLiteral("%1: %2").arg(refusal->words, error.text()));
    // SQLITE_CONSTRAINT: a trigger or constraint of the schema refused the statement.
    const auto code = error.nativeErrorCode() == u"19" ? LedgerError::Code::Conflict : LedgerError::Code::Storage;
    return LedgerError(code, QStringLiteral("%1 [%2]").arg(error.text(), sql.simplified().left(160)));
}

QVariant text(const QString &value)
{
    return value.isNull() ? QVariant(QStringLiteral("")) : QVariant(value);
}

QVariant textOrNull(const QString &value)
{
    return value.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(value);
}

QVariant msOrNull(const QDateTime &time)
{
    return time.isValid() ? QVariant(toMs(time)) : QVariant(QMetaType::fromType<qlonglong>());
}

QVariant msOrNull(std::optional<qint64> ms)
{
    return ms ? QVariant(*ms) : QVariant(QMetaType::fromType<qlonglong>());
}

QString compactJson(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject parseJson(const QString &json)
{
    return QJsonDocument::fromJson(json.toUtf8()).object();
}

} // namespace cs::sql
