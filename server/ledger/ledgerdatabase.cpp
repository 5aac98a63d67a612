#include "server/ledger/ledgerdatabase.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgercheck.h"
#include "server/ledger/ledgerconnections.h"
#include "server/ledger/ledgerlog.h"
#include "server/ledger/ledgerwitness.h"
#include "server/ledger/migrations.h"
#include "server/ledger/sqlstatement.h"
#include "server/metrics/metrics.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>
#include <QSysInfo>
#include <QThread>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <optional>
#include <string_view>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cs {

using Code = LedgerError::Code;

namespace {

// Every write transaction, from the call (waiting for this process's write lock included, as a
// caller waits) to its outcome: committed, refused by a rule (rolled back on purpose), or failed.
metrics::Histogram writeSeconds(QStringLiteral("countersign_ledger_commit_seconds"),
                                QStringLiteral("Ledger write transactions, from the call to the commit (or the rollback), by result"),
                                {QStringLiteral("result")}, metrics::Histogram::latencyBounds());
[[maybe_unused]] const bool writeSecondsDeclared = [] {
    for (const char *result : {"committed", "refused", "failed"})
        writeSeconds.declare({QLatin1String(result)});
    return true;
}();

struct WriteTimer
{
    WriteTimer() { clock.start(); }
    LedgerError done(LedgerError error) const
    {
        const auto code = error.code();
        const char *result = error.ok() ? "committed"
            : (code == Code::Busy || code == Code::Unavailable || code == Code::Storage || code == Code::CannotWrite
               || code == Code::Damaged)
            ? "failed"
            : "refused";
        writeSeconds.observe({QLatin1String(result)}, double(clock.nsecsElapsed()) / 1e9);
        return error;
    }
    QElapsedTimer clock;
};

void backoff(int round)
{
    QThread::msleep(5 * (round + 1) + QRandomGenerator::global()->bounded(10));
}

// A new ledger file is created 0600 whatever the umask, before SQLite opens it (SQLite creates
// the -wal and -shm files with the main file's mode). An existing file keeps its mode; group or
// world access is reported. Anything else (no such folder, ...) is left to SQLite to report.
// An existing empty file is not a ledger: SQLite would make it a new, empty one and serve it as
// if nothing had been lost (issue 34). A path where nothing exists is created as a new ledger. A
// -wal with content beside the empty file (a ledger that never checkpointed) is SQLite's to read.
LedgerError refuseEmptyFile(const QString &path)
{
    if (path.isEmpty() || path.startsWith(u':') || path.startsWith(QLatin1String("file:")))
        return {};
    const QFileInfo file(path);
    if (!file.exists() || !file.isFile() || file.size() > 0)
        return {};
    if (QFileInfo(path + QStringLiteral("-wal")).size() > 0)
        return {};
    return LedgerError(Code::Damaged,
                       QStringLiteral("%1 is an empty file (0 bytes), not a ledger: a lost or truncated ledger is never"
                                      " silently replaced by a new one. Restore it from a backup, or remove the empty"
                                      " file to start a new ledger there")
                           .arg(path));
}

void createOwnerOnly(const QString &path)
{
    if (path.isEmpty() || path.startsWith(u':') || path.startsWith(QLatin1String("file:")))
        return; // in-memory or URI databases
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
        return;
    }
    struct stat status = {};
    if (errno == EEXIST && ::stat(native.constData(), &status) == 0 && (status.st_mode & 077) != 0)
        qCWarning(lcLedger).nospace() << "ledger " << path << " is readable by others (mode "
                                      << Qt::oct << (status.st_mode & 0777) << "): chmod 600 it";
}

} // namespace

LedgerDatabase::LedgerDatabase() = default;

LedgerDatabase::~LedgerDatabase()
{
    close();
}

void LedgerDatabase::close()
{
    // This thread's prepared statements of every ledger: re-prepared on demand by the others.
    sql::clearStatementCache();
    m_connections.reset();
}

QString LedgerDatabase::path() const
{
    return m_connections ? m_connections->path() : QString();
}

