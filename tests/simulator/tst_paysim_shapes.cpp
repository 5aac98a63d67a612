// paysim's objects against Stripe's own: the refund, charge (also with its refunds expanded), event
// and PaymentIntent fetched over HTTP from a real PaysimServer must carry every top-level key of
// Stripe's published fixture (tests/data/stripe-fixtures, copied from stripe/openapi) with a JSON
// type Stripe's spec allows, null only where the spec marks the property nullable. Also: values
// that belong together agree, and stored refunds and charges round-trip (old rows included).
#include "simulator/charge.h"
#include "simulator/paysimserver.h"
#include "simulator/refund.h"
#include "tests/simulator/paysimtestsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <memory>

using namespace cs::paysim;

#ifndef STRIPE_FIXTURES_DIR
#error "STRIPE_FIXTURES_DIR must name tests/data/stripe-fixtures"
#endif

namespace {

QJsonObject readJson(const QString &name)
{
    QFile file(QStringLiteral(STRIPE_FIXTURES_DIR "/") + name);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

QString typeName(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("boolean");
    case QJsonValue::Double:
        return v.toDouble() == static_cast<double>(v.toInteger()) ? QStringLiteral("integer") : QStringLiteral("number");
    case QJsonValue::String: return QStringLiteral("string");
    case QJsonValue::Array: return QStringLiteral("array");
    case QJsonValue::Object: return QStringLiteral("object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("undefined");
}

// Compares one object with Stripe's fixture of that kind. Returns the problems (empty: same
// shape); `extra` receives paysim's keys the fixture does not have.
QStringList shapeProblems(const QString &kind, const QJsonObject &object, QStringList *extra = nullptr)
{
    const QJsonObject fixture = readJson(kind + QStringLiteral(".json"));
    const QJsonObject spec = readJson(QStringLiteral("spec-properties.json")).value(kind).toObject();
    QStringList problems;
    if (fixture.isEmpty() || spec.isEmpty())
        return {QStringLiteral("no fixture or spec for '%1' in %2").arg(kind, QStringLiteral(STRIPE_FIXTURES_DIR))};
    auto check = [&](const QString &key, const QJsonValue &value, const QJsonValue &fixtureValue) {
        QStringList allowed;
        bool nullable = false;
        if (spec.contains(key)) {
            const QJsonObject property = spec.value(key).toObject();
            for (const QJsonValue &t : property.value(QStringLiteral("types")).toArray())
                allowed << t.toString();
            nullable = property.value(QStringLiteral("nullable")).toBool();
        } else if (!fixtureValue.isUndefined()) {
            // A fixture key the spec does not list (charge.source): held to the fixture's own type.
            nullable = fixtureValue.isNull();
            if (!fixtureValue.isNull())
                allowed << typeName(fixtureValue);
        } else {
            problems << QStringLiteral("%1.%2: in neither the fixture nor the spec").arg(kind, key);
            return;
        }
        if (allowed.contains(QLatin1String("number")))
            allowed << QStringLiteral("integer");
        const QString type = typeName(value);
        if (type == QLatin1String("null")) {
            if (!nullable)
                problems << QStringLiteral("%1.%2: null, but the spec does not mark it nullable").arg(kind, key);
        } else if (!allowed.contains(type)) {
            problems << QStringLiteral("%1.%2: %3, expected %4").arg(kind, key, type, allowed.join(QLatin1String(" or ")));
        }
    };
    for (auto it = fixture.constBegin(); it != fixture.constEnd(); ++it) {
        if (!object.contains(it.key()))
            problems << QStringLiteral("%1.%2: missing (Stripe's fixture has it)").arg(kind, it.key());
        else
            check(it.key(), object.value(it.key()), it.value());
    }
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (fixture.contains(it.key()))
            continue;
        if (extra)
            *extra << it.key();
        check(it.key(), it.value(), QJsonValue(QJsonValue::Undefined));
    }
    return problems;
}

} // namespace

class TestPaysimShapes : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void comparatorCatchesDifferences_data();
    void comparatorCatchesDifferences();
    void sameShapeAsStripe_data();
    void sameShapeAsStripe();
    void coherentValues();
    void storageRoundTrip();

private:
    QJsonObject get(const QString &path);

