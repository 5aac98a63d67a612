// The Stripe adapter against a real paysim on 127.0.0.1: wire format, the classification of every
// provider answer and fault, per-request deadlines, no silent resend, lookups of every kind.

#include "server/ledger/ids.h"
#include "server/stripeclient.h"

#include "models/chargewarnings.h"
#include "tests/execution/executiontestsupport.h"

#include <QJsonDocument>
#include <QSemaphore>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>

using namespace cs;
using namespace cs::test;

Q_DECLARE_METATYPE(Attempt::Outcome)

namespace {

ActionRecord actionFor(const QString &chargeId, qint64 amount)
{
    ActionRecord a;
    a.id = Ids::newActionId();
    a.targetType = TargetType::Charge;
    a.targetId = chargeId;
    a.amount = amount;
    a.currency = QStringLiteral("usd");
    a.reason = QStringLiteral("requested_by_customer");
    a.provider = QStringLiteral("paysim");
    a.requestFingerprint = requestFingerprint(a.providerRequest());
    a.idempotencyKey = Ids::newIdempotencyKey(a.id, 1);
    return a;
}

QString w(Attempt::Outcome outcome)
{
    return toWire(outcome);
}

QString w(ProviderLookup::Result result)
{
    return toWire(result);
}

} // namespace

class TestStripeClient : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void readsSecretKeyFile_data();
    void readsSecretKeyFile();
    void warnsAboutAReadableKeyFile();
    void ownerOnlyKeyFileIsQuiet();
    void validatesConfig();
    void refusesPlainHttpOffLoopback_data();
    void refusesPlainHttpOffLoopback();

    void classifiesEveryAnswer_data();
    void classifiesEveryAnswer();
    void speaksStripeWireFormat();
    void replayIsReported();
    void deadlineIsADeadline();
    void abortInFlightEndsUnknown();
    void manyThreadsEachWithTheirOwnConnection();

    void findsRefundByMetadataAcrossPages();
    void notFoundAndLookupErrors();
    void lookupLagShowsAsNotFound();
    void duplicatesAreAllListed();
    void retrievesKnownRefund();
    void readsRefundEvents();

    void readsACharge();
    void chargeNotFound();
    void paymentIntentResolvesToItsLatestCharge();
    void followsEveryPageOfRefunds();
    void tooManyRefundPagesIsAnError();
    void dashboardRefundIsListed();
    void disputedAndOldCharge();
    void chargeReadFaults_data();
    void chargeReadFaults();
    void defaultAdapterCannotReadCharges();

private:
    std::unique_ptr<Paysim> m_sim;
    std::unique_ptr<StripeClient> m_client;
    QString m_charge;
};

void TestStripeClient::init()
{
    m_sim = std::make_unique<Paysim>();
    QVERIFY(m_sim->start());
    m_charge = m_sim->seedCharge(10000);
    QVERIFY(!m_charge.isEmpty());
    m_client = std::make_unique<StripeClient>(providerConfig(m_sim->url(), 400));
}

void TestStripeClient::cleanup()
{
    m_client.reset();
    m_sim.reset();
}

void TestStripeClient::readsSecretKeyFile_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("exists");
    QTest::addColumn<QByteArray>("expected"); // empty: refused

    QTest::newRow("a key with a trailing newline") << QByteArray("sk_test_abc\n") << true << QByteArray("sk_test_abc");
    QTest::newRow("a restricted key") << QByteArray("  rk_live_xyz  ") << true << QByteArray("rk_live_xyz");
    QTest::newRow("missing file") << QByteArray() << false << QByteArray();
    QTest::newRow("empty file") << QByteArray("\n") << true << QByteArray();
    QTest::newRow("not a secret key") << QByteArray("pk_test_public") << true << QByteArray();
    QTest::newRow("two keys") << QByteArray("sk_test_a\nsk_test_b\n") << true << QByteArray();
}

void TestStripeClient::readsSecretKeyFile()
{
    QFETCH(QByteArray, content);
    QFETCH(bool, exists);
    QFETCH(QByteArray, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("key"));
    if (exists) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
    }
    QString error;
    const auto key = StripeClient::readSecretKeyFile(path, &error);
    if (expected.isEmpty()) {
        QVERIFY(!key.has_value());
        QVERIFY(!error.isEmpty());
    } else {
        QVERIFY2(key.has_value(), qPrintable(error));
        QCOMPARE(*key, expected);
    }
}

// Local users (docs/SECURITY.md): a key file others can read is used, with a warning.
static QString keyFileWith(const QTemporaryDir &dir, QFileDevice::Permissions permissions)
{
    const QString path = dir.filePath(QStringLiteral("key"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write("sk_test_abc\n") < 0)
        return QString();
    file.close();
    return file.setPermissions(permissions) ? path : QString();
}

void TestStripeClient::warnsAboutAReadableKeyFile()
{
    QTemporaryDir dir;
    const QString path = keyFileWith(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup
                                              | QFileDevice::ReadOther);
    QVERIFY(!path.isEmpty());
    QString error;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("secret key file .* is readable by other users")));
    QVERIFY(StripeClient::readSecretKeyFile(path, &error).has_value());
}

