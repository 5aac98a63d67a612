// The executor and reconciler end to end against a real paysim on 127.0.0.1: one row per provider
// answer and fault -> the final state, the attempts and the refunds paysim really holds. Plus the
// seed scenario with 1, 2 and 4 workers, startup recovery, graceful stop, and a seeded storm of
// faults over many actions. Invariant 1 is checked on paysim's ground truth in every test.

#include "server/executor.h"
#include "server/policy/policy.h"
#include "server/stripeclient.h"
#include "tests/execution/executiontestsupport.h"
#include "tests/support/testledger.h"

#include <QJsonDocument>
#include <QMutex>
#include <QTest>

#include <atomic>
#include <memory>
#include <thread>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

namespace {

QJsonArray rulesFrom(const QString &json)
{
    QJsonArray rules = QJsonDocument::fromJson(json.toUtf8()).array();
    for (qsizetype i = 0; i < rules.size(); ++i) {
        QJsonObject rule = rules.at(i).toObject();
        if (!rule.contains(QStringLiteral("method")))
            rule.insert(QStringLiteral("method"), QStringLiteral("POST"));
        if (!rule.contains(QStringLiteral("path")))
            rule.insert(QStringLiteral("path"), QStringLiteral("/v1/refunds"));
        rules[i] = rule;
    }
    return rules;
}

} // namespace

class TestExecutor : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void faultTable_data();
    void faultTable();
    void seedScenario_data();
    void seedScenario();
    void idempotencyErrorStopsForGood();
    void noBusyResendPastTheProvidersWindow();
    void startupRecoveryRunsBeforeWorkers();
    void gracefulStopLetsInFlightFinish();
    void stopOutOfGraceLeavesItHonestlyUnknown();
    void refusesAProviderThatWaitsLongerThanItsLease();
    void observerSeesEveryStateChange();
    void stormOfFaultsNeverDuplicates();
    void sweepExpiresAPausedApproval();

private:
    void openLedger();
    std::unique_ptr<Executor> makeExecutor(const ExecutionConfig &config);
    bool waitSettled(const QString &actionId, int timeoutMs = 15000);
    // Invariant 1 and its evidence, for one action: at most one refund at the provider; COMPLETED
    // iff exactly one, with the ledger naming that refund; REJECTED with none.
    void checkOutcomeAgainstGroundTruth(const QString &actionId);
    void checkAuditReasons(const QString &actionId);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    std::unique_ptr<Paysim> m_sim;
    std::unique_ptr<StripeClient> m_client;
    QString m_charge;
};

void TestExecutor::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_sim = std::make_unique<Paysim>();
    QVERIFY(m_sim->start());
    m_charge = m_sim->seedCharge(10000);
    m_client = std::make_unique<StripeClient>(providerConfig(m_sim->url(), 400));
    openLedger();
}

void TestExecutor::cleanup()
{
    m_ledger.reset();
    m_client.reset();
    m_sim.reset();
    m_dir.reset();
}

