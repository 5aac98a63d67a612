// Idempotency semantics of paysim against Stripe's documented rules, through real HTTP on
// 127.0.0.1 with an in-process PaysimServer and QNetworkAccessManager.
#include "simulator/paysimserver.h"
#include "tests/simulator/paysimtestsupport.h"

#include <QJsonArray>
#include <QLocale>
#include <QtTest>

#include <memory>

using namespace cs::paysim;

class TestPaysimIdempotency : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void rules_data();
    void rules();
    void concurrentSameKeyCommitsOnce();
    void keyWindowExpiry_data();
    void keyWindowExpiry();
    void rateLimitRunsBeforeIdempotency();

private:
    void startServer(double keyWindowHours = 24.0);
    SimClient::Form form(const QString &encoded) const;

    std::unique_ptr<PaysimServer> m_server;
    std::unique_ptr<SimClient> m_client;
    QString m_charge;
};

void TestPaysimIdempotency::startServer(double keyWindowHours)
{
    PaysimConfig config;
    config.seed = 11;
    config.keyWindowHours = keyWindowHours;
    m_server = std::make_unique<PaysimServer>(config);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<SimClient>(m_server->baseUrl());
    m_charge = m_client->seedCharge(10000);
    QVERIFY(m_charge.startsWith(QLatin1String("ch_")));
}

void TestPaysimIdempotency::init()
{
    startServer();
}

void TestPaysimIdempotency::cleanup()
{
    m_client.reset();
    m_server.reset();
}

// "charge={charge}&amount=1000" -> pairs, with the seeded charge substituted.
SimClient::Form TestPaysimIdempotency::form(const QString &encoded) const
{
    SimClient::Form out;
    if (encoded.isEmpty())
        return out;
    for (const QString &pair : encoded.split(u'&')) {
        const qsizetype eq = pair.indexOf(u'=');
        QString value = pair.mid(eq + 1);
        value.replace(QLatin1String("{charge}"), m_charge);
        out.append({pair.left(eq), value});
    }
    return out;
}

void TestPaysimIdempotency::rules_data()
{
    QTest::addColumn<QString>("fault");      // JSON rule applied to the first request, or empty
    QTest::addColumn<QString>("firstKey");
    QTest::addColumn<QString>("firstForm");
    QTest::addColumn<int>("firstStatus");
    QTest::addColumn<QString>("secondPath");
    QTest::addColumn<QString>("secondKey");
    QTest::addColumn<QString>("secondForm");
    QTest::addColumn<QString>("secondApiKey");
    QTest::addColumn<int>("secondStatus");
    QTest::addColumn<QString>("secondErrorType");
    QTest::addColumn<bool>("secondReplayed");
    QTest::addColumn<int>("refundsCommitted");

    const QString refunds = QStringLiteral("/v1/refunds");
    const QString key = QStringLiteral("key-40-dollars");
    const QString base = QStringLiteral("charge={charge}&amount=4000");
    const QString sk = QStringLiteral("sk_test_countersign");

    QTest::newRow("same key and params: saved answer replayed")
        << QString() << key << base << 200 << refunds << key << base << sk << 200 << QString() << true << 1;
    QTest::newRow("same key, amount changed 40 -> 45: idempotency_error, nothing new")
        << QString() << key << base << 200 << refunds << key << QStringLiteral("charge={charge}&amount=4500") << sk
        << 400 << QStringLiteral("idempotency_error") << false << 1;
    QTest::newRow("same key, metadata added: idempotency_error")
        << QString() << key << base << 200 << refunds << key << base + QStringLiteral("&metadata[order]=4821") << sk
        << 400 << QStringLiteral("idempotency_error") << false << 1;
    QTest::newRow("same key on another endpoint: idempotency_error")
        << QString() << key << base << 200 << QStringLiteral("/v1/charges") << key
        << QStringLiteral("amount=4000&currency=usd&source=tok_visa") << sk << 400 << QStringLiteral("idempotency_error")
        << false << 1;
    QTest::newRow("same key under another API key: independent, second refund")
        << QString() << key << base << 200 << refunds << key << base << QStringLiteral("sk_test_other_account") << 200
        << QString() << false << 2;
    QTest::newRow("key of 256 characters refused before anything runs")
        << QString() << QString(256, u'k') << base << 400 << refunds << QStringLiteral("fresh-key") << base << sk << 200
        << QString() << false << 1;
    QTest::newRow("key of exactly 255 characters accepted and replayed")
        << QString() << QString(255, u'k') << base << 200 << refunds << QString(255, u'k') << base << sk << 200
        << QString() << true << 1;
    QTest::newRow("validation failure saves nothing: corrected request with same key runs")
        << QString() << key << QStringLiteral("charge={charge}&amount=forty") << 400 << refunds << key << base << sk << 200
        << QString() << false << 1;
    QTest::newRow("unknown parameter saves nothing: corrected request with same key runs")
        << QString() << key << base + QStringLiteral("&amout=1") << 400 << refunds << key << base << sk << 200
        << QString() << false << 1;
    QTest::newRow("business error (amount_too_large) is saved and replayed")
        << QString() << key << QStringLiteral("charge={charge}&amount=999999") << 400 << refunds << key
        << QStringLiteral("charge={charge}&amount=999999") << sk << 400 << QStringLiteral("invalid_request_error") << true
        << 0;
    QTest::newRow("500 after commit is saved and replayed; one refund exists")
        << QStringLiteral(R"({"method":"POST","path":"/v1/refunds","fault":"error_500_after_commit"})") << key << base
        << 500 << refunds << key << base << sk << 500 << QStringLiteral("api_error") << true << 1;
    QTest::newRow("500 before commit is saved and replayed; no refund exists")
        << QStringLiteral(R"({"method":"POST","path":"/v1/refunds","fault":"error_500_before_commit"})") << key << base
        << 500 << refunds << key << base << sk << 500 << QStringLiteral("api_error") << true << 0;
    QTest::newRow("forced error with save:false leaves the key free")
        << QStringLiteral(R"({"path":"/v1/refunds","fault":"forced_error","status":402,"type":"card_error","save":false})")
        << key << base << 402 << refunds << key << base << sk << 200 << QString() << false << 1;
}