void TestStripeClient::ownerOnlyKeyFileIsQuiet()
{
    QTemporaryDir dir;
    const QString path = keyFileWith(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QVERIFY(!path.isEmpty());
    QString error;
    QTest::failOnWarning(QRegularExpression(QStringLiteral("readable by other users")));
    QVERIFY(StripeClient::readSecretKeyFile(path, &error).has_value());
}

void TestStripeClient::validatesConfig()
{
    StripeClientConfig config = providerConfig(m_sim->url());
    QVERIFY(config.validate().isEmpty());
    config.secretKey.clear();
    QVERIFY(!config.validate().isEmpty());
    config = providerConfig(QUrl(QStringLiteral("ftp://example.com")));
    QVERIFY(!config.validate().isEmpty());
}

// Issue 12 #6: the secret key goes out in every request, so plain http only on loopback.
void TestStripeClient::refusesPlainHttpOffLoopback_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("https") << QStringLiteral("https://api.stripe.com") << true;
    QTest::newRow("https private address") << QStringLiteral("https://10.0.0.5:8443") << true;
    QTest::newRow("http 127.0.0.1") << QStringLiteral("http://127.0.0.1:12111") << true;
    QTest::newRow("http 127.3.4.5") << QStringLiteral("http://127.3.4.5:12111") << true;
    QTest::newRow("http [::1]") << QStringLiteral("http://[::1]:12111") << true;
    QTest::newRow("http localhost") << QStringLiteral("http://localhost:12111") << true;
    QTest::newRow("http 10.0.0.5") << QStringLiteral("http://10.0.0.5:12111") << false;
    QTest::newRow("http example.com") << QStringLiteral("http://example.com") << false;
    QTest::newRow("http 0.0.0.0") << QStringLiteral("http://0.0.0.0:12111") << false;
    QTest::newRow("http localhost.example.com") << QStringLiteral("http://localhost.example.com") << false;
    QTest::newRow("http [::ffff:10.0.0.5]") << QStringLiteral("http://[::ffff:10.0.0.5]") << false;
}

void TestStripeClient::refusesPlainHttpOffLoopback()
{
    QFETCH(QString, url);
    QFETCH(bool, accepted);
    const QString problem = providerConfig(QUrl(url, QUrl::StrictMode)).validate();
    QCOMPARE(problem.isEmpty(), accepted);
    if (!accepted)
        QVERIFY2(problem.contains(QLatin1String("https")), qPrintable(problem));
}

void TestStripeClient::classifiesEveryAnswer_data()
{
    QTest::addColumn<QString>("fault");      // a POST /v1/refunds fault rule, JSON; empty: none
    QTest::addColumn<QString>("target");     // "charge" (10000 cents), or "missing"
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QByteArray>("apiKey");  // empty: the valid test key
    QTest::addColumn<Attempt::Outcome>("outcome");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<QString>("errorCode");
    QTest::addColumn<int>("committed");      // refunds in paysim's ground truth; -1: not checked (commits later)

    using O = Attempt::Outcome;
    const QString none;
    QTest::newRow("200: succeeded") << none << "charge" << qint64(4000) << QByteArray() << O::Succeeded << 200 << QString() << 1;
    QTest::newRow("400 amount_too_large: definitive rejection")
        << none << "charge" << qint64(20000) << QByteArray() << O::Rejected << 400 << "amount_too_large" << 0;
    QTest::newRow("404 resource_missing: definitive rejection")
        << none << "missing" << qint64(4000) << QByteArray() << O::Rejected << 404 << "resource_missing" << 0;
    QTest::newRow("402 card_error: definitive rejection")
        << R"({"fault":"forced_error","status":402,"type":"card_error","code":"card_declined"})" << "charge" << qint64(4000)
        << QByteArray() << O::Rejected << 402 << "card_declined" << 0;
    QTest::newRow("401 bad credentials: rejected, nothing executed")
        << none << "charge" << qint64(4000) << QByteArray("sk_nope") << O::Rejected << 401 << "invalid_request_error" << 0;
    QTest::newRow("400 charge_already_refunded: ambiguous, unknown")
        << R"({"fault":"forced_error","status":400,"type":"invalid_request_error","code":"charge_already_refunded"})"
        << "charge" << qint64(4000) << QByteArray() << O::Unknown << 400 << "charge_already_refunded" << 0;
    QTest::newRow("400 idempotency_error: mismatch")
        << R"({"fault":"idempotency_error"})" << "charge" << qint64(4000) << QByteArray() << O::IdempotencyMismatch << 400
        << "idempotency_error" << 0;
    QTest::newRow("409 idempotency_key_in_use: key in use")
        << R"({"fault":"forced_error","status":409,"type":"invalid_request_error","code":"idempotency_key_in_use"})"
        << "charge" << qint64(4000) << QByteArray() << O::KeyInUse << 409 << "idempotency_key_in_use" << 0;
    QTest::newRow("429: rate limited") << R"({"fault":"rate_limit_429"})" << "charge" << qint64(4000) << QByteArray()
                                       << O::RateLimited << 429 << "rate_limit" << 0;
    QTest::newRow("500 before commit: unknown") << R"({"fault":"error_500_before_commit"})" << "charge" << qint64(4000)
                                                << QByteArray() << O::Unknown << 500 << QString() << 0;
    QTest::newRow("500 after commit: unknown") << R"({"fault":"error_500_after_commit"})" << "charge" << qint64(4000)
                                               << QByteArray() << O::Unknown << 500 << QString() << 1;
    QTest::newRow("503 outage: unknown") << R"({"fault":"outage_503"})" << "charge" << qint64(4000) << QByteArray()
                                         << O::Unknown << 503 << QString() << 0;
    QTest::newRow("reset before commit: unknown") << R"({"fault":"reset_connection"})" << "charge" << qint64(4000)
                                                  << QByteArray() << O::Unknown << 0 << QString() << 0;
    QTest::newRow("reset after commit: unknown") << R"({"fault":"reset_connection","after_commit":true})" << "charge"
                                                 << qint64(4000) << QByteArray() << O::Unknown << 0 << QString() << 1;
    QTest::newRow("response dropped after commit: unknown, never resent")
        << R"({"fault":"drop_response_after_commit"})" << "charge" << qint64(4000) << QByteArray() << O::Unknown << 0
        << QString() << 1;
    QTest::newRow("answer later than the deadline, committed: unknown")
        << R"({"fault":"delay_after_commit","delay_ms":1500})" << "charge" << qint64(4000) << QByteArray() << O::Unknown
        << 0 << QString() << 1;
    QTest::newRow("held before commit past the deadline: unknown")
        << R"({"fault":"delay_before_commit","delay_ms":1500})" << "charge" << qint64(4000) << QByteArray()
        << O::Unknown << 0 << QString() << -1;
}