void TestExecutor::openLedger()
{
    m_ledger = std::make_unique<Ledger>();
    QVERIFY(m_ledger->open(ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")))).ok());
}

std::unique_ptr<Executor> TestExecutor::makeExecutor(const ExecutionConfig &config)
{
    return std::make_unique<Executor>(Reconciler::storesOf(*m_ledger), *m_client, config);
}

bool TestExecutor::waitSettled(const QString &actionId, int timeoutMs)
{
    return QTest::qWaitFor([&] {
        const auto action = m_ledger->reader().action(actionId);
        return action.ok() && isSettled(action->state);
    }, timeoutMs);
}

void TestExecutor::checkOutcomeAgainstGroundTruth(const QString &actionId)
{
    const ActionRecord action = m_ledger->reader().action(actionId).value();
    const QJsonArray refunds = m_sim->refundsFor(actionId);
    QVERIFY2(refunds.size() <= 1, qPrintable(describe(*m_ledger, actionId)));
    if (action.state == ActionState::Completed) {
        QCOMPARE(refunds.size(), 1);
        const QString refundId = refunds.first().toObject().value(QStringLiteral("id")).toString();
        QStringList named; // every refund id the ledger holds as evidence
        const QList<Attempt> attempts = m_ledger->reader().attempts(actionId).value();
        for (const Attempt &a : attempts)
            named << a.providerObjectId;
        const QList<ProviderLookup> lookups = m_ledger->reader().lookups(actionId).value();
        for (const ProviderLookup &l : lookups)
            named << l.providerObjectId;
        named.removeAll(QString());
        QVERIFY2(!named.isEmpty(), "COMPLETED without the provider's refund id on record");
        for (const QString &id : std::as_const(named))
            QCOMPARE(id, refundId);
    }
    if (action.state == ActionState::Rejected)
        QCOMPARE(refunds.size(), 0);
    // Invariant 4: one key, one fingerprint, for every attempt.
    const QList<Attempt> attempts = m_ledger->reader().attempts(actionId).value();
    for (const Attempt &a : attempts) {
        QCOMPARE(a.idempotencyKey, action.idempotencyKey);
        QCOMPARE(a.requestFingerprint, action.requestFingerprint);
        QVERIFY(a.outcome != Attempt::Outcome::Open);
    }
}

void TestExecutor::checkAuditReasons(const QString &actionId)
{
    int changes = 0;
    const QList<AuditEvent> events = m_ledger->reader().audit(actionId).value();
    for (const AuditEvent &e : events) {
        const QString before = e.before.value(QStringLiteral("state")).toString();
        const QString after = e.after.value(QStringLiteral("state")).toString();
        if (!before.isEmpty() && before != after) {
            ++changes;
            QVERIFY2(!e.reason.trimmed().isEmpty(),
                     qPrintable(QStringLiteral("%1 -> %2 by %3 without a reason").arg(before, after, e.actor)));
        }
    }
    QVERIFY(changes >= 2); // at least claimed and settled
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestExecutor::faultTable_data()
{
    QTest::addColumn<QString>("faults");   // JSON array of paysim rules (default: POST /v1/refunds)
    QTest::addColumn<qint64>("amount");    // the charge holds 10000
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("minAttempts");
    QTest::addColumn<int>("maxAttempts");
    QTest::addColumn<QString>("firstOutcome");
    QTest::addColumn<QString>("lastOutcome"); // empty: not checked (timing decides)
    QTest::addColumn<int>("refunds");
    QTest::addColumn<QString>("reasonContains"); // for REQUIRES_REVIEW

    const qint64 a = 4000;
    QTest::newRow("200 -> COMPLETED") << "[]" << a << "COMPLETED" << 1 << 1 << "succeeded" << "succeeded" << 1 << "";
    QTest::newRow("400 amount_too_large -> REJECTED") << "[]" << qint64(20000) << "REJECTED" << 1 << 1 << "rejected"
                                                       << "rejected" << 0 << "";
    QTest::newRow("402 card_declined -> REJECTED")
        << R"([{"fault":"forced_error","status":402,"type":"card_error","code":"card_declined"}])" << a << "REJECTED"
        << 1 << 1 << "rejected" << "rejected" << 0 << "";
    QTest::newRow("401 credentials refused -> REQUIRES_REVIEW")
        << R"([{"fault":"forced_error","status":401,"type":"invalid_request_error","code":""}])" << a
        << "REQUIRES_REVIEW" << 1 << 1 << "rejected" << "rejected" << 0 << "credentials";
    QTest::newRow("response dropped after commit -> lookup -> COMPLETED")
        << R"([{"fault":"drop_response_after_commit"}])" << a << "COMPLETED" << 1 << 1 << "unknown" << "unknown" << 1 << "";
    QTest::newRow("reset after commit -> lookup -> COMPLETED")
        << R"([{"fault":"reset_connection","after_commit":true}])" << a << "COMPLETED" << 1 << 1 << "unknown"
        << "unknown" << 1 << "";
    QTest::newRow("500 after commit -> lookup -> COMPLETED")
        << R"([{"fault":"error_500_after_commit"}])" << a << "COMPLETED" << 1 << 1 << "unknown" << "unknown" << 1 << "";
    QTest::newRow("answer after the deadline -> lookup -> COMPLETED")
        << R"([{"fault":"delay_after_commit","delay_ms":1500}])" << a << "COMPLETED" << 1 << 1 << "unknown"
        << "unknown" << 1 << "";
    QTest::newRow("reset before commit -> same-key retry -> COMPLETED")
        << R"([{"fault":"reset_connection"}])" << a << "COMPLETED" << 2 << 2 << "unknown" << "succeeded" << 1 << "";
    QTest::newRow("503 outage -> same-key retry -> COMPLETED")
        << R"([{"fault":"outage_503"}])" << a << "COMPLETED" << 2 << 2 << "unknown" << "succeeded" << 1 << "";
    QTest::newRow("held before commit past the deadline -> 409 while in flight -> COMPLETED")
        << R"([{"fault":"delay_before_commit","delay_ms":600}])" << a << "COMPLETED" << 1 << 6 << "unknown" << ""
        << 1 << "";
    QTest::newRow("429 once -> same key after a wait -> COMPLETED")
        << R"([{"fault":"rate_limit_429"}])" << a << "COMPLETED" << 2 << 2 << "rate_limited" << "succeeded" << 1 << "";
    QTest::newRow("409 once -> same key after a wait -> COMPLETED")
        << R"([{"fault":"forced_error","status":409,"type":"invalid_request_error","code":"idempotency_key_in_use","save":false}])"
        << a << "COMPLETED" << 2 << 2 << "key_in_use" << "succeeded" << 1 << "";
    // maxBusyRetries 3: four 429s, then unknown; the reconciler's 5 same-key retries get 429 too.
    QTest::newRow("429 forever -> bounded -> REQUIRES_REVIEW, nothing executed")
        << R"([{"fault":"rate_limit_429","times":0}])" << a << "REQUIRES_REVIEW" << 9 << 9 << "rate_limited"
        << "rate_limited" << 0 << "gave up after 6";
    // Stripe saves a 500 under the key and replays it: retries stay inconclusive.
    QTest::newRow("500 before commit, replayed -> bounded -> REQUIRES_REVIEW")
        << R"([{"fault":"error_500_before_commit"}])" << a << "REQUIRES_REVIEW" << 6 << 6 << "unknown" << "unknown"
        << 0 << "gave up after 6";
    // Every request fails (sends and lookups): the review reason says the lookups failed, not
    // that the provider shows no refund.
    QTest::newRow("503 outage forever, lookups fail too -> bounded -> REQUIRES_REVIEW")
        << R"([{"fault":"outage_503","times":0},{"method":"GET","fault":"outage_503","times":0}])" << a
        << "REQUIRES_REVIEW" << 2 << 9 << "unknown" << ""
        << 0 << "the provider lookups failed";
    QTest::newRow("400 idempotency_error -> REQUIRES_REVIEW, no retry")
        << R"([{"fault":"idempotency_error","times":0}])" << a << "REQUIRES_REVIEW" << 1 << 1
        << "idempotency_mismatch" << "idempotency_mismatch" << 0 << "no new key";
    QTest::newRow("charge_already_refunded, own refund absent -> REQUIRES_REVIEW")
        << R"([{"fault":"forced_error","status":400,"type":"invalid_request_error","code":"charge_already_refunded"}])"
        << a << "REQUIRES_REVIEW" << 1 << 1 << "unknown" << "unknown" << 0 << "charge_already_refunded";
    QTest::newRow("lookup fails, same-key retry replays -> COMPLETED")
        << R"([{"fault":"drop_response_after_commit"},{"method":"GET","fault":"outage_503"}])" << a << "COMPLETED" << 2
        << 2 << "unknown" << "succeeded" << 1 << "";
}

void TestExecutor::faultTable()
{
    QFETCH(QString, faults);
    QFETCH(qint64, amount);
    QFETCH(QString, state);
    QFETCH(int, minAttempts);
    QFETCH(int, maxAttempts);
    QFETCH(QString, firstOutcome);
    QFETCH(QString, lastOutcome);
    QFETCH(int, refunds);
    QFETCH(QString, reasonContains);

    for (const QJsonValue &rule : rulesFrom(faults))
        QVERIFY(m_sim->addFault(rule.toObject()));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, amount, QStringLiteral("fault-row"));
    QVERIFY(!action.id.isEmpty());

    auto executor = makeExecutor(fastConfig(2));
    QString error;
    QVERIFY2(executor->start(&error), qPrintable(error));
    QVERIFY2(waitSettled(action.id), qPrintable(describe(*m_ledger, action.id)));
    executor->stop();

    const ActionRecord after = m_ledger->reader().action(action.id).value();
    const QList<Attempt> attempts = m_ledger->reader().attempts(action.id).value();
    const QString context = describe(*m_ledger, action.id);
    QVERIFY2(toWire(after.state) == state, qPrintable(context));
    QVERIFY2(attempts.size() >= minAttempts && attempts.size() <= maxAttempts, qPrintable(context));
    QCOMPARE(toWire(attempts.first().outcome), firstOutcome);
    if (!lastOutcome.isEmpty())
        QCOMPARE(toWire(attempts.last().outcome), lastOutcome);
    QCOMPARE(m_sim->refundsFor(action.id).size(), refunds);
    if (!reasonContains.isEmpty())
        QVERIFY2(after.reviewReason.contains(reasonContains), qPrintable(after.reviewReason));
    checkOutcomeAgainstGroundTruth(action.id);
    checkAuditReasons(action.id);
}

void TestExecutor::seedScenario_data()
{
    QTest::addColumn<int>("workers");
    QTest::newRow("1 worker") << 1;
    QTest::newRow("2 workers") << 2;
    QTest::newRow("4 workers") << 4;
}

// Paysim commits the refund and drops the response: the action ends COMPLETED with the
// provider's refund id, and paysim holds exactly one refund, however many workers race for it.
void TestExecutor::seedScenario()
{
    QFETCH(int, workers);
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("drop_response_after_commit")}}));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("seed"));
    auto executor = makeExecutor(fastConfig(workers));
    QVERIFY(executor->start());
    QVERIFY2(waitSettled(action.id), qPrintable(describe(*m_ledger, action.id)));
    executor->stop();

    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("COMPLETED"));
    const QJsonArray truth = m_sim->groundTruth();
    QCOMPARE(truth.size(), 1);
    const QString refundId = truth.first().toObject().value(QStringLiteral("id")).toString();
    const QList<Attempt> attempts = m_ledger->reader().attempts(action.id).value();
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(toWire(attempts.first().outcome), QStringLiteral("unknown"));
    const QList<ProviderLookup> lookups = m_ledger->reader().lookups(action.id).value();
    QVERIFY(!lookups.isEmpty());
    QCOMPARE(lookups.last().result, ProviderLookup::Result::Found);
    QCOMPARE(lookups.last().providerObjectId, refundId);
    checkOutcomeAgainstGroundTruth(action.id);
    checkAuditReasons(action.id);
}

