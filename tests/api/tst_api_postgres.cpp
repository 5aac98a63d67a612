// Issue 13: the REST API of a real `countersignd serve --db postgresql://…` (real HTTP on
// 127.0.0.1) while its database misbehaves, on a private cluster (tests/support/pgcluster.h):
// its sessions terminated — the next request reconnects; the server stopped (fast or immediate)
// — every call answers 503 `unavailable` with Retry-After, /health says so; started again — the
// same process answers as before, without a restart, and nothing asked while down was written.
// And a daemon whose executor worked on PostgreSQL stops cleanly.

#include "tests/api/apitestsupport.h"
#include "tests/support/pgcluster.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cs::test;

class TestApiPostgres : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void terminatedSessionsReconnect();
    void databaseDownAnswers503AndRecovers_data();
    void databaseDownAnswers503AndRecovers();
    void executingServerStopsCleanly();

private:
    QString addUser(const QString &name, const QString &role);
    bool startServe(const QStringList &extra = {});
    qint64 actionsWithReference(const QString &reference);
    void checkUnavailable(const ApiReply &reply, const char *what);
    void expectStatus(const ApiReply &reply, int status, const char *what);

    std::unique_ptr<PgCluster> m_cluster;
    QString m_database;
    QString m_uri;
    std::unique_ptr<ServiceProcess> m_server;
    std::unique_ptr<ApiClient> m_client;
    QString m_agent;
    QString m_approver;
    int m_databases = 0;
};

void TestApiPostgres::initTestCase()
{
    m_cluster = std::make_unique<PgCluster>();
    QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
}

void TestApiPostgres::init()
{
    if (!m_cluster->isRunning())
        QVERIFY2(m_cluster->startAgain(), qPrintable(m_cluster->errorString()));
    m_database = QStringLiteral("api_%1").arg(++m_databases);
    m_uri = m_cluster->createDatabase(m_database);
    QVERIFY(!m_uri.isEmpty());
    m_agent = addUser(QStringLiteral("agent-7"), QStringLiteral("agent"));
    m_approver = addUser(QStringLiteral("ana"), QStringLiteral("approver"));
    QVERIFY(!m_agent.isEmpty() && !m_approver.isEmpty());
    if (QByteArray(QTest::currentTestFunction()) != "executingServerStopsCleanly")
        QVERIFY(startServe());
}

bool TestApiPostgres::startServe(const QStringList &extra)
{
    m_server = std::make_unique<ServiceProcess>();
    QString error;
    if (!m_server->start(ApiHarness::countersigndBinary(),
                         QStringList{QStringLiteral("serve"), QStringLiteral("--db"), m_uri, QStringLiteral("--listen"),
                                     QStringLiteral("127.0.0.1:0"), QStringLiteral("--provider"), QStringLiteral("paysim")}
                             + extra,
                         &error)) {
        qWarning() << error;
        return false;
    }
    QUrl api = m_server->url();
    api.setPath(QStringLiteral("/api/v1"));
    m_client = std::make_unique<ApiClient>(api);
    return true;
}

void TestApiPostgres::cleanup()
{
    m_client.reset();
    if (m_server) {
        const bool stopped = m_server->stop();
        if (!stopped)
            qWarning() << "countersignd:" << m_server->standardError();
        m_server.reset();
        QVERIFY(stopped);
    }
}

QString TestApiPostgres::addUser(const QString &name, const QString &role)
{
    QProcess p;
    p.start(ApiHarness::countersigndBinary(),
            {QStringLiteral("user"), QStringLiteral("add"), name, QStringLiteral("--role"), role, QStringLiteral("--db"), m_uri});
    if (!p.waitForFinished(20000) || p.exitCode() != 0) {
        qWarning() << "user add" << name << p.readAllStandardError();
        return QString();
    }
    return QString::fromLatin1(p.readAllStandardOutput().simplified().split(' ').constLast());
}

