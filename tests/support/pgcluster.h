#pragma once

// A private PostgreSQL cluster for tests (issue 13): initdb into a temporary folder, the server on
// 127.0.0.1 with an ephemeral port and its socket inside that folder, stopped and removed when the
// object goes. Nothing relies on a system PostgreSQL service. PostgreSQL refuses to run as root:
// when the test runs as root (CI), every server binary runs as an unprivileged user (`postgres`
// if it exists, else `nobody`) and the folder is given to it.
//
// The superuser is `countersign`, trusted on 127.0.0.1 and the socket; every other role
// authenticates with its password (scram-sha-256), so createRole() makes password tests real.
// The server binaries come from COUNTERSIGN_PG_BINDIR, else the newest /usr/lib/postgresql/*/bin,
// else PATH. Setting COUNTERSIGN_PG_KEEP=1 keeps the folder (data and log) after the test;
// COUNTERSIGN_PG_SETTINGS="name = value;…" adds server settings (log_min_duration_statement = 0).
//
// Not thread-safe: use one object from one thread (the tests' main thread). shared() is the one
// cluster of a test binary, started on first use, stopped when the application ends.

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <memory>

class QTemporaryDir;

namespace cs::test {

class PgCluster
{
public:
    enum class Durability {
        // fsync and full_page_writes off, for tests: nothing survives an OS crash, but every
        // COMMIT reaches the WAL before it is answered (synchronous_commit stays on), so committed
        // data survives a server crash (stopImmediate). synchronous_commit=off would lose the
        // last commits there and make the crash tests lie.
        Fast,
        Full, // PostgreSQL's defaults: for benchmark figures
    };

    struct PsqlResult
    {
        bool ok = false;
        QString output; // stdout (-A -t: unaligned, tuples only), trailing newline removed
        QString error;  // stderr, or why psql could not run
    };

    explicit PgCluster(Durability durability = Durability::Fast);
    ~PgCluster(); // stops the server (fast) and removes the folder
    Q_DISABLE_COPY_MOVE(PgCluster)

    // The process-wide cluster (Durability::Fast), started on first use; a failure to start is
    // reported by its errorString() and isRunning() == false. Stopped and removed at exit.
    static PgCluster &shared();

    // initdb and the first start on a free port (retried with another one if the bind fails).
    bool start();
    // pg_ctl stop -m fast (clean) and -m immediate (every process quits at once, no checkpoint:
    // like a crash; the next start runs crash recovery).
    bool stop();
    bool stopImmediate();
    // Starts the stopped server again on the same folder and port.
    bool startAgain();
    bool restart(); // stop (fast) + startAgain
    bool isRunning() const { return m_running; }

    // "CREATE DATABASE name" owned by the superuser → its libpq URI, or an empty string. With a
    // template: a file copy of that database (which nobody may be connected to).
    QString createDatabase(const QString &name, const QString &templateName = QString());
    // A login role with a password (scram-sha-256 on 127.0.0.1).
    bool createRole(const QString &name, const QString &password);
    // postgresql://countersign@127.0.0.1:PORT/DBNAME (or with another user).
    QString uri(const QString &database, const QString &user = superuser()) const;
    // psql -X -A -t -v ON_ERROR_STOP=1 as the superuser, the SQL on its standard input.
    PsqlResult psql(const QString &database, const QString &sql) const;
    // pg_terminate_backend of every other backend on `database` whose application_name is LIKE
    // the pattern, each waited for until it is gone (up to 5 s) → how many, or -1 on an error.
    int terminateBackends(const QString &database, const QString &applicationNameLike = QStringLiteral("%")) const;

    static QString superuser() { return QStringLiteral("countersign"); }
    static QString host() { return QStringLiteral("127.0.0.1"); }
    quint16 port() const { return m_port; }
    QString folder() const;      // the temporary folder (data, socket, log)
    QString dataDir() const;     // PGDATA
    QString socketDir() const;
    QString logFilePath() const;
    qint64 postmasterPid() const; // from postmaster.pid; 0 when not running
    // The user the server runs as ("" when it runs as we do) and the binaries' folder.
    QString serverUser() const { return m_serverUser; }
    static QString binDir();

    QString errorString() const { return m_error; }
    QString logText() const; // the server log (printed with qWarning when an operation fails)

private:
    bool prepareFolder();
    bool initDataDir();
    bool startOnPort();
    bool stopWith(const QString &mode);
    bool pgCtl(const QStringList &arguments);
    bool runServerBinary(const QString &program, const QStringList &arguments, QString *output = nullptr) const;
    bool fail(const QString &message);
    void armWatchdog();
    void disarmWatchdog();

    Durability m_durability;
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_serverUser;
    uint m_serverUid = 0;
    uint m_serverGid = 0;
    quint16 m_port = 0;
    bool m_running = false;
    bool m_failed = false;
    QString m_error;
    int m_watchdogFd = -1;
    qint64 m_watchdogPid = 0;
};

} // namespace cs::test
