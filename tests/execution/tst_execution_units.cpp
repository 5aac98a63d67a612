// The pure parts of execution: the outcome -> state table (AttemptPolicy), backoff with jitter,
// and the configuration's defaults, validation and JSON form.

#include "server/attemptpolicy.h"
#include "server/backoff.h"
#include "server/executionconfig.h"
#include "server/keywindow.h"

#include <QJsonDocument>
#include <QSet>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

Q_DECLARE_METATYPE(Attempt::Outcome)
Q_DECLARE_METATYPE(ActionState)

class TestExecutionUnits : public QObject
{
    Q_OBJECT

private slots:
    void outcomeTable_data();
    void outcomeTable();
    void backoffGrowsWithJitterWithinBounds();
    void backoffHonoursRetryAfter();
    void configDefaultsAreSane();
    void configValidation_data();
    void configValidation();
    void configJsonRoundTrip();
    void answersWeighedWithEvidenceInHand_data();
    void answersWeighedWithEvidenceInHand();
    void providerClockFromDate_data();
    void providerClockFromDate();
    void keyWindowOnBothClocks_data();
    void keyWindowOnBothClocks();
};

void TestExecutionUnits::outcomeTable_data()
{
    QTest::addColumn<Attempt::Outcome>("outcome");
    QTest::addColumn<int>("http");
    QTest::addColumn<QString>("code");
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QString>("refundStatus");
    QTest::addColumn<ActionState>("from");
    QTest::addColumn<QString>("trigger"); // empty: none
    QTest::addColumn<int>("next");        // AttemptPolicy::Next

    using O = Attempt::Outcome;
    using S = ActionState;
    const int done = int(AttemptPolicy::Next::Done);
    const int wait = int(AttemptPolicy::Next::WaitAndRetry);
    const int reconcile = int(AttemptPolicy::Next::Reconcile);
    QTest::newRow("2xx succeeded -> completed") << O::Succeeded << 200 << "" << qint64(4000) << "succeeded" << S::Executing
                                               << "provider_succeeded" << done;
    QTest::newRow("2xx pending -> completed") << O::Succeeded << 200 << "" << qint64(4000) << "pending" << S::Executing
                                             << "provider_succeeded" << done;
    QTest::newRow("2xx replay in CU -> completed") << O::Succeeded << 200 << "" << qint64(4000) << "succeeded"
                                                  << S::ConfirmationUnknown << "provider_succeeded" << done;
    QTest::newRow("2xx other amount -> review") << O::Succeeded << 200 << "" << qint64(3999) << "succeeded" << S::Executing
                                               << "stop_for_review" << done;
    QTest::newRow("2xx requires_action -> review") << O::Succeeded << 200 << "" << qint64(4000) << "requires_action"
                                                  << S::Executing << "stop_for_review" << done;
    QTest::newRow("definitive 4xx -> rejected") << O::Rejected << 400 << "amount_too_large" << qint64(0) << "" << S::Executing
                                               << "provider_rejected" << done;
    QTest::newRow("refund failed -> rejected") << O::Rejected << 200 << "refund_failed" << qint64(4000) << "failed"
                                              << S::ConfirmationUnknown << "provider_rejected" << done;
    QTest::newRow("401 -> review") << O::Rejected << 401 << "" << qint64(0) << "" << S::Executing << "stop_for_review" << done;
    QTest::newRow("idempotency_error -> review") << O::IdempotencyMismatch << 400 << "idempotency_error" << qint64(0) << ""
                                                << S::Executing << "stop_for_review" << done;
    QTest::newRow("429 -> wait, same key") << O::RateLimited << 429 << "rate_limit" << qint64(0) << "" << S::Executing << ""
                                          << wait;
    QTest::newRow("409 -> wait, same key") << O::KeyInUse << 409 << "idempotency_key_in_use" << qint64(0) << ""
                                          << S::Executing << "" << wait;
    QTest::newRow("timeout while executing -> unknown") << O::Unknown << 0 << "" << qint64(0) << "" << S::Executing
                                                       << "outcome_unknown" << reconcile;
    QTest::newRow("5xx while executing -> unknown") << O::Unknown << 500 << "" << qint64(0) << "" << S::Executing
                                                   << "outcome_unknown" << reconcile;
    QTest::newRow("charge_already_refunded -> unknown, never rejected")
        << O::Unknown << 400 << "charge_already_refunded" << qint64(0) << "" << S::Executing << "outcome_unknown" << reconcile;
    QTest::newRow("unknown on a retry -> stays, reconcile") << O::Unknown << 503 << "" << qint64(0) << ""
                                                           << S::ConfirmationUnknown << "" << reconcile;
}