void TestStripeClient::classifiesEveryAnswer()
{
    QFETCH(QString, fault);
    QFETCH(QString, target);
    QFETCH(qint64, amount);
    QFETCH(QByteArray, apiKey);
    QFETCH(Attempt::Outcome, outcome);
    QFETCH(int, httpStatus);
    QFETCH(QString, errorCode);
    QFETCH(int, committed);

    if (!fault.isEmpty()) {
        QJsonObject rule = QJsonDocument::fromJson(fault.toUtf8()).object();
        rule.insert(QStringLiteral("method"), QStringLiteral("POST"));
        rule.insert(QStringLiteral("path"), QStringLiteral("/v1/refunds"));
        QVERIFY(m_sim->addFault(rule));
    }
    StripeClientConfig config = providerConfig(m_sim->url(), 400);
    if (!apiKey.isEmpty())
        config.secretKey = apiKey;
    StripeClient client(config);
    const ActionRecord action = actionFor(target == u"missing" ? QStringLiteral("ch_missing") : m_charge, amount);

    const RefundOutcome result = client.createRefund(action.providerRequest(), action.idempotencyKey);
    QCOMPARE(w(result.outcome), w(outcome));
    QCOMPARE(result.httpStatus, httpStatus);
    QCOMPARE(result.errorCode, errorCode);
    if (outcome == Attempt::Outcome::Succeeded) {
        QVERIFY(result.providerObjectId.startsWith(QStringLiteral("re_")));
        QCOMPARE(result.amount, amount);
        QCOMPARE(result.refundStatus, QStringLiteral("succeeded"));
    }
    if (httpStatus != 0)
        QVERIFY(result.providerRequestId.startsWith(QStringLiteral("req_")));
    else
        QVERIFY(!result.errorExcerpt.isEmpty());
    if (committed >= 0)
        QCOMPARE(m_sim->refundsFor(action.id).size(), committed);
    // The adapter never retries on its own: exactly one POST reached the provider.
    QCOMPARE(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 1);
}

void TestStripeClient::speaksStripeWireFormat()
{
    const ActionRecord action = actionFor(m_charge, 4000);
    const RefundOutcome result = m_client->createRefund(action.providerRequest(), action.idempotencyKey);
    QCOMPARE(w(result.outcome), w(Attempt::Outcome::Succeeded));
    const QJsonArray rows = m_sim->refundsFor(action.id);
    QCOMPARE(rows.size(), 1);
    const QJsonObject row = rows.first().toObject();
    QCOMPARE(row.value(QStringLiteral("id")).toString(), result.providerObjectId);
    QCOMPARE(row.value(QStringLiteral("charge")).toString(), m_charge);
    QCOMPARE(row.value(QStringLiteral("amount")).toInteger(), qint64(4000));
    QCOMPARE(row.value(QStringLiteral("idempotency_key")).toString(), action.idempotencyKey);
    QCOMPARE(row.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("countersign_action_id")).toString(),
             action.id);
    QCOMPARE(m_client->name(), QStringLiteral("paysim"));
}

void TestStripeClient::replayIsReported()
{
    const ActionRecord action = actionFor(m_charge, 4000);
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("drop_response_after_commit")}}));
    const RefundOutcome lost = m_client->createRefund(action.providerRequest(), action.idempotencyKey);
    QCOMPARE(w(lost.outcome), w(Attempt::Outcome::Unknown));
    const RefundOutcome replay = m_client->createRefund(action.providerRequest(), action.idempotencyKey);
    QCOMPARE(w(replay.outcome), w(Attempt::Outcome::Succeeded));
    QVERIFY(replay.replayed);
    QCOMPARE(m_sim->refundsFor(action.id).size(), 1);
}

