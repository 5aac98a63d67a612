#include "models/chargesnapshot.h"
#include "models/chargewarnings.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QTimeZone>

using namespace cs;

Q_DECLARE_METATYPE(cs::ChargeSnapshot)

namespace cs {
char *toString(const ChargeSnapshot &v)
{
    return qstrdup(QJsonDocument(v.toJson()).toJson(QJsonDocument::Compact).constData());
}
} // namespace cs

namespace {

const QDateTime Now = QDateTime(QDate(2026, 12, 2), QTime(12, 0), Qt::UTC);

ChargeSnapshot::Refund refund(const QString &id, qint64 amount, const QString &status, qint64 secondsAgo,
                              const QString &actionId = QString())
{
    ChargeSnapshot::Refund r;
    r.id = id;
    r.amount = amount;
    r.status = status;
    r.created = Now.addSecs(-secondsAgo);
    r.actionId = actionId;
    return r;
}

// A $99.00 card charge bought a day ago, nothing refunded, not disputed.
ChargeSnapshot charge()
{
    ChargeSnapshot s;
    s.targetType = TargetType::Charge;
    s.targetId = QStringLiteral("ch_1");
    s.chargeId = QStringLiteral("ch_1");
    s.paymentIntentId = QStringLiteral("pi_1");
    s.askedBy = QStringLiteral("approve");
    s.readAt = Now.addSecs(-2);
    s.result = ChargeSnapshot::Result::Found;
    s.httpStatus = 200;
    s.amount = 9900;
    s.amountCaptured = 9900;
    s.currency = QStringLiteral("usd");
    s.created = Now.addDays(-1);
    s.paymentMethodBrand = QStringLiteral("visa");
    s.paymentMethodLast4 = QStringLiteral("4242");
    return s;
}

ChargeSnapshot withRefunds(ChargeSnapshot s, const QList<ChargeSnapshot::Refund> &refunds)
{
    s.refunds = refunds;
    for (const auto &r : refunds)
        s.amountRefunded += r.counts() ? r.amount : 0;
    return s;
}

QStringList kinds(const QList<ChargeWarning> &warnings)
{
    QStringList out;
    for (const ChargeWarning &w : warnings)
        out << toWire(w.kind);
    return out;
}

} // namespace

class TstChargeSnapshot : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void refusals_data();
    void refusals();
    void refundCounts();
    void warnings_data();
    void warnings();
    void warningTexts();
    void remaining_data();
    void remaining();
};

void TstChargeSnapshot::roundTrip_data()
{
    QTest::addColumn<ChargeSnapshot>("snapshot");
    QTest::newRow("found, no refunds") << charge();
    QTest::newRow("found, a dashboard refund and one of an action")
        << withRefunds(charge(), { refund(QStringLiteral("re_2"), 1000, QStringLiteral("pending"), 60, QStringLiteral("act_9")),
                                   refund(QStringLiteral("re_1"), 4000, QStringLiteral("succeeded"), 3 * 3600) });
    ChargeSnapshot pi = charge();
    pi.targetType = TargetType::PaymentIntent;
    pi.targetId = QStringLiteral("pi_1");
    pi.disputed = true;
    QTest::newRow("a payment intent's charge, disputed") << pi;
    ChargeSnapshot missing;
    missing.targetId = QStringLiteral("ch_gone");
    missing.result = ChargeSnapshot::Result::NotFound;
    missing.httpStatus = 404;
    missing.readAt = Now;
    missing.excerpt = QStringLiteral("No such charge: 'ch_gone'");
    QTest::newRow("not found") << missing;
    ChargeSnapshot error = missing;
    error.result = ChargeSnapshot::Result::Error;
    error.httpStatus = 0;
    error.excerpt = QStringLiteral("timed out after 15000 ms");
    QTest::newRow("error without an answer") << error;
}

void TstChargeSnapshot::roundTrip()
{
    QFETCH(ChargeSnapshot, snapshot);
    QString error;
    const auto back = ChargeSnapshot::fromJson(snapshot.toJson(), &error);
    QVERIFY2(back.has_value(), qPrintable(error));
    QCOMPARE(*back, snapshot);
    // And through text, as the ledger and the API carry it.
    const QJsonObject reparsed = QJsonDocument::fromJson(QJsonDocument(snapshot.toJson()).toJson()).object();
    const auto fromText = ChargeSnapshot::fromJson(reparsed, &error);
    QVERIFY2(fromText.has_value(), qPrintable(error));
    QCOMPARE(*fromText, snapshot);
}