void TestExecutor::idempotencyErrorStopsForGood()
{
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("idempotency_error")},
                                        {QStringLiteral("times"), 0}}));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("mismatch"));
    auto executor = makeExecutor(fastConfig(2));
    QVERIFY(executor->start());
    QVERIFY(waitSettled(action.id));
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("REQUIRES_REVIEW"));
    // The workers keep running after it stopped: another action approved now is claimed and
    // completed by them once the fault is gone.
    QVERIFY(m_ledger->evidence().dueForReconciliation()->isEmpty());
    m_sim->server().faults().clear();
    const ActionRecord later = approvedRefund(*m_ledger, m_sim->seedCharge(5000), 1000, QStringLiteral("later"));
    executor->wake();
    QVERIFY(waitSettled(later.id));
    QCOMPARE(toWire(m_ledger->reader().action(later.id)->state), QStringLiteral("COMPLETED"));
    executor->stop();

    const ActionRecord after = m_ledger->reader().action(action.id).value();
    QCOMPARE(toWire(after.state), QStringLiteral("REQUIRES_REVIEW"));
    QCOMPARE(after.idempotencyKey, action.idempotencyKey); // no new key
    QVERIFY(after.reviewReason.contains(QStringLiteral("idempotency_error")));
    const QList<Attempt> attempts = m_ledger->reader().attempts(action.id).value();
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().outcome, Attempt::Outcome::IdempotencyMismatch);
    QCOMPARE(attempts.first().idempotencyKey, action.idempotencyKey);
    QCOMPARE(m_sim->refundsFor(action.id).size(), 0);
    // Exactly one POST ever carried this action's key.
    int posts = 0;
    const QJsonArray requests =
        m_sim->admin().adminGet(QStringLiteral("/_sim/requests?limit=1000")).json.value(QStringLiteral("data")).toArray();
    for (const QJsonValue &row : requests) {
        if (row.toObject().value(QStringLiteral("idempotency_key")).toString() == action.idempotencyKey)
            ++posts;
    }
    QCOMPARE(posts, 1);
    QCOMPARE(m_ledger->reader().approvals(action.id)->size(), 1); // no approval minted a key since
}