void TestStripeClient::deadlineIsADeadline()
{
    // The answer trickles in late: an idle timeout would not fire, the deadline must.
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("delay_after_commit")},
                                        {QStringLiteral("delay_ms"), 3000}}));
    const ActionRecord action = actionFor(m_charge, 4000);
    QElapsedTimer timer;
    timer.start();
    const RefundOutcome result = m_client->createRefund(action.providerRequest(), action.idempotencyKey);
    const qint64 elapsed = timer.elapsed();
    QCOMPARE(w(result.outcome), w(Attempt::Outcome::Unknown));
    QVERIFY2(elapsed >= 350 && elapsed < 2000, qPrintable(QString::number(elapsed)));
    QVERIFY(result.errorExcerpt.contains(QStringLiteral("400 ms")));
}

void TestStripeClient::abortInFlightEndsUnknown()
{
    StripeClient slow(providerConfig(m_sim->url(), 10000));
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("delay_before_commit")},
                                        {QStringLiteral("delay_ms"), 5000}}));
    const ActionRecord action = actionFor(m_charge, 4000);
    std::atomic_bool done{false};
    RefundOutcome result;
    QThread *worker = QThread::create([&] {
        result = slow.createRefund(action.providerRequest(), action.idempotencyKey);
        done = true;
    });
    worker->start();
    QTRY_COMPARE_WITH_TIMEOUT(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 1, 5000);
    QElapsedTimer timer;
    timer.start();
    slow.abortInFlight();
    QTRY_VERIFY_WITH_TIMEOUT(done.load(), 3000);
    QVERIFY(timer.elapsed() < 3000);
    QVERIFY(worker->wait(5000));
    delete worker;
    QCOMPARE(w(result.outcome), w(Attempt::Outcome::Unknown));
    QVERIFY2(result.errorExcerpt.contains(QStringLiteral("aborted")), qPrintable(result.errorExcerpt));
}

void TestStripeClient::manyThreadsEachWithTheirOwnConnection()
{
    StripeClient client(providerConfig(m_sim->url(), 5000));
    const QString charge = m_sim->seedCharge(1000000);
    constexpr int Threads = 4;
    constexpr int PerThread = 8;
    std::atomic_int succeeded{0};
    QList<QThread *> threads;
    for (int t = 0; t < Threads; ++t) {
        threads << QThread::create([&] {
            for (int i = 0; i < PerThread; ++i) {
                const ActionRecord action = actionFor(charge, 100);
                if (client.createRefund(action.providerRequest(), action.idempotencyKey).outcome
                    == Attempt::Outcome::Succeeded) {
                    ++succeeded;
                }
            }
        });
        threads.last()->start();
    }
    QTRY_COMPARE_WITH_TIMEOUT(succeeded.load(), Threads * PerThread, 20000);
    for (QThread *thread : std::as_const(threads))
        QVERIFY(thread->wait(5000)); // each thread's network manager is deleted as it finishes
    qDeleteAll(threads);
    QCOMPARE(m_sim->groundTruth().size(), Threads * PerThread);
}

void TestStripeClient::findsRefundByMetadataAcrossPages()
{
    const QString charge = m_sim->seedCharge(1000000);
    const ActionRecord mine = actionFor(charge, 700);
    QCOMPARE(w(m_client->createRefund(mine.providerRequest(), mine.idempotencyKey).outcome),
             w(Attempt::Outcome::Succeeded));
    // 150 newer refunds of other actions push mine onto the second page (100 a page, newest first).
    for (int i = 0; i < 150; ++i) {
        const ActionRecord other = actionFor(charge, 1);
        QCOMPARE(w(m_client->createRefund(other.providerRequest(), other.idempotencyKey).outcome),
                 w(Attempt::Outcome::Succeeded));
    }
    const RefundSearch search = m_client->searchRefundsForAction(mine, QStringLiteral("tester"));
    QCOMPARE(w(search.lookup.result), w(ProviderLookup::Result::Found));
    QCOMPARE(search.sightings.size(), 1);
    const QJsonArray truth = m_sim->refundsFor(mine.id);
    QCOMPARE(truth.size(), 1);
    QCOMPARE(search.lookup.providerObjectId, truth.first().toObject().value(QStringLiteral("id")).toString());
    QCOMPARE(search.lookup.amount, qint64(700));
    QCOMPARE(search.lookup.currency, QStringLiteral("usd"));
    QCOMPARE(search.lookup.status, QStringLiteral("succeeded"));
    QCOMPARE(search.lookup.askedBy, QStringLiteral("tester"));
    QCOMPARE(search.lookup.actionId, mine.id);
    QVERIFY(m_sim->requestsTo(QStringLiteral("GET"), QStringLiteral("/v1/refunds")) >= 2);
}

void TestStripeClient::notFoundAndLookupErrors()
{
    const ActionRecord nobody = actionFor(m_charge, 4000);
    const ProviderLookup missing = m_client->findRefundForAction(nobody, QStringLiteral("tester"));
    QCOMPARE(w(missing.result), w(ProviderLookup::Result::NotFound));
    QCOMPARE(missing.httpStatus, 200);

    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("forced_error")},
                                        {QStringLiteral("status"), 500},
                                        {QStringLiteral("type"), QStringLiteral("api_error")}}));
    const ProviderLookup failed = m_client->findRefundForAction(nobody, QStringLiteral("tester"));
    QCOMPARE(w(failed.result), w(ProviderLookup::Result::Error));
    QCOMPARE(failed.httpStatus, 500);

    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("delay_after_commit")},
                                        {QStringLiteral("delay_ms"), 2000}}));
    const ProviderLookup slow = m_client->findRefundForAction(nobody, QStringLiteral("tester"));
    QCOMPARE(w(slow.result), w(ProviderLookup::Result::Error));
    QCOMPARE(slow.httpStatus, 0);
}