void TestExecutionUnits::outcomeTable()
{
    QFETCH(Attempt::Outcome, outcome);
    QFETCH(int, http);
    QFETCH(QString, code);
    QFETCH(qint64, amount);
    QFETCH(QString, refundStatus);
    QFETCH(ActionState, from);
    QFETCH(QString, trigger);
    QFETCH(int, next);

    ActionRecord action;
    action.amount = 4000;
    action.currency = QStringLiteral("usd");
    action.idempotencyKey = QStringLiteral("csk_key");
    RefundOutcome answer;
    answer.outcome = outcome;
    answer.httpStatus = http;
    answer.errorCode = code;
    answer.amount = amount;
    answer.refundStatus = refundStatus;
    answer.providerObjectId = outcome == Attempt::Outcome::Succeeded ? QStringLiteral("re_1") : QString();
    const AttemptPolicy::Decision d = AttemptPolicy::decide(action, answer, from);
    QCOMPARE(d.trigger ? toWire(*d.trigger) : QString(), trigger);
    QCOMPARE(int(d.next), next);
    QVERIFY(!d.reason.isEmpty());
    // Whatever the answer, the trigger is legal from where the action is.
    if (d.trigger)
        QVERIFY(StateMachine::isLegal(from, *d.trigger));
    // Invariant 6: nothing without a definitive answer ever becomes REJECTED.
    if (outcome == Attempt::Outcome::Unknown)
        QVERIFY(d.trigger != Trigger::ProviderRejected);
    QCOMPARE(AttemptPolicy::attemptResult(answer).outcome, outcome);
}

void TestExecutionUnits::backoffGrowsWithJitterWithinBounds()
{
    const Backoff backoff(100ms, 1000ms);
    QCOMPARE(backoff.ceiling(1), 100ms);
    QCOMPARE(backoff.ceiling(2), 200ms);
    QCOMPARE(backoff.ceiling(4), 800ms);
    QCOMPARE(backoff.ceiling(5), 1000ms);
    QCOMPARE(backoff.ceiling(60), 1000ms);
    QSet<qint64> seen;
    for (int i = 0; i < 200; ++i) {
        const auto d = backoff.delay(3);
        QVERIFY(d >= 200ms && d <= 400ms);
        seen.insert(d.count());
    }
    QVERIFY(seen.size() > 20); // jittered, not constant
}

void TestExecutionUnits::backoffHonoursRetryAfter()
{
    const Backoff backoff(100ms, 5000ms);
    QCOMPARE(backoff.delay(1, 3000ms), 3000ms);
    QCOMPARE(backoff.delay(1, 60000ms), 5000ms); // capped
    QVERIFY(backoff.delay(1, 1ms) >= 50ms);      // never below the backoff
}

void TestExecutionUnits::configDefaultsAreSane()
{
    const ExecutionConfig config;
    QCOMPARE(config.validate(), QString());
    QCOMPARE(config.keyWindow, std::chrono::milliseconds(24h));
    QCOMPARE(config.keyWindowMargin, std::chrono::milliseconds(1h));
    QVERIFY(config.leaseDuration >= 2 * config.requestTimeout);
    QVERIFY(config.workers >= 1);
}

