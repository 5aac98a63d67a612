// The private PostgreSQL cluster the tests start themselves (tests/support/pgcluster.h): a real
// server reached through Qt's QPSQL driver, connections terminated for real, committed data
// surviving a crash-like stop, nothing left behind, and never the server running as root.

#include "tests/support/pgcluster.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>

#include <csignal>
#include <cstdio>

#include <signal.h>
#include <unistd.h>

using cs::test::PgCluster;

namespace {

// A QPSQL connection by its own name, removed when the object goes.
class Connection
{
public:
    Connection(const PgCluster &cluster, const QString &database, const QString &applicationName,
               const QString &user = PgCluster::superuser(), const QString &password = QString())
        : m_name(QStringLiteral("tst_pgcluster_%1").arg(++s_counter))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), m_name);
        db.setHostName(PgCluster::host());
        db.setPort(cluster.port());
        db.setUserName(user);
        db.setPassword(password);
        db.setDatabaseName(database);
        db.setConnectOptions(QStringLiteral("application_name=%1;connect_timeout=10").arg(applicationName));
        m_opened = db.open();
        if (!m_opened)
            m_error = db.lastError().text();
    }
    ~Connection() { QSqlDatabase::removeDatabase(m_name); }

    bool opened() const { return m_opened; }
    QString error() const { return m_error; }
    QSqlDatabase db() const { return QSqlDatabase::database(m_name, false); }

    // One value, or an invalid QVariant with the error in lastError.
    QVariant value(const QString &sql)
    {
        QSqlQuery query(db());
        if (!query.exec(sql) || !query.next()) {
            m_error = query.lastError().text();
            return QVariant();
        }
        return query.value(0);
    }

private:
    static inline int s_counter = 0;
    QString m_name;
    bool m_opened = false;
    QString m_error;
};

// The real uid of a process, from /proc/<pid>/status ("Uid:\treal\teffective\t…").
int realUid(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> lines = status.readAll().split('\n');
    for (const QByteArray &line : lines) {
        if (line.startsWith("Uid:"))
            return line.mid(4).simplified().split(' ').value(0).toInt();
    }
    return -1;
}

// Whether a process runs (a zombie waiting for init to reap it has exited).
bool running(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    return close > 0 && line.mid(close + 2, 1) != "Z";
}

} // namespace

