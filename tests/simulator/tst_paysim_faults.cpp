// Fault injection: what the client sees (answer, silence + FIN, RST, status, delay) and what the
// provider actually committed (ground truth from /_sim/refunds), one row per fault; plus the
// nth/times/every/probability semantics and lookup lag. In-process server, raw sockets.
#include "simulator/paysimserver.h"
#include "tests/simulator/paysimtestsupport.h"

#include <QJsonArray>
#include <QtTest>

#include <memory>

using namespace cs::paysim;
using Outcome = RawConnection::Outcome;

Q_DECLARE_METATYPE(RawConnection::Outcome)

class TestPaysimFaults : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void eachFault_data();
    void eachFault();
    void firingPattern_data();
    void firingPattern();
    void probabilityReplaysWithSeed();
    void matching_data();
    void matching();
    void invalidRulesRefused_data();
    void invalidRulesRefused();
    void rulesListedAndDeleted();
    void lookupLagHidesThenShows();
    void requestLogShowsFault();

private:
    void startServer(quint64 seed);
    QString pattern(const QJsonObject &rule, int requests);

    std::unique_ptr<PaysimServer> m_server;
    std::unique_ptr<SimClient> m_client;
    QString m_charge;
};

void TestPaysimFaults::startServer(quint64 seed)
{
    PaysimConfig config;
    config.seed = seed;
    m_server = std::make_unique<PaysimServer>(config);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<SimClient>(m_server->baseUrl());
    m_charge = m_client->seedCharge(10000);
    QVERIFY(!m_charge.isEmpty());
}

void TestPaysimFaults::init()
{
    startServer(42);
}

void TestPaysimFaults::cleanup()
{
    m_client.reset();
    m_server.reset();
}

void TestPaysimFaults::eachFault_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<Outcome>("outcome");
    QTest::addColumn<int>("status"); // when answered
    QTest::addColumn<QString>("errorType");
    QTest::addColumn<int>("minElapsedMs");
    QTest::addColumn<int>("committedMidway"); // ground truth while the request is held; -1: not probed
    QTest::addColumn<int>("committed");

    QTest::newRow("drop_response_after_commit: FIN, no answer, committed")
        << QStringLiteral(R"({"fault":"drop_response_after_commit"})") << Outcome::ClosedWithoutAnswer << 0 << QString()
        << 0 << -1 << 1;
    QTest::newRow("delay_before_commit: late answer, not committed while held")
        << QStringLiteral(R"({"fault":"delay_before_commit","delay_ms":400})") << Outcome::Answered << 200 << QString()
        << 400 << 0 << 1;
    QTest::newRow("delay_after_commit: late answer, committed while held")
        << QStringLiteral(R"({"fault":"delay_after_commit","delay_ms":400})") << Outcome::Answered << 200 << QString()
        << 400 << 1 << 1;
    QTest::newRow("error_500_before_commit: 500, nothing committed")
        << QStringLiteral(R"({"fault":"error_500_before_commit"})") << Outcome::Answered << 500
        << QStringLiteral("api_error") << 0 << -1 << 0;
    QTest::newRow("error_500_after_commit: 500, committed")
        << QStringLiteral(R"({"fault":"error_500_after_commit"})") << Outcome::Answered << 500
        << QStringLiteral("api_error") << 0 << -1 << 1;
    QTest::newRow("outage_503: 503, nothing committed")
        << QStringLiteral(R"({"fault":"outage_503"})") << Outcome::Answered << 503 << QStringLiteral("api_error") << 0
        << -1 << 0;
    QTest::newRow("reset_connection: RST, nothing committed")
        << QStringLiteral(R"({"fault":"reset_connection"})") << Outcome::Reset << 0 << QString() << 0 << -1 << 0;
    QTest::newRow("reset_connection after_commit: RST, committed")
        << QStringLiteral(R"({"fault":"reset_connection","after_commit":true})") << Outcome::Reset << 0 << QString() << 0
        << -1 << 1;
    QTest::newRow("rate_limit_429: 429, nothing committed")
        << QStringLiteral(R"({"fault":"rate_limit_429"})") << Outcome::Answered << 429
        << QStringLiteral("invalid_request_error") << 0 << -1 << 0;
    QTest::newRow("idempotency_error: 400 idempotency_error, nothing committed")
        << QStringLiteral(R"({"fault":"idempotency_error"})") << Outcome::Answered << 400
        << QStringLiteral("idempotency_error") << 0 << -1 << 0;
    QTest::newRow("lookup_lag: answered 200, committed (hidden from GET)")
        << QStringLiteral(R"({"fault":"lookup_lag","delay_ms":60000})") << Outcome::Answered << 200 << QString() << 0
        << -1 << 1;
    QTest::newRow("clock_advance: answered 200, committed")
        << QStringLiteral(R"({"fault":"clock_advance","advance_ms":3600000})") << Outcome::Answered << 200 << QString()
        << 0 << -1 << 1;
    QTest::newRow("forced_error 402 card_error: answered without executing")
        << QStringLiteral(R"({"fault":"forced_error","status":402,"type":"card_error","code":"card_declined"})")
        << Outcome::Answered << 402 << QStringLiteral("card_error") << 0 << -1 << 0;
}

