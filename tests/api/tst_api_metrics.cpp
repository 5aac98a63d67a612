// Issue 16, "Observe it", against a real countersignd whose executor sends to a real paysim:
// GET /metrics — who may read it (401 / 403 / 405), Prometheus' own `promtool check metrics`
// accepts it, every family docs/OPERATIONS.md promises is there, and the numbers move with what
// happened (a proposal, its approval, the executor's attempt, a rejection, HTTP requests, the
// ledger's commits, the provider's latency); GET /api/v1/health/live and /health/ready — ready
// while the ledger takes a write and the provider answers, 503 naming the check while another
// process holds the SQLite ledger's write lock or while the provider is out (paysim's outage
// fault), ready again when either ends.
#include "tests/api/apitestsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QScopeGuard>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTest>

namespace {

// The value of one sample line, e.g. `countersign_actions{state="COMPLETED"}`; NaN when absent.
double sample(const QByteArray &text, const QByteArray &series)
{
    for (const QByteArray &line : text.split('\n')) {
        if (line.startsWith(QByteArray(series + ' ')))
            return line.mid(series.size() + 1).toDouble();
    }
    return std::numeric_limits<double>::quiet_NaN();
}

} // namespace

class TestApiMetrics : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client; // /api/v1
    std::unique_ptr<ApiClient> m_root;   // the server's root: /metrics

    QString token(const QString &user) const { return m_harness.token(user); }
    QByteArray scrape()
    {
        const ApiReply reply = m_root->get(QStringLiteral("/metrics"), token(QStringLiteral("aud")));
        if (reply.status != 200)
            qWarning() << "GET /metrics:" << reply.status << reply.body;
        return reply.body;
    }
    QString stateOf(const QString &id)
    {
        return m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("aud")))
            .json.value(QStringLiteral("state")).toString();
    }