void TstChargeSnapshot::refusals_data()
{
    QTest::addColumn<QJsonObject>("json");
    QTest::addColumn<QString>("error");
    const QJsonObject good = withRefunds(charge(), { refund(QStringLiteral("re_1"), 4000, QStringLiteral("succeeded"), 60) }).toJson();
    auto without = [&](const QString &key) {
        QJsonObject o = good;
        o.remove(key);
        return o;
    };
    auto with = [&](const QString &key, const QJsonValue &value) {
        QJsonObject o = good;
        o.insert(key, value);
        return o;
    };
    auto withRefund = [&](const QString &key, const QJsonValue &value) {
        QJsonObject r = good.value(QStringLiteral("refunds")).toArray().at(0).toObject();
        if (value.isUndefined())
            r.remove(key);
        else
            r.insert(key, value);
        return with(QStringLiteral("refunds"), QJsonArray{ r });
    };
    QTest::newRow("missing target_id") << without(QStringLiteral("target_id")) << QStringLiteral("target_id: is required");
    QTest::newRow("empty target_id") << with(QStringLiteral("target_id"), QString()) << QStringLiteral("target_id: must not be empty");
    QTest::newRow("missing target_type") << without(QStringLiteral("target_type")) << QStringLiteral("target_type: is required");
    QTest::newRow("unknown target_type") << with(QStringLiteral("target_type"), QStringLiteral("invoice"))
                                         << QStringLiteral("target_type: \"invoice\" is not one of the known values");
    QTest::newRow("missing result") << without(QStringLiteral("result")) << QStringLiteral("result: is required");
    QTest::newRow("unknown result") << with(QStringLiteral("result"), QStringLiteral("MAYBE"))
                                    << QStringLiteral("result: \"MAYBE\" is not one of the known values");
    QTest::newRow("negative amount") << with(QStringLiteral("amount"), -1)
                                     << QStringLiteral("amount: must be between 0 and 9223372036854775807");
    QTest::newRow("negative amount_captured") << with(QStringLiteral("amount_captured"), -100)
                                              << QStringLiteral("amount_captured: must be between 0 and 9223372036854775807");
    QTest::newRow("fractional amount_refunded") << with(QStringLiteral("amount_refunded"), 10.5)
                                                << QStringLiteral("amount_refunded: must be an integer");
    QTest::newRow("amount as a string") << with(QStringLiteral("amount"), QStringLiteral("9900"))
                                        << QStringLiteral("amount: must be an integer");
    QTest::newRow("http_status out of range") << with(QStringLiteral("http_status"), 1000)
                                              << QStringLiteral("http_status: must be between 0 and 999");
    QTest::newRow("read_at not a time") << with(QStringLiteral("read_at"), QStringLiteral("yesterday"))
                                        << QStringLiteral("read_at: must be an ISO-8601 UTC time such as \"2026-11-29T22:38:35.123Z\", or null");
    QTest::newRow("disputed not a boolean") << with(QStringLiteral("disputed"), QStringLiteral("yes"))
                                            << QStringLiteral("disputed: must be true or false");
    QTest::newRow("currency not a string") << with(QStringLiteral("currency"), 840) << QStringLiteral("currency: must be a string");
    QTest::newRow("refunds not an array") << with(QStringLiteral("refunds"), QJsonObject{}) << QStringLiteral("refunds: must be an array");
    QTest::newRow("refunds a string") << with(QStringLiteral("refunds"), QStringLiteral("re_1")) << QStringLiteral("refunds: must be an array");
    QTest::newRow("a refund not an object") << with(QStringLiteral("refunds"), QJsonArray{ QStringLiteral("re_1") })
                                            << QStringLiteral("refunds: must hold objects");
    QTest::newRow("a refund without id") << withRefund(QStringLiteral("id"), QJsonValue::Undefined)
                                         << QStringLiteral("refunds[0].id: is required");
    QTest::newRow("a refund with an empty id") << withRefund(QStringLiteral("id"), QString())
                                               << QStringLiteral("refunds[0].id: must not be empty");
    QTest::newRow("a refund without amount") << withRefund(QStringLiteral("amount"), QJsonValue::Undefined)
                                             << QStringLiteral("refunds[0].amount: is required");
    QTest::newRow("a refund with a negative amount") << withRefund(QStringLiteral("amount"), -5)
                                                     << QStringLiteral("refunds[0].amount: must be between 0 and 9223372036854775807");
    QTest::newRow("a refund with a bad created") << withRefund(QStringLiteral("created"), 1700000000)
                                                 << QStringLiteral("refunds[0].created: must be an ISO-8601 UTC time such as \"2026-11-29T22:38:35.123Z\", or null");
}

