// paysim's Stripe-compatible API: charges, refunds, list paging, events, errors, HTTP framing,
// webhook signatures (verified here independently), and the real `paysim` executable:
// first-line URL, persistence with --db across a restart, clean SIGTERM exit, CLI options.
#include "simulator/httpexchange.h"
#include "simulator/httplistener.h"
#include "simulator/paysimserver.h"
#include "tests/simulator/paysimtestsupport.h"

#include <QDateTime>
#include <QJsonArray>
#include <QMessageAuthenticationCode>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace cs::paysim;

#ifndef PAYSIM_BIN
#error "PAYSIM_BIN must name the paysim executable"
#endif

namespace {

// Starts the real paysim and reads its base URL from the first line of stdout.
class PaysimProcess
{
public:
    bool start(const QStringList &arguments)
    {
        m_process.setProgram(QStringLiteral(PAYSIM_BIN));
        m_process.setArguments(arguments);
        m_process.start();
        if (!m_process.waitForStarted(5000))
            return false;
        QElapsedTimer timer;
        timer.start();
        while (!m_process.canReadLine() && timer.elapsed() < 10000) {
            if (!m_process.waitForReadyRead(200) && m_process.state() != QProcess::Running)
                return false;
        }
        const QString line = QString::fromUtf8(m_process.readLine()).trimmed();
        url = QUrl(line);
        return url.isValid() && url.scheme() == QLatin1String("http") && url.port() > 0;
    }
    bool stop(int signalNumber = SIGTERM)
    {
        ::kill(static_cast<pid_t>(m_process.processId()), signalNumber);
        return m_process.waitForFinished(5000);
    }
    ~PaysimProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(2000);
        }
    }
    QProcess m_process;
    QUrl url;
};

QString refundId(const SimReply &r)
{
    return r.json.value(QStringLiteral("id")).toString();
}

QStringList ids(const SimReply &r)
{
    QStringList out;
    for (const QJsonValue &v : r.json.value(QStringLiteral("data")).toArray())
        out << v.toObject().value(QStringLiteral("id")).toString();
    return out;
}

} // namespace

class TestPaysimApi : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void charges();
    void refundsDefaultAndPartial();
    void refundByPaymentIntent();
    void chargeAsStripe();
    void chargeExpandsRefunds();
    void paymentIntent();
    void disputes();
    void seedRefusals_data();
    void seedRefusals();
    void seededLookSurvivesRestart();
    void errors_data();
    void errors();
    void httpFraming_data();
    void httpFraming();
    void keepAliveAndPipelining();
    void listPaging();
    void events();
    void failedRefundGivesAmountBack();
    void webhooksSignedAndRetried();
    void executablePersistsAcrossRestart();
    void executableCommandLine_data();
    void executableCommandLine();
    void executableAppliesStartupFaults();

private:
    std::unique_ptr<PaysimServer> m_server;
    std::unique_ptr<SimClient> m_client;
};

void TestPaysimApi::init()
{
    PaysimConfig config;
    config.seed = 3;
    m_server = std::make_unique<PaysimServer>(config);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<SimClient>(m_server->baseUrl());
}

void TestPaysimApi::cleanup()
{
    m_client.reset();
    m_server.reset();
}

void TestPaysimApi::charges()
{
    const SimReply created = m_client->post(QStringLiteral("/v1/charges"),
                                            {{QStringLiteral("amount"), QStringLiteral("8900")},
                                             {QStringLiteral("currency"), QStringLiteral("USD")},
                                             {QStringLiteral("source"), QStringLiteral("tok_mastercard")},
                                             {QStringLiteral("metadata[order]"), QStringLiteral("4821")}},
                                            QStringLiteral("charge-key"));
    QCOMPARE(created.status, 200);
    const QJsonObject c = created.json;
    QVERIFY(c.value(QStringLiteral("id")).toString().startsWith(QLatin1String("ch_")));
    QCOMPARE(c.value(QStringLiteral("object")).toString(), QStringLiteral("charge"));
    QCOMPARE(c.value(QStringLiteral("amount")).toInteger(), 8900);
    QCOMPARE(c.value(QStringLiteral("currency")).toString(), QStringLiteral("usd"));
    QCOMPARE(c.value(QStringLiteral("livemode")).toBool(true), false);
    QCOMPARE(c.value(QStringLiteral("refunded")).toBool(true), false);
    QCOMPARE(c.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("order")).toString(), QStringLiteral("4821"));
    QVERIFY(c.value(QStringLiteral("payment_intent")).toString().startsWith(QLatin1String("pi_")));
    QVERIFY(qAbs(c.value(QStringLiteral("created")).toInteger() - QDateTime::currentSecsSinceEpoch()) < 60);

    const SimReply fetched = m_client->get(QStringLiteral("/v1/charges/") + c.value(QStringLiteral("id")).toString());
    QCOMPARE(fetched.status, 200);
    QCOMPARE(fetched.json, c);

    const SimReply declined = m_client->post(QStringLiteral("/v1/charges"),
                                             {{QStringLiteral("amount"), QStringLiteral("500")},
                                              {QStringLiteral("currency"), QStringLiteral("usd")},
                                              {QStringLiteral("source"), QStringLiteral("tok_chargeDeclined")}});
    QCOMPARE(declined.status, 402);
    QCOMPARE(declined.errorType(), QStringLiteral("card_error"));
    QCOMPARE(declined.errorCode(), QStringLiteral("card_declined"));

    const SimReply list = m_client->get(QStringLiteral("/v1/charges"));
    QCOMPARE(ids(list), QStringList{c.value(QStringLiteral("id")).toString()});
}