LedgerError LedgerDatabase::open(const QString &location, const Options &options)
{
    if (m_connections)
        return LedgerError(Code::Invalid, QStringLiteral("the ledger is already open on %1").arg(m_connections->path()));
    m_options = options;
    m_systemClock = !m_options.clock;
    if (m_options.busyRetries < 0)
        m_options.busyRetries = 0;
    if (m_options.unavailableRetries < 0)
        m_options.unavailableRetries = 0;

    LedgerError error;
    LedgerLocation where = LedgerLocation::parse(location, m_options.passwordFile, &error);
    if (!error.ok())
        return error;
    if (where.engine == sql::Engine::Sqlite) {
        if (const LedgerError empty = refuseEmptyFile(where.path); !empty.ok())
            return empty;
        createOwnerOnly(where.path);
    }
    auto connections = std::make_unique<LedgerConnections>(std::move(where), m_options.busyTimeoutMs);
    QSqlDatabase db = connections->forCurrentThread(&error);
    if (!error.ok())
        return error;
    if (sql::isPostgres(db) && m_systemClock)
        measureClockOffset(db);
    if (m_options.checkOnOpen) {
        // An existing ledger (a schema version) is checked before it is migrated or used.
        int existing = 0;
        {
            QSqlQuery version(db);
            if (version.exec(QStringLiteral("SELECT MAX(version) FROM schema_version"))) {
                existing = version.next() ? version.value(0).toInt() : 0;
            } else if (const LedgerError why = sql::sqlError(version.lastError(), version.lastQuery());
                       why.code() == Code::Damaged) {
                return LedgerError(Code::Damaged, QStringLiteral("%1 is refused: %2 (countersignd check --db says more)")
                                                      .arg(connections->path(), why.message()));
            }
        }
        if (existing > 0) {
            const LedgerResult<LedgerCheck::Result> checked = LedgerCheck::bounded(db);
            if (!checked.ok())
                return checked.error();
            if (!checked->ok)
                return LedgerError(Code::Damaged, QStringLiteral("%1 is refused: %2 (countersignd check --db says more)")
                                                      .arg(connections->path(), checked->problem));
        }
    }
    if (m_options.migrate)
        error = Migrations::migrate(db, sql::toMs(now()));
    if (!error.ok())
        return error;
    m_schemaVersion = Migrations::currentVersion(db, &error);
    if (!error.ok())
        return error;
    m_connections = std::move(connections);
    return {};
}

sql::Engine LedgerDatabase::engine() const
{
    return m_connections ? m_connections->engine() : sql::Engine::Sqlite;
}

QDateTime LedgerDatabase::now() const
{
    if (!m_systemClock)
        return sql::fromMs(m_options.clock().toMSecsSinceEpoch());
    return sql::fromMs(QDateTime::currentMSecsSinceEpoch() + m_clockOffsetMs.load(std::memory_order_relaxed));
}

// The database's clock as an offset from ours, so now() stays a local call: measured around one
// round trip (half of it is the error bound, well under a millisecond on a LAN), at open and
// again every 30 s on the writing threads.
void LedgerDatabase::measureClockOffset(QSqlDatabase &db)
{
    QSqlQuery q(db);
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    if (!q.exec(QStringLiteral("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")) || !q.next())
        return;
    const qint64 after = QDateTime::currentMSecsSinceEpoch();
    m_clockOffsetMs.store(q.value(0).toLongLong() - (before + after) / 2, std::memory_order_relaxed);
    m_clockMeasuredAtMs.store(after, std::memory_order_relaxed);
}

int LedgerDatabase::addCommitObserver(CommitObserver observer)
{
    QMutexLocker locker(&m_observersMutex);
    const int id = m_nextObserver++;
    m_observers.append({id, std::move(observer)});
    return id;
}

void LedgerDatabase::removeCommitObserver(int id)
{
    QMutexLocker locker(&m_observersMutex);
    m_observers.removeIf([id](const auto &entry) { return entry.first == id; });
}

void LedgerDatabase::notifyCommitted(qint64 lastSeq)
{
    QList<std::pair<int, CommitObserver>> observers;
    {
        QMutexLocker locker(&m_observersMutex);
        observers = m_observers;
    }
    for (const auto &entry : std::as_const(observers))
        entry.second(lastSeq);
}

namespace {

// Marks the calling thread as inside a write body (row locks on PostgreSQL) for one scope.
struct WriteScope
{
    WriteScope() { sql::setInWriteTransaction(true); }
    ~WriteScope() { sql::setInWriteTransaction(false); }
    Q_DISABLE_COPY_MOVE(WriteScope)
};

void rollback(QSqlDatabase &db)
{
    AuditChain::discardPending();
    QSqlQuery rollback(db);
    rollback.exec(QStringLiteral("ROLLBACK")); // may fail if the engine already rolled back
}

} // namespace

