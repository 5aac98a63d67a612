// Refunds that settle later (the refund_settles rule): created and answered pending, then
// succeeded, failed or canceled when the simulator clock reaches created + after_seconds — by
// POST /_sim/clock, by a clock_advance fault, by the real timer, after a restart from --db — with
// Stripe's events (refund.updated, refund.failed, charge.refund.updated) and signed webhooks; the
// seeded share; idempotent replays of the pending answer; POST /_sim/refunds/{id} sharing the
// transition. Real HTTP to an in-process PaysimServer.
#include "simulator/httpexchange.h"
#include "simulator/httplistener.h"
#include "simulator/paysimserver.h"
#include "simulator/simdatabase.h"
#include "tests/simulator/paysimtestsupport.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMessageAuthenticationCode>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace cs::paysim;

namespace {

// The events about one refund, oldest first, as GET /v1/events lists them.
QList<QJsonObject> eventsAbout(SimClient &client, const QString &refund)
{
    QList<QJsonObject> out;
    const QJsonArray data = client.get(QStringLiteral("/v1/events?limit=100")).json.value(QStringLiteral("data")).toArray();
    for (qsizetype i = data.size() - 1; i >= 0; --i) {
        const QJsonObject event = data.at(i).toObject();
        if (event.value(QStringLiteral("data")).toObject().value(QStringLiteral("object")).toObject().value(QStringLiteral("id")).toString()
            == refund)
            out.append(event);
    }
    return out;
}

QStringList typesOf(const QList<QJsonObject> &events)
{
    QStringList out;
    for (const QJsonObject &e : events)
        out << e.value(QStringLiteral("type")).toString();
    return out;
}

} // namespace

class TestPaysimSettlement : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void pendingThenSettledByClock_data();
    void pendingThenSettledByClock();
    void failedWithEventsAndSignedWebhooks();
    void settlesOnRealTimer();
    void clockAdvanceFaultSettlesBeforeTheRequest();
    void replayAnswersThePendingBody();
    void coexistsWithAFault();
    void shareReproducibleWithSeed();
    void restartWithDbSettles();
    void adminStatusSharesTheTransition();

private:
    void start(const PaysimConfig &config);
    QString createRefund(const QString &charge, qint64 amount, const QString &key = {}, SimReply *reply = nullptr);
    QString statusOf(const QString &refund);
    void advance(qint64 ms);

    std::unique_ptr<PaysimServer> m_server;
    std::unique_ptr<SimClient> m_client;
};

void TestPaysimSettlement::start(const PaysimConfig &config)
{
    m_client.reset();
    m_server.reset(); // a restart: the old one closes its database first
    m_server = std::make_unique<PaysimServer>(config);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<SimClient>(m_server->baseUrl());
}

void TestPaysimSettlement::init()
{
    PaysimConfig config;
    config.seed = 7;
    start(config);
}

void TestPaysimSettlement::cleanup()
{
    m_client.reset();
    m_server.reset();
}

QString TestPaysimSettlement::createRefund(const QString &charge, qint64 amount, const QString &key, SimReply *reply)
{
    const SimReply r = m_client->post(QStringLiteral("/v1/refunds"),
                                      {{QStringLiteral("charge"), charge}, {QStringLiteral("amount"), QString::number(amount)}},
                                      key);
    if (reply)
        *reply = r;
    return r.status == 200 ? r.json.value(QStringLiteral("id")).toString() : QString();
}

QString TestPaysimSettlement::statusOf(const QString &refund)
{
    return m_client->get(QStringLiteral("/v1/refunds/") + refund).json.value(QStringLiteral("status")).toString();
}

void TestPaysimSettlement::advance(qint64 ms)
{
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/clock"), QJsonObject{{QStringLiteral("advance_ms"), ms}}).status, 200);
}