void TestPaysimIdempotency::rules()
{
    QFETCH(QString, fault);
    QFETCH(QString, firstKey);
    QFETCH(QString, firstForm);
    QFETCH(int, firstStatus);
    QFETCH(QString, secondPath);
    QFETCH(QString, secondKey);
    QFETCH(QString, secondForm);
    QFETCH(QString, secondApiKey);
    QFETCH(int, secondStatus);
    QFETCH(QString, secondErrorType);
    QFETCH(bool, secondReplayed);
    QFETCH(int, refundsCommitted);

    if (!fault.isEmpty()) {
        const QJsonObject rule = m_client->addFault(QJsonDocument::fromJson(fault.toUtf8()).object());
        QVERIFY2(!rule.value(QStringLiteral("id")).toString().isEmpty(), qPrintable(fault));
    }

    const SimReply first = m_client->post(QStringLiteral("/v1/refunds"), form(firstForm), firstKey);
    QCOMPARE(first.status, firstStatus);
    QVERIFY(first.header("Request-Id").startsWith("req_"));
    QVERIFY(first.header("Idempotent-Replayed").isEmpty());

    const SimReply second = m_client->post(secondPath, form(secondForm), secondKey, secondApiKey);
    QCOMPARE(second.status, secondStatus);
    QCOMPARE(second.errorType(), secondErrorType);
    QCOMPARE(second.header("Idempotent-Replayed") == "true", secondReplayed);
    QVERIFY(second.header("Request-Id").startsWith("req_"));
    if (secondReplayed) {
        QCOMPARE(second.body, first.body); // byte for byte
        QCOMPARE(second.header("Original-Request"), first.header("Request-Id"));
        QVERIFY(second.header("Request-Id") != first.header("Request-Id"));
    } else if (secondStatus == 200 && firstStatus == 200) {
        QVERIFY(second.json.value(QStringLiteral("id")) != first.json.value(QStringLiteral("id")));
    }
    QCOMPARE(m_client->groundTruthRefunds(), refundsCommitted);
}

void TestPaysimIdempotency::concurrentSameKeyCommitsOnce()
{
    m_client->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                   {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                   {QStringLiteral("fault"), QStringLiteral("delay_before_commit")},
                                   {QStringLiteral("delay_ms"), 600}});
    const SimClient::Form f = form(QStringLiteral("charge={charge}&amount=4000"));
    const QString key = QStringLiteral("concurrent-key");

    QNetworkReply *slow = m_client->postAsync(QStringLiteral("/v1/refunds"), f, key);
    // Wait until the first request holds the key (in flight) before racing the second.
    QTRY_VERIFY_WITH_TIMEOUT(m_server->idempotency().find(QStringLiteral("sk_test_countersign"), key)
                                 && m_server->idempotency().find(QStringLiteral("sk_test_countersign"), key)->inFlight,
                             5000);
    const SimReply conflict = m_client->post(QStringLiteral("/v1/refunds"), f, key);
    QCOMPARE(conflict.status, 409);
    QCOMPARE(conflict.errorCode(), QStringLiteral("idempotency_key_in_use"));
    QCOMPARE(m_client->groundTruthRefunds(), 0); // the first one has not committed yet

    const SimReply done = SimClient::collect(slow);
    QCOMPARE(done.status, 200);
    QVERIFY(done.elapsedMs >= 0);
    QCOMPARE(m_client->groundTruthRefunds(), 1);

    // The 409 saved nothing: a later retry replays the first answer.
    const SimReply retry = m_client->post(QStringLiteral("/v1/refunds"), f, key);
    QCOMPARE(retry.status, 200);
    QCOMPARE(retry.header("Idempotent-Replayed"), QByteArray("true"));
    QCOMPARE(retry.json.value(QStringLiteral("id")), done.json.value(QStringLiteral("id")));
    QCOMPARE(m_client->groundTruthRefunds(), 1);
}

