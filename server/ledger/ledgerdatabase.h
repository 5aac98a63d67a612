#pragma once

#include "server/ledger/clock.h"
#include "server/ledger/ledgererror.h"
#include "server/ledger/ledgerresult.h"

#include <QDateTime>
#include <QMutex>
#include <QSqlDatabase>
#include <QString>
#include <QVariantList>

#include <functional>
#include <memory>
#include <utility>

namespace cs {

class LedgerConnections;

namespace sql {
class Statement;
}

// The ledger's one SQL session layer: the file's per-thread connections (LedgerConnections), the
// ONE write transaction (BEGIN IMMEDIATE, busy retry with backoff, the in-process write mutex)
// and plain reads. Everything that writes the ledger file — the ledger's stores, the API's users
// and request replays — goes through write(), so every writer of one process queues on the same
// mutex. With sqlstatement.h and ledgerconnections.h the only code that knows the SQL dialect.
//
// Thread-safe once open: each thread gets its own connection. Destroy it only when no thread is
// inside one of its calls. Several processes may open the same file: writers of other processes
// queue on busy_timeout; SQLITE_BUSY is retried Options::busyRetries times. Reads never take the
// write lock (WAL).
class LedgerDatabase
{
public:
    struct Options
    {
        Clock clock;          // null: the system clock (UTC)
        int busyTimeoutMs = 5000; // SQLite busy_timeout of every connection
        int busyRetries = 5;      // whole-transaction retries after SQLITE_BUSY
    };

    using WriteBody = std::function<LedgerError(QSqlDatabase &db, const QDateTime &now)>;
    using ReadBody = std::function<LedgerError(QSqlDatabase &db)>;

    LedgerDatabase();
    ~LedgerDatabase();
    Q_DISABLE_COPY_MOVE(LedgerDatabase)

    // Opens (creating if needed) the file and migrates it to the latest schema. Once.
    LedgerError open(const QString &path, const Options &options);
    void close();
    bool isOpen() const { return m_connections != nullptr; }
    QString path() const;
    int schemaVersion() const { return m_schemaVersion; }

    // "Now" as the ledger stamps it (Options::clock, UTC, ms precision: what the database stores).
    QDateTime now() const;

    // One transaction around body; "now" is read inside the write lock, so times are ordered like
    // the commits. body's error rolls everything back; Busy is retried with backoff.
    LedgerError write(const char *operation, const WriteBody &body);
    LedgerError read(const ReadBody &body) const;
    // A read of every row of sql (bound to values), each handed to onRow in the order the SQL gives.
    LedgerError query(const QString &sql, const QVariantList &values,
                      const std::function<void(const sql::Statement &row)> &onRow) const;
    // The calling thread's connection, for reads that manage their own statements.
    QSqlDatabase connection(LedgerError *error) const;

    // Runs step on a savepoint inside write(): kept if it succeeds, rolled back (only it) if it is
    // refused, with the step's own error in *stepError. The result is an error only when the
    // savepoint machinery itself failed or the step hit the lock (then the whole transaction goes).
    static LedgerError onSavepoint(QSqlDatabase &db, const std::function<LedgerError()> &step,
                                   LedgerError *stepError);

private:
    Options m_options;
    std::unique_ptr<LedgerConnections> m_connections;
    // Writers of this process queue here instead of in SQLite's busy handler, which sleeps in
    // steps of milliseconds while the lock is free again after a fraction of one.
    QMutex m_writeMutex;
    int m_schemaVersion = 0;
};

// `out` if error is ok, else error: the end of every operation that fills a value inside a body.
template <typename T>
LedgerResult<T> resultOf(const LedgerError &error, T out)
{
    if (!error.ok())
        return error;
    return LedgerResult<T>(std::move(out));
}

} // namespace cs
