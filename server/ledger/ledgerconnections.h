#pragma once

#include "server/ledger/ledgererror.h"
#include "server/ledger/sqlstatement.h"

#include <QMutex>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

namespace cs {

// Where a ledger lives: a SQLite file, or a PostgreSQL database named by a libpq connection URI
// `postgresql://USER@HOST:PORT/DBNAME[?param=value&...]` (host may be a socket folder, as
// `?host=/run/postgresql`; params such as sslmode, sslrootcert, connect_timeout and
// application_name go to libpq). The password never comes in the URI (the command line shows it
// to every user of the machine): from passwordFile (its first line), else from libpq's own
// sources (PGPASSWORD, PGPASSFILE, ~/.pgpass).
struct LedgerLocation
{
    sql::Engine engine = sql::Engine::Sqlite;
    QString path;      // SQLite
    QString host;      // PostgreSQL
    int port = 5432;
    QString user;
    QString password;
    QString database;
    QString options;   // "key=value;key=value" for QPSQL (libpq conninfo keywords)

    static bool isUri(const QString &location);
    static LedgerLocation parse(const QString &location, const QString &passwordFile, LedgerError *error);
    // The location without the password, for logs and messages.
    QString display() const;
};

// The named QSqlDatabase connections of one ledger: one per thread, because a Qt SQL connection
// may only be used from the thread that opened it. Names are unique per (store, thread) —
// "countersign.ledger.<store serial>.<thread serial>" — and never reused, even when the OS reuses
// a thread id. A connection is removed when its thread exits or when this object is destroyed,
// whichever comes first.
//
// Thread-safe: each thread gets its own connection. Destroy this object only when no thread is
// still inside a call that uses one of its connections.
class LedgerConnections
{
public:
    LedgerConnections(LedgerLocation location, int busyTimeoutMs);
    ~LedgerConnections();
    Q_DISABLE_COPY_MOVE(LedgerConnections)

    // The calling thread's connection, opened and configured on first use. SQLite: busy_timeout,
    // foreign_keys=ON, synchronous=FULL, journal_mode=WAL. PostgreSQL: lock_timeout (a wait for a
    // row lock ends as Busy and the transaction is retried), idle_in_transaction_session_timeout
    // (a paused process cannot hold its row locks for long), TCP keepalives. Invalid QSqlDatabase
    // with *error set (Unavailable for PostgreSQL) if it cannot be opened.
    QSqlDatabase forCurrentThread(LedgerError *error);
    // The calling thread's connection lost its session (PostgreSQL restarted, the backend was
    // terminated, the network went): its prepared statements are forgotten and it is closed, so
    // the next forCurrentThread() connects again.
    void discardCurrentThread();
    // True if libpq reports the session of db as broken (or it is closed). An idle PostgreSQL
    // session's pending input is read first (non-blocking), so one the server has ended since its
    // last use counts as broken before a statement fails on it.
    static bool isBroken(const QSqlDatabase &db);

    QString path() const { return m_location.display(); }
    const LedgerLocation &location() const { return m_location; }
    sql::Engine engine() const { return m_location.engine; }
    int openConnections() const;

private:
    bool openAndConfigure(QSqlDatabase &db, LedgerError *error);

    const quint64 m_serial;
    QString currentName();

    const LedgerLocation m_location;
    const int m_busyTimeoutMs;
    mutable QMutex m_mutex;
    QStringList m_names;
};

} // namespace cs
