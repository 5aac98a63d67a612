#include "server/ledger/ledgerconnections.h"

#include "server/ledger/ledgerlog.h"

#include <QMutexLocker>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>

#include <atomic>

namespace cs {

namespace {

std::atomic<quint64> g_nextStoreSerial{1};
std::atomic<quint64> g_nextThreadSerial{1};

// Every connection name still registered with QSqlDatabase by any LedgerConnections. Both a
// thread's exit and a store's destruction may remove a name; whoever comes first does it, once.
struct LiveNames
{
    QMutex mutex;
    QSet<QString> names;
};

LiveNames &liveNames()
{
    static LiveNames live;
    return live;
}

void registerName(const QString &name)
{
    LiveNames &live = liveNames();
    QMutexLocker locker(&live.mutex);
    live.names.insert(name);
}

void releaseName(const QString &name)
{
    LiveNames &live = liveNames();
    QMutexLocker locker(&live.mutex);
    if (live.names.remove(name))
        QSqlDatabase::removeDatabase(name);
}

// Removes this thread's connections when the thread exits, so short-lived worker threads do not
// accumulate open SQLite handles.
struct ThreadConnections
{
    quint64 serial = g_nextThreadSerial.fetch_add(1);
    QStringList names;

    ~ThreadConnections()
    {
        for (const QString &name : std::as_const(names))
            releaseName(name);
    }
};

ThreadConnections &threadConnections()
{
    thread_local ThreadConnections connections;
    return connections;
}

bool runPragma(QSqlDatabase &db, const QString &pragma, QString *result, LedgerError *error)
{
    QSqlQuery query(db);
    if (!query.exec(pragma)) {
        *error = LedgerError(LedgerError::Code::Storage,
                             pragma + QStringLiteral(" failed: ") + query.lastError().text());
        return false;
    }
    if (result && query.next())
        *result = query.value(0).toString();
    return true;
}

} // namespace

LedgerConnections::LedgerConnections(QString path, int busyTimeoutMs)
    : m_serial(g_nextStoreSerial.fetch_add(1)), m_path(std::move(path)), m_busyTimeoutMs(busyTimeoutMs)
{
}

LedgerConnections::~LedgerConnections()
{
    QMutexLocker locker(&m_mutex);
    for (const QString &name : std::as_const(m_names))
        releaseName(name);
    m_names.clear();
}

int LedgerConnections::openConnections() const
{
    QMutexLocker locker(&m_mutex);
    int count = 0;
    for (const QString &name : m_names) {
        if (QSqlDatabase::contains(name))
            ++count;
    }
    return count;
}

QSqlDatabase LedgerConnections::forCurrentThread(LedgerError *error)
{
    ThreadConnections &mine = threadConnections();
    const QString name = QStringLiteral("countersign.ledger.%1.%2").arg(m_serial).arg(mine.serial);
    if (!QSqlDatabase::contains(name)) {
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            db.setDatabaseName(m_path);
        }
        registerName(name);
        mine.names.append(name);
        QMutexLocker locker(&m_mutex);
        m_names.append(name);
    }
    QSqlDatabase db = QSqlDatabase::database(name, false);
    if (db.isOpen())
        return db;
    if (!openAndConfigure(db, error))
        return {};
    qCDebug(lcLedger) << "opened connection" << name << "on" << m_path;
    return db;
}

bool LedgerConnections::openAndConfigure(QSqlDatabase &db, LedgerError *error)
{
    if (!db.open()) {
        *error = LedgerError(LedgerError::Code::Storage,
                             QStringLiteral("cannot open ledger %1: %2").arg(m_path, db.lastError().text()));
        return false;
    }
    // busy_timeout first, so the others wait instead of failing while another process writes.
    QString journalMode;
    if (!runPragma(db, QStringLiteral("PRAGMA busy_timeout = %1").arg(m_busyTimeoutMs), nullptr, error)
        || !runPragma(db, QStringLiteral("PRAGMA foreign_keys = ON"), nullptr, error)
        || !runPragma(db, QStringLiteral("PRAGMA synchronous = FULL"), nullptr, error)
        || !runPragma(db, QStringLiteral("PRAGMA journal_mode = WAL"), &journalMode, error)) {
        db.close(); // opened again, and configured, on the next call
        return false;
    }
    if (journalMode.compare(QStringLiteral("wal"), Qt::CaseInsensitive) != 0)
        qCWarning(lcLedger) << "ledger" << m_path << "is not in WAL mode:" << journalMode;
    return true;
}

} // namespace cs