    std::unique_ptr<PaysimServer> m_server;
    std::unique_ptr<SimClient> m_client;
    QString m_charge;
    QString m_paymentIntent;
    QString m_succeeded;
    QString m_pending;
    QString m_failed;
};

QJsonObject TestPaysimShapes::get(const QString &path)
{
    const SimReply r = m_client->get(path);
    if (r.status != 200)
        qWarning().noquote() << path << r.status << r.body;
    return r.json;
}

// One charge with three refunds: succeeded, pending (a refund_settles rule an hour away) and
// failed (POST /_sim/refunds/{id}).
void TestPaysimShapes::initTestCase()
{
    PaysimConfig config;
    config.seed = 11;
    m_server = std::make_unique<PaysimServer>(config);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<SimClient>(m_server->baseUrl());
    const SimReply charge = m_client->post(QStringLiteral("/v1/charges"),
                                           {{QStringLiteral("amount"), QStringLiteral("9000")},
                                            {QStringLiteral("currency"), QStringLiteral("eur")},
                                            {QStringLiteral("source"), QStringLiteral("tok_visa")},
                                            {QStringLiteral("description"), QStringLiteral("order 4821")}});
    QCOMPARE(charge.status, 200);
    m_charge = charge.json.value(QStringLiteral("id")).toString();
    m_paymentIntent = charge.json.value(QStringLiteral("payment_intent")).toString();
    auto refund = [&](const QString &amount) {
        const SimReply r = m_client->post(QStringLiteral("/v1/refunds"),
                                          {{QStringLiteral("charge"), m_charge}, {QStringLiteral("amount"), amount},
                                           {QStringLiteral("reason"), QStringLiteral("requested_by_customer")}});
        return r.json.value(QStringLiteral("id")).toString();
    };
    m_succeeded = refund(QStringLiteral("1000"));
    m_failed = refund(QStringLiteral("2000"));
    QCOMPARE(m_client->adminPost(QStringLiteral("/_sim/refunds/") + m_failed,
                                 QJsonObject{{QStringLiteral("status"), QStringLiteral("failed")},
                                             {QStringLiteral("failure_reason"), QStringLiteral("expired_or_canceled_card")}})
                 .status,
             200);
    m_client->addFault(QJsonObject{{QStringLiteral("fault"), QStringLiteral("refund_settles")},
                                   {QStringLiteral("method"), QStringLiteral("POST")},
                                   {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                   {QStringLiteral("after_seconds"), 3600},
                                   {QStringLiteral("to"), QStringLiteral("succeeded")}});
    m_pending = refund(QStringLiteral("3000"));
    QVERIFY(!m_succeeded.isEmpty() && !m_failed.isEmpty() && !m_pending.isEmpty());
}

void TestPaysimShapes::cleanupTestCase()
{
    m_client.reset();
    m_server.reset();
}

// The comparator itself: Stripe's fixture passes; the fixture with a field dropped, a non-nullable
// field null or a field of the wrong type does not.
void TestPaysimShapes::comparatorCatchesDifferences_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value"); // Undefined: drop the key
    QTest::addColumn<bool>("accepted");
    const QJsonValue drop(QJsonValue::Undefined);
    const QJsonValue null(QJsonValue::Null);
    QTest::newRow("refund fixture as is") << QStringLiteral("refund") << QString() << drop << true;
    QTest::newRow("charge fixture as is") << QStringLiteral("charge") << QString() << drop << true;
    QTest::newRow("event fixture as is") << QStringLiteral("event") << QString() << drop << true;
    QTest::newRow("payment_intent fixture as is") << QStringLiteral("payment_intent") << QString() << drop << true;
    QTest::newRow("refund without destination_details") << QStringLiteral("refund") << QStringLiteral("destination_details") << drop << false;
    QTest::newRow("charge without outcome") << QStringLiteral("charge") << QStringLiteral("outcome") << drop << false;
    QTest::newRow("charge amount null") << QStringLiteral("charge") << QStringLiteral("amount") << null << false;
    QTest::newRow("charge refunds null (nullable)") << QStringLiteral("charge") << QStringLiteral("refunds") << null << true;
    QTest::newRow("charge captured a string") << QStringLiteral("charge") << QStringLiteral("captured") << QJsonValue(QStringLiteral("yes")) << false;
    QTest::newRow("refund charge an object (expandable)") << QStringLiteral("refund") << QStringLiteral("charge") << QJsonValue(QJsonObject()) << true;
    QTest::newRow("event request null (nullable)") << QStringLiteral("event") << QStringLiteral("request") << null << true;
    QTest::newRow("event type null") << QStringLiteral("event") << QStringLiteral("type") << null << false;
    QTest::newRow("payment_intent without latest_charge") << QStringLiteral("payment_intent") << QStringLiteral("latest_charge") << drop << false;
    QTest::newRow("refund with an unknown extra key") << QStringLiteral("refund") << QStringLiteral("paysim_only") << QJsonValue(1) << false;
}