LedgerError LedgerDatabase::write(const char *operation, const WriteBody &body)
{
    const WriteTimer timer;
    if (!m_connections)
        return timer.done(LedgerError(Code::Storage, QStringLiteral("the ledger is not open")));
    if (const std::optional<QString> why = damaged())
        return timer.done(LedgerError(Code::Damaged, *why));
    const bool postgres = m_connections->engine() == sql::Engine::Postgres;
    // SQLite: writers of this process queue here instead of in SQLite's busy handler, which sleeps
    // in steps of milliseconds while the lock is free again after a fraction of one. PostgreSQL:
    // no process-wide lock; transactions run side by side and meet on row locks.
    std::optional<QMutexLocker<QMutex>> serialized;
    if (!postgres)
        serialized.emplace(&m_writeMutex);
    int busyRounds = 0;
    int unavailableRounds = 0;
    const char *stage = "could not connect";
    for (;;) {
        LedgerError error;
        bool retry = true; // a failed connect may be retried too
        QSqlDatabase db = connection(&error);
        if (error.ok()) {
            if (postgres && m_systemClock
                && QDateTime::currentMSecsSinceEpoch() - m_clockMeasuredAtMs.load(std::memory_order_relaxed) > 30000)
                measureClockOffset(db);
            retry = false;
            qint64 lastSeq = 0;
            QString lastHash;
            error = writeOnce(operation, body, db, &retry, &lastSeq, &lastHash, &stage);
            if (error.ok()) {
                if (lastSeq > 0) {
                    if (LedgerWitness *witness = m_witness.load(std::memory_order_acquire))
                        witness->advance(lastSeq, lastHash);
                    if (m_healthFailing.load(std::memory_order_relaxed)) {
                        QMutexLocker locker(&m_healthMutex);
                        qCInfo(lcLedger) << "the ledger writes again after" << m_health.failures << "failed writes";
                        m_health = WriteHealth();
                        m_healthFailing.store(false, std::memory_order_relaxed);
                    }
                    notifyCommitted(lastSeq);
                }
                return timer.done({});
            }
        }
        if (retry && error.code() == Code::Busy && busyRounds < m_options.busyRetries) {
            backoff(busyRounds++);
            continue;
        }
        if (retry && error.code() == Code::Unavailable && unavailableRounds < m_options.unavailableRetries) {
            m_connections->discardCurrentThread();
            backoff(4 * unavailableRounds++);
            continue;
        }
        if (error.code() == Code::Unavailable)
            m_connections->discardCurrentThread();
        if (error.code() == Code::CannotWrite || error.code() == Code::Damaged)
            noteStorageRefusal(error);
        if (error.code() != Code::Busy && error.code() != Code::Unavailable && error.code() != Code::Storage
            && error.code() != Code::CannotWrite && error.code() != Code::Damaged)
            return timer.done(error); // a refusal (logged at debug level)
        if (error.code() != Code::Busy && error.code() != Code::Unavailable && std::string_view(stage) == "rolled back:")
            return timer.done(error); // logged by writeOnce
        qCWarning(lcLedger) << operation << stage << error.toString();
        return timer.done(error);
    }
}

void LedgerDatabase::noteStorageRefusal(const LedgerError &error)
{
    QMutexLocker locker(&m_healthMutex);
    m_health.failing = true;
    m_health.reason = error.message();
    m_health.failedAtMs = QDateTime::currentMSecsSinceEpoch();
    ++m_health.failures;
    m_healthFailing.store(true, std::memory_order_relaxed);
}

void LedgerDatabase::markDamaged(const QString &reason)
{
    QMutexLocker locker(&m_healthMutex);
    m_damagedReason = reason;
    m_damaged.store(true, std::memory_order_release);
}

std::optional<QString> LedgerDatabase::damaged() const
{
    if (!m_damaged.load(std::memory_order_acquire))
        return std::nullopt;
    QMutexLocker locker(&m_healthMutex);
    return m_damagedReason;
}

LedgerDatabase::WriteHealth LedgerDatabase::writeHealth() const
{
    QMutexLocker locker(&m_healthMutex);
    return m_health;
}