void TestPaysimSettlement::pendingThenSettledByClock_data()
{
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("failureReason");  // in the rule; empty: none given
    QTest::addColumn<QString>("shownReason");    // failure_reason of the settled refund
    QTest::addColumn<qint64>("refundedAfter");   // the charge's amount_refunded once settled
    QTest::newRow("succeeded keeps the money refunded") << QStringLiteral("succeeded") << QString() << QString() << qint64(2500);
    QTest::newRow("failed gives it back, default reason") << QStringLiteral("failed") << QString() << QStringLiteral("declined") << qint64(0);
    QTest::newRow("failed with the rule's reason") << QStringLiteral("failed") << QStringLiteral("expired_or_canceled_card")
                                                   << QStringLiteral("expired_or_canceled_card") << qint64(0);
    QTest::newRow("canceled gives it back") << QStringLiteral("canceled") << QString() << QString() << qint64(0);
}

void TestPaysimSettlement::pendingThenSettledByClock()
{
    QFETCH(QString, to);
    QFETCH(QString, failureReason);
    QFETCH(QString, shownReason);
    QFETCH(qint64, refundedAfter);
    m_client->addFault(refundSettlesRule(60, to, failureReason));
    const QString charge = m_client->seedCharge(5000);
    SimReply created;
    const QString refund = createRefund(charge, 2500, {}, &created);
    QVERIFY(!refund.isEmpty());
    QCOMPARE(created.json.value(QStringLiteral("status")).toString(), QStringLiteral("pending"));
    QCOMPARE(created.json.value(QStringLiteral("pending_reason")).toString(), QStringLiteral("processing"));
    // A pending refund holds its amount, as on Stripe.
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("amount_refunded")).toInteger(), 2500);

    advance(59000);
    QCOMPARE(statusOf(refund), QStringLiteral("pending"));
    advance(1000);
    const QJsonObject settled = m_client->get(QStringLiteral("/v1/refunds/") + refund).json;
    QCOMPARE(settled.value(QStringLiteral("status")).toString(), to);
    QCOMPARE(settled.value(QStringLiteral("failure_reason")).toString(), shownReason);
    QVERIFY(!settled.contains(QStringLiteral("pending_reason")));
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("amount_refunded")).toInteger(),
             refundedAfter);

    QStringList expected{QStringLiteral("refund.created"), QStringLiteral("refund.updated")};
    if (to == QLatin1String("failed"))
        expected << QStringLiteral("refund.failed");
    expected << QStringLiteral("charge.refund.updated");
    const QList<QJsonObject> events = eventsAbout(*m_client, refund);
    QCOMPARE(typesOf(events), expected);
    for (const QJsonObject &e : events) {
        const QJsonObject data = e.value(QStringLiteral("data")).toObject();
        const QString type = e.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("refund.updated") || type == QLatin1String("charge.refund.updated"))
            QCOMPARE(data.value(QStringLiteral("previous_attributes")).toObject(),
                     QJsonObject({{QStringLiteral("status"), QStringLiteral("pending")}}));
        if (type != QLatin1String("refund.created"))
            QCOMPARE(data.value(QStringLiteral("object")).toObject().value(QStringLiteral("status")).toString(), to);
    }
    // Settled once: more time changes nothing.
    advance(3600 * 1000);
    QCOMPARE(eventsAbout(*m_client, refund).size(), expected.size());
}