void TestPaysimShapes::comparatorCatchesDifferences()
{
    QFETCH(QString, kind);
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QFETCH(bool, accepted);
    QJsonObject object = readJson(kind + QStringLiteral(".json"));
    QVERIFY(!object.isEmpty());
    if (!key.isEmpty()) {
        if (value.isUndefined())
            object.remove(key);
        else
            object.insert(key, value);
    }
    const QStringList problems = shapeProblems(kind, object);
    QVERIFY2(problems.isEmpty() == accepted, qPrintable(problems.join(QLatin1String("; "))));
}

void TestPaysimShapes::sameShapeAsStripe_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QJsonObject>("object");
    QTest::newRow("refund succeeded") << QStringLiteral("refund") << get(QStringLiteral("/v1/refunds/") + m_succeeded);
    QTest::newRow("refund pending") << QStringLiteral("refund") << get(QStringLiteral("/v1/refunds/") + m_pending);
    QTest::newRow("refund failed") << QStringLiteral("refund") << get(QStringLiteral("/v1/refunds/") + m_failed);
    const QJsonArray listed = get(QStringLiteral("/v1/refunds?charge=") + m_charge).value(QStringLiteral("data")).toArray();
    QTest::newRow("refund as listed") << QStringLiteral("refund") << listed.first().toObject();
    QTest::newRow("charge") << QStringLiteral("charge") << get(QStringLiteral("/v1/charges/") + m_charge);
    const QJsonObject expanded = get(QStringLiteral("/v1/charges/%1?expand[]=refunds").arg(m_charge));
    QTest::newRow("charge with refunds expanded") << QStringLiteral("charge") << expanded;
    const QJsonArray expandedRefunds = expanded.value(QStringLiteral("refunds")).toObject().value(QStringLiteral("data")).toArray();
    for (qsizetype i = 0; i < expandedRefunds.size(); ++i)
        QTest::addRow("expanded refund %d", static_cast<int>(i)) << QStringLiteral("refund") << expandedRefunds.at(i).toObject();
    QTest::newRow("payment_intent") << QStringLiteral("payment_intent") << get(QStringLiteral("/v1/payment_intents/") + m_paymentIntent);
    const QJsonObject pi = get(QStringLiteral("/v1/payment_intents/%1?expand[]=latest_charge").arg(m_paymentIntent));
    QTest::newRow("payment_intent expanded") << QStringLiteral("payment_intent") << pi;
    QTest::newRow("payment_intent's latest_charge") << QStringLiteral("charge") << pi.value(QStringLiteral("latest_charge")).toObject();
    for (const QString &type : {QStringLiteral("charge.succeeded"), QStringLiteral("refund.created"), QStringLiteral("charge.refunded"),
                                QStringLiteral("refund.updated"), QStringLiteral("refund.failed"),
                                QStringLiteral("charge.refund.updated")}) {
        const QJsonArray events = get(QStringLiteral("/v1/events?type=") + type).value(QStringLiteral("data")).toArray();
        if (events.isEmpty()) {
            QTest::addRow("event %s (none listed)", qPrintable(type)) << QStringLiteral("event") << QJsonObject();
            continue;
        }
        const QJsonObject event = get(QStringLiteral("/v1/events/") + events.first().toObject().value(QStringLiteral("id")).toString());
        QTest::addRow("event %s", qPrintable(type)) << QStringLiteral("event") << event;
        const QJsonObject object = event.value(QStringLiteral("data")).toObject().value(QStringLiteral("object")).toObject();
        QTest::addRow("event %s data.object", qPrintable(type))
            << object.value(QStringLiteral("object")).toString() << object;
    }
}