void TestStripeClient::lookupLagShowsAsNotFound()
{
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("lookup_lag")},
                                        {QStringLiteral("delay_ms"), 60000}}));
    const ActionRecord action = actionFor(m_charge, 4000);
    QCOMPARE(w(m_client->createRefund(action.providerRequest(), action.idempotencyKey).outcome),
             w(Attempt::Outcome::Succeeded));
    // Committed, yet invisible: NOT_FOUND is not evidence of absence.
    QCOMPARE(m_sim->refundsFor(action.id).size(), 1);
    QCOMPARE(w(m_client->findRefundForAction(action, QStringLiteral("tester")).result),
             w(ProviderLookup::Result::NotFound));
}

void TestStripeClient::duplicatesAreAllListed()
{
    const ActionRecord action = actionFor(m_charge, 1000);
    QCOMPARE(w(m_client->createRefund(action.providerRequest(), QStringLiteral("key-one")).outcome),
             w(Attempt::Outcome::Succeeded));
    QCOMPARE(w(m_client->createRefund(action.providerRequest(), QStringLiteral("key-two")).outcome),
             w(Attempt::Outcome::Succeeded));
    const RefundSearch search = m_client->searchRefundsForAction(action, QStringLiteral("tester"));
    QCOMPARE(w(search.lookup.result), w(ProviderLookup::Result::Found));
    QCOMPARE(search.sightings.size(), 2);
    QVERIFY(search.sightings.at(0).refundId != search.sightings.at(1).refundId);
    for (const RefundSighting &s : search.sightings) { // what the evidence rule weighs of each
        QCOMPARE(s.amount, action.amount);
        QCOMPARE(s.currency, action.currency);
        QCOMPARE(s.chargeId, action.targetId);
    }
    QVERIFY(search.lookup.excerpt.contains(QStringLiteral("2 refunds")));
}

void TestStripeClient::retrievesKnownRefund()
{
    const ActionRecord action = actionFor(m_charge, 4000);
    const RefundOutcome created = m_client->createRefund(action.providerRequest(), action.idempotencyKey);
    QCOMPARE(w(created.outcome), w(Attempt::Outcome::Succeeded));
    const ProviderLookup found = m_client->retrieveRefund(action, created.providerObjectId, QStringLiteral("tester"));
    QCOMPARE(w(found.result), w(ProviderLookup::Result::Found));
    QCOMPARE(found.method, ProviderLookup::Method::RetrieveRefund);
    QCOMPARE(found.providerObjectId, created.providerObjectId);
    QCOMPARE(found.amount, qint64(4000));

    const ProviderLookup missing = m_client->retrieveRefund(action, QStringLiteral("re_doesnotexist"), QStringLiteral("tester"));
    QCOMPARE(w(missing.result), w(ProviderLookup::Result::NotFound));
    QCOMPARE(missing.httpStatus, 404);

    const ActionRecord other = actionFor(m_charge, 4000);
    const ProviderLookup foreign = m_client->retrieveRefund(other, created.providerObjectId, QStringLiteral("tester"));
    QCOMPARE(w(foreign.result), w(ProviderLookup::Result::Error));
}

void TestStripeClient::readsRefundEvents()
{
    const ActionRecord action = actionFor(m_charge, 2500);
    const RefundOutcome created = m_client->createRefund(action.providerRequest(), action.idempotencyKey);
    QCOMPARE(w(created.outcome), w(Attempt::Outcome::Succeeded));
    const ProviderLookup found = m_client->findRefundInEvents(action, QStringLiteral("tester"));
    QCOMPARE(w(found.result), w(ProviderLookup::Result::Found));
    QCOMPARE(found.method, ProviderLookup::Method::Events);
    QCOMPARE(found.providerObjectId, created.providerObjectId);
    QCOMPARE(found.amount, qint64(2500));
    QVERIFY(found.excerpt.contains(QStringLiteral("refund.created")));

    const ProviderLookup none = m_client->findRefundInEvents(actionFor(m_charge, 1), QStringLiteral("tester"));
    QCOMPARE(w(none.result), w(ProviderLookup::Result::NotFound));
}

// --- the provider's view of a charge -------------------------------------------------------------

namespace {

QString seedWith(Paysim &sim, qint64 amount, const paysim::ChargeSeed &seed)
{
    const QList<paysim::Charge> charges = sim.server().seedCharges(QList<qint64>{amount}, QStringLiteral("usd"), seed);
    return charges.isEmpty() ? QString() : charges.first().id;
}

QString paymentIntentOf(Paysim &sim, const QString &chargeId)
{
    const paysim::Charge *c = sim.server().store().charge(chargeId);
    return c ? c->paymentIntent : QString();
}

// A refund made outside Countersign: no metadata[countersign_action_id].
QString dashboardRefund(Paysim &sim, const QString &chargeId, qint64 amount)
{
    return sim.admin()
        .post(QStringLiteral("/v1/refunds"), {{QStringLiteral("charge"), chargeId}, {QStringLiteral("amount"), QString::number(amount)}})
        .json.value(QStringLiteral("id"))
        .toString();
}

QString w(ChargeSnapshot::Result result)
{
    return toWire(result);
}

} // namespace