void TstChargeSnapshot::refusals()
{
    QFETCH(QJsonObject, json);
    QFETCH(QString, error);
    QString got;
    QVERIFY(!ChargeSnapshot::fromJson(json, &got).has_value());
    QCOMPARE(got, error);
    QVERIFY(!ChargeSnapshot::fromJson(json).has_value()); // no error pointer: still refused
}

void TstChargeSnapshot::refundCounts()
{
    for (const char *status : { "pending", "requires_action", "succeeded" })
        QVERIFY2(refund(QStringLiteral("re_1"), 1, QLatin1String(status), 0).counts(), status);
    for (const char *status : { "failed", "canceled" })
        QVERIFY2(!refund(QStringLiteral("re_1"), 1, QLatin1String(status), 0).counts(), status);
    QCOMPARE(toWire(ChargeSnapshot::Result::NotFound), QStringLiteral("NOT_FOUND"));
    QCOMPARE(chargeResultFromWire(u"ERROR"), ChargeSnapshot::Result::Error);
    QVERIFY(!chargeResultFromWire(u"found").has_value());
}

void TstChargeSnapshot::warnings_data()
{
    QTest::addColumn<ChargeSnapshot>("snapshot");
    QTest::addColumn<qint64>("requested");
    QTest::addColumn<QString>("expected"); // warning kinds, comma-separated
    const ChargeSnapshot fresh = charge();
    QTest::newRow("a fresh charge, a small refund: nothing") << fresh << qint64(1000) << QString();
    QTest::newRow("exactly half is not over half") << fresh << qint64(4950) << QString();
    QTest::newRow("one cent over half") << fresh << qint64(4951) << QStringLiteral("over_half");
    QTest::newRow("the whole charge") << fresh << qint64(9900) << QStringLiteral("over_half");
    QTest::newRow("more than the charge") << fresh << qint64(9901) << QStringLiteral("over_half,exceeds_remaining");
    ChargeSnapshot disputed = fresh;
    disputed.disputed = true;
    QTest::newRow("disputed") << disputed << qint64(100) << QStringLiteral("disputed");
    ChargeSnapshot old = fresh;
    old.created = Now.addDays(-(CardRefundWindowDays + 1));
    QTest::newRow("one day past the window") << old << qint64(100) << QStringLiteral("past_refund_window");
    old.created = Now.addDays(-CardRefundWindowDays);
    QTest::newRow("on the window's last day") << old << qint64(100) << QString();
    const ChargeSnapshot halfRefunded = withRefunds(fresh, { refund(QStringLiteral("re_1"), 4950, QStringLiteral("succeeded"), 3 * 3600) });
    QTest::newRow("refunded elsewhere, a refund that fits") << halfRefunded << qint64(4950) << QStringLiteral("refunds_made");
    QTest::newRow("refunded elsewhere, one cent too many")
        << halfRefunded << qint64(4951) << QStringLiteral("over_half,refunds_made,exceeds_remaining");
    const ChargeSnapshot failedOnly = withRefunds(fresh, { refund(QStringLiteral("re_1"), 9900, QStringLiteral("failed"), 60) });
    QTest::newRow("a failed refund gives the money back") << failedOnly << qint64(4000) << QStringLiteral("refunds_made");
    ChargeSnapshot unlisted = fresh;
    unlisted.amountRefunded = 9000; // the provider's sum, its refunds not (yet) listed
    QTest::newRow("amount_refunded without listed refunds still counts")
        << unlisted << qint64(1000) << QStringLiteral("refunds_made,exceeds_remaining");
    ChargeSnapshot everything = withRefunds(fresh, { refund(QStringLiteral("re_1"), 5000, QStringLiteral("pending"), 60) });
    everything.disputed = true;
    everything.created = Now.addDays(-400);
    QTest::newRow("every warning, in order")
        << everything << qint64(6000)
        << QStringLiteral("disputed,over_half,past_refund_window,refunds_made,exceeds_remaining");
    ChargeSnapshot missing;
    missing.targetId = QStringLiteral("ch_gone");
    missing.result = ChargeSnapshot::Result::NotFound;
    QTest::newRow("not found: only that") << missing << qint64(100) << QStringLiteral("no_provider_view");
    ChargeSnapshot error = missing;
    error.result = ChargeSnapshot::Result::Error;
    error.disputed = true; // never trusted when the read failed
    QTest::newRow("error: only that") << error << qint64(100) << QStringLiteral("no_provider_view");
}

