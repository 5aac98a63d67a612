#include "tests/support/pgcluster.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>
#include <QVersionNumber>

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace cs::test {

namespace {

constexpr int kProcessTimeoutMs = 120000;
constexpr int kStartAttempts = 8;

// A SQL string literal ('…' with quotes doubled) and a quoted identifier ("…").
QString sqlLiteral(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QLatin1String("''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString sqlIdentifier(const QString &name)
{
    QString quoted = name;
    quoted.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

// Our environment without the PG* variables that would point the tools elsewhere.
QProcessEnvironment cleanEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QStringList keys = env.keys();
    for (const QString &key : keys) {
        if (key.startsWith(QLatin1String("PG")))
            env.remove(key);
    }
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    env.insert(QStringLiteral("PGCONNECT_TIMEOUT"), QStringLiteral("10"));
    return env;
}

bool keepFolder()
{
    return qEnvironmentVariableIntValue("COUNTERSIGN_PG_KEEP") != 0;
}

// A port nobody listens on right now (the server may still lose the race for it: start retries).
quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

// Every folder from `path` up to / must be enterable by others, or the server user cannot reach
// its folder.
bool traversableByOthers(const QString &path)
{
    QDir dir(path);
    while (true) {
        const QFileInfo info(dir.absolutePath());
        if (!info.permission(QFileDevice::ExeOther))
            return false;
        if (dir.isRoot())
            return true;
        dir.cdUp();
    }
}

bool processGone(qint64 pid)
{
    if (::kill(static_cast<pid_t>(pid), 0) != 0)
        return true;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    return close > 0 && line.mid(close + 2, 1) == "Z";
}

} // namespace

PgCluster::PgCluster(Durability durability)
    : m_durability(durability)
{
}

PgCluster::~PgCluster()
{
    if (m_running)
        stop();
    disarmWatchdog();
    if (m_dir && keepFolder()) {
        m_dir->setAutoRemove(false);
        qWarning("PgCluster: kept %s (COUNTERSIGN_PG_KEEP)", qPrintable(m_dir->path()));
    }
    m_dir.reset();
}

PgCluster &PgCluster::shared()
{
    static std::unique_ptr<PgCluster> instance;
    if (!instance) {
        instance = std::make_unique<PgCluster>(Durability::Fast);
        instance->start();
        // Stopped before the application object goes (QtTest's main), and otherwise at exit; the
        // watchdog covers a crash or a kill.
        if (QCoreApplication::instance())
            qAddPostRoutine([] { instance.reset(); });
    }
    return *instance;
}

QString PgCluster::binDir()
{
    const QString configured = qEnvironmentVariable("COUNTERSIGN_PG_BINDIR");
    if (!configured.isEmpty())
        return configured;
    QDir versions(QStringLiteral("/usr/lib/postgresql"));
    QString best;
    QVersionNumber bestVersion;
    const QStringList entries = versions.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        const QVersionNumber version = QVersionNumber::fromString(entry);
        if (QFile::exists(versions.filePath(entry + QLatin1String("/bin/initdb"))) && version > bestVersion) {
            bestVersion = version;
            best = versions.filePath(entry + QLatin1String("/bin"));
        }
    }
    if (!best.isEmpty())
        return best;
    const QString initdb = QStandardPaths::findExecutable(QStringLiteral("initdb"));
    return initdb.isEmpty() ? QString() : QFileInfo(initdb).absolutePath();
}

QString PgCluster::folder() const
{
    return m_dir ? m_dir->path() : QString();
}

QString PgCluster::dataDir() const
{
    return m_dir ? m_dir->filePath(QStringLiteral("data")) : QString();
}

QString PgCluster::socketDir() const
{
    return m_dir ? m_dir->filePath(QStringLiteral("run")) : QString();
}

QString PgCluster::logFilePath() const
{
    return m_dir ? m_dir->filePath(QStringLiteral("postgres.log")) : QString();
}

QString PgCluster::logText() const
{
    QFile log(logFilePath());
    if (!log.open(QIODevice::ReadOnly))
        return QString();
    return QString::fromUtf8(log.readAll());
}

qint64 PgCluster::postmasterPid() const
{
    if (!m_running)
        return 0;
    QFile pidFile(dataDir() + QLatin1String("/postmaster.pid"));
    if (!pidFile.open(QIODevice::ReadOnly))
        return 0;
    return pidFile.readLine().trimmed().toLongLong();
}

QString PgCluster::uri(const QString &database, const QString &user) const
{
    return QStringLiteral("postgresql://%1@%2:%3/%4").arg(user, host()).arg(m_port).arg(database);
}

bool PgCluster::fail(const QString &message)
{
    m_error = message;
    m_failed = true;
    QString log = logText();
    if (log.size() > 8000)
        log = QLatin1String("…") + log.right(8000);
    qWarning("PgCluster: %s\n--- %s ---\n%s--- end of log ---", qPrintable(message), qPrintable(logFilePath()),
             qPrintable(log));
    return false;
}

bool PgCluster::start()
{
    if (m_running)
        return true;
    if (m_dir)
        return startAgain();
    if (binDir().isEmpty())
        return fail(QStringLiteral("no PostgreSQL server binaries (initdb) found; run scripts/install-deps.sh "
                                   "or set COUNTERSIGN_PG_BINDIR"));
    if (!prepareFolder() || !initDataDir())
        return false;
    for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
        m_port = freePort();
        if (m_port == 0)
            return fail(QStringLiteral("no free port on 127.0.0.1"));
        const qint64 logBefore = QFileInfo(logFilePath()).size();
        if (startOnPort()) {
            armWatchdog();
            return true;
        }
        // Another process took the port between our probe and the server's bind: pick again.
        QString log = logText().mid(logBefore);
        if (!log.contains(QLatin1String("could not bind")) && !log.contains(QLatin1String("already in use")))
            return fail(m_error);
    }
    return fail(QStringLiteral("the server could not bind a port in %1 attempts").arg(kStartAttempts));
}

bool PgCluster::prepareFolder()
{
    if (::geteuid() == 0) {
        // PostgreSQL refuses root: the server runs as `postgres` if that user exists, else nobody.
        for (const char *name : {"postgres", "nobody"}) {
            if (const passwd *user = ::getpwnam(name)) {
                m_serverUser = QString::fromLatin1(name);
                m_serverUid = user->pw_uid;
                m_serverGid = user->pw_gid;
                break;
            }
        }
        if (m_serverUser.isEmpty())
            return fail(QStringLiteral("running as root and neither user postgres nor nobody exists"));
    }
    QString base = QDir::tempPath();
    // The socket path must fit sockaddr_un (107 bytes); the server user must reach the folder.
    if (base.size() > 60 || (!m_serverUser.isEmpty() && !traversableByOthers(base)))
        base = QStringLiteral("/tmp");
    m_dir = std::make_unique<QTemporaryDir>(base + QLatin1String("/cs-pg-XXXXXX"));
    if (!m_dir->isValid())
        return fail(QStringLiteral("cannot create a temporary folder in %1: %2").arg(base, m_dir->errorString()));
    if (!QDir(m_dir->path()).mkdir(QStringLiteral("run")))
        return fail(QStringLiteral("cannot create %1").arg(socketDir()));
    if (!m_serverUser.isEmpty()) {
        for (const QString &path : {m_dir->path(), socketDir()}) {
            if (::chown(QFile::encodeName(path).constData(), m_serverUid, m_serverGid) != 0)
                return fail(QStringLiteral("cannot give %1 to %2").arg(path, m_serverUser));
        }
    }
    return true;
}

bool PgCluster::initDataDir()
{
    QString output;
    if (!runServerBinary(QStringLiteral("initdb"),
                         {QStringLiteral("-D"), dataDir(), QStringLiteral("-U"), superuser(), QStringLiteral("-A"),
                          QStringLiteral("trust"), QStringLiteral("--no-sync"), QStringLiteral("-E"),
                          QStringLiteral("UTF8"), QStringLiteral("--locale=C"), QStringLiteral("--no-instructions")},
                         &output))
        return fail(QStringLiteral("initdb failed: %1").arg(output));

    QStringList settings = {
        QStringLiteral("listen_addresses = '127.0.0.1'"),
        QStringLiteral("unix_socket_directories = %1").arg(sqlLiteral(socketDir())),
        QStringLiteral("max_connections = 200"),
        QStringLiteral("log_line_prefix = '%m [%p] %q%a@%d '"),
    };
    // synchronous_commit stays on: a COMMIT still writes its WAL (to the page cache), so what was
    // committed survives stopImmediate() — what the crash and restart tests rely on.
    if (m_durability == Durability::Fast)
        settings << QStringLiteral("fsync = off") << QStringLiteral("full_page_writes = off");
    // For looking into a run: e.g. COUNTERSIGN_PG_SETTINGS="log_min_duration_statement = 0".
    const QString extra = qEnvironmentVariable("COUNTERSIGN_PG_SETTINGS");
    settings += extra.split(QLatin1Char(';'), Qt::SkipEmptyParts);
    // Appending and truncating keep the files' owner (the server user).
    QFile conf(dataDir() + QLatin1String("/postgresql.conf"));
    if (!conf.open(QIODevice::Append | QIODevice::Text))
        return fail(QStringLiteral("cannot write %1").arg(conf.fileName()));
    conf.write("\n# cs::test::PgCluster\n" + settings.join(QLatin1Char('\n')).toUtf8() + '\n');
    conf.close();

    // The superuser is trusted; every other role proves its password.
    QFile hba(dataDir() + QLatin1String("/pg_hba.conf"));
    if (!hba.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
        return fail(QStringLiteral("cannot write %1").arg(hba.fileName()));
    hba.write(QStringLiteral("local all %1 trust\n"
                             "host  all %1 127.0.0.1/32 trust\n"
                             "local all all scram-sha-256\n"
                             "host  all all 127.0.0.1/32 scram-sha-256\n")
                  .arg(superuser())
                  .toUtf8());
    return true;
}

bool PgCluster::startOnPort()
{
    if (!pgCtl({QStringLiteral("-l"), logFilePath(), QStringLiteral("-o"), QStringLiteral("-p %1").arg(m_port),
                QStringLiteral("start")})) {
        return false;
    }
    m_running = true;
    return true;
}

bool PgCluster::startAgain()
{
    if (m_running)
        return true;
    if (!m_dir || m_port == 0)
        return start();
    if (!startOnPort())
        return fail(m_error);
    if (m_watchdogFd < 0)
        armWatchdog();
    return true;
}

bool PgCluster::stop()
{
    return stopWith(QStringLiteral("fast"));
}

bool PgCluster::stopImmediate()
{
    return stopWith(QStringLiteral("immediate"));
}

bool PgCluster::stopWith(const QString &mode)
{
    if (!m_running)
        return true;
    if (!pgCtl({QStringLiteral("-m"), mode, QStringLiteral("stop")}))
        return fail(m_error);
    m_running = false;
    return true;
}

bool PgCluster::restart()
{
    return stop() && startAgain();
}

bool PgCluster::pgCtl(const QStringList &arguments)
{
    QString output;
    const QStringList common = {QStringLiteral("-D"), dataDir(), QStringLiteral("-w"), QStringLiteral("-t"),
                                QStringLiteral("60"), QStringLiteral("-s")};
    if (runServerBinary(QStringLiteral("pg_ctl"), common + arguments, &output))
        return true;
    m_error = QStringLiteral("pg_ctl %1 failed: %2").arg(arguments.last(), output.trimmed());
    return false;
}

bool PgCluster::runServerBinary(const QString &program, const QStringList &arguments, QString *output) const
{
    QString executable = binDir() + QLatin1Char('/') + program;
    QStringList argv = arguments;
    if (!m_serverUser.isEmpty()) {
        const QString setpriv = QStandardPaths::findExecutable(QStringLiteral("setpriv"));
        if (!setpriv.isEmpty()) {
            argv = QStringList{QStringLiteral("--reuid=%1").arg(m_serverUid), QStringLiteral("--regid=%1").arg(m_serverGid),
                               QStringLiteral("--clear-groups"), QStringLiteral("--"), executable}
                + arguments;
            executable = setpriv;
        } else {
            argv = QStringList{QStringLiteral("-u"), m_serverUser, QStringLiteral("--"), executable} + arguments;
            executable = QStringLiteral("runuser");
        }
    }
    QProcess process;
    QProcessEnvironment env = cleanEnvironment();
    env.insert(QStringLiteral("HOME"), folder());
    process.setProcessEnvironment(env);
    process.setWorkingDirectory(folder());
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.setStandardInputFile(QProcess::nullDevice());
    process.start(executable, argv);
    const bool finished = process.waitForFinished(kProcessTimeoutMs);
    if (!finished) {
        process.kill();
        process.waitForFinished();
    }
    if (output)
        *output = process.errorString() + QLatin1Char('\n') + QString::fromLocal8Bit(process.readAll());
    return finished && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
}

PgCluster::PsqlResult PgCluster::psql(const QString &database, const QString &sql) const
{
    PsqlResult result;
    if (!m_running) {
        result.error = QStringLiteral("the cluster is not running");
        return result;
    }
    QProcess process;
    process.setProcessEnvironment(cleanEnvironment());
    process.start(binDir() + QLatin1String("/psql"),
                  {QStringLiteral("-X"), QStringLiteral("-A"), QStringLiteral("-t"), QStringLiteral("-q"),
                   QStringLiteral("-v"), QStringLiteral("ON_ERROR_STOP=1"), QStringLiteral("-h"), host(),
                   QStringLiteral("-p"), QString::number(m_port), QStringLiteral("-U"), superuser(),
                   QStringLiteral("-d"), database, QStringLiteral("-f"), QStringLiteral("-")});
    if (!process.waitForStarted()) {
        result.error = process.errorString();
        return result;
    }
    process.write(sql.toUtf8());
    process.closeWriteChannel();
    if (!process.waitForFinished(kProcessTimeoutMs)) {
        process.kill();
        process.waitForFinished();
        result.error = QStringLiteral("psql did not finish");
        return result;
    }
    result.output = QString::fromUtf8(process.readAllStandardOutput());
    if (result.output.endsWith(QLatin1Char('\n')))
        result.output.chop(1);
    result.error = QString::fromUtf8(process.readAllStandardError()).trimmed();
    result.ok = process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    return result;
}

QString PgCluster::createDatabase(const QString &name, const QString &templateName)
{
    QString sql = QStringLiteral("CREATE DATABASE %1").arg(sqlIdentifier(name));
    if (!templateName.isEmpty())
        sql += QStringLiteral(" TEMPLATE %1 STRATEGY = FILE_COPY").arg(sqlIdentifier(templateName));
    const PsqlResult result = psql(QStringLiteral("postgres"), sql + QLatin1Char(';'));
    if (!result.ok) {
        m_error = QStringLiteral("CREATE DATABASE %1 failed: %2").arg(name, result.error);
        return QString();
    }
    return uri(name);
}

bool PgCluster::createRole(const QString &name, const QString &password)
{
    const PsqlResult result = psql(QStringLiteral("postgres"), QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD %2;")
                                                                   .arg(sqlIdentifier(name), sqlLiteral(password)));
    if (!result.ok)
        m_error = QStringLiteral("CREATE ROLE %1 failed: %2").arg(name, result.error);
    return result.ok;
}

int PgCluster::terminateBackends(const QString &database, const QString &applicationNameLike) const
{
    // pg_terminate_backend(pid, timeout) waits until the backend is gone: the caller's next query
    // on a terminated connection fails for certain.
    const PsqlResult result = psql(
        QStringLiteral("postgres"),
        QStringLiteral("SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 5000) AS gone FROM pg_stat_activity "
                       "WHERE datname = %1 AND application_name LIKE %2 AND pid <> pg_backend_pid() "
                       "AND backend_type = 'client backend') AS t WHERE gone;")
            .arg(sqlLiteral(database), sqlLiteral(applicationNameLike)));
    bool isNumber = false;
    const int count = result.output.trimmed().toInt(&isNumber);
    if (!result.ok || !isNumber) {
        qWarning("PgCluster: terminateBackends failed: %s", qPrintable(result.error));
        return -1;
    }
    return count;
}

// If this process dies without running its destructors (a crash, abort, SIGKILL from a ctest
// timeout), a watchdog outside its process tree stops the server and removes the folder: it
// waits for end of file on a pipe whose only writer is us (close-on-exec, so no child of ours
// holds it). A clean exit writes "disarm" first.
void PgCluster::armWatchdog()
{
    if (m_watchdogFd >= 0)
        return;
    int toWatchdog[2];
    int pidPipe[2];
    if (::pipe2(toWatchdog, O_CLOEXEC) != 0)
        return;
    if (::pipe2(pidPipe, O_CLOEXEC) != 0) {
        ::close(toWatchdog[0]);
        ::close(toWatchdog[1]);
        return;
    }
    QString stopCommand = QStringLiteral("'%1/pg_ctl' -D '%2' -m immediate -w stop").arg(binDir(), dataDir());
    if (!m_serverUser.isEmpty())
        stopCommand = QStringLiteral("setpriv --reuid=%1 --regid=%2 --clear-groups -- %3 || runuser -u %4 -- %3")
                          .arg(m_serverUid)
                          .arg(m_serverGid)
                          .arg(stopCommand, m_serverUser);
    QString script = QStringLiteral("read -r word; [ \"$word\" = disarm ] && exit 0; cd /; %1").arg(stopCommand);
    if (!keepFolder())
        script += QStringLiteral("; rm -rf -- '%1'").arg(folder());
    // Everything the children need is built before fork (only async-signal-safe calls after it).
    const QByteArray shell = "/bin/sh";
    const QByteArray dashC = "-c";
    const QByteArray scriptBytes = script.toLocal8Bit();
    std::vector<char *> argv = {const_cast<char *>(shell.constData()), const_cast<char *>(dashC.constData()),
                                const_cast<char *>(scriptBytes.constData()), nullptr};
    const pid_t child = ::fork();
    if (child == 0) {
        ::setsid();
        const pid_t grandchild = ::fork();
        if (grandchild != 0) {
            if (grandchild > 0)
                (void)!::write(pidPipe[1], &grandchild, sizeof grandchild);
            ::_exit(0);
        }
        ::signal(SIGINT, SIG_IGN);
        ::signal(SIGTERM, SIG_IGN);
        ::signal(SIGHUP, SIG_IGN);
        ::dup2(toWatchdog[0], 0);
        const int devNull = ::open("/dev/null", O_WRONLY);
        ::dup2(devNull, 1);
        ::dup2(devNull, 2);
        ::close_range(3, ~0U, 0);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(toWatchdog[0]);
    ::close(pidPipe[1]);
    if (child > 0) {
        pid_t grandchild = 0;
        if (::read(pidPipe[0], &grandchild, sizeof grandchild) == sizeof grandchild)
            m_watchdogPid = grandchild;
        ::waitpid(child, nullptr, 0);
    }
    ::close(pidPipe[0]);
    if (m_watchdogPid == 0) {
        ::close(toWatchdog[1]);
        return;
    }
    m_watchdogFd = toWatchdog[1];
}

void PgCluster::disarmWatchdog()
{
    if (m_watchdogFd < 0)
        return;
    (void)!::write(m_watchdogFd, "disarm\n", 7);
    ::close(m_watchdogFd);
    m_watchdogFd = -1;
    // It exits at once; wait briefly so that nothing of ours outlives the test.
    for (int i = 0; i < 1000 && !processGone(m_watchdogPid); ++i)
        QThread::usleep(1000);
    m_watchdogPid = 0;
}

} // namespace cs::test
