#pragma once

#include "server/ledger/ledgererror.h"

#include <QDateTime>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariant>
#include <QVariantList>

#include <optional>

class QSqlError;

namespace cs::sql {

// Internal to server/ledger/: running statements and mapping values. Together with
// LedgerDatabase (transactions), LedgerConnections (connection settings) and Migrations (the
// schema in both dialects) the only code that knows the SQL dialect: SQLite (QSQLITE) or
// PostgreSQL (QPSQL). The dialect helpers below give the few fragments that differ (row locks,
// stored bytes); the error mapping turns each engine's codes into Busy (retry the transaction),
// Conflict (a constraint or trigger refused it), Unavailable (the connection is gone) or Storage.
// Not thread-safe by itself: a Statement lives on the thread of its connection.

// One statement run by run(): its rows are read through next() and value(). Prepared once per
// thread and connection and reused: a statement is borrowed for one use and returned reset
// (sqlite3_reset: no read snapshot is held between calls), so nested use of the same SQL simply
// prepares a second one.
class Statement
{
public:
    explicit Statement(QSqlDatabase &db) : m_db(db) {}
    ~Statement();
    Q_DISABLE_COPY_MOVE(Statement)

    bool next() { return m_query && m_query->next(); }
    QVariant value(int index) const { return m_query ? m_query->value(index) : QVariant(); }
    int numRowsAffected() const { return m_query ? m_query->numRowsAffected() : -1; }
    void finish()
    {
        if (m_query)
            m_query->finish();
    }

private:
    friend bool run(Statement &statement, const QString &sql, const QVariantList &values, LedgerError *error);

    QSqlDatabase &m_db;
    std::optional<QSqlQuery> m_query;
    QString m_sql;
    bool m_reusable = false;
};

// Prepares sql (or reuses this thread's prepared copy), binds values in order, runs it.
bool run(Statement &statement, const QString &sql, const QVariantList &values, LedgerError *error);
// The same without the statement cache, for SQL assembled per call (search lists), which would
// only fill the cache with statements never seen again.
bool runOnce(QSqlQuery &query, const QString &sql, const QVariantList &values, LedgerError *error);
// A statement without values or rows (SAVEPOINT, RELEASE, ...).
bool plain(QSqlDatabase &db, const QString &sql, LedgerError *error);
// Forgets the calling thread's prepared statements (of every connection).
void clearStatementCache();

// Busy (lock), Conflict (a constraint or trigger refused it) or Storage.
LedgerError sqlError(const QSqlError &error, const QString &sql);
// The calling thread's statements prepared on `connection`, forgotten (its session was lost:
// PostgreSQL's prepared statements went with it).
void forgetStatements(const QString &connection);

// --- dialect -------------------------------------------------------------------------------------

enum class Engine { Sqlite, Postgres };
Engine engineOf(const QSqlDatabase &db);
inline bool isPostgres(const QSqlDatabase &db) { return engineOf(db) == Engine::Postgres; }

// LedgerDatabase marks the calling thread while it runs a write body, so reads of rows that the
// body will change take row locks on PostgreSQL (SQLite's BEGIN IMMEDIATE already holds the
// whole file).
void setInWriteTransaction(bool inside);
bool inWriteTransaction();
// " FOR UPDATE" (of `alias`'s rows, skipping rows other transactions hold when skipLocked) on
// PostgreSQL inside a write body; empty on SQLite and in reads. Appended after ORDER BY / LIMIT.
QString rowLock(const QSqlDatabase &db, const QString &alias = QString(), bool skipLocked = false);
// A text column read back as the exact UTF-8 bytes stored (CAST AS BLOB / convert_to).
QString storedBytesOf(const QSqlDatabase &db, const QString &column);
// Binds UTF-8 bytes to a TEXT column so that exactly those bytes are stored: as bytes on SQLite,
// as the (valid) text they encode on PostgreSQL, which stores text as UTF-8.
QVariant textBytes(const QSqlDatabase &db, const QByteArray &utf8);

// --- values ------------------------------------------------------------------------------------
// Timestamps are BIGINT ms since the epoch, UTC; a null QString binds as SQL NULL, so NOT NULL
// text columns get text().

inline qint64 toMs(const QDateTime &time) { return time.toMSecsSinceEpoch(); }
inline QDateTime fromMs(qint64 ms) { return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC); }
inline QDateTime timeOrNull(const QVariant &value) { return value.isNull() ? QDateTime() : fromMs(value.toLongLong()); }
QVariant text(const QString &value);
QVariant textOrNull(const QString &value);
QVariant msOrNull(const QDateTime &time);
QVariant msOrNull(std::optional<qint64> ms);
QString compactJson(const QJsonObject &object);
QJsonObject parseJson(const QString &json);

} // namespace cs::sql
