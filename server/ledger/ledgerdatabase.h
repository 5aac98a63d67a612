#pragma once

#include "server/ledger/clock.h"
#include "server/ledger/ledgererror.h"
#include "server/ledger/ledgerresult.h"
#include "server/ledger/sqlstatement.h"

#include <QDateTime>
#include <QList>
#include <QMutex>
#include <QSqlDatabase>
#include <QString>
#include <QVariantList>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace cs {

class LedgerConnections;
class LedgerWitness;

// The ledger's one SQL session layer: the per-thread connections (LedgerConnections), the ONE
// write transaction and plain reads. Everything that writes the ledger — the ledger's stores, the
// API's users and request replays — goes through write(). With sqlstatement.h,
// ledgerconnections.h and migrations.cpp the only code that knows the SQL dialect.
//
// SQLite (a file): BEGIN IMMEDIATE, so writers of every process queue on the file's lock
// (busy_timeout) and writers of this process on an in-process mutex first; reads never take it
// (WAL). The isolation is SERIALIZABLE in effect: one writer at a time.
//
// PostgreSQL (a libpq URI; several processes on several hosts): READ COMMITTED, chosen over
// REPEATABLE READ / SERIALIZABLE because every decision a write makes rests on rows it has
// locked (`FOR UPDATE` in loadAction, `FOR UPDATE SKIP LOCKED` for claims and rescues: see
// sql::rowLock), and on the audit chain's advisory lock taken at the end (AuditChain::flush):
// a locked row is re-read at its newest committed version, so nothing stale is acted on, and
// there are no serialization failures to retry in the common case. Deadlocks (40P01), lock
// timeouts (55P03), serialization failures (40001) and concurrent inserts of one key (23505) are
// retried as whole transactions, Options::busyRetries times with backoff. A lost connection before
// COMMIT is retried on a new one (the transaction cannot have committed). A connection lost during
// COMMIT leaves the outcome unknown: write() reads the outcome back on a new connection
// (resolveLostCommit) and returns success only with proof that THIS transaction committed — its
// last audit row (AuditChain::Flushed: seq and hash) is there — retries it when it did not, and
// returns Unavailable when it cannot find out — so a caller never acts on a transaction (a
// claim's attempt row, a proposal) that it does not know is committed. pg_xact_status alone is no
// proof: after a crash the id of a transaction whose WAL never reached the disk is handed out
// again, and "committed" may be about another transaction. Times come from the
// database's clock when no Options::clock is given, so the leases of instances on different hosts
// are compared on one clock.
//
// Thread-safe once open: each thread gets its own connection. Destroy it only when no thread is
// inside one of its calls.
class LedgerDatabase
{
public:
    struct Options
    {
        Clock clock;          // null: the system clock (UTC)
        int busyTimeoutMs = 5000; // SQLite busy_timeout / PostgreSQL lock_timeout of every connection
        int busyRetries = 5;      // whole-transaction retries after SQLITE_BUSY, a deadlock, ...
        QString passwordFile;     // PostgreSQL: the password's file (first line); else libpq's sources
        int unavailableRetries = 3; // PostgreSQL: reconnects before a call gives up with Unavailable
        // Before an existing ledger is migrated or used: LedgerCheck::bounded (its schema's pages,
        // the audit chain's last rows); a damaged ledger is refused with Code::Damaged. Off only
        // for what reports damage itself (countersignd check, audit verify).
        bool checkOnOpen = true;
        // Off: an older schema is left as it is (countersignd check reads, it never migrates).
        bool migrate = true;
    };
    // Whether writes have been failing for want of storage (Code::CannotWrite or Damaged: a full
    // disk, a read-only file, an I/O error), and since when; cleared by the next write that
    // commits audit rows. Readiness reads it (issue 34).
    struct WriteHealth
    {
        bool failing = false;
        QString reason;        // the last failure's words
        qint64 failedAtMs = 0; // when it last failed (ms since the epoch, this host)
        qint64 failures = 0;   // since the last commit
    };
    using CommitObserver = std::function<void(qint64 lastAuditSeq)>;

    using WriteBody = std::function<LedgerError(QSqlDatabase &db, const QDateTime &now)>;
    using ReadBody = std::function<LedgerError(QSqlDatabase &db)>;

    LedgerDatabase();
    ~LedgerDatabase();
    Q_DISABLE_COPY_MOVE(LedgerDatabase)

    // Opens (creating if needed) the file, or connects to the PostgreSQL database of a libpq URI
    // (LedgerLocation), and migrates it to the latest schema. Once.
    LedgerError open(const QString &location, const Options &options);
    void close();
    bool isOpen() const { return m_connections != nullptr; }
    // The file, or the URI without its password.
    QString path() const;
    sql::Engine engine() const;