void TestPaysimFaults::eachFault()
{
    QFETCH(QString, rule);
    QFETCH(Outcome, outcome);
    QFETCH(int, status);
    QFETCH(QString, errorType);
    QFETCH(int, minElapsedMs);
    QFETCH(int, committedMidway);
    QFETCH(int, committed);

    QJsonObject json = QJsonDocument::fromJson(rule.toUtf8()).object();
    json.insert(QStringLiteral("method"), QStringLiteral("POST"));
    json.insert(QStringLiteral("path"), QStringLiteral("/v1/refunds"));
    const QJsonObject stored = m_client->addFault(json);
    QCOMPARE(stored.value(QStringLiteral("fault")), json.value(QStringLiteral("fault")));

    RawConnection connection;
    QVERIFY(connection.open(m_server->port()));
    const QByteArray body = "charge=" + m_charge.toLatin1() + "&amount=4000";
    QVERIFY(connection.send(RawConnection::post(QStringLiteral("/v1/refunds"), body, QStringLiteral("fault-key"))));
    if (committedMidway >= 0) {
        // Probe the ground truth on another connection while the request is held.
        QTest::qWait(minElapsedMs / 3);
        QCOMPARE(m_client->groundTruthRefunds(), committedMidway);
    }
    const RawConnection::Result result = connection.receive(10000);
    QCOMPARE(RawConnection::outcomeName(result.outcome), RawConnection::outcomeName(outcome));
    if (outcome == Outcome::Answered) {
        QCOMPARE(result.status, status);
        QCOMPARE(result.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("type")).toString(), errorType);
        QVERIFY(result.header("Request-Id").startsWith("req_"));
    } else {
        QVERIFY2(result.head.isEmpty(), result.head.constData()); // not a byte of an answer
    }
    QVERIFY2(result.elapsedMs >= minElapsedMs, qPrintable(QString::number(result.elapsedMs)));
    QCOMPARE(m_client->groundTruthRefunds(), committed);

    const QJsonArray rules = m_client->adminGet(QStringLiteral("/_sim/faults")).json.value(QStringLiteral("rules")).toArray();
    QCOMPARE(rules.size(), 1);
    QCOMPARE(rules.at(0).toObject().value(QStringLiteral("fired")).toInt(), 1);

    if (json.value(QStringLiteral("fault")).toString() == QLatin1String("clock_advance"))
        QVERIFY(m_server->clock().offsetMs() >= 3600000);

    // The fault fired once (times defaults to 1): the same request again is not faulted.
    const RawConnection::Result next = RawConnection::once(
        m_server->port(), RawConnection::post(QStringLiteral("/v1/refunds"), "charge=" + m_charge.toLatin1() + "&amount=100"));
    QCOMPARE(RawConnection::outcomeName(next.outcome), RawConnection::outcomeName(Outcome::Answered));
    QCOMPARE(next.status, 200);
}

// One character per request: '1' when the rule fired (503), '0' when not (404 for an unknown charge).
QString TestPaysimFaults::pattern(const QJsonObject &rule, int requests)
{
    m_client->addFault(rule);
    QString out;
    for (int i = 0; i < requests; ++i) {
        const SimReply r = m_client->get(QStringLiteral("/v1/charges/ch_missing"));
        out.append(r.status == 503 ? u'1' : r.status == 404 ? u'0' : u'?');
    }
    return out;
}