void TestPaysimIdempotency::keyWindowExpiry_data()
{
    QTest::addColumn<double>("windowHours");
    QTest::addColumn<qint64>("advanceMs");
    QTest::addColumn<bool>("replayed");
    QTest::addColumn<int>("refunds");

    const qint64 hour = 3600LL * 1000;
    QTest::newRow("24 h window, 23 h later: replayed") << 24.0 << 23 * hour << true << 1;
    QTest::newRow("24 h window, 24 h later: pruned, second refund") << 24.0 << 24 * hour << false << 2;
    QTest::newRow("24 h window, 30 h later: pruned, second refund") << 24.0 << 30 * hour << false << 2;
    QTest::newRow("1 h window, 59 min later: replayed") << 1.0 << 59 * 60 * 1000LL << true << 1;
    QTest::newRow("1 h window, 61 min later: pruned, second refund") << 1.0 << 61 * 60 * 1000LL << false << 2;
}

void TestPaysimIdempotency::keyWindowExpiry()
{
    QFETCH(double, windowHours);
    QFETCH(qint64, advanceMs);
    QFETCH(bool, replayed);
    QFETCH(int, refunds);

    cleanup();
    startServer(windowHours);
    const SimClient::Form f = form(QStringLiteral("charge={charge}&amount=1000"));
    const SimReply first = m_client->post(QStringLiteral("/v1/refunds"), f, QStringLiteral("window-key"));
    QCOMPARE(first.status, 200);

    const SimReply clock = m_client->adminPost(QStringLiteral("/_sim/clock"), QJsonObject{{QStringLiteral("advance_ms"), advanceMs}});
    QCOMPARE(clock.status, 200);
    QVERIFY(clock.json.value(QStringLiteral("offset_ms")).toInteger() >= advanceMs);

    const SimReply second = m_client->post(QStringLiteral("/v1/refunds"), f, QStringLiteral("window-key"));
    QCOMPARE(second.status, 200);
    // Issue 33: paysim's Date follows its own (simulated) clock, as a real provider's follows its
    // own: a client can tell when the provider's clock runs ahead of its own.
    const QDateTime date = QLocale::c().toDateTime(QString::fromLatin1(second.header("Date")).chopped(4),
                                                   QStringLiteral("ddd, dd MMM yyyy hh:mm:ss"));
    QVERIFY2(date.isValid(), second.header("Date").constData());
    const qint64 ahead = QDateTime::currentDateTimeUtc().toSecsSinceEpoch() - QDateTime(date.date(), date.time(), Qt::UTC).toSecsSinceEpoch();
    QVERIFY2(qAbs(-ahead - advanceMs / 1000) <= 5, qPrintable(QStringLiteral("Date %1 is %2 s ahead, the clock %3 s")
                                                                 .arg(QString::fromLatin1(second.header("Date")))
                                                                 .arg(-ahead)
                                                                 .arg(advanceMs / 1000)));
    QCOMPARE(second.header("Idempotent-Replayed") == "true", replayed);
    QCOMPARE(second.json.value(QStringLiteral("id")) == first.json.value(QStringLiteral("id")), replayed);
    QCOMPARE(m_client->groundTruthRefunds(), refunds);
}

void TestPaysimIdempotency::rateLimitRunsBeforeIdempotency()
{
    m_client->addFault(QJsonObject{{QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                   {QStringLiteral("fault"), QStringLiteral("rate_limit_429")}});
    const SimClient::Form f = form(QStringLiteral("charge={charge}&amount=2500"));
    const SimReply limited = m_client->post(QStringLiteral("/v1/refunds"), f, QStringLiteral("rl-key"));
    QCOMPARE(limited.status, 429);
    QCOMPARE(limited.errorCode(), QStringLiteral("rate_limit"));
    QCOMPARE(m_client->groundTruthRefunds(), 0);
    QVERIFY(!m_server->idempotency().find(QStringLiteral("sk_test_countersign"), QStringLiteral("rl-key")));

    // The key was not consumed: the retry executes (not a replay of the 429).
    const SimReply retry = m_client->post(QStringLiteral("/v1/refunds"), f, QStringLiteral("rl-key"));
    QCOMPARE(retry.status, 200);
    QVERIFY(retry.header("Idempotent-Replayed").isEmpty());
    QCOMPARE(m_client->groundTruthRefunds(), 1);

    const SimReply again = m_client->post(QStringLiteral("/v1/refunds"), f, QStringLiteral("rl-key"));
    QCOMPARE(again.header("Idempotent-Replayed"), QByteArray("true"));
    QCOMPARE(m_client->groundTruthRefunds(), 1);
}

QTEST_GUILESS_MAIN(TestPaysimIdempotency)
#include "tst_paysim_idempotency.moc"