void TestPaysimApi::refundsDefaultAndPartial()
{
    const QString charge = m_client->seedCharge(4000);
    const SimReply partial = m_client->post(QStringLiteral("/v1/refunds"),
                                            {{QStringLiteral("charge"), charge},
                                             {QStringLiteral("amount"), QStringLiteral("1500")},
                                             {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
                                             {QStringLiteral("metadata[action]"), QStringLiteral("act_1")}});
    QCOMPARE(partial.status, 200);
    QCOMPARE(partial.json.value(QStringLiteral("object")).toString(), QStringLiteral("refund"));
    QCOMPARE(partial.json.value(QStringLiteral("amount")).toInteger(), 1500);
    QCOMPARE(partial.json.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(partial.json.value(QStringLiteral("reason")).toString(), QStringLiteral("requested_by_customer"));
    QCOMPARE(partial.json.value(QStringLiteral("charge")).toString(), charge);

    SimReply c = m_client->get(QStringLiteral("/v1/charges/") + charge);
    QCOMPARE(c.json.value(QStringLiteral("amount_refunded")).toInteger(), 1500);
    QCOMPARE(c.json.value(QStringLiteral("refunded")).toBool(true), false);

    // No amount: the remaining refundable amount.
    const SimReply rest = m_client->post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), charge}});
    QCOMPARE(rest.status, 200);
    QCOMPARE(rest.json.value(QStringLiteral("amount")).toInteger(), 2500);
    c = m_client->get(QStringLiteral("/v1/charges/") + charge);
    QCOMPARE(c.json.value(QStringLiteral("amount_refunded")).toInteger(), 4000);
    QCOMPARE(c.json.value(QStringLiteral("refunded")).toBool(false), true);

    const QJsonArray truth = m_client->adminGet(QStringLiteral("/_sim/refunds")).json.value(QStringLiteral("data")).toArray();
    QCOMPARE(truth.size(), 2);
    const QJsonObject first = truth.at(0).toObject();
    for (const char *field : {"id", "charge", "payment_intent", "amount", "currency", "idempotency_key", "metadata", "created", "status"})
        QVERIFY2(first.contains(QLatin1String(field)), field);
    QCOMPARE(first.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("action")).toString(), QStringLiteral("act_1"));
}

void TestPaysimApi::refundByPaymentIntent()
{
    const QString charge = m_client->seedCharge(3000);
    const QString pi = m_client->get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("payment_intent")).toString();
    const SimReply r = m_client->post(QStringLiteral("/v1/refunds"),
                                      {{QStringLiteral("payment_intent"), pi}, {QStringLiteral("amount"), QStringLiteral("1000")}});
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json.value(QStringLiteral("charge")).toString(), charge);
    QCOMPARE(r.json.value(QStringLiteral("payment_intent")).toString(), pi);
    // Stripe refunds a PaymentIntent's latest charge: that is the charge refunded here.
    const SimReply intent = m_client->get(QStringLiteral("/v1/payment_intents/") + pi);
    QCOMPARE(intent.json.value(QStringLiteral("latest_charge")).toString(), charge);
    QCOMPARE(intent.json.value(QStringLiteral("amount_received")).toInteger(), 3000);
    const SimReply listed = m_client->get(QStringLiteral("/v1/refunds?payment_intent=") + pi);
    QCOMPARE(ids(listed), QStringList{refundId(r)});
}

namespace {

QJsonObject seedOne(SimClient &client, const QJsonObject &extra)
{
    QJsonObject body = extra;
    body.insert(QStringLiteral("amounts"), QJsonArray{9900});
    const SimReply r = client.adminPost(QStringLiteral("/_sim/charges"), body);
    return r.json.value(QStringLiteral("data")).toArray().at(0).toObject();
}

SimClient::Form refundForm(const QString &charge, qint64 amount, const QString &actionId)
{
    SimClient::Form form{{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QString::number(amount)}};
    if (!actionId.isEmpty())
        form.append({QStringLiteral("metadata[countersign_action_id]"), actionId});
    return form;
}

} // namespace

// The fields Countersign reads of a charge (docs.stripe.com/api/charges/object).
void TestPaysimApi::chargeAsStripe()
{
    const qint64 ageSeconds = 200LL * 86400;
    const QJsonObject seeded = seedOne(*m_client, {{QStringLiteral("age_seconds"), ageSeconds},
                                                   {QStringLiteral("source"), QStringLiteral("tok_amex")},
                                                   {QStringLiteral("card"), QJsonObject{{QStringLiteral("last4"), QStringLiteral("0005")}}}});
    const QString id = seeded.value(QStringLiteral("id")).toString();
    QVERIFY(id.startsWith(QLatin1String("ch_")));
    m_client->post(QStringLiteral("/v1/refunds"), refundForm(id, 1200, QString()));
    const SimReply got = m_client->get(QStringLiteral("/v1/charges/") + id);
    QCOMPARE(got.status, 200);
    const QJsonObject c = got.json;
    QCOMPARE(c.value(QStringLiteral("amount")).toInteger(), 9900);
    QCOMPARE(c.value(QStringLiteral("amount_captured")).toInteger(), 9900);
    QCOMPARE(c.value(QStringLiteral("amount_refunded")).toInteger(), 1200);
    QCOMPARE(c.value(QStringLiteral("captured")).toBool(false), true);
    QVERIFY(c.value(QStringLiteral("disputed")).isBool());
    QCOMPARE(c.value(QStringLiteral("disputed")).toBool(true), false);
    const qint64 expectedCreated = m_server->clock().nowSeconds() - ageSeconds;
    QVERIFY2(qAbs(c.value(QStringLiteral("created")).toInteger() - expectedCreated) <= 2,
             qPrintable(QString::number(c.value(QStringLiteral("created")).toInteger())));
    const QJsonObject pmd = c.value(QStringLiteral("payment_method_details")).toObject();
    QCOMPARE(pmd.value(QStringLiteral("type")).toString(), QStringLiteral("card"));
    QCOMPARE(pmd.value(QStringLiteral("card")).toObject().value(QStringLiteral("brand")).toString(), QStringLiteral("amex"));
    QCOMPARE(pmd.value(QStringLiteral("card")).toObject().value(QStringLiteral("last4")).toString(), QStringLiteral("0005"));
    // Stripe's spec: refunds is a nullable list, filled only when expanded.
    QVERIFY2(c.contains(QStringLiteral("refunds")) && c.value(QStringLiteral("refunds")).isNull(),
             "refunds is null unless expanded");
    QCOMPARE(c.value(QStringLiteral("payment_method")).toString(), QStringLiteral("pm_") + id.mid(3));
    const QJsonObject outcome = c.value(QStringLiteral("outcome")).toObject();
    QCOMPARE(outcome.value(QStringLiteral("type")).toString(), QStringLiteral("authorized"));
    QCOMPARE(outcome.value(QStringLiteral("network_status")).toString(), QStringLiteral("approved_by_network"));

    // The defaults: a visa ending 4242 bought now.
    const QJsonObject plain = seedOne(*m_client, {});
    const QJsonObject card = plain.value(QStringLiteral("payment_method_details")).toObject().value(QStringLiteral("card")).toObject();
    QCOMPARE(card.value(QStringLiteral("brand")).toString(), QStringLiteral("visa"));
    QCOMPARE(card.value(QStringLiteral("last4")).toString(), QStringLiteral("4242"));
    QVERIFY(qAbs(plain.value(QStringLiteral("created")).toInteger() - m_server->clock().nowSeconds()) <= 2);
    // A brand alone overrides the source's.
    const QJsonObject branded = seedOne(*m_client, {{QStringLiteral("card"), QJsonObject{{QStringLiteral("brand"), QStringLiteral("discover")}}}});
    const QJsonObject brandedCard = branded.value(QStringLiteral("payment_method_details")).toObject().value(QStringLiteral("card")).toObject();
    QCOMPARE(brandedCard.value(QStringLiteral("brand")).toString(), QStringLiteral("discover"));
    QCOMPARE(brandedCard.value(QStringLiteral("last4")).toString(), QStringLiteral("4242"));
}

