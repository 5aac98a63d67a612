#include "server/ledger/ledgerconnections.h"

#include "server/ledger/ledgerlog.h"
#include "server/ledger/sqlstatement.h"

#include <QFile>
#include <QMutexLocker>
#include <QSet>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QThreadStorage>
#include <QUrl>
#include <QUrlQuery>

#include <atomic>

#include <libpq-fe.h>
#include <sys/stat.h>

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
// accumulate open SQLite handles — their prepared statements first, while the connection is
// still open (a QPSQL statement outliving its connection's driver crashes when it goes).
// QThreadStorage, not thread_local: a QThread destroys it before wait() returns, whereas C++
// thread_local destructors run after, racing the waiter — which may destroy the store (and its
// connections) meanwhile.
struct ThreadConnections
{
    quint64 serial = g_nextThreadSerial.fetch_add(1);
    QStringList names;

    ~ThreadConnections()
    {
        for (const QString &name : std::as_const(names)) {
            sql::forgetStatements(name);
            releaseName(name);
        }
    }
};

ThreadConnections &threadConnections()
{
    static QThreadStorage<ThreadConnections *> storage;
    if (!storage.hasLocalData())
        storage.setLocalData(new ThreadConnections);
    return *storage.localData();
}

bool runPragma(QSqlDatabase &db, const QString &pragma, QString *result, LedgerError *error)
{
    QSqlQuery query(db);
    if (!query.exec(pragma)) {
        // A damaged schema page fails the first statement of a connection: Damaged, not Storage.
        const LedgerError why = sql::sqlError(query.lastError(), pragma);
        *error = LedgerError(why.code() == LedgerError::Code::Damaged ? LedgerError::Code::Damaged : LedgerError::Code::Storage,
                             why.code() == LedgerError::Code::Damaged
                                 ? why.message().section(QStringLiteral(" ["), 0, 0)
                                 : pragma + QStringLiteral(" failed: ") + query.lastError().text());
        return false;
    }
    if (result && query.next())
        *result = query.value(0).toString();
    return true;
}

LedgerError invalidLocation(const QString &why)
{
    return LedgerError(LedgerError::Code::Invalid, why);
}

// The first line of the password file. A file others may read is refused: a password kept
// there is meant for this service alone.
bool readPasswordFile(const QString &path, QString *password, LedgerError *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = invalidLocation(QStringLiteral("cannot read the password file %1: %2").arg(path, file.errorString()));
        return false;
    }
    struct stat status = {};
    if (::stat(QFile::encodeName(path).constData(), &status) == 0 && (status.st_mode & 077) != 0) {
        *error = invalidLocation(QStringLiteral("the password file %1 is readable by others (mode %2): chmod 600 it")
                                     .arg(path, QString::number(status.st_mode & 0777, 8)));
        return false;
    }
    const QByteArray content = file.read(4096);
    const qsizetype end = content.indexOf('\n');
    QByteArray line = end < 0 ? content : content.left(end);
    if (line.endsWith('\r'))
        line.chop(1);
    *password = QString::fromUtf8(line);
    return true;
}

} // namespace

bool LedgerLocation::isUri(const QString &location)
{
    return location.startsWith(QLatin1String("postgresql://")) || location.startsWith(QLatin1String("postgres://"));
}

LedgerLocation LedgerLocation::parse(const QString &location, const QString &passwordFile, LedgerError *error)
{
    LedgerLocation out;
    if (!isUri(location)) {
        if (!passwordFile.isEmpty())
            *error = invalidLocation(QStringLiteral("a password file is for a PostgreSQL ledger, not a SQLite file"));
        out.path = location;
        return out;
    }
    out.engine = sql::Engine::Postgres;
    const QUrl url(location, QUrl::StrictMode);
    if (!url.isValid() || (url.host().isEmpty() && !url.hasQuery())) {
        *error = invalidLocation(QStringLiteral("not a PostgreSQL URI (postgresql://USER@HOST:PORT/DBNAME): %1")
                                     .arg(url.toString(QUrl::RemovePassword)));
        return out;
    }
    if (!url.password().isEmpty()) {
        *error = invalidLocation(QStringLiteral("the database URI carries a password; put it in --db-password-file"
                                                " (or PGPASSFILE) instead of the command line"));
        return out;
    }
    out.host = url.host();
    out.port = url.port(5432);
    out.user = url.userName();
    out.database = url.path().mid(1);
    QStringList options;
    const QUrlQuery query(url);
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (key == u"host")
            out.host = value;
        else if (key == u"port")
            out.port = value.toInt();
        else if (key == u"user")
            out.user = value;
        else if (key == u"dbname")
            out.database = value;
        else if (key == u"password")
            *error = invalidLocation(QStringLiteral("the database URI carries a password; use --db-password-file"));
        else
            options << key + u'=' + value;
    }
    if (!error->ok())
        return out;
    if (out.database.isEmpty()) {
        *error = invalidLocation(QStringLiteral("the database URI names no database: postgresql://USER@HOST:PORT/DBNAME"));
        return out;
    }
    if (!options.join(QString()).contains(QLatin1String("connect_timeout=")))
        options << QStringLiteral("connect_timeout=5");
    if (!options.join(QString()).contains(QLatin1String("application_name=")))
        options << QStringLiteral("application_name=countersignd");
    // A host that vanishes (power, network) is noticed within ~25 s instead of the kernel's hours.
    options << QStringLiteral("keepalives=1") << QStringLiteral("keepalives_idle=10")
            << QStringLiteral("keepalives_interval=5") << QStringLiteral("keepalives_count=3");
    out.options = options.join(u';');
    if (!passwordFile.isEmpty() && !readPasswordFile(passwordFile, &out.password, error))
        return out;
    return out;
}