// Issue 33: the executor's own same-key resend after a 429 asks the provider's clock first (the
// 429's Date). paysim's clock is a day ahead: the window has passed there, so nothing is sent again
// — not by the executor, not by the reconciler after it — and a human decides.
void TestExecutor::noBusyResendPastTheProvidersWindow()
{
    m_sim->server().advanceClock(25LL * 3600 * 1000);
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("rate_limit_429")}}));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("busy-late"));
    QVERIFY(!action.id.isEmpty());
    auto executor = makeExecutor(fastConfig(1));
    QString error;
    QVERIFY2(executor->start(&error), qPrintable(error));
    QVERIFY2(waitSettled(action.id), qPrintable(describe(*m_ledger, action.id)));
    executor->stop();

    const ActionRecord after = m_ledger->reader().action(action.id).value();
    const QList<Attempt> attempts = m_ledger->reader().attempts(action.id).value();
    QCOMPARE(toWire(after.state), QStringLiteral("REQUIRES_REVIEW"));
    QCOMPARE(attempts.size(), 1); // the 429, never sent again
    QCOMPARE(toWire(attempts.first().outcome), QStringLiteral("rate_limited"));
    QCOMPARE(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 1);
    QCOMPARE(m_sim->refundsFor(action.id).size(), 0);
    QVERIFY2(after.reviewReason.contains(QLatin1String("provider's clock")), qPrintable(after.reviewReason));
    checkAuditReasons(action.id);
}