void TestStripeClient::readsACharge()
{
    paysim::ChargeSeed seed;
    seed.ageSeconds = 3600;
    seed.source = QStringLiteral("tok_mastercard");
    const QString charge = seedWith(*m_sim, 9900, seed);
    const ActionRecord action = actionFor(charge, 1000);
    QCOMPARE(w(m_client->createRefund(action.providerRequest(), action.idempotencyKey).outcome), w(Attempt::Outcome::Succeeded));

    const QDateTime before = QDateTime::currentDateTimeUtc();
    const ChargeSnapshot s = m_client->retrieveCharge(TargetType::Charge, charge, QStringLiteral("approve"));
    const QDateTime after = QDateTime::currentDateTimeUtc();
    QVERIFY2(s.result == ChargeSnapshot::Result::Found, qPrintable(s.excerpt));
    QCOMPARE(s.httpStatus, 200);
    QCOMPARE(s.targetType, TargetType::Charge);
    QCOMPARE(s.targetId, charge);
    QCOMPARE(s.chargeId, charge);
    QCOMPARE(s.paymentIntentId, paymentIntentOf(*m_sim, charge));
    QCOMPARE(s.askedBy, QStringLiteral("approve"));
    QVERIFY(s.readAt >= before.addMSecs(-1) && s.readAt <= after.addMSecs(1));
    QCOMPARE(s.amount, qint64(9900));
    QCOMPARE(s.amountCaptured, qint64(9900));
    QCOMPARE(s.amountRefunded, qint64(1000));
    QCOMPARE(s.currency, QStringLiteral("usd"));
    QVERIFY2(qAbs(s.created.secsTo(QDateTime::currentDateTimeUtc()) - 3600) <= 5, qPrintable(s.created.toString(Qt::ISODate)));
    QCOMPARE(s.paymentMethodBrand, QStringLiteral("mastercard"));
    QCOMPARE(s.paymentMethodLast4, QStringLiteral("4444"));
    QCOMPARE(s.disputed, false);
    QCOMPARE(s.refunds.size(), 1);
    QCOMPARE(s.refunds[0].actionId, action.id);
    QCOMPARE(s.refunds[0].amount, qint64(1000));
    QCOMPARE(s.refunds[0].status, QStringLiteral("succeeded"));
    QVERIFY(s.refunds[0].created.isValid());
    QVERIFY(s.excerpt.isEmpty());
    // The snapshot is evidence the ledger can keep as it is.
    QString error;
    const auto back = ChargeSnapshot::fromJson(s.toJson(), &error);
    QVERIFY2(back.has_value(), qPrintable(error));
    QCOMPARE(back->toJson(), s.toJson());
}

void TestStripeClient::chargeNotFound()
{
    const ChargeSnapshot charge = m_client->retrieveCharge(TargetType::Charge, QStringLiteral("ch_nope"), QStringLiteral("proposal"));
    QCOMPARE(w(charge.result), w(ChargeSnapshot::Result::NotFound));
    QCOMPARE(charge.httpStatus, 404);
    QVERIFY2(charge.excerpt.contains(QLatin1String("No such charge: 'ch_nope'")), qPrintable(charge.excerpt));
    QVERIFY(charge.readAt.isValid());
    const ChargeSnapshot intent = m_client->retrieveCharge(TargetType::PaymentIntent, QStringLiteral("pi_nope"), QStringLiteral("proposal"));
    QCOMPARE(w(intent.result), w(ChargeSnapshot::Result::NotFound));
    QCOMPARE(intent.httpStatus, 404);
    QVERIFY2(intent.excerpt.contains(QLatin1String("No such payment_intent")), qPrintable(intent.excerpt));
    // Not an id: refused before anything is sent.
    const int before = m_sim->requestsTo(QStringLiteral("GET"), QStringLiteral("/v1/charges/ch_x"));
    const ChargeSnapshot bad = m_client->retrieveCharge(TargetType::Charge, QStringLiteral("ch_x/../refunds"), QStringLiteral("proposal"));
    QCOMPARE(w(bad.result), w(ChargeSnapshot::Result::Error));
    QVERIFY(bad.excerpt.contains(QLatin1String("not a provider id")));
    QCOMPARE(m_sim->requestsTo(QStringLiteral("GET"), QStringLiteral("/v1/charges/ch_x")), before);
}

void TestStripeClient::paymentIntentResolvesToItsLatestCharge()
{
    const QString pi = paymentIntentOf(*m_sim, m_charge);
    QVERIFY(pi.startsWith(QLatin1String("pi_")));
    const ChargeSnapshot s = m_client->retrieveCharge(TargetType::PaymentIntent, pi, QStringLiteral("claim"));
    QVERIFY2(s.result == ChargeSnapshot::Result::Found, qPrintable(s.excerpt));
    QCOMPARE(s.targetType, TargetType::PaymentIntent);
    QCOMPARE(s.targetId, pi);
    QCOMPARE(s.paymentIntentId, pi);
    QCOMPARE(s.chargeId, m_charge);
    QCOMPARE(s.amountCaptured, qint64(10000));
    QCOMPARE(m_sim->requestsTo(QStringLiteral("GET"), QStringLiteral("/v1/payment_intents/") + pi), 1);
    QCOMPARE(m_sim->requestsTo(QStringLiteral("GET"), QStringLiteral("/v1/charges/") + m_charge), 1);
}