LedgerError LedgerDatabase::probeWritable(std::chrono::milliseconds wait)
{
    if (!m_connections)
        return LedgerError(Code::Storage, QStringLiteral("the ledger is not open"));
    if (const std::optional<QString> why = damaged())
        return LedgerError(Code::Damaged, *why);
    // Writes failing for want of storage: not ready while they fail, and for kProbeQuietMs after
    // the last failure — then the probe's own write decides (an operator freed the disk).
    constexpr qint64 kProbeQuietMs = 30000;
    if (const WriteHealth health = writeHealth();
        health.failing && QDateTime::currentMSecsSinceEpoch() - health.failedAtMs < kProbeQuietMs)
        return LedgerError(Code::CannotWrite, QStringLiteral("%1 (%2 failed writes since the last commit, the last at %3)")
                                                  .arg(health.reason)
                                                  .arg(health.failures)
                                                  .arg(QDateTime::fromMSecsSinceEpoch(health.failedAtMs, Qt::UTC)
                                                           .toString(Qt::ISODate)));
    LedgerError error;
    QSqlDatabase db = connection(&error);
    if (!error.ok())
        return error;
    const qint64 waitMs = std::max<qint64>(1, wait.count());
    const bool postgres = sql::isPostgres(db);
    // SQLite: this process's writers first (a transaction running longer than `wait` is news),
    // then the file's write lock with busy_timeout shortened to `wait` and put back.
    if (!postgres && !m_writeMutex.tryLock(int(std::min<qint64>(waitMs, INT_MAX))))
        return LedgerError(Code::Busy, QStringLiteral("a write of this process has held the ledger for over %1 ms").arg(waitMs));
    const auto unlock = qScopeGuard([&] {
        if (postgres)
            return;
        LedgerError ignored;
        sql::plain(db, QStringLiteral("PRAGMA busy_timeout = %1").arg(m_options.busyTimeoutMs), &ignored);
        m_writeMutex.unlock();
    });
    if (!postgres && !sql::plain(db, QStringLiteral("PRAGMA busy_timeout = %1").arg(waitMs), &error))
        return error;
    // A write that really commits: one row per instance in readiness_probe (migration 16). A
    // read-only file or database, a disk that refuses, a standby: refused here as a proposal is.
    if (!sql::plain(db, postgres ? QStringLiteral("BEGIN ISOLATION LEVEL READ COMMITTED") : QStringLiteral("BEGIN IMMEDIATE"),
                    &error))
        return LedgerError(error.code() == Code::Storage ? Code::CannotWrite : error.code(),
                           QStringLiteral("cannot begin a write transaction: %1").arg(error.message()));
    if (postgres)
        sql::plain(db, QStringLiteral("SET LOCAL lock_timeout = %1").arg(waitMs), &error);
    static const QString instance = QStringLiteral("%1:%2").arg(QSysInfo::machineHostName()).arg(QCoreApplication::applicationPid());
    sql::Statement q(db);
    const bool wrote = error.ok()
        && sql::run(q,
                    QStringLiteral("INSERT INTO readiness_probe (instance, probed_at, probes) VALUES (?, ?, 1)"
                                   " ON CONFLICT (instance) DO UPDATE SET probed_at = excluded.probed_at,"
                                   " probes = readiness_probe.probes + 1"),
                    {instance, sql::toMs(now())}, &error)
        && sql::plain(db, QStringLiteral("COMMIT"), &error);
    if (wrote)
        return {};
    LedgerError ignored;
    sql::plain(db, QStringLiteral("ROLLBACK"), &ignored);
    if (postgres && (error.code() == Code::Unavailable || LedgerConnections::isBroken(db)))
        m_connections->discardCurrentThread();
    if (error.code() == Code::CannotWrite || error.code() == Code::Damaged)
        noteStorageRefusal(error);
    return LedgerError(error.code() == Code::Storage ? Code::CannotWrite : error.code(),
                       QStringLiteral("the readiness probe could not commit: %1").arg(error.message()));
}