// expand[]=refunds: Stripe's list object with the 10 newest refunds, has_more and url; a refund
// made "in the dashboard" (no Countersign metadata) is listed like any other.
void TestPaysimApi::chargeExpandsRefunds()
{
    const QString charge = m_client->seedCharge(10000);
    QStringList made;
    for (int i = 0; i < 11; ++i) {
        const SimReply r = m_client->post(QStringLiteral("/v1/refunds"),
                                          refundForm(charge, 100 + i, QStringLiteral("act_%1").arg(i)));
        QCOMPARE(r.status, 200);
        made.prepend(refundId(r));
    }
    const SimReply dashboard = m_client->post(QStringLiteral("/v1/refunds"), refundForm(charge, 500, QString()));
    QCOMPARE(dashboard.status, 200);
    QVERIFY(dashboard.json.value(QStringLiteral("metadata")).toObject().isEmpty());
    made.prepend(refundId(dashboard));

    const SimReply got = m_client->get(QStringLiteral("/v1/charges/%1?expand[]=refunds").arg(charge));
    QCOMPARE(got.status, 200);
    const QJsonObject list = got.json.value(QStringLiteral("refunds")).toObject();
    QCOMPARE(list.value(QStringLiteral("object")).toString(), QStringLiteral("list"));
    QCOMPARE(list.value(QStringLiteral("has_more")).toBool(false), true);
    QCOMPARE(list.value(QStringLiteral("url")).toString(), QStringLiteral("/v1/charges/%1/refunds").arg(charge));
    QStringList listed;
    for (const QJsonValue &v : list.value(QStringLiteral("data")).toArray())
        listed << v.toObject().value(QStringLiteral("id")).toString();
    QCOMPARE(listed, made.mid(0, 10)); // newest first: the dashboard refund leads
    const QJsonObject newest = list.value(QStringLiteral("data")).toArray().at(0).toObject();
    QCOMPARE(newest.value(QStringLiteral("object")).toString(), QStringLiteral("refund"));
    QCOMPARE(newest.value(QStringLiteral("amount")).toInteger(), 500);
    QCOMPARE(newest.value(QStringLiteral("charge")).toString(), charge);
    QCOMPARE(list.value(QStringLiteral("data")).toArray().at(1).toObject().value(QStringLiteral("metadata")).toObject()
                 .value(QStringLiteral("countersign_action_id")).toString(),
             QStringLiteral("act_10"));
    QCOMPARE(got.json.value(QStringLiteral("amount_refunded")).toInteger(), 500 + 11 * 100 + 55);
    // The rest, as a client pages on: /v1/refunds?charge=…&starting_after=<the 10th>.
    const SimReply rest = m_client->get(QStringLiteral("/v1/refunds?charge=%1&starting_after=%2").arg(charge, listed.last()));
    QCOMPARE(ids(rest), made.mid(10));

    // Exactly 10 refunds: no more to page.
    const QString small = m_client->seedCharge(1000);
    for (int i = 0; i < 10; ++i)
        QCOMPARE(m_client->post(QStringLiteral("/v1/refunds"), refundForm(small, 10, QString())).status, 200);
    const QJsonObject smallList = m_client->get(QStringLiteral("/v1/charges/%1?expand[0]=refunds").arg(small))
                                      .json.value(QStringLiteral("refunds")).toObject();
    QCOMPARE(smallList.value(QStringLiteral("data")).toArray().size(), 10);
    QCOMPARE(smallList.value(QStringLiteral("has_more")).toBool(true), false);

    const SimReply bad = m_client->get(QStringLiteral("/v1/charges/%1?expand[]=customer").arg(charge));
    QCOMPARE(bad.status, 400);
    QCOMPARE(bad.errorType(), QStringLiteral("invalid_request_error"));
    QVERIFY(bad.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString()
                .contains(QLatin1String("cannot be expanded (customer)")));
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/%1?expand=refunds").arg(charge)).status, 400);
}