void TestExecutionUnits::configValidation_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<bool>("valid");
    QTest::newRow("empty: defaults") << "{}" << true;
    QTest::newRow("lease shorter than twice the timeout") << R"({"request_timeout_ms":30000,"lease_duration_ms":40000})" << false;
    QTest::newRow("margin not below the window") << R"({"key_window_ms":1000,"key_window_margin_ms":1000})" << false;
    QTest::newRow("no workers") << R"({"workers":0})" << false;
    QTest::newRow("negative time") << R"({"idle_poll_ms":-5})" << false;
    QTest::newRow("a small test setup") << R"({"workers":2,"request_timeout_ms":400,"lease_duration_ms":2000,"key_window_ms":5000,"key_window_margin_ms":1000})"
                                        << true;
}

void TestExecutionUnits::configValidation()
{
    QFETCH(QString, json);
    QFETCH(bool, valid);
    QString error;
    ExecutionConfig::fromJson(QJsonDocument::fromJson(json.toUtf8()).object(), &error);
    QCOMPARE(error.isEmpty(), valid);
}

void TestExecutionUnits::configJsonRoundTrip()
{
    ExecutionConfig config;
    config.workers = 7;
    config.keyWindow = 5000ms;
    config.keyWindowMargin = 1000ms;
    config.instanceName = QStringLiteral("east");
    QString error;
    const ExecutionConfig back = ExecutionConfig::fromJson(config.toJson(), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(back.workers, 7);
    QCOMPARE(back.keyWindow, 5000ms);
    QCOMPARE(back.instanceName, QStringLiteral("east"));
    QCOMPARE(back.toJson(), config.toJson());
}

// Issue 33: an answer is evidence like any other and goes through the one evidence rule with what
// the ledger already holds: another currency, or another refund than one in hand, is contradictory.
void TestExecutionUnits::answersWeighedWithEvidenceInHand_data()
{
    QTest::addColumn<QString>("currency");     // the answer's
    QTest::addColumn<QString>("inHandRefund"); // a refund already seen for the action ("" none)
    QTest::addColumn<QString>("trigger");
    QTest::newRow("same currency, nothing in hand -> completed") << "usd" << "" << "provider_succeeded";
    QTest::newRow("another currency -> review") << "eur" << "" << "stop_for_review";
    QTest::newRow("the refund in hand replayed -> completed") << "usd" << "re_1" << "provider_succeeded";
    QTest::newRow("another refund than the one in hand -> review (two refunds)") << "usd" << "re_0" << "stop_for_review";
}

void TestExecutionUnits::answersWeighedWithEvidenceInHand()
{
    QFETCH(QString, currency);
    QFETCH(QString, inHandRefund);
    QFETCH(QString, trigger);
    ActionRecord action;
    action.amount = 4000;
    action.currency = QStringLiteral("usd");
    RefundOutcome answer;
    answer.outcome = Attempt::Outcome::Succeeded;
    answer.httpStatus = 200;
    answer.providerObjectId = QStringLiteral("re_1");
    answer.refundStatus = QStringLiteral("succeeded");
    answer.amount = 4000;
    answer.currency = currency;
    answer.replayed = true;
    QList<RefundSighting> inHand;
    if (!inHandRefund.isEmpty())
        inHand << RefundSighting{inHandRefund, QStringLiteral("succeeded"), 4000, QStringLiteral("usd"), {}, {}, QStringLiteral("lookup #1")};
    const AttemptPolicy::Decision d = AttemptPolicy::decide(action, answer, ActionState::ConfirmationUnknown, inHand);
    QCOMPARE(d.trigger ? toWire(*d.trigger) : QString(), trigger);
    if (trigger == u"stop_for_review")
        QVERIFY2(d.reason.startsWith(QLatin1String("contradictory answer")), qPrintable(d.reason));
}

void TestExecutionUnits::providerClockFromDate_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QString>("expected"); // wire time, "" invalid
    QTest::newRow("IMF-fixdate") << QByteArray("Tue, 08 Dec 2026 15:38:37 GMT") << "2026-12-08T15:38:37.000Z";
    QTest::newRow("padded") << QByteArray("  Mon, 07 Dec 2026 09:05:00 GMT ") << "2026-12-07T09:05:00.000Z";
    QTest::newRow("absent") << QByteArray() << "";
    QTest::newRow("not GMT") << QByteArray("Mon, 07 Dec 2026 09:05:00 +0100") << "";
    QTest::newRow("garbage") << QByteArray("yesterday GMT") << "";
}