void TestPaysimFaults::firingPattern_data()
{
    QTest::addColumn<int>("nth");
    QTest::addColumn<int>("times");
    QTest::addColumn<int>("every");
    QTest::addColumn<QString>("expected");

    QTest::newRow("nth 1, times 1: the first request only") << 1 << 1 << 1 << QStringLiteral("10000000");
    QTest::newRow("nth 3, times 1: the third request only") << 3 << 1 << 1 << QStringLiteral("00100000");
    QTest::newRow("nth 2, times 3: second, third, fourth") << 2 << 3 << 1 << QStringLiteral("01110000");
    QTest::newRow("nth 2, times 0: from the second on") << 2 << 0 << 1 << QStringLiteral("01111111");
    QTest::newRow("nth 2, every 3, times 0: 2nd, 5th, 8th") << 2 << 0 << 3 << QStringLiteral("01001001");
    QTest::newRow("nth 1, every 2, times 2: 1st and 3rd") << 1 << 2 << 2 << QStringLiteral("10100000");
}

void TestPaysimFaults::firingPattern()
{
    QFETCH(int, nth);
    QFETCH(int, times);
    QFETCH(int, every);
    QFETCH(QString, expected);
    const QJsonObject rule{{QStringLiteral("method"), QStringLiteral("GET")},
                           {QStringLiteral("path"), QStringLiteral("/v1/charges/*")},
                           {QStringLiteral("fault"), QStringLiteral("outage_503")},
                           {QStringLiteral("nth"), nth},
                           {QStringLiteral("times"), times},
                           {QStringLiteral("every"), every}};
    QCOMPARE(pattern(rule, static_cast<int>(expected.size())), expected);
}

void TestPaysimFaults::probabilityReplaysWithSeed()
{
    const QJsonObject rule{{QStringLiteral("path"), QStringLiteral("/v1/charges/*")},
                           {QStringLiteral("fault"), QStringLiteral("outage_503")},
                           {QStringLiteral("times"), 0},
                           {QStringLiteral("probability"), 0.5}};
    const QString first = pattern(rule, 32);
    QVERIFY2(first.contains(u'1') && first.contains(u'0'), qPrintable(first));
    QVERIFY(!first.contains(u'?'));

    // Reset restarts the PRNG from the seed: the same rule fires on the same requests.
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/reset")).status, 200);
    QCOMPARE(pattern(rule, 32), first);

    // Another seed, another pattern.
    cleanup();
    startServer(43);
    const QString other = pattern(rule, 32);
    QVERIFY2(other != first, qPrintable(other));

    // Probability 0 never fires and draws nothing.
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/reset")).status, 200);
    QJsonObject never = rule;
    never.insert(QStringLiteral("probability"), 0.0);
    QCOMPARE(pattern(never, 8), QStringLiteral("00000000"));
}

void TestPaysimFaults::matching_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("requestPath");
    QTest::addColumn<bool>("fires");

    QTest::newRow("exact path matches") << QStringLiteral("GET") << QStringLiteral("/v1/refunds") << QStringLiteral("/v1/refunds") << true;
    QTest::newRow("exact path does not match a longer one") << QStringLiteral("GET") << QStringLiteral("/v1/refunds")
                                                             << QStringLiteral("/v1/refunds/re_1") << false;
    QTest::newRow("trailing * matches a prefix") << QStringLiteral("GET") << QStringLiteral("/v1/refunds*")
                                                 << QStringLiteral("/v1/refunds/re_1") << true;
    QTest::newRow("* matches any path") << QStringLiteral("*") << QStringLiteral("*") << QStringLiteral("/v1/events") << true;
    QTest::newRow("method must match") << QStringLiteral("POST") << QStringLiteral("*") << QStringLiteral("/v1/events") << false;
    QTest::newRow("method is case-insensitive") << QStringLiteral("get") << QStringLiteral("/v1/events")
                                                << QStringLiteral("/v1/events") << true;
}

void TestPaysimFaults::matching()
{
    QFETCH(QString, method);
    QFETCH(QString, path);
    QFETCH(QString, requestPath);
    QFETCH(bool, fires);
    m_client->addFault(QJsonObject{{QStringLiteral("method"), method},
                                   {QStringLiteral("path"), path},
                                   {QStringLiteral("fault"), QStringLiteral("outage_503")}});
    QCOMPARE(m_client->get(requestPath).status == 503, fires);
}