private slots:
    void initTestCase()
    {
        QString error;
        ApiHarness::Options options;
        options.withPaysim = true;
        const QString configFile = QDir(QDir::tempPath()).filePath(
            QStringLiteral("cs-api-metrics-%1.json").arg(QCoreApplication::applicationPid()));
        QFile config(configFile);
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QJsonDocument(QJsonObject{{QStringLiteral("workers"), 1},
                                               {QStringLiteral("request_timeout_ms"), 3000},
                                               {QStringLiteral("lease_duration_ms"), 15000},
                                               {QStringLiteral("idle_poll_ms"), 50}})
                         .toJson());
        config.close();
        options.extraServeArguments = {QStringLiteral("--execution-config"), configFile};
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        QFile::remove(configFile);
        m_client = std::make_unique<ApiClient>(m_harness.api());
        QUrl root = m_harness.api();
        root.setPath(QString());
        m_root = std::make_unique<ApiClient>(root);
    }

    void cleanupTestCase()
    {
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    void whoMayRead_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QByteArray>("verb");
        QTest::addColumn<int>("status");
        QTest::newRow("no token: 401") << QString() << QByteArray("GET") << 401;
        QTest::newRow("agent: 403") << QStringLiteral("agent-7") << QByteArray("GET") << 403;
        QTest::newRow("approver: 403") << QStringLiteral("ana") << QByteArray("GET") << 403;
        QTest::newRow("supervisor: 403") << QStringLiteral("sam") << QByteArray("GET") << 403;
        QTest::newRow("auditor reads") << QStringLiteral("aud") << QByteArray("GET") << 200;
        QTest::newRow("admin reads") << QStringLiteral("root") << QByteArray("GET") << 200;
        QTest::newRow("POST: 405") << QStringLiteral("aud") << QByteArray("POST") << 405;
    }

    void whoMayRead()
    {
        QFETCH(QString, user);
        QFETCH(QByteArray, verb);
        QFETCH(int, status);
        const ApiReply reply = m_root->send(verb, QStringLiteral("/metrics"), user.isEmpty() ? QString() : token(user),
                                            QByteArray(), {});
        QCOMPARE(reply.status, status);
        if (status == 200) {
            QCOMPARE(reply.header("Content-Type"), QByteArray("text/plain; version=0.0.4; charset=utf-8"));
            QVERIFY(reply.body.contains("# TYPE countersign_actions gauge"));
        } else {
            QVERIFY(!reply.body.contains("countersign_"));
        }
    }

    // Prometheus' own linter: the format, names, HELP and TYPE of every family, counters' _total.
    void promtoolAcceptsIt()
    {
        const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
        QVERIFY2(!promtool.isEmpty(), "promtool is not installed (scripts/install-deps.sh installs Debian's prometheus)");
        // Something in every family first: an action through to COMPLETED.
        const ApiReply proposed = m_client->propose(token(QStringLiteral("agent-7")),
                                                    ApiClient::proposal(QStringLiteral("lint-1"), 1200, m_harness.seedCharge(5000)));
        QCOMPARE(proposed.status, 201);
        const QString id = proposed.json.value(QStringLiteral("id")).toString();
        QCOMPARE(m_client->approve(token(QStringLiteral("ana")), id, proposed.ifMatch()).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), QStringLiteral("COMPLETED"), 15000);

        const QByteArray text = scrape();
        QProcess lint;
        lint.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
        QVERIFY(lint.waitForStarted());
        lint.write(text);
        lint.closeWriteChannel();
        QVERIFY(lint.waitForFinished(30000));
        const QByteArray said = lint.readAllStandardOutput() + lint.readAllStandardError();
        QVERIFY2(lint.exitStatus() == QProcess::NormalExit && lint.exitCode() == 0, said.constData());
        QVERIFY2(said.trimmed().isEmpty(), said.constData()); // no lint warnings either

        // And promtool does fail on a broken exposition (the check above can fail).
        QProcess broken;
        broken.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
        QVERIFY(broken.waitForStarted());
        broken.write("# TYPE countersign_x counter\ncountersign_x{a=\"1\" 1\n");
        broken.closeWriteChannel();
        QVERIFY(broken.waitForFinished(30000));
        QVERIFY(broken.exitCode() != 0);
    }

    void everyPromisedFamilyIsThere_data()
    {
        QTest::addColumn<QByteArray>("family");
        for (const char *family :
             {"countersign_actions gauge", "countersign_transitions_total counter", "countersign_attempts_total counter",
              "countersign_provider_request_seconds histogram", "countersign_provider_requests_total counter",
              "countersign_reconciler_rounds_total counter", "countersign_reconciler_backlog gauge",
              "countersign_settlement_reviews_open gauge", "countersign_settlement_review_oldest_age_seconds gauge",
              "countersign_settlements_unsettled gauge", "countersign_settlement_checks_due gauge",
              "countersign_oldest_action_age_seconds gauge", "countersign_ledger_commit_seconds histogram",
              "countersign_sse_clients gauge", "countersign_http_requests_total counter",
              "countersign_http_request_duration_seconds histogram", "countersign_http_requests_in_flight gauge",
              "countersign_build_info gauge", "process_start_time_seconds gauge", "process_resident_memory_bytes gauge"})
            QTest::newRow(family) << QByteArray(family);
    }

    void everyPromisedFamilyIsThere()
    {
        QFETCH(QByteArray, family);
        const QByteArray text = '\n' + scrape(); // every line, the first one too, after a newline
        const QByteArray type = "\n# TYPE " + family + '\n';
        const QByteArray help = "\n# HELP " + family.left(family.indexOf(' ')) + ' ';
        QVERIFY2(text.contains(type), text.constData());
        QVERIFY(text.contains(help));
    }

    // Before and after: one proposal sent and completed, one rejected.
    void numbersFollowWhatHappened()
    {
        const QByteArray before = scrape();
        const auto delta = [&](const QByteArray &after, const char *series) {
            const double b = sample(before, series);
            return sample(after, series) - (std::isnan(b) ? 0 : b);
        };

        const ApiReply sent = m_client->propose(token(QStringLiteral("agent-7")),
                                                ApiClient::proposal(QStringLiteral("count-1"), 1500, m_harness.seedCharge(6000)));
        QCOMPARE(sent.status, 201);
        const QString sentId = sent.json.value(QStringLiteral("id")).toString();
        const ApiReply kept = m_client->propose(token(QStringLiteral("agent-8")),
                                                ApiClient::proposal(QStringLiteral("count-2"), 700, m_harness.seedCharge(6000)));
        QCOMPARE(kept.status, 201);
        const QString keptId = kept.json.value(QStringLiteral("id")).toString();

        // While one waits: PENDING is counted and has an age.
        const QByteArray waiting = scrape();
        QVERIFY(sample(waiting, "countersign_actions{state=\"PENDING\"}") >= 2);
        QVERIFY(sample(waiting, "countersign_oldest_action_age_seconds{state=\"PENDING\"}") >= 0);
        QCOMPARE(sample(waiting, "countersign_oldest_action_age_seconds{state=\"REQUIRES_REVIEW\"}"), 0.0);

        QCOMPARE(m_client->approve(token(QStringLiteral("ana")), sentId, sent.ifMatch()).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(sentId), QStringLiteral("COMPLETED"), 15000);
        const ApiReply rejected = m_client->post(QStringLiteral("/actions/%1/rejections").arg(keptId), token(QStringLiteral("bob")),
                                                 QJsonObject{{QStringLiteral("reason"), QStringLiteral("duplicate")},
                                                             {QStringLiteral("note"), QStringLiteral("metrics test")}},
                                                 {{"If-Match", kept.ifMatch()}, {"Idempotency-Key", "reject-count-2"}});
        QVERIFY2(rejected.status == 200, rejected.body.constData());

        const QByteArray after = scrape();
        QCOMPARE(delta(after, "countersign_transitions_total{from=\"none\",to=\"PENDING\"}"), 2.0);
        QCOMPARE(delta(after, "countersign_transitions_total{from=\"PENDING\",to=\"EXECUTING\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_transitions_total{from=\"EXECUTING\",to=\"COMPLETED\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_transitions_total{from=\"PENDING\",to=\"REJECTED\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_transitions_total{from=\"EXECUTING\",to=\"CONFIRMATION_UNKNOWN\"}"), 0.0);
        QCOMPARE(delta(after, "countersign_attempts_total{outcome=\"succeeded\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_actions{state=\"COMPLETED\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_actions{state=\"REJECTED\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_provider_requests_total{operation=\"create_refund\",result=\"2xx\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_provider_request_seconds_count{operation=\"create_refund\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_http_requests_total{method=\"POST\",route=\"/api/v1/actions\",status=\"201\"}"), 2.0);
        QCOMPARE(delta(after, "countersign_http_requests_total{method=\"POST\",route=\"/api/v1/actions/{id}/approvals\",status=\"200\"}"), 1.0);
        QCOMPARE(delta(after, "countersign_http_requests_total{method=\"GET\",route=\"/metrics\",status=\"200\"}"), 2.0);
        QVERIFY(delta(after, "countersign_ledger_commit_seconds_count{result=\"committed\"}") >= 5); // 2 proposals, approval, claim, finish, rejection
        QCOMPARE(sample(after, "countersign_reconciler_backlog"), 0.0);
        QCOMPARE(sample(after, "countersign_settlement_reviews_open"), 0.0); // paysim answered succeeded
        QCOMPARE(sample(after, "countersign_settlements_unsettled"), 0.0);
        QCOMPARE(sample(after, "countersign_oldest_action_age_seconds{state=\"CONFIRMATION_UNKNOWN\"}"), 0.0);
        QCOMPARE(sample(after, "countersign_build_info{version=\"" COUNTERSIGN_VERSION "\"}"), 1.0);
        QVERIFY(sample(after, "process_resident_memory_bytes") > 1e6);
    }

    void liveness()
    {
        const ApiReply live = m_client->get(QStringLiteral("/health/live"), QString());
        QCOMPARE(live.status, 200);
        QCOMPARE(live.json.value(QStringLiteral("status")).toString(), QStringLiteral("alive"));
        QVERIFY(live.json.contains(QStringLiteral("uptime_seconds")));
    }

    void readyWhileBothAnswer()
    {
        const ApiReply ready = m_client->get(QStringLiteral("/health/ready"), QString());
        QVERIFY2(ready.status == 200, ready.body.constData());
        QCOMPARE(ready.json.value(QStringLiteral("status")).toString(), QStringLiteral("ready"));
        const QJsonObject checks = ready.json.value(QStringLiteral("checks")).toObject();
        QCOMPARE(checks.value(QStringLiteral("ledger")).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(checks.value(QStringLiteral("provider")).toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("reachable"));
    }

    // Another process holds the SQLite write lock (a stuck maintenance job): not ready, and the
    // body says it is the ledger; ready again once the lock is gone. Liveness is unaffected.
    void notReadyWhileTheLedgerIsLocked()
    {
        if (m_harness.dbPath().startsWith(QLatin1String("postgresql:")))
            QSKIP("SQLite's write lock; PostgreSQL's read-only check is in the ledger suite");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("locker"));
            db.setDatabaseName(m_harness.dbPath());
            QVERIFY(db.open());
            QSqlQuery lock(db);
            QVERIFY2(lock.exec(QStringLiteral("BEGIN IMMEDIATE")), qPrintable(lock.lastError().text()));
            auto release = qScopeGuard([&] { QSqlQuery(db).exec(QStringLiteral("ROLLBACK")); });
            const ApiReply locked = m_client->get(QStringLiteral("/health/ready"), QString());
            QCOMPARE(locked.status, 503);
            QCOMPARE(locked.header("Retry-After"), QByteArray("5"));
            const QJsonObject ledger = locked.json.value(QStringLiteral("checks")).toObject().value(QStringLiteral("ledger")).toObject();
            QCOMPARE(ledger.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
            QVERIFY2(!ledger.value(QStringLiteral("detail")).toString().isEmpty(), locked.body.constData());
            QCOMPARE(m_client->get(QStringLiteral("/health/live"), QString()).status, 200);
            release.dismiss();
            QVERIFY(lock.exec(QStringLiteral("ROLLBACK")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("locker"));
        const ApiReply again = m_client->get(QStringLiteral("/health/ready"), QString());
        QVERIFY2(again.status == 200, again.body.constData());
    }

    // paysim answers 503 to everything: not ready, the provider named; ready at once when it ends.
    void notReadyWhileTheProviderIsOut()
    {
        const ApiReply added = m_harness.sim("POST", QStringLiteral("/_sim/faults"),
                                             QJsonObject{{QStringLiteral("method"), QStringLiteral("*")},
                                                         {QStringLiteral("path"), QStringLiteral("*")},
                                                         {QStringLiteral("times"), 0},
                                                         {QStringLiteral("fault"), QStringLiteral("outage_503")}});
        QVERIFY2(added.status == 200 || added.status == 201, added.body.constData());
        // A good answer is trusted for 10 s: this check may still read the last one; the outage
        // shows once it is asked again (the readiness check after a failure always asks).
        const ApiReply out = m_client->get(QStringLiteral("/health/ready"), QString());
        const QJsonObject provider = out.json.value(QStringLiteral("checks")).toObject().value(QStringLiteral("provider")).toObject();
        if (out.status == 200) {
            QCOMPARE(provider.value(QStringLiteral("status")).toString(), QStringLiteral("reachable"));
            QTRY_COMPARE_WITH_TIMEOUT(m_client->get(QStringLiteral("/health/ready"), QString()).status, 503, 15000);
        }
        const ApiReply down = m_client->get(QStringLiteral("/health/ready"), QString());
        QCOMPARE(down.status, 503);
        const QJsonObject downProvider = down.json.value(QStringLiteral("checks")).toObject().value(QStringLiteral("provider")).toObject();
        QCOMPARE(downProvider.value(QStringLiteral("status")).toString(), QStringLiteral("unreachable"));
        QCOMPARE(downProvider.value(QStringLiteral("http_status")).toInt(), 503);
        QCOMPARE(m_harness.sim("DELETE", QStringLiteral("/_sim/faults")).status, 200);
        const ApiReply back = m_client->get(QStringLiteral("/health/ready"), QString());
        QVERIFY2(back.status == 200, back.body.constData());
    }
};

QTEST_GUILESS_MAIN(TestApiMetrics)
#include "tst_api_metrics.moc"