QString LedgerLocation::display() const
{
    if (engine == sql::Engine::Sqlite)
        return path;
    return QStringLiteral("postgresql://%1@%2:%3/%4").arg(user, host.contains(u'/') ? QString::fromLatin1(QUrl::toPercentEncoding(host)) : host)
        .arg(port).arg(database);
}

LedgerConnections::LedgerConnections(LedgerLocation location, int busyTimeoutMs)
    : m_serial(g_nextStoreSerial.fetch_add(1)), m_location(std::move(location)), m_busyTimeoutMs(busyTimeoutMs)
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

QString LedgerConnections::currentName()
{
    return QStringLiteral("countersign.ledger.%1.%2").arg(m_serial).arg(threadConnections().serial);
}

void LedgerConnections::discardCurrentThread()
{
    const QString name = currentName();
    sql::forgetStatements(name);
    if (QSqlDatabase::contains(name)) {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        db.close();
    }
}

bool LedgerConnections::isBroken(const QSqlDatabase &db)
{
    if (!db.isOpen())
        return true;
    if (!sql::isPostgres(db))
        return false;
    const QVariant handle = db.driver()->handle();
    // QPSQL hands out its PGconn* as a QVariant whose type is named after libpq's struct.
    if (qstrcmp(handle.typeName(), "pg_conn*") != 0 && qstrcmp(handle.typeName(), "PGconn*") != 0)
        return false;
    PGconn *connection = *static_cast<PGconn *const *>(handle.data());
    if (connection == nullptr || PQstatus(connection) != CONNECTION_OK)
        return true;
    // A session the server ended since its last use (pg_terminate_backend, a shutdown, a crash)
    // still reads CONNECTION_OK until libpq touches the socket, so the first statement on it
    // would fail. On an idle session, read what waits there without blocking: the server's last
    // message, then its end of file, which turns the status bad. A live idle session has nothing
    // to read (two non-blocking recv calls).
    for (int round = 0; round < 2 && PQtransactionStatus(connection) == PQTRANS_IDLE; ++round) {
        if (PQconsumeInput(connection) == 0)
            break;
    }
    return PQstatus(connection) != CONNECTION_OK;
}

QSqlDatabase LedgerConnections::forCurrentThread(LedgerError *error)
{
    ThreadConnections &mine = threadConnections();
    const QString name = currentName();
    if (!QSqlDatabase::contains(name)) {
        {
            const bool postgres = m_location.engine == sql::Engine::Postgres;
            QSqlDatabase db = QSqlDatabase::addDatabase(postgres ? QStringLiteral("QPSQL") : QStringLiteral("QSQLITE"), name);
            if (postgres) {
                db.setHostName(m_location.host);
                db.setPort(m_location.port);
                db.setUserName(m_location.user);
                db.setPassword(m_location.password);
                db.setDatabaseName(m_location.database);
                db.setConnectOptions(m_location.options);
            } else {
                db.setDatabaseName(m_location.path);
            }
        }
        registerName(name);
        mine.names.append(name);
        QMutexLocker locker(&m_mutex);
        m_names.append(name);
    }
    QSqlDatabase db = QSqlDatabase::database(name, false);
    if (db.isOpen())
        return db;
    // A session opened again (QPSQL closes one whose server went away): the statements this
    // thread prepared on the old one went with it.
    sql::forgetStatements(name);
    if (!openAndConfigure(db, error))
        return {};
    qCDebug(lcLedger) << "opened connection" << name << "on" << m_location.display();
    return db;
}

bool LedgerConnections::openAndConfigure(QSqlDatabase &db, LedgerError *error)
{
    const bool postgres = m_location.engine == sql::Engine::Postgres;
    if (!db.open()) {
        *error = LedgerError(postgres ? LedgerError::Code::Unavailable : LedgerError::Code::Storage,
                             QStringLiteral("cannot open ledger %1: %2").arg(m_location.display(), db.lastError().text()));
        return false;
    }
    if (postgres) {
        // lock_timeout bounds a wait for another transaction's row lock (then Busy: retried);
        // idle_in_transaction_session_timeout ends the session of a process paused inside a
        // transaction (SIGSTOP, a debugger), so its row locks cannot stop the others for long —
        // its transaction is rolled back and, on waking, it finds out from its COMMIT.
        if (!runPragma(db, QStringLiteral("SET lock_timeout = '%1ms'").arg(m_busyTimeoutMs), nullptr, error)
            || !runPragma(db, QStringLiteral("SET idle_in_transaction_session_timeout = '10s'"), nullptr, error)
            || !runPragma(db, QStringLiteral("SET client_min_messages = warning"), nullptr, error)) {
            db.close();
            return false;
        }
        return true;
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
        qCWarning(lcLedger) << "ledger" << m_location.path << "is not in WAL mode:" << journalMode;
    return true;
}

} // namespace cs