void TestPaysimSettlement::failedWithEventsAndSignedWebhooks()
{
    const QByteArray secret = "whsec_settle";
    QList<QPair<QByteArray, QByteArray>> received; // signature, body
    HttpListener receiver;
    receiver.setHandler([&](std::shared_ptr<HttpExchange> exchange) {
        received.append({exchange->request().header("Stripe-Signature"), exchange->request().body});
        exchange->respond(HttpResponse::json(200, QJsonObject()));
    });
    QVERIFY(receiver.listen(QHostAddress::LocalHost, 0));
    PaysimConfig config;
    config.seed = 7;
    config.webhookUrl = QUrl(QStringLiteral("http://127.0.0.1:%1/hooks").arg(receiver.port()));
    config.webhookSecret = secret;
    start(config);

    m_client->addFault(refundSettlesRule(30, QStringLiteral("failed"), QStringLiteral("insufficient_funds")));
    const QString charge = m_client->seedCharge(4000);
    const QString refund = createRefund(charge, 4000);
    QCOMPARE(statusOf(refund), QStringLiteral("pending"));
    advance(30000);
    QCOMPARE(statusOf(refund), QStringLiteral("failed"));
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("refunded")).toBool(true), false);
    // The whole amount is refundable again.
    QVERIFY(!createRefund(charge, 4000).isEmpty());

    // charge.succeeded, refund.created, charge.refunded, refund.updated, refund.failed,
    // charge.refund.updated; then the second refund's refund.created and charge.refunded.
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), 8, 5000);
    QStringList types;
    for (const auto &[signature, body] : std::as_const(received)) {
        qint64 t = -1;
        QByteArray v1;
        for (const QByteArray &part : signature.split(',')) {
            if (part.startsWith("t="))
                t = part.mid(2).toLongLong();
            else if (part.startsWith("v1="))
                v1 = part.mid(3);
        }
        QVERIFY2(t > 0 && !v1.isEmpty(), signature.constData());
        QCOMPARE(v1, QMessageAuthenticationCode::hash(QByteArray::number(t) + '.' + body, secret, QCryptographicHash::Sha256).toHex());
        const QJsonObject event = QJsonDocument::fromJson(body).object();
        const QString type = event.value(QStringLiteral("type")).toString();
        types << type;
        if (type == QLatin1String("refund.failed")) {
            const QJsonObject object = event.value(QStringLiteral("data")).toObject().value(QStringLiteral("object")).toObject();
            QCOMPARE(object.value(QStringLiteral("id")).toString(), refund);
            QCOMPARE(object.value(QStringLiteral("failure_reason")).toString(), QStringLiteral("insufficient_funds"));
        }
    }
    for (const QString &type : {QStringLiteral("refund.updated"), QStringLiteral("refund.failed"), QStringLiteral("charge.refund.updated")})
        QCOMPARE(types.count(type), 1);
    // Emitted in this order (GET /v1/events keeps creation order; deliveries run in parallel).
    QCOMPARE(typesOf(eventsAbout(*m_client, refund)),
             (QStringList{QStringLiteral("refund.created"), QStringLiteral("refund.updated"), QStringLiteral("refund.failed"),
                          QStringLiteral("charge.refund.updated")}));
    const QJsonArray deliveries = m_client->adminGet(QStringLiteral("/_sim/webhooks")).json.value(QStringLiteral("data")).toArray();
    for (const QJsonValue &d : deliveries)
        QCOMPARE(d.toObject().value(QStringLiteral("state")).toString(), QStringLiteral("delivered"));
}

// Without any clock call: the timer settles it when the time comes.
void TestPaysimSettlement::settlesOnRealTimer()
{
    m_client->addFault(refundSettlesRule(1, QStringLiteral("succeeded")));
    const QString refund = createRefund(m_client->seedCharge(1000), 1000);
    QCOMPARE(statusOf(refund), QStringLiteral("pending"));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->store().refund(refund)->status, QStringLiteral("succeeded"), 3000);
    QCOMPARE(statusOf(refund), QStringLiteral("succeeded"));
}

// A clock_advance fault on a lookup moves the clock first, so the lookup already sees the settlement.
void TestPaysimSettlement::clockAdvanceFaultSettlesBeforeTheRequest()
{
    m_client->addFault(refundSettlesRule(600, QStringLiteral("canceled")));
    const QString refund = createRefund(m_client->seedCharge(1000), 400);
    m_client->addFault(QJsonObject{{QStringLiteral("fault"), QStringLiteral("clock_advance")},
                                   {QStringLiteral("method"), QStringLiteral("GET")},
                                   {QStringLiteral("path"), QStringLiteral("/v1/refunds/*")},
                                   {QStringLiteral("advance_ms"), 600 * 1000}});
    QCOMPARE(statusOf(refund), QStringLiteral("canceled"));
}