// 215 refunds: 10 in the expanded charge, then pages of 100, 100 and 5 from /v1/refunds.
void TestStripeClient::followsEveryPageOfRefunds()
{
    const QString charge = m_sim->seedCharge(100000);
    QStringList made; // newest first
    for (int i = 0; i < 215; ++i)
        made.prepend(dashboardRefund(*m_sim, charge, 1 + i % 7));
    const ChargeSnapshot s = m_client->retrieveCharge(TargetType::Charge, charge, QStringLiteral("approve"));
    QVERIFY2(s.result == ChargeSnapshot::Result::Found, qPrintable(s.excerpt));
    QStringList listed;
    qint64 sum = 0;
    for (const ChargeSnapshot::Refund &r : s.refunds) {
        listed << r.id;
        sum += r.amount;
    }
    QCOMPARE(listed, made);
    QCOMPARE(sum, s.amountRefunded);
    QCOMPARE(m_sim->requestsTo(QStringLiteral("GET"), QStringLiteral("/v1/refunds")), 3);
    QCOMPARE(refundableRemaining(s), 100000 - sum);
}

void TestStripeClient::tooManyRefundPagesIsAnError()
{
    const QString charge = m_sim->seedCharge(100000);
    for (int i = 0; i < 111; ++i)
        QVERIFY(!dashboardRefund(*m_sim, charge, 1).isEmpty());
    StripeClientConfig config = providerConfig(m_sim->url(), 400);
    config.maxListPages = 1; // the expanded 10 and one page of 100: one refund unread
    StripeClient client(config);
    const ChargeSnapshot s = client.retrieveCharge(TargetType::Charge, charge, QStringLiteral("claim"));
    QCOMPARE(w(s.result), w(ChargeSnapshot::Result::Error));
    QVERIFY2(s.excerpt.contains(QLatin1String("the list is incomplete")), qPrintable(s.excerpt));
    QVERIFY(s.refunds.isEmpty());    // nothing half-read is kept
    QCOMPARE(s.amountCaptured, qint64(0));
}

void TestStripeClient::dashboardRefundIsListed()
{
    const ActionRecord action = actionFor(m_charge, 2500);
    QCOMPARE(w(m_client->createRefund(action.providerRequest(), action.idempotencyKey).outcome), w(Attempt::Outcome::Succeeded));
    const QString elsewhere = dashboardRefund(*m_sim, m_charge, 4000);
    const ChargeSnapshot s = m_client->retrieveCharge(TargetType::Charge, m_charge, QStringLiteral("approve"));
    QVERIFY2(s.result == ChargeSnapshot::Result::Found, qPrintable(s.excerpt));
    QCOMPARE(s.refunds.size(), 2);
    QCOMPARE(s.refunds[0].id, elsewhere);
    QCOMPARE(s.refunds[0].actionId, QString());
    QCOMPARE(s.refunds[0].amount, qint64(4000));
    QCOMPARE(s.refunds[1].actionId, action.id);
    QCOMPARE(s.amountRefunded, qint64(6500));
    QCOMPARE(refundableRemaining(s), qint64(3500));
    // The budget shrinks at the next read: 40.00 more no longer fits.
    QVERIFY(chargeWarnings(s, 4000, QDateTime::currentDateTimeUtc()).contains(
        ChargeWarning{ChargeWarning::Kind::ExceedsRemaining,
                      QStringLiteral("Requested 40.00 USD, more than the 35.00 USD the provider says is left (captured "
                                     "100.00 USD − refunded 65.00 USD).")}));
}

void TestStripeClient::disputedAndOldCharge()
{
    paysim::ChargeSeed seed;
    seed.ageSeconds = 200LL * 86400;
    seed.disputed = true;
    seed.cardBrand = QStringLiteral("amex");
    seed.cardLast4 = QStringLiteral("0005");
    const QString charge = seedWith(*m_sim, 5000, seed);
    const ChargeSnapshot s = m_client->retrieveCharge(TargetType::Charge, charge, QStringLiteral("approve"));
    QVERIFY2(s.result == ChargeSnapshot::Result::Found, qPrintable(s.excerpt));
    QCOMPARE(s.disputed, true);
    QCOMPARE(s.created.daysTo(QDateTime::currentDateTimeUtc()), 200);
    QCOMPARE(s.paymentMethodBrand, QStringLiteral("amex"));
    QCOMPARE(s.paymentMethodLast4, QStringLiteral("0005"));
    QStringList kinds;
    for (const ChargeWarning &warning : chargeWarnings(s, 1000, QDateTime::currentDateTimeUtc()))
        kinds << toWire(warning.kind);
    QCOMPARE(kinds, (QStringList{QStringLiteral("disputed"), QStringLiteral("past_refund_window")}));

    // Disputed later, through the admin API: the next read shows it.
    const QString later = m_sim->seedCharge(3000);
    QCOMPARE(m_client->retrieveCharge(TargetType::Charge, later, QStringLiteral("proposal")).disputed, false);
    QCOMPARE(m_sim->admin().adminPost(QStringLiteral("/_sim/charges/%1/dispute").arg(later)).status, 200);
    QCOMPARE(m_client->retrieveCharge(TargetType::Charge, later, QStringLiteral("approve")).disputed, true);
}