// One try of a write transaction. *retry: the transaction did not commit and may run again
// (Busy, or Unavailable before COMMIT was sent, or a lost COMMIT that did not commit).
LedgerError LedgerDatabase::writeOnce(const char *operation, const WriteBody &body, QSqlDatabase &db, bool *retry,
                                      qint64 *lastSeq, QString *lastHash, const char **stage)
{
    const bool postgres = sql::isPostgres(db);
    const WriteScope scope;
    LedgerError error;
    AuditChain::discardPending();
    // IMMEDIATE takes SQLite's write lock now, so concurrent writers (threads or processes) queue
    // on busy_timeout here instead of failing halfway through.
    if (!sql::plain(db, postgres ? QStringLiteral("BEGIN ISOLATION LEVEL READ COMMITTED") : QStringLiteral("BEGIN IMMEDIATE"),
                    &error)) {
        *retry = error.code() == Code::Busy || error.code() == Code::Unavailable;
        *stage = "could not begin:";
        return error;
    }
    error = body(db, now());
    AuditChain::Flushed flushed;
    if (error.ok())
        error = AuditChain::flush(db, &flushed);
    if (error.ok() && postgres && flushed.xactId.isEmpty()) {
        // _if_assigned: a transaction that wrote nothing has no id (NULL) and gets none here.
        sql::Statement q(db);
        if (sql::run(q, QStringLiteral("SELECT pg_current_xact_id_if_assigned()::text"), {}, &error) && q.next())
            flushed.xactId = q.value(0).toString();
    }
    *lastSeq = flushed.lastSeq;
    *lastHash = flushed.lastHash;
    if (!error.ok()) {
        rollback(db);
        *retry = error.code() == Code::Busy || error.code() == Code::Unavailable;
        *stage = "rolled back:";
        if (*retry)
            qCDebug(lcLedger) << operation << "rolled back, to be retried:" << error.toString();
        else if (error.code() == Code::Storage || error.code() == Code::CannotWrite || error.code() == Code::Damaged)
            qCWarning(lcLedger) << operation << "rolled back:" << error.toString();
        else
            qCDebug(lcLedger) << operation << "refused:" << error.toString();
        return error;
    }
    if (postgres && m_lostCommitHook) {
        if (const std::optional<QString> askAbout = m_lostCommitHook(operation, flushed.xactId)) {
            rollback(db); // instead of COMMIT; the answer is "lost"
            *stage = "could not commit:";
            return resolveLostCommit(operation, *askAbout, flushed.lastSeq, flushed.lastHash, retry);
        }
    }
    if (sql::plain(db, QStringLiteral("COMMIT"), &error)) {
        qCDebug(lcLedger) << operation << "committed";
        return {};
    }
    *stage = "could not commit:";
    if (postgres && (error.code() == Code::Unavailable || LedgerConnections::isBroken(db)))
        return resolveLostCommit(operation, flushed.xactId, flushed.lastSeq, flushed.lastHash, retry);
    rollback(db);
    *retry = error.code() == Code::Busy;
    return error;
}

// The connection went while COMMIT was on its way: the transaction may or may not have
// committed (FoundationDB's commit_unknown_result). Asked on a new connection, in one statement
// (one snapshot):
//  - the id's status, or "future" when the id is not below one handed out now (pg_xact_status
//    would raise an error): the id was never handed out by this server's history, so the
//    transaction is not in it — a crash lost it before its WAL reached the disk;
//  - whether the id's end is visible to the statement's snapshot (clog says "committed" a moment
//    before the snapshot stops counting the transaction as running);
//  - the hash of the audit row with the seq the transaction wrote last.
// "aborted" or "future": it did not commit (an id that committed is never handed out again), so
// it runs again. "committed": about this transaction OR another one that got the same id after a
// crash; only the transaction's own last audit row with its own hash proves it was this one —
// absent or another hash: it did not commit, and it runs again. A transaction that wrote no
// audit row has no such proof: Unavailable (unknown), never a success it cannot prove. One with
// no id wrote nothing: committed or not, nothing is lost, success. "in progress" (the old session
// has not noticed yet, or a transaction that got the id again is running), committed but not yet
// visible, or no connection: asked again for a few seconds, then Unavailable.
LedgerError LedgerDatabase::resolveLostCommit(const char *operation, const QString &xactId, qint64 auditSeq,
                                              const QString &auditHash, bool *retry)
{
    *retry = false;
    m_connections->discardCurrentThread();
    if (xactId.isEmpty()) {
        qCWarning(lcLedger) << operation << "lost the answer to COMMIT; it wrote nothing";
        return {};
    }
    const auto didNotCommit = [&](const char *why) {
        qCWarning(lcLedger).nospace() << operation << " lost the answer to COMMIT; it did not commit (" << why
                                      << "): retrying";
        *retry = true;
        return LedgerError(Code::Unavailable, QStringLiteral("the commit was lost"));
    };
    const QDeadlineTimer deadline(10000);
    for (int round = 0; !deadline.hasExpired(); ++round) {
        LedgerError error;
        QSqlDatabase db = m_connections->forCurrentThread(&error);
        if (error.ok()) {
            sql::Statement q(db);
            if (sql::run(q, QStringLiteral(
                                "SELECT CASE WHEN CAST(? AS xid8) >= pg_current_xact_id() THEN 'future'"
                                " ELSE pg_xact_status(CAST(? AS xid8)) END,"
                                " pg_visible_in_snapshot(CAST(? AS xid8), pg_current_snapshot()),"
                                " (SELECT hash FROM audit WHERE seq = ?)"),
                         {xactId, xactId, xactId, auditSeq}, &error)
                && q.next()) {
                const QString status = q.value(0).toString();
                const bool ended = q.value(1).toBool();
                const QVariant hash = q.value(2);
                if (status == u"aborted")
                    return didNotCommit("aborted");
                if (status == u"future")
                    return didNotCommit("its id is not in the database's history");
                if (status == u"committed" && ended) {
                    if (auditSeq <= 0) {
                        qCWarning(lcLedger) << operation << "lost the answer to COMMIT; its id committed, but it"
                                            << "wrote no audit row to prove that it was this transaction";
                        return LedgerError(Code::Unavailable,
                                           QStringLiteral("the connection to the ledger database was lost during"
                                                          " COMMIT; the outcome is unknown (the write leaves no"
                                                          " audit row to read back)"));
                    }
                    if (!hash.isNull() && hash.toString() == auditHash) {
                        qCWarning(lcLedger) << operation << "lost the answer to COMMIT; it committed (audit row"
                                            << auditSeq << "is there)";
                        return {};
                    }
                    return didNotCommit("its id was handed out again; its audit row is not there");
                }
                // "in progress", committed but not yet visible, or NULL ("too old to know", which
                // cannot happen for a transaction of a moment ago): asked again.
            }
        }
        if (!error.ok())
            m_connections->discardCurrentThread();
        backoff(4 * std::min(round, 10));
    }
    qCWarning(lcLedger) << operation << "lost the answer to COMMIT and cannot find out whether it committed";
    return LedgerError(Code::Unavailable,
                       QStringLiteral("the connection to the ledger database was lost during COMMIT; the outcome is"
                                      " unknown until the database can be reached"));
}