qint64 TestApiPostgres::actionsWithReference(const QString &reference)
{
    const PgCluster::PsqlResult r = m_cluster->psql(
        m_database, QStringLiteral("SELECT count(*) FROM actions WHERE client_reference = '%1'").arg(reference));
    return r.ok ? r.output.trimmed().toLongLong() : -1;
}

void TestApiPostgres::checkUnavailable(const ApiReply &reply, const char *what)
{
    QVERIFY2(reply.status == 503, qPrintable(QStringLiteral("%1: %2 %3").arg(QLatin1String(what)).arg(reply.status)
                                                 .arg(QString::fromUtf8(reply.body))));
    QVERIFY2(!reply.header("Retry-After").isEmpty(), what);
}

void TestApiPostgres::expectStatus(const ApiReply &reply, int status, const char *what)
{
    if (reply.status != status)
        qWarning() << "countersignd said:" << m_server->standardError();
    QVERIFY2(reply.status == status, qPrintable(QStringLiteral("%1: %2 %3").arg(QLatin1String(what)).arg(reply.status)
                                                    .arg(QString::fromUtf8(reply.body))));
}

// pg_terminate_backend of every session of the serving process: the next requests reconnect.
void TestApiPostgres::terminatedSessionsReconnect()
{
    expectStatus(m_client->get(QStringLiteral("/actions"), m_agent), 200, "GET /actions");
    const ApiReply first = m_client->propose(m_agent, ApiClient::proposal(QStringLiteral("before-terminate")));
    expectStatus(first, 201, "first");
    QVERIFY(m_cluster->terminateBackends(m_database, QStringLiteral("countersignd%")) >= 1);
    expectStatus(m_client->get(QStringLiteral("/actions"), m_agent), 200, "GET /actions");
    QVERIFY(m_cluster->terminateBackends(m_database, QStringLiteral("countersignd%")) >= 1);
    const ApiReply second = m_client->propose(m_agent, ApiClient::proposal(QStringLiteral("after-terminate")));
    expectStatus(second, 201, "second");
    QCOMPARE(actionsWithReference(QStringLiteral("after-terminate")), 1);
    expectStatus(m_client->get(QStringLiteral("/health"), QString()), 200, "GET /health");
}

void TestApiPostgres::databaseDownAnswers503AndRecovers_data()
{
    QTest::addColumn<bool>("immediate");
    QTest::newRow("fast shutdown") << false;
    QTest::newRow("immediate shutdown (a crash)") << true;
}