void TestStripeClient::chargeReadFaults_data()
{
    QTest::addColumn<bool>("byPaymentIntent");
    QTest::addColumn<QJsonObject>("rule");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<QString>("excerpt");
    auto forced = [](const QString &path, int status, const QString &type, const QString &code = QString()) {
        return QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")}, {QStringLiteral("path"), path},
                           {QStringLiteral("fault"), QStringLiteral("forced_error")}, {QStringLiteral("status"), status},
                           {QStringLiteral("type"), type}, {QStringLiteral("code"), code},
                           {QStringLiteral("message"), QStringLiteral("simulated")}};
    };
    auto fault = [](const QString &path, const QString &kind, int delayMs = 0) {
        return QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")}, {QStringLiteral("path"), path},
                           {QStringLiteral("fault"), kind}, {QStringLiteral("delay_ms"), delayMs}};
    };
    const QString charges = QStringLiteral("/v1/charges*");
    const QString intents = QStringLiteral("/v1/payment_intents*");
    const QString refunds = QStringLiteral("/v1/refunds");
    QTest::newRow("charge: 500") << false << forced(charges, 500, QStringLiteral("api_error")) << 500 << QStringLiteral("HTTP 500");
    QTest::newRow("charge: 503 outage") << false << fault(charges, QStringLiteral("outage_503")) << 503 << QStringLiteral("HTTP 503");
    QTest::newRow("charge: 429") << false << fault(charges, QStringLiteral("rate_limit_429")) << 429 << QStringLiteral("HTTP 429");
    QTest::newRow("charge: 404 that is not resource_missing")
        << false << forced(charges, 404, QStringLiteral("invalid_request_error")) << 404 << QStringLiteral("HTTP 404");
    QTest::newRow("charge: timeout") << false << fault(charges, QStringLiteral("delay_after_commit"), 2000) << 0 << QString();
    // Every time: Qt re-sends a GET once on its own when the connection drops, and a GET may be.
    QJsonObject resetAlways = fault(charges, QStringLiteral("reset_connection"));
    resetAlways.insert(QStringLiteral("times"), 0);
    QTest::newRow("charge: reset, every time") << false << resetAlways << 0 << QString();
    QTest::newRow("payment intent: 500") << true << forced(intents, 500, QStringLiteral("api_error")) << 500 << QStringLiteral("HTTP 500");
    QTest::newRow("payment intent: timeout") << true << fault(intents, QStringLiteral("delay_before_commit"), 2000) << 0 << QString();
    QTest::newRow("a later page of refunds: 500")
        << false << forced(refunds, 500, QStringLiteral("api_error")) << 500 << QStringLiteral("listing refunds of");
}

void TestStripeClient::chargeReadFaults()
{
    QFETCH(bool, byPaymentIntent);
    QFETCH(QJsonObject, rule);
    QFETCH(int, httpStatus);
    QFETCH(QString, excerpt);
    for (int i = 0; i < 12; ++i) // more than the expanded list holds, so the last row pages
        QVERIFY(!dashboardRefund(*m_sim, m_charge, 10).isEmpty());
    QVERIFY(m_sim->addFault(rule));
    const QString target = byPaymentIntent ? paymentIntentOf(*m_sim, m_charge) : m_charge;
    const ChargeSnapshot s = m_client->retrieveCharge(byPaymentIntent ? TargetType::PaymentIntent : TargetType::Charge,
                                                      target, QStringLiteral("claim"));
    QCOMPARE(w(s.result), w(ChargeSnapshot::Result::Error));
    QCOMPARE(s.httpStatus, httpStatus);
    QVERIFY2(!s.excerpt.isEmpty() && s.excerpt.contains(excerpt), qPrintable(s.excerpt));
    QVERIFY(s.excerpt.size() <= 500);
    QVERIFY(s.readAt.isValid());
    QVERIFY(s.refunds.isEmpty());
    QCOMPARE(s.amountCaptured, qint64(0));
}

void TestStripeClient::defaultAdapterCannotReadCharges()
{
    struct Minimal : ProviderClient
    {
        QString name() const override { return QStringLiteral("minimal"); }
        RefundOutcome createRefund(const ProviderRequest &, const QString &) override { return {}; }
        ProviderLookup findRefundForAction(const ActionRecord &, const QString &) override { return {}; }
        ProviderLookup retrieveRefund(const ActionRecord &, const QString &, const QString &) override { return {}; }
    } minimal;
    const ChargeSnapshot s = minimal.retrieveCharge(TargetType::Charge, QStringLiteral("ch_1"), QStringLiteral("approve"));
    QCOMPARE(w(s.result), w(ChargeSnapshot::Result::Error));
    QCOMPARE(s.targetId, QStringLiteral("ch_1"));
    QCOMPARE(s.askedBy, QStringLiteral("approve"));
    QVERIFY(s.excerpt.contains(QLatin1String("not supported")));
    QVERIFY(s.readAt.isValid());
}

QTEST_GUILESS_MAIN(TestStripeClient)
#include "tst_stripeclient.moc"