// GET /v1/payment_intents/{id} (docs.stripe.com/api/payment_intents/object).
void TestPaysimApi::paymentIntent()
{
    const QJsonObject charge = seedOne(*m_client, {{QStringLiteral("age_seconds"), 3600}});
    const QString pi = charge.value(QStringLiteral("payment_intent")).toString();
    const SimReply got = m_client->get(QStringLiteral("/v1/payment_intents/") + pi);
    QCOMPARE(got.status, 200);
    const QJsonObject p = got.json;
    QCOMPARE(p.value(QStringLiteral("id")).toString(), pi);
    QCOMPARE(p.value(QStringLiteral("object")).toString(), QStringLiteral("payment_intent"));
    QCOMPARE(p.value(QStringLiteral("amount")).toInteger(), 9900);
    QCOMPARE(p.value(QStringLiteral("amount_received")).toInteger(), 9900);
    QCOMPARE(p.value(QStringLiteral("amount_capturable")).toInteger(-1), 0);
    QCOMPARE(p.value(QStringLiteral("currency")).toString(), QStringLiteral("usd"));
    QCOMPARE(p.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(p.value(QStringLiteral("latest_charge")).toString(), charge.value(QStringLiteral("id")).toString());
    QCOMPARE(p.value(QStringLiteral("created")).toInteger(), charge.value(QStringLiteral("created")).toInteger());
    QVERIFY(p.value(QStringLiteral("metadata")).isObject());
    QCOMPARE(p.value(QStringLiteral("livemode")).toBool(true), false);
    QCOMPARE(p.value(QStringLiteral("payment_method_types")).toArray(), QJsonArray{QStringLiteral("card")});

    const SimReply expanded = m_client->get(QStringLiteral("/v1/payment_intents/%1?expand[]=latest_charge").arg(pi));
    QCOMPARE(expanded.status, 200);
    QCOMPARE(expanded.json.value(QStringLiteral("latest_charge")).toObject(), charge);

    const SimReply missing = m_client->get(QStringLiteral("/v1/payment_intents/pi_nope"));
    QCOMPARE(missing.status, 404);
    QCOMPARE(missing.errorCode(), QStringLiteral("resource_missing"));
    QCOMPARE(missing.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString(),
             QStringLiteral("No such payment_intent: 'pi_nope'"));
    QCOMPARE(m_client->post(QStringLiteral("/v1/payment_intents/") + pi, {}).status, 404);
    QCOMPARE(m_client->get(QStringLiteral("/v1/payment_intents")).status, 404);
}

void TestPaysimApi::disputes()
{
    const QString charge = m_client->seedCharge(5000);
    const SimReply disputed = m_client->adminPost(QStringLiteral("/_sim/charges/%1/dispute").arg(charge),
                                                  {{QStringLiteral("reason"), QStringLiteral("fraudulent")}});
    QCOMPARE(disputed.status, 200);
    QCOMPARE(disputed.json.value(QStringLiteral("disputed")).toBool(false), true);
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("disputed")).toBool(false), true);
    const SimReply events = m_client->get(QStringLiteral("/v1/events?type=charge.dispute.created"));
    const QJsonArray data = events.json.value(QStringLiteral("data")).toArray();
    QCOMPARE(data.size(), 1);
    const QJsonObject dispute = data.at(0).toObject().value(QStringLiteral("data")).toObject().value(QStringLiteral("object")).toObject();
    QCOMPARE(dispute.value(QStringLiteral("object")).toString(), QStringLiteral("dispute"));
    QVERIFY(dispute.value(QStringLiteral("id")).toString().startsWith(QLatin1String("dp_")));
    QCOMPARE(dispute.value(QStringLiteral("charge")).toString(), charge);
    QCOMPARE(dispute.value(QStringLiteral("amount")).toInteger(), 5000);
    QCOMPARE(dispute.value(QStringLiteral("reason")).toString(), QStringLiteral("fraudulent"));
    QCOMPARE(dispute.value(QStringLiteral("status")).toString(), QStringLiteral("needs_response"));

    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/charges/%1/dispute").arg(charge)).status, 400); // once only
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/charges/ch_nope/dispute")).status, 404);
    const QString other = m_client->seedCharge(100);
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/charges/%1/dispute").arg(other),
                                 {{QStringLiteral("reason"), QStringLiteral("because")}}).status, 400);
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/") + other).json.value(QStringLiteral("disputed")).toBool(true), false);

    // Or disputed when seeded (reason "general").
    const QJsonObject seeded = seedOne(*m_client, {{QStringLiteral("disputed"), true}});
    QCOMPARE(seeded.value(QStringLiteral("disputed")).toBool(false), true);
    QCOMPARE(m_client->get(QStringLiteral("/v1/events?type=charge.dispute.created")).json.value(QStringLiteral("data")).toArray().size(), 2);
}

void TestPaysimApi::seedRefusals_data()
{
    QTest::addColumn<QJsonObject>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("negative age") << QJsonObject{{QStringLiteral("age_seconds"), -1}} << "'age_seconds'";
    QTest::newRow("fractional age") << QJsonObject{{QStringLiteral("age_seconds"), 1.5}} << "'age_seconds'";
    QTest::newRow("age as text") << QJsonObject{{QStringLiteral("age_seconds"), QStringLiteral("3600")}} << "'age_seconds'";
    QTest::newRow("age over ten years") << QJsonObject{{QStringLiteral("age_seconds"), 11LL * 366 * 86400}} << "'age_seconds'";
    QTest::newRow("unknown source") << QJsonObject{{QStringLiteral("source"), QStringLiteral("tok_chargeDeclined")}} << "'source'";
    QTest::newRow("card not an object") << QJsonObject{{QStringLiteral("card"), QStringLiteral("visa")}} << "'card'";
    QTest::newRow("brand with capitals") << QJsonObject{{QStringLiteral("card"), QJsonObject{{QStringLiteral("brand"), QStringLiteral("Visa")}}}} << "'card.brand'";
    QTest::newRow("last4 of three digits") << QJsonObject{{QStringLiteral("card"), QJsonObject{{QStringLiteral("last4"), QStringLiteral("424")}}}} << "'card.last4'";
    QTest::newRow("last4 as a number") << QJsonObject{{QStringLiteral("card"), QJsonObject{{QStringLiteral("last4"), 4242}}}} << "'card.last4'";
    QTest::newRow("disputed as text") << QJsonObject{{QStringLiteral("disputed"), QStringLiteral("yes")}} << "'disputed'";
}

void TestPaysimApi::seedRefusals()
{
    QFETCH(QJsonObject, extra);
    QFETCH(QString, message);
    QJsonObject body = extra;
    body.insert(QStringLiteral("amounts"), QJsonArray{100});
    const SimReply r = m_client->adminPost(QStringLiteral("/_sim/charges"), body);
    QCOMPARE(r.status, 400);
    QVERIFY2(QString::fromUtf8(r.body).contains(message), r.body.constData());
    QCOMPARE(m_server->store().charges().size(), 0); // nothing seeded
}

