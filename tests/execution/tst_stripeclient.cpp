// The Stripe adapter against a real paysim on 127.0.0.1: wire format, the classification of every
// provider answer and fault, per-request deadlines, no silent resend, lookups of every kind.

#include "server/ledger/ids.h"
#include "server/stripeclient.h"
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
    QCOMPARE(search.matchingRefundIds.size(), 1);
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
    QCOMPARE(search.matchingRefundIds.size(), 2);
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

QTEST_GUILESS_MAIN(TestStripeClient)
#include "tst_stripeclient.moc"