void TestExecutor::startupRecoveryRunsBeforeWorkers()
{
    // A dead executor left the action EXECUTING with an open attempt and a lease that expires.
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("orphan"));
    const auto ghost = m_ledger->execution().claim(action.id, QStringLiteral("ghost@gone:1"), 50ms);
    QVERIFY(ghost.ok());
    QTRY_VERIFY_WITH_TIMEOUT(m_ledger->reader().executionInfo(action.id)->leaseExpiresAt < m_ledger->currentTime(), 2000);
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("EXECUTING"));

    auto executor = makeExecutor(fastConfig(2));
    QVERIFY(executor->start());
    QVERIFY(waitSettled(action.id));
    executor->stop();

    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("COMPLETED"));
    const QList<Attempt> attempts = m_ledger->reader().attempts(action.id).value();
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.first().outcome, Attempt::Outcome::Unknown); // recovered: never failed, never rejected
    QCOMPARE(attempts.last().outcome, Attempt::Outcome::Succeeded);
    QCOMPARE(m_sim->refundsFor(action.id).size(), 1);
    // The recovery row precedes everything a worker wrote.
    qint64 recoveredSeq = 0;
    qint64 firstWorkerSeq = 0;
    const QStringList workers = executor->workerIds();
    const QList<AuditEvent> events = m_ledger->reader().audit(action.id).value();
    for (const AuditEvent &e : events) {
        if (e.event == u"recovered" && recoveredSeq == 0)
            recoveredSeq = e.seq;
        if (workers.contains(e.actor) && firstWorkerSeq == 0)
            firstWorkerSeq = e.seq;
    }
    QVERIFY(recoveredSeq > 0);
    QVERIFY(firstWorkerSeq > recoveredSeq);
    QCOMPARE(executor->stats().recovered, qint64(1));
    checkOutcomeAgainstGroundTruth(action.id);
}

void TestExecutor::gracefulStopLetsInFlightFinish()
{
    m_client = std::make_unique<StripeClient>(providerConfig(m_sim->url(), 3000));
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("delay_before_commit")},
                                        {QStringLiteral("delay_ms"), 600}}));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("in-flight"));
    ExecutionConfig config = fastConfig(1);
    config.requestTimeout = 3000ms;
    config.leaseDuration = 8000ms;
    auto executor = makeExecutor(config);
    QVERIFY(executor->start());
    QTRY_COMPARE_WITH_TIMEOUT(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 1, 5000);

    // stop() blocks its caller; paysim lives on this thread, so stop from another one.
    std::atomic_bool stopped{false};
    std::thread stopper([&] {
        executor->stop();
        stopped = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(stopped.load(), 10000);
    stopper.join();
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("COMPLETED"));
    QCOMPARE(m_ledger->reader().attempts(action.id)->size(), 1);
    QCOMPARE(m_sim->refundsFor(action.id).size(), 1);
}