void TestPaysimApi::seededLookSurvivesRestart()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    PaysimConfig config;
    config.dbPath = dir.filePath(QStringLiteral("paysim.db"));
    auto server = std::make_unique<PaysimServer>(config);
    QString error;
    QVERIFY2(server->start(&error), qPrintable(error));
    SimClient client(server->baseUrl());
    const QJsonObject seeded = seedOne(client, {{QStringLiteral("age_seconds"), 86400},
                                                {QStringLiteral("card"), QJsonObject{{QStringLiteral("brand"), QStringLiteral("jcb")},
                                                                                     {QStringLiteral("last4"), QStringLiteral("0000")}}},
                                                {QStringLiteral("disputed"), true}});
    const QString id = seeded.value(QStringLiteral("id")).toString();
    server.reset();
    server = std::make_unique<PaysimServer>(config);
    QVERIFY2(server->start(&error), qPrintable(error));
    client.setBase(server->baseUrl());
    const SimReply got = client.get(QStringLiteral("/v1/charges/") + id);
    QCOMPARE(got.status, 200);
    QCOMPARE(got.json, seeded);
}

void TestPaysimApi::errors_data()
{
    QTest::addColumn<QByteArray>("verb");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("body"); // "{charge}" is replaced by a charge of 4000, refunded 1000
    QTest::addColumn<QByteArray>("authorization");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("param");

    const QByteArray bearer = "Bearer sk_test_errors";
    const QByteArray form = "application/x-www-form-urlencoded";
    QTest::newRow("amount above the refundable remainder") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("charge={charge}&amount=3001") << bearer << form << 400 << QStringLiteral("invalid_request_error")
        << QStringLiteral("amount_too_large") << QStringLiteral("amount");
    QTest::newRow("unknown charge") << QByteArray("POST") << QStringLiteral("/v1/refunds") << QByteArray("charge=ch_nope")
        << bearer << form << 404 << QStringLiteral("invalid_request_error") << QStringLiteral("resource_missing")
        << QStringLiteral("charge");
    QTest::newRow("unknown payment_intent") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("payment_intent=pi_nope") << bearer << form << 404 << QStringLiteral("invalid_request_error")
        << QStringLiteral("resource_missing") << QStringLiteral("payment_intent");
    QTest::newRow("unknown refund") << QByteArray("GET") << QStringLiteral("/v1/refunds/re_nope") << QByteArray() << bearer
        << QByteArray() << 404 << QStringLiteral("invalid_request_error") << QStringLiteral("resource_missing")
        << QStringLiteral("id");
    QTest::newRow("neither charge nor payment_intent") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("amount=100") << bearer << form << 400 << QStringLiteral("invalid_request_error")
        << QStringLiteral("parameter_missing") << QString();
    QTest::newRow("amount not an integer") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("charge={charge}&amount=12.5") << bearer << form << 400 << QStringLiteral("invalid_request_error")
        << QStringLiteral("parameter_invalid_integer") << QStringLiteral("amount");
    QTest::newRow("unknown parameter") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("charge={charge}&amonut=5") << bearer << form << 400 << QStringLiteral("invalid_request_error")
        << QStringLiteral("parameter_unknown") << QStringLiteral("amonut");
    QTest::newRow("invalid reason") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("charge={charge}&reason=because") << bearer << form << 400 << QStringLiteral("invalid_request_error")
        << QString() << QStringLiteral("reason");
    QTest::newRow("malformed form: unbalanced bracket") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("charge={charge}&metadata[order=1") << bearer << form << 400 << QStringLiteral("invalid_request_error")
        << QString() << QString();
    QTest::newRow("malformed form: bad percent escape") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("charge={charge}&amount=%zz") << bearer << form << 400 << QStringLiteral("invalid_request_error")
        << QString() << QString();
    QTest::newRow("malformed form: key is value and container") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("charge={charge}&metadata=x&metadata[a]=y") << bearer << form << 400
        << QStringLiteral("invalid_request_error") << QString() << QString();
    QTest::newRow("JSON body refused") << QByteArray("POST") << QStringLiteral("/v1/refunds")
        << QByteArray("{\"charge\":\"{charge}\"}") << bearer << QByteArray("application/json") << 400
        << QStringLiteral("invalid_request_error") << QString() << QString();
    QTest::newRow("missing Authorization") << QByteArray("GET") << QStringLiteral("/v1/refunds") << QByteArray()
        << QByteArray() << QByteArray() << 401 << QStringLiteral("invalid_request_error") << QString() << QString();
    QTest::newRow("live key refused") << QByteArray("GET") << QStringLiteral("/v1/refunds") << QByteArray()
        << QByteArray("Bearer sk_live_1234567890") << QByteArray() << 401 << QStringLiteral("invalid_request_error")
        << QString() << QString();
    QTest::newRow("unknown URL") << QByteArray("GET") << QStringLiteral("/v1/payouts") << QByteArray() << bearer
        << QByteArray() << 404 << QStringLiteral("invalid_request_error") << QString() << QString();
    QTest::newRow("limit out of range") << QByteArray("GET") << QStringLiteral("/v1/refunds?limit=101") << QByteArray()
        << bearer << QByteArray() << 400 << QStringLiteral("invalid_request_error")
        << QStringLiteral("parameter_invalid_integer") << QStringLiteral("limit");
}

void TestPaysimApi::errors()
{
    QFETCH(QByteArray, verb);
    QFETCH(QString, path);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, authorization);
    QFETCH(QByteArray, contentType);
    QFETCH(int, status);
    QFETCH(QString, type);
    QFETCH(QString, code);
    QFETCH(QString, param);

    const QString charge = m_client->seedCharge(4000);
    QCOMPARE(m_client->post(QStringLiteral("/v1/refunds"),
                            {{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QStringLiteral("1000")}})
                 .status,
             200);
    body.replace("{charge}", charge.toLatin1());
    QList<QPair<QByteArray, QByteArray>> headers;
    if (!authorization.isEmpty())
        headers.append({"Authorization", authorization});
    if (!contentType.isEmpty())
        headers.append({"Content-Type", contentType});
    const SimReply r = m_client->raw(verb, path, body, headers);
    QCOMPARE(r.status, status);
    QCOMPARE(r.errorType(), type);
    QCOMPARE(r.errorCode(), code);
    QCOMPARE(r.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("param")).toString(), param);
    QVERIFY(!r.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().isEmpty());
    QVERIFY(r.header("Request-Id").startsWith("req_"));
    QCOMPARE(m_client->groundTruthRefunds(), 1);
}