void TestPaysimShapes::sameShapeAsStripe()
{
    QFETCH(QString, kind);
    QFETCH(QJsonObject, object);
    QVERIFY2(!object.isEmpty(), "nothing fetched");
    QStringList extra;
    const QStringList problems = shapeProblems(kind, object, &extra);
    if (!extra.isEmpty())
        qInfo().noquote() << kind << "keys beyond the fixture (all in Stripe's spec):" << extra.join(QLatin1String(", "));
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1String("; "))));
}

void TestPaysimShapes::coherentValues()
{
    const QJsonObject charge = get(QStringLiteral("/v1/charges/") + m_charge);
    const QString paymentMethod = charge.value(QStringLiteral("payment_method")).toString();
    QVERIFY(paymentMethod.startsWith(QLatin1String("pm_")));
    QCOMPARE(charge.value(QStringLiteral("outcome")).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("authorized"));
    QCOMPARE(charge.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    // 1000 succeeded + 3000 pending; the failed 2000 went back to the charge.
    QCOMPARE(charge.value(QStringLiteral("amount_refunded")).toInteger(), 4000);
    QVERIFY(charge.value(QStringLiteral("refunds")).isNull());
    QCOMPARE(charge.value(QStringLiteral("source")).toObject().value(QStringLiteral("object")).toString(), QStringLiteral("card"));

    struct Expect
    {
        QString id;
        QString status;
        QString cardType;
        QString failureReason;
        QString pendingReason;
    };
    for (const Expect &e : {Expect{m_succeeded, QStringLiteral("succeeded"), QStringLiteral("refund"), {}, {}},
                            Expect{m_pending, QStringLiteral("pending"), QStringLiteral("pending"), {}, QStringLiteral("processing")},
                            Expect{m_failed, QStringLiteral("failed"), QStringLiteral("refund"),
                                   QStringLiteral("expired_or_canceled_card"), {}}}) {
        const QJsonObject r = get(QStringLiteral("/v1/refunds/") + e.id);
        QCOMPARE(r.value(QStringLiteral("status")).toString(), e.status);
        QCOMPARE(r.value(QStringLiteral("payment_method")).toString(), paymentMethod);
        QCOMPARE(r.value(QStringLiteral("payment_intent")).toString(), m_paymentIntent);
        const QJsonObject destination = r.value(QStringLiteral("destination_details")).toObject();
        QCOMPARE(destination.value(QStringLiteral("type")).toString(), QStringLiteral("card"));
        QCOMPARE(destination.value(QStringLiteral("card")).toObject().value(QStringLiteral("type")).toString(), e.cardType);
        // Not nullable in Stripe's spec: present only while they apply.
        QCOMPARE(r.contains(QStringLiteral("failure_reason")), !e.failureReason.isEmpty());
        QCOMPARE(r.value(QStringLiteral("failure_reason")).toString(), e.failureReason);
        QCOMPARE(r.contains(QStringLiteral("pending_reason")), !e.pendingReason.isEmpty());
        QCOMPARE(r.value(QStringLiteral("pending_reason")).toString(), e.pendingReason);
    }

    const QJsonObject pi = get(QStringLiteral("/v1/payment_intents/") + m_paymentIntent);
    QCOMPARE(pi.value(QStringLiteral("latest_charge")).toString(), m_charge);
    QCOMPARE(pi.value(QStringLiteral("payment_method")).toString(), paymentMethod);
    QCOMPARE(pi.value(QStringLiteral("amount_received")).toInteger(), 9000);
    QCOMPARE(pi.value(QStringLiteral("currency")).toString(), QStringLiteral("eur"));
    QCOMPARE(pi.value(QStringLiteral("description")).toString(), QStringLiteral("order 4821"));
    QVERIFY(pi.value(QStringLiteral("client_secret")).toString().startsWith(m_paymentIntent + QStringLiteral("_secret_")));
}

// A refund or charge saved and loaded again is the same object; a row written before these
// fields existed (no payment_method, settlement or failure reason) still loads.
void TestPaysimShapes::storageRoundTrip()
{
    Refund r;
    r.id = QStringLiteral("re_1");
    r.charge = QStringLiteral("ch_abc");
    r.paymentIntent = QStringLiteral("pi_abc");
    r.paymentMethod = QStringLiteral("pm_abc");
    r.amount = 700;
    r.currency = QStringLiteral("usd");
    r.created = 1700000000;
    r.status = QStringLiteral("failed");
    r.failureReason = QStringLiteral("lost_or_stolen_card");
    r.settleAtMs = 42;
    r.settleTo = QStringLiteral("failed");
    r.settleFailureReason = QStringLiteral("unknown");
    r.seq = 9;
    const Refund back = Refund::fromStorageJson(r.toStorageJson());
    QCOMPARE(back.toStorageJson(), r.toStorageJson());
    QCOMPARE(back.failureReason, r.failureReason);
    QCOMPARE(back.settleAtMs, 42);

    const QJsonObject oldRow{{QStringLiteral("id"), QStringLiteral("re_2")},      {QStringLiteral("object"), QStringLiteral("refund")},
                             {QStringLiteral("amount"), 500},                    {QStringLiteral("charge"), QStringLiteral("ch_xyz")},
                             {QStringLiteral("currency"), QStringLiteral("usd")}, {QStringLiteral("status"), QStringLiteral("succeeded")},
                             {QStringLiteral("metadata"), QJsonObject()},        {QStringLiteral("_seq"), 3}};
    const Refund old = Refund::fromStorageJson(oldRow);
    QCOMPARE(old.paymentMethod, QStringLiteral("pm_xyz"));
    QCOMPARE(old.settleAtMs, 0);
    QVERIFY(old.failureReason.isEmpty());
    QVERIFY2(shapeProblems(QStringLiteral("refund"), old.toApiJson()).isEmpty(),
             qPrintable(shapeProblems(QStringLiteral("refund"), old.toApiJson()).join(QLatin1String("; "))));

    Charge c;
    c.id = QStringLiteral("ch_abc");
    c.paymentIntent = QStringLiteral("pi_abc");
    c.amount = 1000;
    c.amountRefunded = 700;
    c.currency = QStringLiteral("usd");
    c.source = QStringLiteral("tok_amex");
    c.cardLast4 = QStringLiteral("0005");
    c.seq = 4;
    const Charge cback = Charge::fromStorageJson(c.toStorageJson());
    QCOMPARE(cback.toStorageJson(), c.toStorageJson());
    QCOMPARE(cback.toPaymentIntentJson(), c.toPaymentIntentJson());
}

QTEST_GUILESS_MAIN(TestPaysimShapes)
#include "tst_paysim_shapes.moc"