void TestApiPostgres::databaseDownAnswers503AndRecovers()
{
    QFETCH(bool, immediate);
    const ApiReply proposed = m_client->propose(m_agent, ApiClient::proposal(QStringLiteral("before-down")));
    expectStatus(proposed, 201, "proposed");
    const QString id = proposed.json.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    const qint64 pid = m_server->process().processId();

    QVERIFY(immediate ? m_cluster->stopImmediate() : m_cluster->stop());
    const ApiReply health = m_client->get(QStringLiteral("/health"), QString());
    checkUnavailable(health, "GET /health");
    QCOMPARE(health.json.value(QStringLiteral("status")).toString(), QStringLiteral("unavailable"));
    const ApiReply list = m_client->get(QStringLiteral("/actions"), m_agent);
    checkUnavailable(list, "GET /actions");
    QCOMPARE(list.code(), QStringLiteral("unavailable"));
    const ApiReply one = m_client->get(QStringLiteral("/actions/") + id, m_agent);
    checkUnavailable(one, "GET /actions/{id}");
    QCOMPARE(one.code(), QStringLiteral("unavailable"));
    const ApiReply write = m_client->post(QStringLiteral("/actions"), m_agent, ApiClient::proposal(QStringLiteral("while-down")),
                                          {{"Idempotency-Key", "down-1"}});
    checkUnavailable(write, "POST /actions");
    QCOMPARE(write.code(), QStringLiteral("unavailable"));
    const ApiReply approve = m_client->approve(m_approver, id, proposed.ifMatch());
    checkUnavailable(approve, "POST /actions/{id}/approve");
    QCOMPARE(approve.code(), QStringLiteral("unavailable"));
    QCOMPARE(m_server->process().state(), QProcess::Running);

    QVERIFY2(m_cluster->startAgain(), qPrintable(m_cluster->errorString()));
    QCOMPARE(m_server->process().processId(), pid); // the same process: no restart
    const ApiReply healthy = m_client->get(QStringLiteral("/health"), QString());
    expectStatus(healthy, 200, "healthy");
    QCOMPARE(healthy.json.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    expectStatus(m_client->get(QStringLiteral("/actions"), m_agent), 200, "GET /actions");
    QCOMPARE(actionsWithReference(QStringLiteral("while-down")), 0); // the 503 wrote nothing
    // The same request, retried with its Idempotency-Key as the 503 asked: done once.
    const ApiReply retried = m_client->post(QStringLiteral("/actions"), m_agent,
                                            ApiClient::proposal(QStringLiteral("while-down")), {{"Idempotency-Key", "down-1"}});
    expectStatus(retried, 201, "retried");
    const ApiReply approved = m_client->approve(m_approver, id, proposed.ifMatch());
    expectStatus(approved, 200, "approved");
    QCOMPARE(actionsWithReference(QStringLiteral("while-down")), 1);

    QProcess verify;
    verify.setProcessChannelMode(QProcess::MergedChannels);
    verify.start(ApiHarness::countersigndBinary(), {QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_uri});
    QVERIFY(verify.waitForFinished(30000));
    QVERIFY2(verify.exitCode() == 0, verify.readAll().constData());
}

// A serving process whose executor worked on PostgreSQL (its threads hold prepared statements on
// the ledger's connections) stops on SIGTERM with exit code 0. In process, destroying the Ledger
// right after Executor::stop() can crash in ~QSqlQuery (see tst_execution_postgres): this guards
// the daemon's own order.
void TestApiPostgres::executingServerStopsCleanly()
{
    ServiceProcess paysim;
    QString error;
    QVERIFY2(paysim.start(ApiHarness::paysimBinary(), {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")}, &error),
             qPrintable(error));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString keyFile = dir.filePath(QStringLiteral("provider.key"));
    QFile key(keyFile);
    QVERIFY(key.open(QIODevice::WriteOnly) && key.write("sk_test_countersign_api\n") > 0);
    key.close();
    QVERIFY(startServe({QStringLiteral("--provider-url"), paysim.url().toString(), QStringLiteral("--provider-key-file"),
                        keyFile}));
    for (int i = 0; i < 3; ++i) {
        const ApiReply proposed = m_client->propose(m_agent, ApiClient::proposal(QStringLiteral("exec-%1").arg(i), 1000 + i));
        expectStatus(proposed, 201, "propose");
        const QString id = proposed.json.value(QStringLiteral("id")).toString();
        expectStatus(m_client->approve(m_approver, id, proposed.ifMatch()), 200, "approve");
        // Sent and recorded (the charge is unknown to paysim: REJECTED): the executor worked.
        QString state;
        QVERIFY(QTest::qWaitFor([&] {
            state = m_client->get(QStringLiteral("/actions/") + id, m_agent).json.value(QStringLiteral("state")).toString();
            return !state.isEmpty() && state != u"PENDING" && state != u"EXECUTING";
        }, 20000));
        QVERIFY2(state == u"REJECTED", qPrintable(state));
    }
    const bool stopped = m_server->stop();
    const QByteArray said = m_server->standardError();
    m_server.reset();
    QVERIFY2(stopped, said.constData());
    QVERIFY(paysim.stop());
}

QTEST_GUILESS_MAIN(TestApiPostgres)
#include "tst_api_postgres.moc"