void TestPaysimApi::httpFraming_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<int>("status");

    QTest::newRow("body over 1 MiB: 413") << QByteArray("POST /v1/refunds HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n") << 413;
    QTest::newRow("POST without Content-Length: 411") << QByteArray("POST /v1/refunds HTTP/1.1\r\nHost: x\r\n\r\n") << 411;
    QTest::newRow("chunked body: 411") << QByteArray("POST /v1/refunds HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n") << 411;
    QTest::newRow("garbage request line: 400") << QByteArray("HELLO\r\n\r\n") << 400;
    QTest::newRow("HTTP/2.0 request line: 505") << QByteArray("GET /v1/refunds HTTP/2.0\r\nHost: x\r\n\r\n") << 505;
    QTest::newRow("header without colon: 400") << QByteArray("GET /v1/refunds HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n") << 400;
    QTest::newRow("HTTP/1.1 without Host: 400") << QByteArray("GET /v1/refunds HTTP/1.1\r\n\r\n") << 400;
    QTest::newRow("non-numeric Content-Length: 400") << QByteArray("POST /v1/refunds HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n") << 400;
    QTest::newRow("head over 16 KiB: 431") << QByteArray("GET /v1/refunds HTTP/1.1\r\nHost: x\r\nX-Big: ") + QByteArray(20000, 'a') + QByteArray("\r\n\r\n") << 431;
}

void TestPaysimApi::httpFraming()
{
    QFETCH(QByteArray, request);
    QFETCH(int, status);
    const RawConnection::Result r = RawConnection::once(m_server->port(), request);
    QCOMPARE(RawConnection::outcomeName(r.outcome), RawConnection::outcomeName(RawConnection::Outcome::Answered));
    QCOMPARE(r.status, status);
    QCOMPARE(r.header("Connection"), QByteArray("close"));
    QVERIFY(!r.json.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().isEmpty());
}

void TestPaysimApi::keepAliveAndPipelining()
{
    RawConnection c;
    QVERIFY(c.open(m_server->port()));
    for (int i = 0; i < 3; ++i) {
        const RawConnection::Result r = c.roundTrip(RawConnection::get(QStringLiteral("/v1/refunds")));
        QCOMPARE(RawConnection::outcomeName(r.outcome), RawConnection::outcomeName(RawConnection::Outcome::Answered));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.header("Connection"), QByteArray("keep-alive"));
    }
    // Two requests in one write: two answers, in order.
    QVERIFY(c.send(RawConnection::get(QStringLiteral("/v1/refunds/re_a")) + RawConnection::get(QStringLiteral("/v1/events"))));
    const RawConnection::Result a = c.receive();
    const RawConnection::Result b = c.receive();
    QCOMPARE(a.status, 404);
    QCOMPARE(b.status, 200);
    QCOMPARE(b.json.value(QStringLiteral("url")).toString(), QStringLiteral("/v1/events"));
    QCOMPARE(m_server->requestLog().size(), 5);
}

void TestPaysimApi::listPaging()
{
    const QString charge = m_client->seedCharge(1000);
    const QString other = m_client->seedCharge(1000);
    QStringList created; // oldest first
    for (int i = 0; i < 5; ++i) {
        const SimReply r = m_client->post(QStringLiteral("/v1/refunds"),
                                          {{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QStringLiteral("100")}});
        QCOMPARE(r.status, 200);
        created << refundId(r);
    }
    QCOMPARE(m_client->post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), other}}).status, 200);
    const QString base = QStringLiteral("/v1/refunds?charge=") + charge;

    SimReply page = m_client->get(base + QStringLiteral("&limit=2"));
    QCOMPARE(page.json.value(QStringLiteral("object")).toString(), QStringLiteral("list"));
    QCOMPARE(page.json.value(QStringLiteral("url")).toString(), QStringLiteral("/v1/refunds"));
    QCOMPARE(ids(page), (QStringList{created[4], created[3]}));
    QCOMPARE(page.json.value(QStringLiteral("has_more")).toBool(false), true);

    page = m_client->get(base + QStringLiteral("&limit=2&starting_after=") + created[3]);
    QCOMPARE(ids(page), (QStringList{created[2], created[1]}));
    QCOMPARE(page.json.value(QStringLiteral("has_more")).toBool(false), true);

    page = m_client->get(base + QStringLiteral("&limit=2&starting_after=") + created[1]);
    QCOMPARE(ids(page), (QStringList{created[0]}));
    QCOMPARE(page.json.value(QStringLiteral("has_more")).toBool(true), false);

    page = m_client->get(base + QStringLiteral("&limit=2&ending_before=") + created[2]);
    QCOMPARE(ids(page), (QStringList{created[4], created[3]}));
    QCOMPARE(page.json.value(QStringLiteral("has_more")).toBool(true), false);

    page = m_client->get(base + QStringLiteral("&limit=1&ending_before=") + created[1]);
    QCOMPARE(ids(page), (QStringList{created[2]}));
    QCOMPARE(page.json.value(QStringLiteral("has_more")).toBool(false), true);

    page = m_client->get(QStringLiteral("/v1/refunds")); // default limit 10, every charge
    QCOMPARE(ids(page).size(), 6);

    QCOMPARE(m_client->get(base + QStringLiteral("&limit=0")).status, 400);
    QCOMPARE(m_client->get(base + QStringLiteral("&starting_after=") + created[0] + QStringLiteral("&ending_before=") + created[1]).status, 400);
    QCOMPARE(m_client->get(base + QStringLiteral("&starting_after=re_unknown")).status, 404);
}