// Stripe replays the saved answer: the refund as it was created, pending, even once it settled.
void TestPaysimSettlement::replayAnswersThePendingBody()
{
    m_client->addFault(refundSettlesRule(60, QStringLiteral("succeeded")));
    const QString charge = m_client->seedCharge(3000);
    SimReply first;
    const QString refund = createRefund(charge, 1000, QStringLiteral("settle-key"), &first);
    SimReply replay;
    QCOMPARE(createRefund(charge, 1000, QStringLiteral("settle-key"), &replay), refund);
    QCOMPARE(replay.header("Idempotent-Replayed"), QByteArray("true"));
    QCOMPARE(replay.body, first.body);
    QCOMPARE(replay.json.value(QStringLiteral("status")).toString(), QStringLiteral("pending"));
    advance(60000);
    QCOMPARE(statusOf(refund), QStringLiteral("succeeded"));
    createRefund(charge, 1000, QStringLiteral("settle-key"), &replay);
    QCOMPARE(replay.body, first.body);
    QCOMPARE(m_client->groundTruthRefunds(), 1);
}

// refund_settles is decided beside the faults: a lost answer and a pending refund on one request.
void TestPaysimSettlement::coexistsWithAFault()
{
    const QString charge = m_client->seedCharge(3000);
    m_client->addFault(QJsonObject{{QStringLiteral("fault"), QStringLiteral("drop_response_after_commit")},
                                   {QStringLiteral("method"), QStringLiteral("POST")},
                                   {QStringLiteral("path"), QStringLiteral("/v1/refunds")}});
    m_client->addFault(refundSettlesRule(60, QStringLiteral("failed")));
    const RawConnection::Result lost = RawConnection::once(
        m_server->port(), RawConnection::post(QStringLiteral("/v1/refunds"), "charge=" + charge.toLatin1() + "&amount=700",
                                              QStringLiteral("lost-key")));
    QCOMPARE(lost.outcome, RawConnection::Outcome::ClosedWithoutAnswer);
    const QJsonArray log = m_client->adminGet(QStringLiteral("/_sim/requests")).json.value(QStringLiteral("data")).toArray();
    QCOMPARE(log.last().toObject().value(QStringLiteral("fault")).toString(),
             QStringLiteral("drop_response_after_commit+refund_settles"));
    SimReply retry;
    const QString refund = createRefund(charge, 700, QStringLiteral("lost-key"), &retry);
    QCOMPARE(retry.json.value(QStringLiteral("status")).toString(), QStringLiteral("pending"));
    advance(60000);
    QCOMPARE(statusOf(refund), QStringLiteral("failed"));
}

// probability 0.5 with a fixed seed: some refunds pending, some not, the same ones every run.
void TestPaysimSettlement::shareReproducibleWithSeed()
{
    auto run = [this] {
        QJsonObject rule = refundSettlesRule(60, QStringLiteral("succeeded"));
        rule.insert(QStringLiteral("probability"), 0.5);
        m_client->addFault(rule);
        const QString charge = m_client->seedCharge(100000);
        QString pattern;
        for (int i = 0; i < 24; ++i) {
            SimReply r;
            createRefund(charge, 100, {}, &r);
            pattern += r.json.value(QStringLiteral("status")).toString() == QLatin1String("pending") ? u'P' : u'.';
        }
        return pattern;
    };
    const QString first = run();
    QVERIFY2(first.count(u'P') >= 4 && first.count(u'.') >= 4, qPrintable(first));
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/reset")).status, 200);
    QCOMPARE(run(), first);
    init(); // a new server, same seed
    QCOMPARE(run(), first);
    cleanup();
    PaysimConfig other;
    other.seed = 8;
    start(other);
    QVERIFY2(run() != first, "another seed draws another split");
}