void TstChargeSnapshot::warnings()
{
    QFETCH(ChargeSnapshot, snapshot);
    QFETCH(qint64, requested);
    QFETCH(QString, expected);
    QCOMPARE(kinds(chargeWarnings(snapshot, requested, Now)).join(QLatin1Char(',')), expected);
}

void TstChargeSnapshot::warningTexts()
{
    ChargeSnapshot s = withRefunds(charge(), { refund(QStringLiteral("re_2"), 1000, QStringLiteral("pending"), 600, QStringLiteral("act_7")),
                                               refund(QStringLiteral("re_1"), 4000, QStringLiteral("succeeded"), 3 * 3600) });
    s.disputed = true;
    s.created = Now.addDays(-200);
    const QList<ChargeWarning> w = chargeWarnings(s, 6000, Now);
    QCOMPARE(w.size(), 5);
    QCOMPARE(w[0].text, QStringLiteral("The charge ch_1 is disputed: a refund now may pay the customer twice."));
    QCOMPARE(w[1].text, QStringLiteral("60.00 USD is over half of the charge's captured 99.00 USD."));
    // A full refund is not "over half": the whole charge, or more than it, said as such (issue 35).
    QCOMPARE(chargeWarnings(charge(), 9900, Now).at(0).text,
             QStringLiteral("99.00 USD is the whole of the charge's captured 99.00 USD."));
    QCOMPARE(chargeWarnings(charge(), 9901, Now).at(0).text,
             QStringLiteral("99.01 USD is more than the charge's captured 99.00 USD."));
    QCOMPARE(w[2].text, QStringLiteral("The charge is 200 days old, past the 180-day card refund window: the provider "
                                       "may refuse the refund."));
    QCOMPARE(w[3].text, QStringLiteral("Already refunded 50.00 USD of 99.00 USD: re_2 10.00 USD pending, 10 min ago "
                                       "(action act_7); re_1 40.00 USD succeeded, 3 h ago (made outside Countersign)."));
    QCOMPARE(w[4].text, QStringLiteral("Requested 60.00 USD, more than the 49.00 USD the provider says is left "
                                       "(captured 99.00 USD − refunded 50.00 USD)."));
    ChargeSnapshot error;
    error.targetId = QStringLiteral("pi_9");
    error.result = ChargeSnapshot::Result::Error;
    error.excerpt = QStringLiteral("HTTP 500");
    QCOMPARE(chargeWarnings(error, 1, Now).value(0).text,
             QStringLiteral("No view of the charge: the provider could not be read (HTTP 500); its amount, age, "
                            "refunds and disputes are unchecked."));
}

void TstChargeSnapshot::remaining_data()
{
    QTest::addColumn<ChargeSnapshot>("snapshot");
    QTest::addColumn<qint64>("remaining");
    QTest::newRow("nothing refunded") << charge() << qint64(9900);
    QTest::newRow("pending and succeeded count, failed and canceled do not")
        << withRefunds(charge(), { refund(QStringLiteral("re_1"), 1000, QStringLiteral("pending"), 1),
                                   refund(QStringLiteral("re_2"), 2000, QStringLiteral("succeeded"), 1),
                                   refund(QStringLiteral("re_3"), 3000, QStringLiteral("failed"), 1),
                                   refund(QStringLiteral("re_4"), 3000, QStringLiteral("canceled"), 1) })
        << qint64(6900);
    ChargeSnapshot over = charge();
    over.amountRefunded = 20000;
    QTest::newRow("never negative") << over << qint64(0);
    ChargeSnapshot missing;
    missing.targetId = QStringLiteral("ch_x");
    missing.amountCaptured = 100;
    QTest::newRow("not found: nothing") << missing << qint64(0);
}

void TstChargeSnapshot::remaining()
{
    QFETCH(ChargeSnapshot, snapshot);
    QFETCH(qint64, remaining);
    QCOMPARE(refundableRemaining(snapshot), remaining);
}

QTEST_APPLESS_MAIN(TstChargeSnapshot)
#include "tst_chargesnapshot.moc"
