#include "server/ledger/sqlstatement.h"

#include <QJsonDocument>
#include <QSqlError>

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
    Statement q(db);
    return run(q, sql, {}, error);
}

void clearStatementCache()
{
    statementPool().clear();
}

LedgerError sqlError(const QSqlError &error, const QString &sql)
{
    if (isBusy(error))
        return LedgerError(LedgerError::Code::Busy, QStringLiteral("the ledger database is busy: ") + error.text());
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