// The schedule is stored: a restarted paysim still settles the refund, at once if it fell due
// while paysim was down.
void TestPaysimSettlement::restartWithDbSettles()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    PaysimConfig config;
    config.seed = 7;
    config.dbPath = dir.filePath(QStringLiteral("paysim.db"));
    start(config);
    m_client->addFault(refundSettlesRule(3600, QStringLiteral("failed"), QStringLiteral("lost_or_stolen_card")));
    const QString charge = m_client->seedCharge(2000);
    const QString early = createRefund(charge, 500);
    const QString late = createRefund(charge, 700);
    QCOMPARE(statusOf(late), QStringLiteral("pending"));

    // Restart: still pending (faults are not kept, the schedule is); the clock settles the first.
    start(config);
    QCOMPARE(statusOf(early), QStringLiteral("pending"));
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("amount_refunded")).toInteger(), 1200);
    advance(3600 * 1000);
    QCOMPARE(statusOf(early), QStringLiteral("failed"));
    QCOMPARE(statusOf(late), QStringLiteral("failed"));
    QCOMPARE(m_client->get(QStringLiteral("/v1/charges/") + charge).json.value(QStringLiteral("amount_refunded")).toInteger(), 0);

    // A refund due while paysim is down: move the stored clock two hours on, as if it were.
    const QString down = createRefund(charge, 300);
    QCOMPARE(statusOf(down), QStringLiteral("succeeded")); // fault rules are not kept across restarts
    m_client->addFault(refundSettlesRule(3600, QStringLiteral("succeeded")));
    const QString pending = createRefund(charge, 200);
    QCOMPARE(statusOf(pending), QStringLiteral("pending"));
    const qint64 offset = m_server->clock().offsetMs();
    cleanup();
    {
        SimDatabase db(config.dbPath);
        QString error;
        QVERIFY2(db.open(&error), qPrintable(error));
        db.setMeta(QStringLiteral("clock_offset_ms"), QString::number(offset + 2 * 3600 * 1000));
    }
    start(config);
    QCOMPARE(statusOf(pending), QStringLiteral("succeeded"));
    QCOMPARE(typesOf(eventsAbout(*m_client, pending)),
             (QStringList{QStringLiteral("refund.created"), QStringLiteral("refund.updated"), QStringLiteral("charge.refund.updated")}));
}

// POST /_sim/refunds/{id} makes the same transition with the same events, and drops the schedule.
void TestPaysimSettlement::adminStatusSharesTheTransition()
{
    const QString charge = m_client->seedCharge(3000);
    const QString plain = createRefund(charge, 1000);
    const SimReply failed = m_client->adminPost(QStringLiteral("/_sim/refunds/") + plain,
                                                QJsonObject{{QStringLiteral("status"), QStringLiteral("failed")},
                                                            {QStringLiteral("failure_reason"), QStringLiteral("merchant_request")}});
    QCOMPARE(failed.status, 200);
    QCOMPARE(failed.json.value(QStringLiteral("failure_reason")).toString(), QStringLiteral("merchant_request"));
    const QList<QJsonObject> events = eventsAbout(*m_client, plain);
    QCOMPARE(typesOf(events), (QStringList{QStringLiteral("refund.created"), QStringLiteral("refund.updated"),
                                           QStringLiteral("refund.failed"), QStringLiteral("charge.refund.updated")}));
    QCOMPARE(events.at(1).value(QStringLiteral("data")).toObject().value(QStringLiteral("previous_attributes")).toObject(),
             QJsonObject({{QStringLiteral("status"), QStringLiteral("succeeded")}}));
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/refunds/") + plain,
                                 QJsonObject{{QStringLiteral("status"), QStringLiteral("succeeded")},
                                             {QStringLiteral("failure_reason"), QStringLiteral("declined")}})
                 .status,
             400);
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/refunds/") + plain,
                                 QJsonObject{{QStringLiteral("status"), QStringLiteral("failed")},
                                             {QStringLiteral("failure_reason"), QStringLiteral("card_melted")}})
                 .status,
             400);

    m_client->addFault(refundSettlesRule(60, QStringLiteral("failed")));
    const QString scheduled = createRefund(charge, 500);
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/refunds/") + scheduled,
                                 QJsonObject{{QStringLiteral("status"), QStringLiteral("succeeded")}})
                 .status,
             200);
    advance(60000);
    QCOMPARE(statusOf(scheduled), QStringLiteral("succeeded"));
    QCOMPARE(typesOf(eventsAbout(*m_client, scheduled)),
             (QStringList{QStringLiteral("refund.created"), QStringLiteral("refund.updated"), QStringLiteral("charge.refund.updated")}));
}

QTEST_GUILESS_MAIN(TestPaysimSettlement)
#include "tst_paysim_settlement.moc"