void TestPaysimFaults::invalidRulesRefused_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<int>("status");

    QTest::newRow("valid rule accepted") << QStringLiteral(R"({"fault":"outage_503","path":"/v1/refunds"})") << 200;
    QTest::newRow("unknown fault name") << QStringLiteral(R"({"fault":"explode"})") << 400;
    QTest::newRow("missing fault") << QStringLiteral(R"({"path":"/v1/refunds"})") << 400;
    QTest::newRow("probability above 1") << QStringLiteral(R"({"fault":"outage_503","probability":1.5})") << 400;
    QTest::newRow("nth 0") << QStringLiteral(R"({"fault":"outage_503","nth":0})") << 400;
    QTest::newRow("negative times") << QStringLiteral(R"({"fault":"outage_503","times":-1})") << 400;
    QTest::newRow("delay fault without delay_ms") << QStringLiteral(R"({"fault":"delay_after_commit"})") << 400;
    QTest::newRow("path without slash") << QStringLiteral(R"({"fault":"outage_503","path":"v1/refunds"})") << 400;
    QTest::newRow("refund_settles accepted") << QStringLiteral(R"({"fault":"refund_settles","after_seconds":60,"to":"failed","failure_reason":"lost_or_stolen_card"})") << 200;
    QTest::newRow("refund_settles after 0 s accepted") << QStringLiteral(R"({"fault":"refund_settles","to":"canceled"})") << 200;
    QTest::newRow("refund_settles without to") << QStringLiteral(R"({"fault":"refund_settles","after_seconds":60})") << 400;
    QTest::newRow("refund_settles to pending") << QStringLiteral(R"({"fault":"refund_settles","to":"pending"})") << 400;
    QTest::newRow("refund_settles negative after_seconds") << QStringLiteral(R"({"fault":"refund_settles","after_seconds":-1,"to":"succeeded"})") << 400;
    QTest::newRow("refund_settles fractional after_seconds") << QStringLiteral(R"({"fault":"refund_settles","after_seconds":1.5,"to":"succeeded"})") << 400;
    QTest::newRow("refund_settles failure_reason without failed") << QStringLiteral(R"({"fault":"refund_settles","to":"succeeded","failure_reason":"declined"})") << 400;
    QTest::newRow("refund_settles unknown failure_reason") << QStringLiteral(R"({"fault":"refund_settles","to":"failed","failure_reason":"card_melted"})") << 400;
    QTest::newRow("unknown field (typo)") << QStringLiteral(R"({"fault":"outage_503","tmies":2})") << 400;
    QTest::newRow("forced_error with a 2xx status") << QStringLiteral(R"({"fault":"forced_error","status":200})") << 400;
}

void TestPaysimFaults::invalidRulesRefused()
{
    QFETCH(QString, rule);
    QFETCH(int, status);
    const SimReply r = m_client->adminPost(
        QStringLiteral("/_sim/faults"),
        QJsonObject{{QStringLiteral("rules"), QJsonArray{QJsonDocument::fromJson(rule.toUtf8()).object()}}});
    QCOMPARE(r.status, status);
    QCOMPARE(m_server->faults().rules().size(), status == 200 ? 1 : 0);
}

void TestPaysimFaults::rulesListedAndDeleted()
{
    const SimReply added = m_client->adminPost(
        QStringLiteral("/_sim/faults"),
        QJsonObject{{QStringLiteral("rules"),
                     QJsonArray{QJsonObject{{QStringLiteral("fault"), QStringLiteral("outage_503")}, {QStringLiteral("nth"), 5}},
                                QJsonObject{{QStringLiteral("fault"), QStringLiteral("rate_limit_429")}}}}});
    QCOMPARE(added.status, 200);
    const QJsonArray ids = added.json.value(QStringLiteral("added")).toArray();
    QCOMPARE(ids.size(), 2);
    const QJsonArray listed = m_client->adminGet(QStringLiteral("/_sim/faults")).json.value(QStringLiteral("rules")).toArray();
    QCOMPARE(listed.size(), 2);
    QCOMPARE(listed.at(0).toObject().value(QStringLiteral("nth")).toInt(), 5);
    QCOMPARE(listed.at(1).toObject().value(QStringLiteral("times")).toInt(), 1); // default

    QCOMPARE(m_client->adminDelete(QStringLiteral("/_sim/faults/") + ids.at(0).toString()).status, 200);
    QCOMPARE(m_server->faults().rules().size(), 1);
    QCOMPARE(m_client->adminDelete(QStringLiteral("/_sim/faults/flt_999")).status, 404);
    QCOMPARE(m_client->adminDelete(QStringLiteral("/_sim/faults")).status, 200);
    QCOMPARE(m_server->faults().rules().size(), 0);
}