// The lease is sized from request_timeout_ms; an adapter allowed to wait longer (here 3 s for
// 400 ms) could still be waiting when the lease ends and another executor takes the action over.
void TestExecutor::refusesAProviderThatWaitsLongerThanItsLease()
{
    m_client = std::make_unique<StripeClient>(providerConfig(m_sim->url(), 3000));
    QCOMPARE(m_client->longestDeadline(), 3000ms);
    auto executor = makeExecutor(fastConfig(1));
    QString error;
    QVERIFY(!executor->start(&error));
    QVERIFY2(error.contains(QStringLiteral("3000 ms, longer than request_timeout_ms (400 ms)")), qPrintable(error));
    ExecutionConfig matching = fastConfig(1);
    matching.requestTimeout = 3000ms;
    matching.leaseDuration = 7000ms;
    auto fitting = makeExecutor(matching);
    QVERIFY(fitting->start());
    fitting->stop();
}

void TestExecutor::stopOutOfGraceLeavesItHonestlyUnknown()
{
    m_client = std::make_unique<StripeClient>(providerConfig(m_sim->url(), 5000));
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("delay_before_commit")},
                                        {QStringLiteral("delay_ms"), 1500}}));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("aborted"));
    ExecutionConfig config = fastConfig(1);
    config.requestTimeout = 5000ms;
    config.leaseDuration = 12000ms;
    auto executor = makeExecutor(config);
    QVERIFY(executor->start());
    QTRY_COMPARE_WITH_TIMEOUT(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 1, 5000);
    std::atomic_bool stopped{false};
    std::thread stopper([&] {
        executor->stop(100ms);
        stopped = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(stopped.load(), 5000);
    stopper.join();
    // Aborted in flight: the request reached paysim, so the only honest state is unknown.
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("CONFIRMATION_UNKNOWN"));
    QCOMPARE(m_ledger->reader().attempts(action.id)->first().outcome, Attempt::Outcome::Unknown);

    // paysim commits once its delay ends; a new executor reconciles it without a second refund.
    QTRY_COMPARE_WITH_TIMEOUT(m_sim->refundsFor(action.id).size(), 1, 5000);
    ExecutionConfig againConfig = fastConfig(1); // the same client: its 5 s deadline
    againConfig.requestTimeout = 5000ms;
    againConfig.leaseDuration = 12000ms;
    auto again = makeExecutor(againConfig);
    QVERIFY(again->start());
    QVERIFY(waitSettled(action.id));
    again->stop();
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("COMPLETED"));
    QCOMPARE(m_sim->refundsFor(action.id).size(), 1);
    checkOutcomeAgainstGroundTruth(action.id);
}

void TestExecutor::observerSeesEveryStateChange()
{
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("drop_response_after_commit")}}));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("observed"));
    auto executor = makeExecutor(fastConfig(1));
    QMutex mutex;
    QMap<qint64, QString> seen; // by state_version: observers run on several threads
    executor->setChangeObserver([&](const ActionRecord &record) {
        QMutexLocker lock(&mutex);
        seen.insert(record.stateVersion, toWire(record.state));
    });
    QVERIFY(executor->start());
    QVERIFY(waitSettled(action.id));
    executor->stop(); // every change is committed, and observed, before stop() returns
    QMutexLocker lock(&mutex);
    QCOMPARE(seen.values(), (QStringList{QStringLiteral("EXECUTING"), QStringLiteral("CONFIRMATION_UNKNOWN"),
                                         QStringLiteral("COMPLETED")}));
    QCOMPARE(seen.lastKey(), m_ledger->reader().action(action.id)->stateVersion);
}

