#include "server/ledger/ledgerdatabase.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerconnections.h"
#include "server/ledger/ledgerlog.h"
#include "server/ledger/migrations.h"
#include "server/ledger/sqlstatement.h"

#include <QFile>
#include <QRandomGenerator>
#include <QThread>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cs {

using Code = LedgerError::Code;

namespace {

void backoff(int round)
{
    QThread::msleep(5 * (round + 1) + QRandomGenerator::global()->bounded(10));
}

// A new ledger file is created 0600 whatever the umask, before SQLite opens it (SQLite creates
// the -wal and -shm files with the main file's mode). An existing file keeps its mode; group or
// world access is reported. Anything else (no such folder, ...) is left to SQLite to report.
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

LedgerError LedgerDatabase::open(const QString &path, const Options &options)
{
    if (m_connections)
        return LedgerError(Code::Invalid, QStringLiteral("the ledger is already open on %1").arg(m_connections->path()));
    m_options = options;
    if (!m_options.clock)
        m_options.clock = systemClock();
    if (m_options.busyRetries < 0)
        m_options.busyRetries = 0;

    createOwnerOnly(path);
    auto connections = std::make_unique<LedgerConnections>(path, m_options.busyTimeoutMs);
    LedgerError error;
    QSqlDatabase db = connections->forCurrentThread(&error);
    if (!error.ok())
        return error;
    error = Migrations::migrate(db, sql::toMs(now()));
    if (!error.ok())
        return error;
    m_schemaVersion = Migrations::currentVersion(db, &error);
    if (!error.ok())
        return error;
    m_connections = std::move(connections);
    return {};
}

QDateTime LedgerDatabase::now() const
{
    const QDateTime clock = m_options.clock ? m_options.clock() : QDateTime::currentDateTimeUtc();
    return sql::fromMs(clock.toMSecsSinceEpoch());
}

LedgerError LedgerDatabase::write(const char *operation, const WriteBody &body)
{
    LedgerError error;
    QSqlDatabase db = connection(&error);
    if (!error.ok())
        return error;

    const QMutexLocker serialized(&m_writeMutex); // other processes still queue on busy_timeout
    for (int round = 0;; ++round) {
        const bool mayRetry = round < m_options.busyRetries;
        // IMMEDIATE takes the write lock now, so concurrent writers (threads or processes)
        // queue on busy_timeout here instead of failing halfway through.
        AuditChain::forgetTail();
        if (!sql::plain(db, QStringLiteral("BEGIN IMMEDIATE"), &error)) {
            if (error.code() == Code::Busy && mayRetry) {
                backoff(round);
                continue;
            }
            qCWarning(lcLedger) << operation << "could not begin:" << error.toString();
            return error;
        }
        error = body(db, now());
        if (error.ok() && sql::plain(db, QStringLiteral("COMMIT"), &error)) {
            qCDebug(lcLedger) << operation << "committed";
            return {};
        }
        {
            AuditChain::forgetTail();
            QSqlQuery rollback(db);
            rollback.exec(QStringLiteral("ROLLBACK")); // may fail if SQLite already rolled back
        }
        if (error.code() == Code::Busy && mayRetry) {
            backoff(round);
            continue;
        }
        if (error.code() == Code::Storage || error.code() == Code::Busy)
            qCWarning(lcLedger) << operation << "rolled back:" << error.toString();
        else
            qCDebug(lcLedger) << operation << "refused:" << error.toString();
        return error;
    }
}

LedgerError LedgerDatabase::read(const ReadBody &body) const
{
    LedgerError error;
    QSqlDatabase db = connection(&error);
    if (!error.ok())
        return error;
    return body(db);
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

QSqlDatabase LedgerDatabase::connection(LedgerError *error) const
{
    if (!m_connections) {
        *error = LedgerError(Code::Storage, QStringLiteral("the ledger is not open"));
        return QSqlDatabase();
    }
    return m_connections->forCurrentThread(error);
}

LedgerError LedgerDatabase::onSavepoint(QSqlDatabase &db, const std::function<LedgerError()> &step,
                                        LedgerError *stepError)
{
    LedgerError e;
    if (!sql::plain(db, QStringLiteral("SAVEPOINT batch_item"), &e))
        return e;
    *stepError = step();
    if (stepError->ok())
        return sql::plain(db, QStringLiteral("RELEASE batch_item"), &e) ? LedgerError() : e;
    if (stepError->code() == Code::Busy)
        return *stepError; // the lock itself: retry the whole batch
    AuditChain::forgetTail();
    if (!sql::plain(db, QStringLiteral("ROLLBACK TO batch_item"), &e)
        || !sql::plain(db, QStringLiteral("RELEASE batch_item"), &e))
        return e;
    return {};
}

} // namespace cs