void TestPaysimApi::events()
{
    const QString charge = m_client->seedCharge(5000);
    const SimReply refund = m_client->post(QStringLiteral("/v1/refunds"),
                                           {{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QStringLiteral("2000")}},
                                           QStringLiteral("event-key"));
    QCOMPARE(refund.status, 200);

    const SimReply created = m_client->get(QStringLiteral("/v1/events?type=refund.created"));
    QCOMPARE(created.status, 200);
    const QJsonArray createdData = created.json.value(QStringLiteral("data")).toArray();
    QCOMPARE(createdData.size(), 1);
    const QJsonObject event = createdData.at(0).toObject();
    QCOMPARE(event.value(QStringLiteral("object")).toString(), QStringLiteral("event"));
    QVERIFY(event.value(QStringLiteral("id")).toString().startsWith(QLatin1String("evt_")));
    QCOMPARE(event.value(QStringLiteral("data")).toObject().value(QStringLiteral("object")).toObject().value(QStringLiteral("id")),
             refund.json.value(QStringLiteral("id")));
    QCOMPARE(event.value(QStringLiteral("request")).toObject().value(QStringLiteral("idempotency_key")).toString(),
             QStringLiteral("event-key"));

    const QJsonArray refunded = m_client->get(QStringLiteral("/v1/events?type=charge.refunded")).json.value(QStringLiteral("data")).toArray();
    QCOMPARE(refunded.size(), 1);
    const QJsonObject data = refunded.at(0).toObject().value(QStringLiteral("data")).toObject();
    QCOMPARE(data.value(QStringLiteral("object")).toObject().value(QStringLiteral("amount_refunded")).toInteger(), 2000);
    QCOMPARE(data.value(QStringLiteral("previous_attributes")).toObject().value(QStringLiteral("amount_refunded")).toInteger(), 0);

    const SimReply updated = m_client->post(QStringLiteral("/v1/refunds/") + refundId(refund),
                                            {{QStringLiteral("metadata[ticket]"), QStringLiteral("T-9")}});
    QCOMPARE(updated.status, 200);
    QCOMPARE(updated.json.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("ticket")).toString(), QStringLiteral("T-9"));
    const QJsonArray updates = m_client->get(QStringLiteral("/v1/events?type=refund.updated")).json.value(QStringLiteral("data")).toArray();
    QCOMPARE(updates.size(), 1);

    // Newest first; wildcard and types[] filters; retrieve by id.
    const SimReply all = m_client->get(QStringLiteral("/v1/events"));
    QCOMPARE(all.json.value(QStringLiteral("data")).toArray().at(0).toObject().value(QStringLiteral("type")).toString(),
             QStringLiteral("refund.updated"));
    QCOMPARE(m_client->get(QStringLiteral("/v1/events?type=refund.*")).json.value(QStringLiteral("data")).toArray().size(), 2);
    QCOMPARE(m_client->get(QStringLiteral("/v1/events?types[]=refund.created&types[]=charge.refunded"))
                 .json.value(QStringLiteral("data")).toArray().size(),
             2);
    const SimReply one = m_client->get(QStringLiteral("/v1/events/") + event.value(QStringLiteral("id")).toString());
    QCOMPARE(one.status, 200);
    QCOMPARE(one.json, event);
}

void TestPaysimApi::failedRefundGivesAmountBack()
{
    const QString charge = m_client->seedCharge(3000);
    const SimReply full = m_client->post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), charge}});
    QCOMPARE(full.status, 200);
    const SimReply again = m_client->post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), charge}});
    QCOMPARE(again.status, 400);
    QCOMPARE(again.errorCode(), QStringLiteral("charge_already_refunded"));

    const SimReply failed = m_client->adminPost(QStringLiteral("/_sim/refunds/") + refundId(full),
                                                QJsonObject{{QStringLiteral("status"), QStringLiteral("failed")}});
    QCOMPARE(failed.status, 200);
    QCOMPARE(m_client->get(QStringLiteral("/v1/refunds/") + refundId(full)).json.value(QStringLiteral("status")).toString(),
             QStringLiteral("failed"));
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("amount_refunded")).toInteger(), 0);
    QCOMPARE(m_client->post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), charge}}).status, 200);
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/refunds/") + refundId(full),
                                 QJsonObject{{QStringLiteral("status"), QStringLiteral("bogus")}}).status,
             400);
}

void TestPaysimApi::webhooksSignedAndRetried()
{
    const QByteArray secret = "whsec_test_countersign";
    struct Received
    {
        QByteArray signature;
        QByteArray body;
    };
    QList<Received> received;
    HttpListener receiver;
    receiver.setHandler([&](std::shared_ptr<HttpExchange> exchange) {
        received.append({exchange->request().header("Stripe-Signature"), exchange->request().body});
        // The first delivery fails, so the sender has to retry.
        exchange->respond(HttpResponse::json(received.size() == 1 ? 500 : 200, QJsonObject()));
    });
    QVERIFY(receiver.listen(QHostAddress::LocalHost, 0));

    cleanup();
    PaysimConfig config;
    config.seed = 3;
    config.webhookUrl = QUrl(QStringLiteral("http://127.0.0.1:%1/hooks").arg(receiver.port()));
    config.webhookSecret = secret;
    config.webhookRetryBaseMs = 50;
    m_server = std::make_unique<PaysimServer>(config);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<SimClient>(m_server->baseUrl());

    const QString charge = m_client->seedCharge(2000); // charge.succeeded
    QCOMPARE(m_client->post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), charge}}).status, 200);
    // charge.succeeded (twice: first answered 500), refund.created, charge.refunded
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), 4, 5000);

    QStringList types;
    QStringList eventIds;
    for (const Received &r : std::as_const(received)) {
        // Verify independently: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>.
        qint64 t = -1;
        QByteArray v1;
        for (const QByteArray &part : r.signature.split(',')) {
            if (part.startsWith("t="))
                t = part.mid(2).toLongLong();
            else if (part.startsWith("v1="))
                v1 = part.mid(3);
        }
        QVERIFY2(t > 0 && !v1.isEmpty(), r.signature.constData());
        QVERIFY(qAbs(QDateTime::currentSecsSinceEpoch() - t) < 300);
        QByteArray signedPayload = QByteArray::number(t);
        signedPayload.append('.').append(r.body);
        QCOMPARE(v1, QMessageAuthenticationCode::hash(signedPayload, secret, QCryptographicHash::Sha256).toHex());
        const QJsonObject event = QJsonDocument::fromJson(r.body).object();
        types << event.value(QStringLiteral("type")).toString();
        eventIds << event.value(QStringLiteral("id")).toString();
    }
    QCOMPARE(types.count(QStringLiteral("charge.succeeded")), 2);
    const qsizetype firstTry = types.indexOf(QStringLiteral("charge.succeeded"));
    const qsizetype retry = types.indexOf(QStringLiteral("charge.succeeded"), firstTry + 1);
    QCOMPARE(eventIds.at(retry), eventIds.at(firstTry)); // the retry carries the same event
    QVERIFY(types.contains(QStringLiteral("refund.created")));
    QVERIFY(types.contains(QStringLiteral("charge.refunded")));

    const QJsonArray deliveries = m_client->adminGet(QStringLiteral("/_sim/webhooks")).json.value(QStringLiteral("data")).toArray();
    QCOMPARE(deliveries.size(), 3);
    QCOMPARE(deliveries.at(0).toObject().value(QStringLiteral("attempts")).toInt(), 2);
    for (const QJsonValue &d : deliveries)
        QCOMPARE(d.toObject().value(QStringLiteral("state")).toString(), QStringLiteral("delivered"));
}