void TestPaysimFaults::lookupLagHidesThenShows()
{
    m_client->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                   {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                   {QStringLiteral("fault"), QStringLiteral("lookup_lag")},
                                   {QStringLiteral("delay_ms"), 120000}});
    const SimReply created = m_client->post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), m_charge}},
                                            QStringLiteral("lag-key"));
    QCOMPARE(created.status, 200);
    const QString id = created.json.value(QStringLiteral("id")).toString();

    auto listed = [&] {
        return m_client->get(QStringLiteral("/v1/refunds?charge=") + m_charge).json.value(QStringLiteral("data")).toArray().size();
    };
    auto refundEvents = [&] {
        return m_client->get(QStringLiteral("/v1/events?type=refund.created")).json.value(QStringLiteral("data")).toArray().size();
    };
    QCOMPARE(m_client->get(QStringLiteral("/v1/refunds/") + id).status, 404);
    QCOMPARE(listed(), 0);
    QCOMPARE(refundEvents(), 0);
    QCOMPARE(m_client->groundTruthRefunds(), 1); // the oracle always sees it

    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/clock"), QJsonObject{{QStringLiteral("advance_ms"), 60000}}).status, 200);
    QCOMPARE(m_client->get(QStringLiteral("/v1/refunds/") + id).status, 404); // half-way: still hidden

    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/clock"), QJsonObject{{QStringLiteral("advance_ms"), 60000}}).status, 200);
    const SimReply shown = m_client->get(QStringLiteral("/v1/refunds/") + id);
    QCOMPARE(shown.status, 200);
    QCOMPARE(shown.json.value(QStringLiteral("amount")).toInteger(), 10000);
    QCOMPARE(listed(), 1);
    QCOMPARE(refundEvents(), 1);
}

void TestPaysimFaults::requestLogShowsFault()
{
    m_client->addFault(QJsonObject{{QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                   {QStringLiteral("fault"), QStringLiteral("drop_response_after_commit")}});
    const RawConnection::Result dropped = RawConnection::once(
        m_server->port(), RawConnection::post(QStringLiteral("/v1/refunds"), "charge=" + m_charge.toLatin1(), QStringLiteral("log-key")));
    QCOMPARE(RawConnection::outcomeName(dropped.outcome), RawConnection::outcomeName(Outcome::ClosedWithoutAnswer));
    // The retry with the same key gets the committed refund back as a replay.
    const SimReply retry = m_client->post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), m_charge}},
                                          QStringLiteral("log-key"), QStringLiteral("sk_test_raw"));
    QCOMPARE(retry.status, 200);
    QCOMPARE(retry.header("Idempotent-Replayed"), QByteArray("true"));
    QCOMPARE(m_client->groundTruthRefunds(), 1);

    const QJsonArray log = m_client->adminGet(QStringLiteral("/_sim/requests")).json.value(QStringLiteral("data")).toArray();
    QCOMPARE(log.size(), 2);
    QCOMPARE(log.at(0).toObject().value(QStringLiteral("fault")).toString(), QStringLiteral("drop_response_after_commit"));
    QCOMPARE(log.at(0).toObject().value(QStringLiteral("outcome")).toString(), QStringLiteral("dropped"));
    QCOMPARE(log.at(1).toObject().value(QStringLiteral("outcome")).toString(), QStringLiteral("replayed"));
    QCOMPARE(log.at(1).toObject().value(QStringLiteral("status")).toInt(), 200);
}

QTEST_GUILESS_MAIN(TestPaysimFaults)
#include "tst_paysim_faults.moc"