class TestPgCluster : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL")))
            QFAIL("Qt's QPSQL driver is missing: install libqt6sql6-psql (scripts/install-deps.sh)");
        QVERIFY2(!PgCluster::binDir().isEmpty(), "no PostgreSQL server binaries: run scripts/install-deps.sh");
    }

    void startsAndAnswersThroughQpsql()
    {
        PgCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        QVERIFY(cluster.isRunning());
        QVERIFY(cluster.port() > 0);
        QVERIFY(cluster.postmasterPid() > 0);
        QVERIFY(QFile::exists(cluster.socketDir() + QStringLiteral("/.s.PGSQL.%1").arg(cluster.port())));

        const QString uri = cluster.createDatabase(QStringLiteral("ledger_one"));
        QCOMPARE(uri, QStringLiteral("postgresql://countersign@127.0.0.1:%1/ledger_one").arg(cluster.port()));
        Connection connection(cluster, QStringLiteral("ledger_one"), QStringLiteral("tst_pgcluster"));
        QVERIFY2(connection.opened(), qPrintable(connection.error()));
        QCOMPARE(connection.value(QStringLiteral("SELECT 40 + 2")).toInt(), 42);
        QCOMPARE(connection.value(QStringLiteral("SELECT current_database()")).toString(), QStringLiteral("ledger_one"));
        QCOMPARE(connection.value(QStringLiteral("SHOW server_encoding")).toString(), QStringLiteral("UTF8"));
        QVERIFY(connection.value(QStringLiteral("SHOW max_connections")).toInt() >= 200);
        // Fast durability, for tests.
        QCOMPARE(connection.value(QStringLiteral("SHOW fsync")).toString(), QStringLiteral("off"));
        // pg_trgm (postgresql-contrib) is there for the ledger's text search.
        QVERIFY2(connection.value(QStringLiteral("SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_trgm'"))
                         .toInt()
                     == 1,
                 "pg_trgm is not available: install postgresql-contrib");

        const PgCluster::PsqlResult rows =
            cluster.psql(QStringLiteral("ledger_one"), QStringLiteral("CREATE TABLE t (v int); INSERT INTO t VALUES (1), (2);"
                                                                      "SELECT v FROM t ORDER BY v;"));
        QVERIFY2(rows.ok, qPrintable(rows.error));
        QCOMPARE(rows.output, QStringLiteral("1\n2"));
        const PgCluster::PsqlResult bad = cluster.psql(QStringLiteral("ledger_one"), QStringLiteral("SELECT nope;"));
        QVERIFY(!bad.ok);
        QVERIFY2(bad.error.contains(QLatin1String("nope")), qPrintable(bad.error));
    }

    void fullDurabilityKeepsDefaults()
    {
        PgCluster cluster(PgCluster::Durability::Full);
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        const PgCluster::PsqlResult settings = cluster.psql(
            QStringLiteral("postgres"),
            QStringLiteral("SELECT current_setting('fsync') || ' ' || current_setting('synchronous_commit') || ' ' "
                           "|| current_setting('full_page_writes');"));
        QVERIFY2(settings.ok, qPrintable(settings.error));
        QCOMPARE(settings.output, QStringLiteral("on on on"));
    }

    void terminateBackendsDropsTheConnection()
    {
        PgCluster &cluster = PgCluster::shared();
        QVERIFY2(cluster.isRunning(), qPrintable(cluster.errorString()));
        QVERIFY(!cluster.createDatabase(QStringLiteral("terminate_me")).isEmpty());
        Connection victim(cluster, QStringLiteral("terminate_me"), QStringLiteral("countersignd-a"));
        Connection bystander(cluster, QStringLiteral("terminate_me"), QStringLiteral("countersignd-b"));
        QVERIFY2(victim.opened() && bystander.opened(), qPrintable(victim.error() + bystander.error()));
        QCOMPARE(victim.value(QStringLiteral("SELECT 1")).toInt(), 1);

        QCOMPARE(cluster.terminateBackends(QStringLiteral("terminate_me"), QStringLiteral("countersignd-a%")), 1);
        QVERIFY(!victim.value(QStringLiteral("SELECT 1")).isValid());
        QVERIFY2(!victim.error().isEmpty(), "the terminated connection answered a query");
        // Only the matching backend went.
        QCOMPARE(bystander.value(QStringLiteral("SELECT 2")).toInt(), 2);
        QCOMPARE(cluster.terminateBackends(QStringLiteral("terminate_me"), QStringLiteral("nobody-has-this-name")), 0);
    }

    void rolesProveTheirPassword()
    {
        PgCluster &cluster = PgCluster::shared();
        QVERIFY2(cluster.isRunning(), qPrintable(cluster.errorString()));
        QVERIFY2(cluster.createRole(QStringLiteral("reviewer"), QStringLiteral("s3cret'pw")), qPrintable(cluster.errorString()));
        Connection wrong(cluster, QStringLiteral("postgres"), QStringLiteral("tst"), QStringLiteral("reviewer"),
                         QStringLiteral("guess"));
        QVERIFY(!wrong.opened());
        QVERIFY2(wrong.error().contains(QLatin1String("password authentication failed")), qPrintable(wrong.error()));
        Connection right(cluster, QStringLiteral("postgres"), QStringLiteral("tst"), QStringLiteral("reviewer"),
                         QStringLiteral("s3cret'pw"));
        QVERIFY2(right.opened(), qPrintable(right.error()));
        QCOMPARE(right.value(QStringLiteral("SELECT current_user")).toString(), QStringLiteral("reviewer"));
    }

    void committedDataSurvivesAnImmediateStop()
    {
        PgCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        const quint16 port = cluster.port();
        const qint64 firstPid = cluster.postmasterPid();
        QVERIFY(!cluster.createDatabase(QStringLiteral("durable")).isEmpty());
        {
            Connection connection(cluster, QStringLiteral("durable"), QStringLiteral("writer"));
            QVERIFY2(connection.opened(), qPrintable(connection.error()));
            QSqlQuery query(connection.db());
            QVERIFY2(query.exec(QStringLiteral("CREATE TABLE kept (v text)")), qPrintable(query.lastError().text()));
            QVERIFY2(query.exec(QStringLiteral("INSERT INTO kept VALUES ('committed')")), qPrintable(query.lastError().text()));

            QVERIFY2(cluster.stopImmediate(), qPrintable(cluster.errorString()));
            QVERIFY(!cluster.isRunning());
            QCOMPARE(cluster.postmasterPid(), 0);
            QVERIFY(!running(firstPid));
            QVERIFY(!connection.value(QStringLiteral("SELECT 1")).isValid());
        }
        QVERIFY2(cluster.startAgain(), qPrintable(cluster.errorString()));
        QCOMPARE(cluster.port(), port);
        QVERIFY(cluster.postmasterPid() != firstPid);
        QVERIFY2(cluster.logText().contains(QLatin1String("not properly shut down")),
                 "the restart after stopImmediate ran no crash recovery");
        const PgCluster::PsqlResult kept = cluster.psql(QStringLiteral("durable"), QStringLiteral("SELECT v FROM kept;"));
        QVERIFY2(kept.ok, qPrintable(kept.error));
        QCOMPARE(kept.output, QStringLiteral("committed"));

        QVERIFY2(cluster.restart(), qPrintable(cluster.errorString()));
        QCOMPARE(cluster.port(), port);
        QCOMPARE(cluster.psql(QStringLiteral("durable"), QStringLiteral("SELECT count(*) FROM kept;")).output,
                 QStringLiteral("1"));
    }

    void destructionStopsTheServerAndRemovesTheFolder()
    {
        QString folder;
        qint64 pid = 0;
        {
            PgCluster cluster;
            QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
            folder = cluster.folder();
            pid = cluster.postmasterPid();
            QVERIFY(QDir(cluster.dataDir()).exists());
            QVERIFY(running(pid));
        }
        QVERIFY(!QDir(folder).exists());
        QVERIFY(!running(pid));
    }

    // A test binary killed with SIGKILL (a ctest timeout) runs no destructor: the watchdog stops
    // its server and removes its folder all the same.
    void aKilledTestLeavesNoServerBehind()
    {
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TST_PGCLUSTER_START_AND_DIE"), QStringLiteral("1"));
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(), {});
        QVERIFY(child.waitForFinished(120000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        const QStringList words = QString::fromUtf8(child.readAllStandardOutput()).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QCOMPARE(words.size(), 2);
        const QString folder = words.at(0);
        const qint64 pid = words.at(1).trimmed().toLongLong();
        QVERIFY(pid > 0);
        QTRY_VERIFY_WITH_TIMEOUT(!running(pid), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!QDir(folder).exists(), 30000);
    }

    void asRootTheServerRunsAsAnotherUser()
    {
        PgCluster &cluster = PgCluster::shared();
        QVERIFY2(cluster.isRunning(), qPrintable(cluster.errorString()));
        const int uid = realUid(cluster.postmasterPid());
        QVERIFY(uid >= 0);
        if (::geteuid() != 0) {
            QVERIFY(cluster.serverUser().isEmpty());
            QCOMPARE(uid, static_cast<int>(::getuid()));
            QSKIP("not running as root: the server runs as we do");
        }
        QVERIFY(!cluster.serverUser().isEmpty());
        QVERIFY2(uid != 0, "the postmaster runs as root");
        QCOMPARE(QFileInfo(cluster.dataDir()).ownerId(), static_cast<uint>(uid));
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (qEnvironmentVariableIsSet("TST_PGCLUSTER_START_AND_DIE")) {
        // aKilledTestLeavesNoServerBehind's child: a cluster, its folder and pid, then SIGKILL.
        PgCluster cluster;
        if (!cluster.start())
            return 1;
        std::printf("%s %lld\n", qPrintable(cluster.folder()), static_cast<long long>(cluster.postmasterPid()));
        std::fflush(stdout);
        ::kill(::getpid(), SIGKILL);
    }
    TestPgCluster test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_pgcluster.moc"