void TestPaysimApi::executablePersistsAcrossRestart()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("paysim.db"));
    const QStringList args{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--seed"),
                           QStringLiteral("5"),        QStringLiteral("--db"),        db,
                           QStringLiteral("--seed-charges"), QStringLiteral("1")};

    QString refund;
    QByteArray firstBody;
    QString charge;
    {
        PaysimProcess sim;
        QVERIFY2(sim.start(args), sim.m_process.readAllStandardError().constData());
        SimClient client(sim.url);
        const QJsonArray charges = client.adminGet(QStringLiteral("/_sim/charges")).json.value(QStringLiteral("data")).toArray();
        QCOMPARE(charges.size(), 1);
        charge = charges.at(0).toObject().value(QStringLiteral("id")).toString();
        const SimReply r = client.post(QStringLiteral("/v1/refunds"),
                                       {{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QStringLiteral("700")}},
                                       QStringLiteral("persist-key"));
        QCOMPARE(r.status, 200);
        refund = refundId(r);
        firstBody = r.body;
        QVERIFY(sim.stop(SIGTERM));
        QCOMPARE(sim.m_process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(sim.m_process.exitCode(), 0);
    }
    {
        PaysimProcess sim;
        QVERIFY2(sim.start(args), sim.m_process.readAllStandardError().constData());
        SimClient client(sim.url);
        // --seed-charges does not add charges to a store that has some.
        QCOMPARE(client.adminGet(QStringLiteral("/_sim/charges")).json.value(QStringLiteral("data")).toArray().size(), 1);
        QCOMPARE(client.groundTruthRefunds(), 1);
        const SimReply fetched = client.get(QStringLiteral("/v1/refunds/") + refund);
        QCOMPARE(fetched.status, 200);
        QCOMPARE(fetched.json.value(QStringLiteral("amount")).toInteger(), 700);
        QCOMPARE(client.get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("amount_refunded")).toInteger(), 700);
        QCOMPARE(client.get(QStringLiteral("/v1/events?type=refund.created")).json.value(QStringLiteral("data")).toArray().size(), 1);

        // The idempotency record survived too.
        const SimReply replay = client.post(QStringLiteral("/v1/refunds"),
                                            {{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QStringLiteral("700")}},
                                            QStringLiteral("persist-key"));
        QCOMPARE(replay.status, 200);
        QCOMPARE(replay.header("Idempotent-Replayed"), QByteArray("true"));
        QCOMPARE(replay.body, firstBody);
        const SimReply mismatch = client.post(QStringLiteral("/v1/refunds"),
                                              {{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QStringLiteral("800")}},
                                              QStringLiteral("persist-key"));
        QCOMPARE(mismatch.errorType(), QStringLiteral("idempotency_error"));

        // A new refund never reuses an id minted before the restart.
        const SimReply fresh = client.post(QStringLiteral("/v1/refunds"),
                                           {{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QStringLiteral("100")}});
        QCOMPARE(fresh.status, 200);
        QVERIFY(refundId(fresh) != refund);
        QCOMPARE(client.groundTruthRefunds(), 2);
        QVERIFY(sim.stop(SIGINT));
        QCOMPARE(sim.m_process.exitCode(), 0);
    }
}

void TestPaysimApi::executableCommandLine_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stdoutContains");
    QTest::addColumn<QString>("stderrContains");

    QTest::newRow("--help") << QStringList{QStringLiteral("--help")} << 0 << QStringLiteral("--fault") << QString();
    QTest::newRow("--version") << QStringList{QStringLiteral("--version")} << 0 << QStringLiteral(COUNTERSIGN_VERSION) << QString();
    QTest::newRow("fault that is not JSON") << QStringList{QStringLiteral("--fault"), QStringLiteral("nope")} << 2 << QString()
                                            << QStringLiteral("--fault");
    QTest::newRow("fault with an unknown name") << QStringList{QStringLiteral("--fault"), QStringLiteral(R"({"fault":"boom"})")}
                                                << 2 << QString() << QStringLiteral("unknown fault");
    QTest::newRow("bad --listen") << QStringList{QStringLiteral("--listen"), QStringLiteral("nowhere")} << 2 << QString()
                                  << QStringLiteral("--listen");
    QTest::newRow("webhook URL without secret")
        << QStringList{QStringLiteral("--webhook-url"), QStringLiteral("http://127.0.0.1:9/x")} << 2 << QString()
        << QStringLiteral("--webhook-secret");
}

void TestPaysimApi::executableCommandLine()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, stdoutContains);
    QFETCH(QString, stderrContains);
    QProcess p;
    p.start(QStringLiteral(PAYSIM_BIN), args);
    QVERIFY(p.waitForFinished(5000));
    QCOMPARE(p.exitCode(), exitCode);
    QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains(stdoutContains));
    QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(stderrContains));
}

void TestPaysimApi::executableAppliesStartupFaults()
{
    PaysimProcess sim;
    QVERIFY(sim.start({QStringLiteral("--seed"), QStringLiteral("9"), QStringLiteral("--fault"),
                       QStringLiteral(R"({"method":"GET","path":"/v1/refunds","fault":"outage_503","times":2})")}));
    SimClient client(sim.url);
    QCOMPARE(client.get(QStringLiteral("/v1/refunds")).status, 503);
    QCOMPARE(client.get(QStringLiteral("/v1/refunds")).status, 503);
    QCOMPARE(client.get(QStringLiteral("/v1/refunds")).status, 200);
    QVERIFY(sim.stop());
    QCOMPARE(sim.m_process.exitCode(), 0);
}

QTEST_GUILESS_MAIN(TestPaysimApi)
#include "tst_paysim_api.moc"