void TestExecutionUnits::providerClockFromDate()
{
    QFETCH(QByteArray, header);
    QFETCH(QString, expected);
    const QDateTime received = QDateTime::currentDateTimeUtc();
    const ProviderClock clock = ProviderClock::fromHttpDate(header, received);
    QCOMPARE(clock.isValid(), !expected.isEmpty());
    QCOMPARE(toWireTime(clock.providerTime), expected);
    if (clock.isValid())
        QCOMPARE(clock.providerNow(received.addSecs(10)), clock.providerTime.addSecs(11)); // + what passed + 1 s
}

// Invariant 7 on both clocks: the window is open only while our clock and the provider's (as its
// last answer's Date told it) are both before first start + window - margin; an unknown provider
// clock closes it. A mutant that judges on our clock alone fails the "provider ahead" rows.
void TestExecutionUnits::keyWindowOnBothClocks_data()
{
    QTest::addColumn<qint64>("oursAfterMs");   // our clock: this long after the first attempt
    QTest::addColumn<qint64>("providerAheadMs"); // the provider's Date: this far ahead of ours (-1: no Date)
    QTest::addColumn<bool>("open");
    QTest::addColumn<QString>("says");
    const qint64 h = 3600LL * 1000;
    QTest::newRow("both clocks early -> open") << 1 * h << qint64(0) << true << "inside the key window on both clocks";
    QTest::newRow("ours past window - margin -> closed") << 23 * h + 1000 << qint64(0) << false << "passed on our clock";
    QTest::newRow("provider a day ahead -> closed (issue 33)") << 1 * h << 24 * h << false << "passed on the provider's clock";
    QTest::newRow("provider ahead into the margin -> closed") << 20 * h << 3 * h + 1000 << false << "passed on the provider's clock";
    QTest::newRow("provider a little ahead -> open") << 20 * h << 2 * h << true << "both clocks";
    QTest::newRow("provider behind -> ours decides") << 1 * h << -5 * h << true << "both clocks";
    QTest::newRow("no Date from the provider -> closed") << 1 * h << qint64(-1) << false << "clock is unknown";
}

void TestExecutionUnits::keyWindowOnBothClocks()
{
    QFETCH(qint64, oursAfterMs);
    QFETCH(qint64, providerAheadMs);
    QFETCH(bool, open);
    QFETCH(QString, says);
    const QDateTime first = QDateTime(QDate(2026, 12, 7), QTime(12, 0), Qt::UTC);
    const KeyWindow window(first, 24h, 1h);
    QCOMPARE(window.end(), first.addSecs(23 * 3600));
    const QDateTime now = first.addMSecs(oursAfterMs);
    ProviderClock clock;
    if (providerAheadMs != -1) {
        clock.receivedAt = now;
        clock.providerTime = now.addMSecs(providerAheadMs);
    }
    const KeyWindow::Judgement j = window.judge(now, clock, now);
    QCOMPARE(j.open, open);
    QVERIFY2(j.why.contains(says), qPrintable(j.why));
}

QTEST_GUILESS_MAIN(TestExecutionUnits)
#include "tst_execution_units.moc"
