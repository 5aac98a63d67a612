#include "server/ledger/ledgerbackup.h"
#include "server/ledger/ledgerfiles.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerconnections.h"
#include "server/ledger/ledgerlog.h"
#include "server/ledger/migrations.h"
#include "server/ledger/sqlstatement.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryFile>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cs {

using Code = LedgerError::Code;

namespace {

LedgerError failure(Code code, const QString &message)
{
    return LedgerError(code, message);
}

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// The files SQLite may keep beside a database: while a copy is partial, each of them is partial too.
const std::array<const char *, 4> &siblingSuffixes()
{
    static const std::array<const char *, 4> suffixes = {"", "-journal", "-wal", "-shm"};
    return suffixes;
}

void removeWithSiblings(const QString &path)
{
    for (const char *suffix : siblingSuffixes())
        QFile::remove(path + QLatin1String(suffix));
}

// --- SIGINT, SIGTERM, SIGHUP while a partial copy exists -----------------------------------------

// The partial file and its siblings, as bytes a signal handler may unlink (async-signal-safe).
constexpr std::size_t kPathBytes = 4096 + 16;
char g_partialPaths[4][kPathBytes];
volatile std::sig_atomic_t g_partialArmed = 0;
constexpr std::array<int, 3> kCleanedSignals = {SIGINT, SIGTERM, SIGHUP};

void removePartialThenDie(int signal)
{
    if (g_partialArmed) {
        for (const char *path : g_partialPaths) {
            if (path[0] != '\0')
                ::unlink(path);
        }
    }
    // Ended as the signal would have ended it: the default action, delivered once this returns.
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

// Arms the handlers for one partial file and restores the previous ones when it goes.
class PartialFileSignalGuard
{
public:
    PartialFileSignalGuard(const QString &partialPath, bool enabled) : m_enabled(enabled)
    {
        if (!m_enabled)
            return;
        const QByteArray base = QFile::encodeName(partialPath);
        for (std::size_t i = 0; i < siblingSuffixes().size(); ++i) {
            const QByteArray path = base + siblingSuffixes()[i];
            const std::size_t n = std::min<std::size_t>(std::size_t(path.size()), kPathBytes - 1);
            std::memcpy(g_partialPaths[i], path.constData(), n);
            g_partialPaths[i][n] = '\0';
        }
        std::atomic_signal_fence(std::memory_order_seq_cst);
        g_partialArmed = 1;
        struct sigaction action = {};
        action.sa_handler = removePartialThenDie;
        sigemptyset(&action.sa_mask);
        for (std::size_t i = 0; i < kCleanedSignals.size(); ++i)
            ::sigaction(kCleanedSignals[i], &action, &m_previous[i]);
    }

    // The partial file has its final name (or is gone): nothing left for a signal to remove.
    void disarm()
    {
        g_partialArmed = 0;
        std::atomic_signal_fence(std::memory_order_seq_cst);
    }

    ~PartialFileSignalGuard()
    {
        if (!m_enabled)
            return;
        disarm();
        for (std::size_t i = 0; i < kCleanedSignals.size(); ++i)
            ::sigaction(kCleanedSignals[i], &m_previous[i], nullptr);
    }

    Q_DISABLE_COPY_MOVE(PartialFileSignalGuard)

private:
    const bool m_enabled;
    std::array<struct sigaction, kCleanedSignals.size()> m_previous = {};
};

// --- the copy: SQLite's C API ---------------------------------------------------------------------

// One sqlite3 handle, closed when it goes.
class SqliteHandle
{
public:
    SqliteHandle() = default;
    ~SqliteHandle() { close(); }
    Q_DISABLE_COPY_MOVE(SqliteHandle)

    bool open(const QString &path, int flags)
    {
        return sqlite3_open_v2(QFile::encodeName(path).constData(), &m_db, flags, nullptr) == SQLITE_OK;
    }
    int close()
    {
        const int rc = m_db ? sqlite3_close(m_db) : SQLITE_OK;
        m_db = nullptr;
        return rc;
    }
    sqlite3 *get() const { return m_db; }
    QString message() const { return m_db ? QString::fromUtf8(sqlite3_errmsg(m_db)) : QStringLiteral("out of memory"); }

    // The first column of the first row of a PRAGMA (or any one-value statement).
    bool value(const char *sql, QString *out, QString *error)
    {
        sqlite3_stmt *statement = nullptr;
        int rc = sqlite3_prepare_v2(m_db, sql, -1, &statement, nullptr);
        if (rc == SQLITE_OK) {
            rc = sqlite3_step(statement);
            if (rc == SQLITE_ROW) {
                *out = QString::fromUtf8(reinterpret_cast<const char *>(sqlite3_column_text(statement, 0)));
                rc = SQLITE_OK;
            } else if (rc == SQLITE_DONE) {
                out->clear();
                rc = SQLITE_OK;
            }
        }
        if (rc != SQLITE_OK)
            *error = QStringLiteral("%1: %2").arg(QLatin1String(sql), message());
        sqlite3_finalize(statement);
        return rc == SQLITE_OK;
    }

private:
    sqlite3 *m_db = nullptr;
};

Code codeOf(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return Code::Busy;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return Code::Conflict;
    default:
        return Code::Storage;
    }
}

// Step 2: every page of the ledger into the (empty) partial file in one backup step, then the
// copy made a standalone file.
LedgerError copyPages(const QString &ledgerFile, const QString &partialPath, int busyTimeoutMs,
                      LedgerBackup::Report *report)
{
    SqliteHandle source;
    // Never created, never migrated, only read. Not SQLITE_OPEN_READONLY: a read-only connection
    // to a ledger no countersignd has open leaves the -wal and -shm it had to make behind (it
    // cannot fold them in), whereas a read-write one, being the last to close, removes them as
    // countersignd's own last close does. While countersignd runs it is just one more reader.
    if (!source.open(ledgerFile, SQLITE_OPEN_READWRITE))
        return failure(Code::Storage, QStringLiteral("cannot open the ledger %1: %2").arg(ledgerFile, source.message()));
    sqlite3_busy_timeout(source.get(), busyTimeoutMs);
    QString error;
    if (!source.value("PRAGMA journal_mode", &report->sourceJournalMode, &error)) {
        const int rc = sqlite3_extended_errcode(source.get());
        return failure(codeOf(rc), QStringLiteral("cannot read the ledger %1: %2%3")
                                       .arg(ledgerFile, error,
                                            codeOf(rc) == Code::Busy
                                                ? QStringLiteral(" (it stayed locked for %1 ms)").arg(busyTimeoutMs)
                                                : QString()));
    }
    if (report->sourceJournalMode != u"wal")
        qCWarning(lcLedger) << "the ledger" << ledgerFile << "is in journal mode" << report->sourceJournalMode
                            << "not wal: a writer waits while it is copied";

    SqliteHandle target;
    if (!target.open(partialPath, SQLITE_OPEN_READWRITE))
        return failure(Code::Storage, QStringLiteral("cannot open the partial copy %1: %2").arg(partialPath, target.message()));
    // No rollback journal while the pages arrive: a copy that fails is thrown away whole, so a
    // journal protects nothing — and a process killed mid-step would leave it beside the partial
    // file (issue 34).
    QString offMode;
    if (!target.value("PRAGMA journal_mode = OFF", &offMode, &error))
        return failure(Code::Storage, QStringLiteral("cannot prepare the partial copy: ") + error);
    sqlite3_backup *backup = sqlite3_backup_init(target.get(), "main", source.get(), "main");
    if (backup == nullptr)
        return failure(Code::Storage, QStringLiteral("cannot start the backup: %1").arg(target.message()));
    QElapsedTimer snapshot;
    snapshot.start();
    // -1: all pages in this one call, under one read transaction (one snapshot) on the ledger.
    const int stepped = sqlite3_backup_step(backup, -1);
    report->snapshotMs = snapshot.elapsed();
    report->pages = sqlite3_backup_pagecount(backup);
    const int finished = sqlite3_backup_finish(backup);
    if (stepped != SQLITE_DONE || finished != SQLITE_OK) {
        const int rc = stepped != SQLITE_DONE ? stepped : finished;
        QString why = QString::fromUtf8(sqlite3_errstr(rc));
        if (codeOf(rc) == Code::Busy)
            why += QStringLiteral(" (the ledger stayed locked for %1 ms)").arg(busyTimeoutMs);
        else if ((rc & 0xff) == SQLITE_NOTADB)
            why += QStringLiteral(" (%1 is not a SQLite ledger)").arg(ledgerFile);
        return failure(codeOf(rc), QStringLiteral("the backup of %1 failed: %2").arg(ledgerFile, why));
    }
    source.close();
    if (target.close() != SQLITE_OK)
        return failure(Code::Storage, QStringLiteral("cannot close the partial copy %1").arg(partialPath));

    // The pages say WAL (the ledger's header came along). Opened afresh, the copy is switched to
    // a rollback journal: its WAL (if SQLite made one on opening) is folded in and removed, and
    // the header says so — one file, which a later open does not turn into three.
    if (!target.open(partialPath, SQLITE_OPEN_READWRITE))
        return failure(Code::Storage, QStringLiteral("cannot open the copy %1: %2").arg(partialPath, target.message()));
    QString mode;
    if (!target.value("PRAGMA journal_mode = DELETE", &mode, &error))
        return failure(Code::Storage, QStringLiteral("cannot make the copy one file: ") + error);
    if (mode != u"delete")
        return failure(Code::Storage, QStringLiteral("the copy stayed in journal mode %1, not delete").arg(mode));
    if (target.close() != SQLITE_OK)
        return failure(Code::Storage, QStringLiteral("cannot close the copy %1").arg(partialPath));
    return {};
}

// --- step 3: the checks, on the copy -------------------------------------------------------------

// A read-only Qt connection to the copy (AuditChain::verify takes one), removed when it goes.
class CheckConnection
{
public:
    explicit CheckConnection(const QString &path)
        : m_name(QStringLiteral("countersign.backup.check.%1").arg(s_next.fetch_add(1)))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
    }
    ~CheckConnection()
    {
        sql::forgetStatements(m_name);
        {
            QSqlDatabase db = QSqlDatabase::database(m_name, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    Q_DISABLE_COPY_MOVE(CheckConnection)

    QSqlDatabase database() const { return QSqlDatabase::database(m_name, false); }

private:
    static inline std::atomic<int> s_next{1};
    const QString m_name;
};

LedgerError checkCopy(const QString &partialPath, LedgerBackup::Report *report)
{
    CheckConnection connection(partialPath);
    QSqlDatabase db = connection.database();
    if (!db.open())
        return failure(Code::Storage, QStringLiteral("cannot open the copy to check it: ") + db.lastError().text());
    LedgerError error;
    {
        // The whole file: every page, index against table, free list (the copy's own time, not
        // the ledger's: nothing waits on it).
        QSqlQuery q(db);
        if (!sql::runOnce(q, QStringLiteral("PRAGMA integrity_check(20)"), {}, &error))
            return error;
        QStringList problems;
        while (q.next())
            problems << q.value(0).toString();
        if (problems != QStringList{QStringLiteral("ok")})
            return failure(Code::Conflict, QStringLiteral("the copy fails PRAGMA integrity_check, so the ledger does too:"
                                                          " %1; no copy written").arg(problems.join(QStringLiteral("; "))));
    }
    report->schemaVersion = Migrations::currentVersion(db, &error);
    if (!error.ok() || report->schemaVersion < 1)
        return failure(Code::Conflict, QStringLiteral("%1 is not a Countersign ledger (no schema_version%2)")
                                           .arg(report->source, error.ok() ? QString() : u": " + error.message()));
    if (report->schemaVersion > Migrations::latestVersion())
        return failure(Code::Conflict, QStringLiteral("the ledger's schema version %1 is newer than this program's %2:"
                                                      " back it up with the countersignd that serves it")
                                           .arg(report->schemaVersion).arg(Migrations::latestVersion()));
    const auto chain = AuditChain::verify(db);
    if (!chain.ok())
        return chain.error();
    if (!chain->ok)
        return failure(Code::Conflict, QStringLiteral("the audit chain is broken at seq %1 (%2; %3 rows checked): the"
                                                      " ledger itself is (countersignd audit verify --db %4); no copy written")
                                           .arg(chain->firstBrokenSeq).arg(chain->reason).arg(chain->rowsChecked)
                                           .arg(report->source));
    report->auditRows = chain->rowsChecked;
    QSqlQuery q(db);
    if (!sql::runOnce(q, QStringLiteral("SELECT (SELECT COUNT(*) FROM actions),"
                                        " (SELECT hash FROM audit ORDER BY seq DESC LIMIT 1)"),
                      {}, &error))
        return error;
    if (q.next()) {
        report->actions = q.value(0).toLongLong();
        report->auditHead = q.value(1).toString();
    }
    return {};
}

// One standalone file: its header says rollback journal (bytes 18 and 19: 1, not WAL's 2) and
// SQLite left nothing beside it.
LedgerError checkStandalone(const QString &partialPath, qint64 *bytes)
{
    QFile file(partialPath);
    if (!file.open(QIODevice::ReadOnly))
        return failure(Code::Storage, QStringLiteral("cannot read the copy %1: %2").arg(partialPath, file.errorString()));
    const QByteArray header = file.read(100);
    if (header.size() < 100 || !header.startsWith("SQLite format 3") || header.at(18) != 1 || header.at(19) != 1)
        return failure(Code::Storage, QStringLiteral("the copy %1 is not a standalone SQLite file (its header says WAL)")
                                          .arg(partialPath));
    for (const char *suffix : siblingSuffixes()) {
        if (*suffix != '\0' && QFileInfo::exists(partialPath + QLatin1String(suffix)))
            return failure(Code::Storage, QStringLiteral("SQLite left %1%2 beside the copy").arg(partialPath, QLatin1String(suffix)));
    }
    *bytes = file.size();
    return {};
}

// --- step 4 ---------------------------------------------------------------------------------------

LedgerError syncPath(const QString &path, int flags)
{
    const int fd = ::open(QFile::encodeName(path).constData(), flags | O_CLOEXEC);
    if (fd < 0)
        return failure(Code::Storage, QStringLiteral("cannot open %1 to sync it: %2").arg(path, systemError(errno)));
    const int synced = ::fsync(fd);
    const int saved = errno;
    ::close(fd);
    if (synced != 0)
        return failure(Code::Storage, QStringLiteral("fsync %1 failed: %2").arg(path, systemError(saved)));
    return {};
}

LedgerError moveIntoPlace(const QString &partialPath, const QString &targetFile, bool force)
{
    const QByteArray from = QFile::encodeName(partialPath);
    const QByteArray to = QFile::encodeName(targetFile);
    if (force) {
        if (::rename(from.constData(), to.constData()) != 0)
            return failure(Code::Storage, QStringLiteral("cannot rename the copy to %1: %2").arg(targetFile, systemError(errno)));
        return {};
    }
    // Without force a FILE created since the first check is not replaced.
    int renamed = ::renameat2(AT_FDCWD, from.constData(), AT_FDCWD, to.constData(), RENAME_NOREPLACE);
    if (renamed != 0 && (errno == EINVAL || errno == ENOSYS)) {
        // A file system without RENAME_NOREPLACE: link() does not replace either.
        renamed = ::link(from.constData(), to.constData());
        if (renamed == 0)
            ::unlink(from.constData());
    }
    if (renamed != 0) {
        if (errno == EEXIST)
            return failure(Code::Invalid, QStringLiteral("%1 appeared while the copy was made; not replaced (--force"
                                                         " replaces it)").arg(targetFile));
        return failure(Code::Storage, QStringLiteral("cannot rename the copy to %1: %2").arg(targetFile, systemError(errno)));
    }
    return {};
}

// Step 1: every refusal that needs no copy, before anything is written.
LedgerError refusals(const QString &ledgerFile, const QString &targetFile, bool force)
{
    if (LedgerLocation::isUri(ledgerFile))
        return failure(Code::Invalid, LedgerBackup::postgresAdvice(ledgerFile, targetFile));
    if (targetFile.isEmpty())
        return failure(Code::Invalid, QStringLiteral("no file named for the copy (--to FILE)"));
    if (LedgerLocation::isUri(targetFile))
        return failure(Code::Invalid, QStringLiteral("the copy is a SQLite file: --to names a file, not a database URI"));
    const QFileInfo ledger(ledgerFile);
    if (!ledger.isFile())
        return failure(Code::Invalid, QStringLiteral("no ledger file %1").arg(ledgerFile));
    const QFileInfo target(targetFile);
    const QFileInfo folder(target.absolutePath());
    if (!folder.isDir())
        return failure(Code::Invalid, QStringLiteral("no folder %1 for the copy").arg(target.absolutePath()));
    if (target.isDir())
        return failure(Code::Invalid, QStringLiteral("%1 is a folder; --to names the copy's file").arg(targetFile));
    // The ledger itself and its -wal, -shm, -journal and witness however they are spelt, and the
    // companions of any other SQLite database: replacing one of them would destroy a live ledger.
    if (const LedgerError refused = LedgerFiles::refuseTarget(targetFile, ledgerFile, LedgerFiles::Replacing::OneOfOurCopies);
        !refused.ok())
        return refused;
    if (target.exists() || target.isSymLink()) {
        if (!force)
            return failure(Code::Invalid, QStringLiteral("%1 exists; not replaced (--force replaces it)").arg(targetFile));
        if (!target.isFile())
            return failure(Code::Invalid, QStringLiteral("%1 exists and is not a file").arg(targetFile));
    }
    return {};
}

// What a backup killed outright (SIGKILL, a crash) left beside FILE: FILE.partial-PID-XXXXXX and
// its siblings, removed once process PID is gone. A partial file of a backup still running (its
// process alive, or a reused pid) is left alone.
void removeDeadPartials(const QFileInfo &target)
{
    const QString prefix = target.fileName() + QStringLiteral(".partial-");
    const QDir folder(target.absolutePath());
    const QStringList names = folder.entryList({prefix + QLatin1Char('*')}, QDir::Files | QDir::Hidden | QDir::System);
    for (const QString &name : names) {
        bool isPid = false;
        const qint64 pid = name.mid(prefix.size()).section(QLatin1Char('-'), 0, 0).toLongLong(&isPid);
        if (!isPid || pid <= 0 || pid == ::getpid() || pid > std::numeric_limits<pid_t>::max())
            continue;
        if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
            continue;
        if (QFile::remove(folder.filePath(name)))
            qCInfo(lcLedger) << "removed" << name << "left by backup process" << pid << "(it is gone)";
    }
}

} // namespace

QString LedgerBackup::postgresAdvice(const QString &uri, const QString &targetFile)
{
    const QString file = targetFile.isEmpty() ? QStringLiteral("FILE") : targetFile;
    return QStringLiteral(
               "a PostgreSQL ledger is backed up with PostgreSQL's own tools, not countersignd backup. pg_dump reads one"
               " consistent snapshot while countersignd keeps serving:\n"
               "  pg_dump --format=custom --file='%1' '%2'\n"
               "Restore it into a new, EMPTY database (createdb NEWDB), then check it before countersignd serves it:\n"
               "  pg_restore --single-transaction --no-owner --dbname='postgresql://USER@HOST:PORT/NEWDB' '%1'\n"
               "  countersignd audit verify --db 'postgresql://USER@HOST:PORT/NEWDB'\n"
               "(passwords from PGPASSFILE or ~/.pgpass; docs/OPERATIONS.md, \"Back up and restore\")")
        .arg(file, uri);
}

LedgerResult<LedgerBackup::Report> LedgerBackup::backup(const QString &ledgerFile, const QString &targetFile,
                                                        const Options &options)
{
    QElapsedTimer clock;
    clock.start();
    if (const LedgerError refused = refusals(ledgerFile, targetFile, options.force); !refused.ok())
        return refused;
    Report report;
    report.source = ledgerFile;
    report.target = targetFile;

    const QFileInfo target(targetFile);
    removeDeadPartials(target);
    QTemporaryFile partial(QDir(target.absolutePath())
                               .filePath(target.fileName() + QStringLiteral(".partial-%1-XXXXXX").arg(::getpid())));
    if (!partial.open())
        return failure(Code::Storage, QStringLiteral("cannot create the copy in %1: %2")
                                          .arg(target.absolutePath(), partial.errorString()));
    partial.close(); // an empty file, mode 0600, that SQLite fills
    const QString partialPath = partial.fileName();
    PartialFileSignalGuard signalGuard(partialPath, options.removePartialOnSignal);

    LedgerError error = copyPages(ledgerFile, partialPath, options.busyTimeoutMs, &report);
    if (error.ok())
        error = checkCopy(partialPath, &report);
    if (error.ok())
        error = checkStandalone(partialPath, &report.bytes);
    if (error.ok() && !QFile::setPermissions(partialPath, QFile::ReadOwner | QFile::WriteOwner))
        error = failure(Code::Storage, QStringLiteral("cannot make the copy mode 0600"));
    if (error.ok())
        error = syncPath(partialPath, O_RDONLY);
    if (error.ok())
        error = moveIntoPlace(partialPath, targetFile, options.force);
    if (!error.ok()) {
        removeWithSiblings(partialPath);
        return error;
    }
    partial.setAutoRemove(false); // it is FILE now
    signalGuard.disarm();
    // The rename itself durable: the folder's entry.
    if (const LedgerError synced = syncPath(target.absolutePath(), O_RDONLY | O_DIRECTORY); !synced.ok())
        qCWarning(lcLedger) << "the copy is in place but its folder was not synced:" << synced.message();
    report.elapsedMs = clock.elapsed();
    qCInfo(lcLedger) << "backed up" << ledgerFile << "to" << targetFile << "in" << report.elapsedMs << "ms";
    return report;
}

} // namespace cs