// Many actions, four workers, a seeded mix of every fault on every send: each action settles,
// and paysim never holds more than one refund for any of them.
void TestExecutor::stormOfFaultsNeverDuplicates()
{
    const QString charge = m_sim->seedCharge(1000000);
    const QStringList kinds = {QStringLiteral("drop_response_after_commit"), QStringLiteral("reset_connection"),
                               QStringLiteral("error_500_after_commit"), QStringLiteral("outage_503"),
                               QStringLiteral("rate_limit_429")};
    for (const QString &kind : kinds) {
        QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                            {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                            {QStringLiteral("fault"), kind},
                                            {QStringLiteral("times"), 0},
                                            {QStringLiteral("probability"), 0.12}}));
    }
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("reset_connection")},
                                        {QStringLiteral("after_commit"), true},
                                        {QStringLiteral("times"), 0},
                                        {QStringLiteral("probability"), 0.12}}));
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("outage_503")},
                                        {QStringLiteral("times"), 0},
                                        {QStringLiteral("probability"), 0.2}}));
    QStringList ids;
    for (int i = 0; i < 30; ++i) {
        const ActionRecord a = approvedRefund(*m_ledger, charge, 100 + i, QStringLiteral("storm-%1").arg(i));
        QVERIFY(!a.id.isEmpty());
        ids << a.id;
    }
    ExecutionConfig config = fastConfig(4);
    config.maxReconcileTries = 12;
    auto executor = makeExecutor(config);
    QVERIFY(executor->start());
    for (const QString &id : std::as_const(ids))
        QVERIFY2(waitSettled(id, 40000), qPrintable(describe(*m_ledger, id)));
    executor->stop();
    int completed = 0;
    for (const QString &id : std::as_const(ids)) {
        checkOutcomeAgainstGroundTruth(id);
        if (m_ledger->reader().action(id)->state == ActionState::Completed)
            ++completed;
    }
    QVERIFY(completed >= 20); // with these odds nearly all complete; the rest are honest reviews
    QVERIFY(m_sim->groundTruth().size() <= ids.size());
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestExecutor::sweepExpiresAPausedApproval()
{
    // Approval expiry (docs/POLICY.md): approvals expire 1 s after they were given unless sent.
    auto policy = std::make_shared<Policy>();
    PolicyRule rule;
    rule.id = QStringLiteral("quick-expiry");
    rule.requireApprovals = 1;
    rule.approvalExpiresAfterSeconds = 1;
    policy->rules = {rule};
    policy->version = 1;
    m_ledger->approvals().setPolicy(policy);
    // Execution paused: nothing is claimed, so only the executor's sweep can see the time pass.
    const auto paused = m_ledger->pauses().pause(ExecutionPause::Scope::All, {}, {}, QStringLiteral("drill"),
                                                 QStringLiteral("sue"));
    QVERIFY2(paused.ok(), qPrintable(paused.error().toString()));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("expiring"));
    QVERIFY(!action.id.isEmpty());
    const QString firstKey = action.idempotencyKey;
    QVERIFY(!firstKey.isEmpty());

    auto executor = makeExecutor(fastConfig(1));
    QVERIFY(executor->start());
    QVERIFY(QTest::qWaitFor([&] { return m_ledger->reader().action(action.id)->idempotencyKey.isEmpty(); }, 5000));
    QVERIFY(m_ledger->reader().approvals(action.id)->constFirst().expiredAt.isValid());
    QCOMPARE(m_ledger->reader().attempts(action.id)->size(), 0);
    QCOMPARE(m_sim->refundsFor(action.id).size(), 0);

    // Resumed and approved again (a policy without expiry now): sent once, under the fresh key.
    m_ledger->approvals().setPolicy(nullptr);
    QVERIFY(m_ledger->pauses().resume(paused->id, QStringLiteral("sue"), QStringLiteral("over")).ok());
    const auto again = m_ledger->approvals().approve(action.id, QStringLiteral("alice"), QStringLiteral("again"),
                                                     m_ledger->reader().action(action.id)->stateVersion);
    QVERIFY2(again.ok(), qPrintable(again.error().toString()));
    QVERIFY(again->idempotencyKey != firstKey);
    QVERIFY(waitSettled(action.id));
    executor->stop();
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("COMPLETED"));
    const QJsonArray refunds = m_sim->refundsFor(action.id);
    QCOMPARE(refunds.size(), 1);
    QCOMPARE(refunds.first().toObject().value(QStringLiteral("idempotency_key")).toString(), again->idempotencyKey);
}

QTEST_GUILESS_MAIN(TestExecutor)
#include "tst_executor.moc"
