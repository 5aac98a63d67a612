// PaysimAdminClient against a real paysim (in-process PaysimServer on 127.0.0.1, ephemeral port):
// each call's request and answer, asynchronous delivery (never from inside the call), paysim's
// error message for a refused rule, and nothing sent without a base URL.

#include "demo/paysimadmin.h"
#include "simulator/paysimconfig.h"
#include "simulator/paysimserver.h"

#include <QJsonArray>
#include <QTest>

#include <memory>
#include <optional>

using namespace cs::demo;

class TestPaysimAdmin : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<cs::paysim::PaysimServer> m_server;
    PaysimAdminClient m_client;

    // Runs one call and waits for its answer; fails the test if the callback ran inside the call.
    HttpReply await(const std::function<void(PaysimAdminClient::Done)> &call)
    {
        std::optional<HttpReply> answer;
        bool inCall = true;
        bool calledInside = false;
        call([&](const HttpReply &reply) {
            calledInside = calledInside || inCall;
            answer = reply;
        });
        inCall = false;
        [&] { QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 10000); }();
        [&] { QVERIFY(!calledInside); }();
        return answer.value_or(HttpReply());
    }

private slots:
    void initTestCase()
    {
        cs::paysim::PaysimConfig config;
        config.seed = 7;
        m_server = std::make_unique<cs::paysim::PaysimServer>(config);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        m_client.setBaseUrl(m_server->baseUrl());
        QCOMPARE(m_client.baseUrl(), m_server->baseUrl());
    }

    void init() { m_server->reset(); }

    void faultRulesRoundTrip()
    {
        const QJsonObject rule{{QStringLiteral("method"), QStringLiteral("POST")}, {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                               {QStringLiteral("fault"), QStringLiteral("rate_limit_429")}, {QStringLiteral("nth"), 1},
                               {QStringLiteral("times"), 2}};
        const HttpReply added = await([&](PaysimAdminClient::Done done) { m_client.addFaults({rule, rule}, done); });
        QCOMPARE(added.status, 200);
        QCOMPARE(added.json().value(QLatin1String("rules")).toArray().size(), 2);

        const HttpReply listed = await([&](PaysimAdminClient::Done done) { m_client.faults(done); });
        QCOMPARE(listed.status, 200);
        const QJsonArray rules = listed.json().value(QLatin1String("rules")).toArray();
        QCOMPARE(rules.size(), 2);
        QCOMPARE(rules.at(0).toObject().value(QLatin1String("fault")).toString(), QStringLiteral("rate_limit_429"));

        const QString id = rules.at(0).toObject().value(QLatin1String("id")).toVariant().toString();
        const HttpReply removed = await([&](PaysimAdminClient::Done done) { m_client.deleteFault(id, done); });
        QCOMPARE(removed.status, 200);
        QCOMPARE(await([&](PaysimAdminClient::Done done) { m_client.faults(done); }).json().value(QLatin1String("rules")).toArray().size(), 1);

        const HttpReply missing = await([&](PaysimAdminClient::Done done) { m_client.deleteFault(id, done); });
        QCOMPARE(missing.status, 404);

        const HttpReply cleared = await([&](PaysimAdminClient::Done done) { m_client.clearFaults(done); });
        QCOMPARE(cleared.status, 200);
        QCOMPARE(m_server->faults().rules().size(), 0);
    }

    void refusedRuleCarriesPaysimsMessage()
    {
        const QJsonObject bad{{QStringLiteral("fault"), QStringLiteral("lookup_lag")}, {QStringLiteral("delay_ms"), 0}};
        const HttpReply refused = await([&](PaysimAdminClient::Done done) { m_client.addFaults({bad}, done); });
        QCOMPARE(refused.status, 400);
        QVERIFY(!PaysimAdminClient::errorOf(refused).isEmpty());
        QVERIFY(PaysimAdminClient::errorOf(refused) != refused.error); // paysim's message, not Qt's text
    }

    void chargesAndGroundTruth()
    {
        const HttpReply charges = await([&](PaysimAdminClient::Done done) { m_client.createCharges({4000, 8900}, done); });
        QCOMPARE(charges.status, 200);
        const QJsonArray data = PaysimAdminClient::dataOf(charges);
        QCOMPARE(data.size(), 2);
        QCOMPARE(data.at(1).toObject().value(QLatin1String("amount")).toInteger(), 8900);
        QVERIFY(data.at(0).toObject().value(QLatin1String("id")).toString().startsWith(QLatin1String("ch_")));

        const HttpReply truth = await([&](PaysimAdminClient::Done done) { m_client.refunds(done); });
        QCOMPARE(truth.status, 200);
        QCOMPARE(PaysimAdminClient::dataOf(truth).size(), 0);
    }

    // The look of a charge as the agent traffic orders it (currency, age, card, dispute), and a
    // bad field refused with paysim's message, nothing created.
    void chargesWithTheirLook()
    {
        const QJsonObject request{{QStringLiteral("amounts"), QJsonArray{2499}}, {QStringLiteral("currency"), QStringLiteral("eur")},
                                  {QStringLiteral("age_seconds"), 86400 * 3}, {QStringLiteral("source"), QStringLiteral("tok_amex")},
                                  {QStringLiteral("disputed"), true}};
        const HttpReply made = await([&](PaysimAdminClient::Done done) { m_client.createChargesFrom(request, done); });
        QCOMPARE(made.status, 200);
        const QJsonObject charge = PaysimAdminClient::dataOf(made).at(0).toObject();
        QCOMPARE(charge.value(QLatin1String("amount")).toInteger(), 2499);
        QCOMPARE(charge.value(QLatin1String("currency")).toString(), QStringLiteral("eur"));
        QCOMPARE(charge.value(QLatin1String("disputed")).toBool(), true);
        QCOMPARE(charge.value(QLatin1String("payment_method_details")).toObject().value(QLatin1String("card")).toObject()
                     .value(QLatin1String("brand")).toString(),
                 QStringLiteral("amex"));

        const QJsonObject bad{{QStringLiteral("amounts"), QJsonArray{2499}}, {QStringLiteral("age_seconds"), -1}};
        const HttpReply refused = await([&](PaysimAdminClient::Done done) { m_client.createChargesFrom(bad, done); });
        QCOMPARE(refused.status, 400);
        QVERIFY2(PaysimAdminClient::errorOf(refused).contains(QLatin1String("age_seconds")), qPrintable(PaysimAdminClient::errorOf(refused)));
    }

    void clockMovesForward()
    {
        const qint64 before = m_server->clock().nowMs();
        const HttpReply moved = await([&](PaysimAdminClient::Done done) { m_client.advanceClock(3600 * 1000, done); });
        QCOMPARE(moved.status, 200);
        QVERIFY(m_server->clock().nowMs() - before >= 3600 * 1000);
    }

    void noAnswerWhenPaysimIsGone()
    {
        PaysimAdminClient client;
        client.setBaseUrl(QUrl(QStringLiteral("http://127.0.0.1:1")));
        const HttpReply none = await([&](PaysimAdminClient::Done done) { client.faults(done); });
        QCOMPARE(none.status, 0);
        QVERIFY(!none.error.isEmpty());
        QCOMPARE(PaysimAdminClient::errorOf(none), none.error);
    }

    void nothingSentWithoutBaseUrl()
    {
        PaysimAdminClient client;
        bool called = false;
        client.faults([&](const HttpReply &) { called = true; });
        QTest::qWait(50);
        QVERIFY(!called);
    }
};

QTEST_GUILESS_MAIN(TestPaysimAdmin)
#include "tst_paysimadmin.moc"