LedgerError LedgerDatabase::read(const ReadBody &body) const
{
    for (int round = 0;; ++round) {
        LedgerError error;
        QSqlDatabase db = connection(&error);
        if (error.ok())
            error = body(db);
        if (error.code() != Code::Unavailable || round >= m_options.unavailableRetries)
            return error;
        m_connections->discardCurrentThread(); // a new session for the next round
        backoff(4 * round);
    }
}

LedgerError LedgerDatabase::query(const QString &sql, const QVariantList &values,
                                  const std::function<void(const sql::Statement &row)> &onRow) const
{
    return read([&](QSqlDatabase &db) {
        LedgerError e;
        sql::Statement q(db);
        if (sql::run(q, sql, values, &e)) {
            while (q.next())
                onRow(q);
        }
        return e;
    });
}

void LedgerDatabase::releaseCurrentThread()
{
    if (m_connections)
        m_connections->discardCurrentThread();
}

QSqlDatabase LedgerDatabase::connection(LedgerError *error) const
{
    if (!m_connections) {
        *error = LedgerError(Code::Storage, QStringLiteral("the ledger is not open"));
        return QSqlDatabase();
    }
    QSqlDatabase db = m_connections->forCurrentThread(error);
    if (error->ok() && m_connections->engine() == sql::Engine::Postgres && LedgerConnections::isBroken(db)) {
        m_connections->discardCurrentThread(); // the session died since its last use: a new one
        db = m_connections->forCurrentThread(error);
    }
    return db;
}

LedgerError LedgerDatabase::onSavepoint(QSqlDatabase &db, const std::function<LedgerError()> &step,
                                        LedgerError *stepError)
{
    LedgerError e;
    if (!sql::plain(db, QStringLiteral("SAVEPOINT batch_item"), &e))
        return e;
    const int pendingAudit = AuditChain::pendingCount();
    *stepError = step();
    if (stepError->ok())
        return sql::plain(db, QStringLiteral("RELEASE batch_item"), &e) ? LedgerError() : e;
    if (stepError->code() == Code::Busy || stepError->code() == Code::Unavailable)
        return *stepError; // the lock or the connection itself: retry the whole batch
    AuditChain::dropPendingAfter(pendingAudit);
    if (!sql::plain(db, QStringLiteral("ROLLBACK TO batch_item"), &e)
        || !sql::plain(db, QStringLiteral("RELEASE batch_item"), &e))
        return e;
    return {};
}

} // namespace cs