    // Called on the writing thread after every commit that appended audit rows, with the last
    // row's seq: cheap and non-blocking (queue the work). On PostgreSQL the same commit also
    // notifies channel AuditChain::changesChannel() for the other instances.
    int addCommitObserver(CommitObserver observer);
    void removeCommitObserver(int id);
    // The witness of the audit head (LedgerWitness, issue 34), advanced on the committing thread
    // right after every commit that appended audit rows; nullptr: none. Not owned; set it before
    // writes start and clear it before it goes.
    void setWitness(LedgerWitness *witness) { m_witness.store(witness, std::memory_order_release); }
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
    // Readiness (GET /api/v1/health/ready, issue 34): whether the ledger commits now, within
    // `wait`. Not while writes fail for want of storage (WriteHealth: until 30 s after the last
    // failure); otherwise a write that really commits — this instance's row of readiness_probe —
    // behind this process's write lock and SQLite's (busy_timeout shortened to `wait`), or with
    // lock_timeout `wait` on PostgreSQL. Error: Busy, Unavailable, CannotWrite (a read-only file
    // or database, a full disk, a standby) or Damaged, with the reason. Any thread.
    LedgerError probeWritable(std::chrono::milliseconds wait);
    WriteHealth writeHealth() const;
    // A damaged ledger found after it was opened (serve's full check in the background, issue 34):
    // from now on every write() and probeWritable() fails with Code::Damaged and this reason, so
    // nothing more is written into it and readiness says why. Until the process ends.
    void markDamaged(const QString &reason);
    std::optional<QString> damaged() const;
    // Forgets the calling thread's prepared statements and closes its session (ExecutionStore::
    // releaseThread). The next call on this thread opens a new one.
    void releaseCurrentThread();
    // The calling thread's connection, for reads that manage their own statements.
    QSqlDatabase connection(LedgerError *error) const;

    // Runs step on a savepoint inside write(): kept if it succeeds, rolled back (only it) if it is
    // refused, with the step's own error in *stepError. The result is an error only when the
    // savepoint machinery itself failed or the step hit the lock (then the whole transaction goes).
    static LedgerError onSavepoint(QSqlDatabase &db, const std::function<LedgerError()> &step,
                                   LedgerError *stepError);

    // Tests only (tst_ledger_pgfaults): asked at the COMMIT of every write on PostgreSQL with the
    // operation and the transaction's id (empty: it has none, it wrote nothing). nullopt: COMMIT as
    // usual. A value: the transaction is rolled back instead, its answer reported lost, and the
    // read-back asks about that id — e.g. one another transaction committed, as after a crash
    // that handed the id out again. Unset (the default) it costs one test of an empty function.
    // Set or clear it only while no write runs.
    using LostCommitHook = std::function<std::optional<QString>(const char *operation, const QString &xactId)>;
    void setLostCommitHookForTesting(LostCommitHook hook) { m_lostCommitHook = std::move(hook); }

private:
    LedgerError writeOnce(const char *operation, const WriteBody &body, QSqlDatabase &db, bool *retry,
                          qint64 *lastSeq, QString *lastHash, const char **stage);
    LedgerError resolveLostCommit(const char *operation, const QString &xactId, qint64 auditSeq,
                                  const QString &auditHash, bool *retry);
    void measureClockOffset(QSqlDatabase &db);
    void notifyCommitted(qint64 lastSeq);
    void noteStorageRefusal(const LedgerError &error);

    Options m_options;
    bool m_systemClock = true;
    std::atomic<LedgerWitness *> m_witness{nullptr};
    mutable QMutex m_healthMutex;
    WriteHealth m_health;
    std::atomic<bool> m_healthFailing{false}; // m_health.failing, read without the mutex on every commit
    std::atomic<bool> m_damaged{false};
    QString m_damagedReason; // under m_healthMutex
    std::atomic<qint64> m_clockOffsetMs{0};   // database clock - this host's clock (PostgreSQL)
    std::atomic<qint64> m_clockMeasuredAtMs{0};
    std::unique_ptr<LedgerConnections> m_connections;
    mutable QMutex m_observersMutex;
    QList<std::pair<int, CommitObserver>> m_observers;
    int m_nextObserver = 1;
    // Writers of this process queue here instead of in SQLite's busy handler, which sleeps in
    // steps of milliseconds while the lock is free again after a fraction of one.
    QMutex m_writeMutex;
    int m_schemaVersion = 0;
    LostCommitHook m_lostCommitHook;
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
