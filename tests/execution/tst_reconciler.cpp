// The reconciler against a real paysim: the key window (invariant 7), lookup lag, ambiguous
// answers, contradictory evidence, "look up now", its persistent schedule, and its work (and the
// executor's request in flight) going on while execution is paused.
//
// Most tests start from a CONFIRMATION_UNKNOWN action whose first request really reached paysim
// and whose answer was lost: the test claims the action and sends its exact request itself,
// standing in for an executor whose response never arrived, and records the attempt as unknown.
// That is the only way to combine "committed" with a fault on the same request (paysim applies
// one fault per request).

#include "server/executor.h"
#include "server/reconciler.h"
#include "server/stripeclient.h"
#include "server/webhookreceiver.h"
#include "simulator/webhooksignature.h"
#include "tests/execution/executiontestsupport.h"
#include "tests/support/testledger.h"

#include <QJsonDocument>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

namespace {

constexpr qint64 HourMs = 3600LL * 1000;
const QString LostExecutor = QStringLiteral("lost-executor@test:1");

QJsonObject postRule(const QString &fault, qint64 delayMs = 0)
{
    QJsonObject rule{{QStringLiteral("method"), QStringLiteral("POST")},
                     {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                     {QStringLiteral("fault"), fault}};
    if (delayMs > 0)
        rule.insert(QStringLiteral("delay_ms"), delayMs);
    return rule;
}

} // namespace

class TestReconciler : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void keyWindowPassed_data();
    void keyWindowPassed();
    void lookupLagLongerThanFirstLookup();
    void providerClockAheadAfterFailedLookup_data();
    void providerClockAheadAfterFailedLookup();
    void ambiguousAnswerIsNeverSuccessOrFailure_data();
    void ambiguousAnswerIsNeverSuccessOrFailure();
    void contradictoryEvidence_data();
    void contradictoryEvidence();
    void lookUpNowIsStoredWhoeverAsks();
    void scheduleSurvivesARestart();
    void reconcilesAndFinishesWhilePaused();

private:
    // Approved, claimed, its exact request sent to paysim, the answer thrown away: CONFIRMATION_UNKNOWN.
    ActionRecord lostResponse(const QString &chargeId, qint64 amount, const QString &reference);
    void runUntilSettled(const ExecutionConfig &config, const QString &actionId, int timeoutMs = 15000);

    OffsetClock m_clock;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    std::unique_ptr<Paysim> m_sim;
    std::unique_ptr<StripeClient> m_client;
    RefundOutcome m_lostAnswer; // what the lost request really got
    QString m_location;
};

void TestReconciler::init()
{
    m_clock = OffsetClock();
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_sim = std::make_unique<Paysim>();
    QVERIFY(m_sim->start());
    m_client = std::make_unique<StripeClient>(providerConfig(m_sim->url(), 400));
    m_ledger = std::make_unique<Ledger>();
    Ledger::Options options;
    options.clock = m_clock.clock();
    m_location = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    QVERIFY(m_ledger->open(m_location, options).ok());
}

void TestReconciler::cleanup()
{
    m_ledger.reset();
    m_client.reset();
    m_sim.reset();
    m_dir.reset();
}

ActionRecord TestReconciler::lostResponse(const QString &chargeId, qint64 amount, const QString &reference)
{
    const ActionRecord action = approvedRefund(*m_ledger, chargeId, amount, reference);
    const auto claim = m_ledger->execution().claim(action.id, LostExecutor, 60s);
    if (!claim.ok()) {
        qWarning() << "claim failed" << claim.error().toString();
        return {};
    }
    m_lostAnswer = m_client->createRefund(claim->record.providerRequest(), claim->attempt.idempotencyKey);
    ExecutionStore::AttemptResult lost;
    lost.outcome = Attempt::Outcome::Unknown;
    lost.errorExcerpt = QStringLiteral("response lost (the test threw it away)");
    const auto finished = m_ledger->execution().finishAttempt(action.id, claim->attempt.seq, lost, Trigger::OutcomeUnknown,
                                                  QStringLiteral("no answer"), LostExecutor);
    if (!finished.ok()) {
        qWarning() << "finish failed" << finished.error().toString();
        return {};
    }
    return finished->record;
}

void TestReconciler::runUntilSettled(const ExecutionConfig &config, const QString &actionId, int timeoutMs)
{
    Executor executor(Reconciler::storesOf(*m_ledger), *m_client, config);
    QVERIFY(executor.start());
    const bool settled = QTest::qWaitFor([&] {
        const auto action = m_ledger->reader().action(actionId);
        return action.ok() && isSettled(action->state);
    }, timeoutMs);
    executor.stop();
    QVERIFY2(settled, qPrintable(describe(*m_ledger, actionId)));
}

void TestReconciler::keyWindowPassed_data()
{
    QTest::addColumn<qint64>("lagMs");        // lookup lag of the lost request, simulator clock
    QTest::addColumn<bool>("lookupsFail");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("reasonContains");

    QTest::newRow("refund hidden, window passed -> REQUIRES_REVIEW, no same-key retry")
        << 30 * HourMs << false << "REQUIRES_REVIEW" << "key window passed";
    QTest::newRow("refund visible, window passed -> COMPLETED by lookup, no retry")
        << qint64(0) << false << "COMPLETED" << "";
    QTest::newRow("lookups fail, window passed -> bounded -> REQUIRES_REVIEW, never a send")
        << 30 * HourMs << true << "REQUIRES_REVIEW" << "lookups kept failing";
}

// The key window passes while the action is CONFIRMATION_UNKNOWN. paysim has pruned the key too,
// so a same-key retry now would execute as a new request and refund twice: it must not happen.
void TestReconciler::keyWindowPassed()
{
    QFETCH(qint64, lagMs);
    QFETCH(bool, lookupsFail);
    QFETCH(QString, state);
    QFETCH(QString, reasonContains);

    const QString charge = m_sim->seedCharge(10000); // room for a second 4000 refund: a duplicate would succeed
    if (lagMs > 0)
        QVERIFY(m_sim->addFault(postRule(QStringLiteral("lookup_lag"), lagMs)));
    const ActionRecord action = lostResponse(charge, 4000, QStringLiteral("window"));
    QVERIFY(!action.id.isEmpty());
    QCOMPARE(m_lostAnswer.outcome, Attempt::Outcome::Succeeded); // it did commit
    if (lookupsFail) {
        QJsonObject rule{{QStringLiteral("method"), QStringLiteral("GET")},
                         {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                         {QStringLiteral("fault"), QStringLiteral("outage_503")},
                         {QStringLiteral("times"), 0}};
        QVERIFY(m_sim->addFault(rule));
    }

    // 23 h 1 min later by our clock (window 24 h - margin 1 h), 25 h later by paysim's (key pruned).
    m_clock.advance(23 * HourMs + 60 * 1000);
    m_sim->server().advanceClock(25 * HourMs);

    ExecutionConfig config = fastConfig(1);
    config.keyWindow = 24h;
    config.keyWindowMargin = 1h;
    runUntilSettled(config, action.id);

    const ActionRecord after = m_ledger->reader().action(action.id).value();
    QCOMPARE(toWire(after.state), state);
    if (!reasonContains.isEmpty())
        QVERIFY2(after.reviewReason.contains(reasonContains), qPrintable(after.reviewReason));
    QCOMPARE(m_ledger->reader().attempts(action.id)->size(), 1); // no same-key retry outside the window
    QCOMPARE(m_sim->refundsFor(action.id).size(), 1);  // and so no second refund
    QCOMPARE(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 1);
    const QList<ProviderLookup> lookups = m_ledger->reader().lookups(action.id).value();
    QVERIFY(!lookups.isEmpty());
}

void TestReconciler::providerClockAheadAfterFailedLookup_data()
{
    QTest::addColumn<bool>("webhookInHand");  // a signed webhook for the refund arrived while the attempt was open
    QTest::addColumn<qint64>("providerAheadMs"); // paysim's clock ahead of ours after the lost answer
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("attempts");

    // Issue 33, as reproduced: the webhook is evidence in hand; nothing is sent again.
    QTest::newRow("webhook in hand, provider a day ahead -> COMPLETED from it, never resent")
        << true << 25 * HourMs << "COMPLETED" << 1;
    // Without it, the failed look-up's 503 carries paysim's Date: the key window has passed on the
    // provider's clock though not on ours, so no same-key resend; lookups keep failing -> review.
    QTest::newRow("no webhook, provider a day ahead -> review, never resent")
        << false << 25 * HourMs << "REQUIRES_REVIEW" << 1;
    // The control: clocks in step, the same-key resend after a failed look-up is still made (it is
    // what makes lookup lag safe) and the provider replays the committed refund.
    QTest::newRow("no webhook, clocks in step -> same-key resend replayed, COMPLETED")
        << false << qint64(0) << "COMPLETED" << 2;
}

// Issue 33 reproduced: the first POST commits and its answer is lost; every look-up fails (503); a
// signed webhook for the refund arrives while the attempt is still open; paysim's clock moves a day
// ahead, past its key retention. Before the fix the reconciler resent the same key "inside the key
// window" on our clock alone and paysim, having forgotten the key, made a second refund.
void TestReconciler::providerClockAheadAfterFailedLookup()
{
    QFETCH(bool, webhookInHand);
    QFETCH(qint64, providerAheadMs);
    QFETCH(QString, state);
    QFETCH(int, attempts);

    const QByteArray secret = QByteArrayLiteral("whsec_issue33");
    WebhookReceiver receiver(m_ledger->evidence(), m_ledger->reader(), WebhookReceiver::Options{secret, 300s});
    const QString charge = m_sim->seedCharge(10000); // room for a second 4000 refund: a duplicate would succeed
    const ActionRecord action = approvedRefund(*m_ledger, charge, 4000, QStringLiteral("issue33"));
    QVERIFY(!action.id.isEmpty());
    const auto claim = m_ledger->execution().claim(action.id, LostExecutor, 60s);
    QVERIFY2(claim.ok(), qPrintable(claim.error().toString()));
    const RefundOutcome sent = m_client->createRefund(claim->record.providerRequest(), claim->attempt.idempotencyKey);
    QCOMPARE(sent.outcome, Attempt::Outcome::Succeeded); // committed; the executor never sees this answer
    if (webhookInHand) {
        const QJsonObject refund{{QStringLiteral("id"), sent.providerObjectId},
                                 {QStringLiteral("object"), QStringLiteral("refund")},
                                 {QStringLiteral("amount"), 4000},
                                 {QStringLiteral("charge"), charge},
                                 {QStringLiteral("currency"), QStringLiteral("usd")},
                                 {QStringLiteral("status"), QStringLiteral("succeeded")},
                                 {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("countersign_action_id"), action.id}}}};
        const QByteArray body = QJsonDocument(QJsonObject{
            {QStringLiteral("id"), QStringLiteral("evt_issue33")}, {QStringLiteral("object"), QStringLiteral("event")},
            {QStringLiteral("type"), QStringLiteral("refund.created")}, {QStringLiteral("created"), 1700000000},
            {QStringLiteral("data"), QJsonObject{{QStringLiteral("object"), refund}}}}).toJson(QJsonDocument::Compact);
        const WebhookReceiver::Result r = receiver.handle(
            paysim::WebhookSignature::header(secret, QDateTime::currentSecsSinceEpoch(), body), body);
        QCOMPARE(toString(r.status), QStringLiteral("accepted"));
        QCOMPARE(toWire(*r.state), QStringLiteral("EXECUTING")); // stored, not applied: the attempt is open
    }
    ExecutionStore::AttemptResult lost;
    lost.outcome = Attempt::Outcome::Unknown;
    lost.errorExcerpt = QStringLiteral("response lost (drop_response_after_commit)");
    QVERIFY(m_ledger->execution().finishAttempt(action.id, claim->attempt.seq, lost, Trigger::OutcomeUnknown,
                                                QStringLiteral("no answer"), LostExecutor).ok());
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("GET")},
                                        {QStringLiteral("fault"), QStringLiteral("outage_503")},
                                        {QStringLiteral("times"), 0}}));
    if (providerAheadMs > 0)
        m_sim->server().advanceClock(providerAheadMs); // our clock: a few seconds in, well inside 24 h - 1 h

    ExecutionConfig config = fastConfig(1);
    config.keyWindow = 24h;
    config.keyWindowMargin = 1h;
    config.maxReconcileTries = 4;
    runUntilSettled(config, action.id);

    const ActionRecord after = m_ledger->reader().action(action.id).value();
    QCOMPARE(toWire(after.state), state);
    QCOMPARE(m_sim->refundsFor(action.id).size(), 1); // the number that matters most
    QCOMPARE(m_ledger->reader().attempts(action.id)->size(), attempts);
    QCOMPARE(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), attempts);
    if (webhookInHand) {
        const QList<AuditEvent> audit = m_ledger->reader().audit(action.id).value();
        QVERIFY2(std::any_of(audit.cbegin(), audit.cend(),
                             [](const AuditEvent &e) { return e.reason.contains(QLatin1String("evidence in hand")); }),
                 qPrintable(describe(*m_ledger, action.id)));
    } else if (providerAheadMs > 0) {
        QVERIFY2(after.reviewReason.contains(QLatin1String("provider's clock")), qPrintable(after.reviewReason));
    }
}

// The refund is committed but invisible to lookups for longer than the first lookup takes: the
// lookup says NOT_FOUND, the same-key retry gets paysim's saved answer replayed — no duplicate.
void TestReconciler::lookupLagLongerThanFirstLookup()
{
    const QString charge = m_sim->seedCharge(10000);
    QVERIFY(m_sim->addFault(postRule(QStringLiteral("lookup_lag"), 20000)));
    const ActionRecord action = lostResponse(charge, 4000, QStringLiteral("lag"));
    QVERIFY(!action.id.isEmpty());
    QCOMPARE(m_lostAnswer.outcome, Attempt::Outcome::Succeeded);

    runUntilSettled(fastConfig(2), action.id);

    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("COMPLETED"));
    const QList<ProviderLookup> lookups = m_ledger->reader().lookups(action.id).value();
    QVERIFY(!lookups.isEmpty());
    QCOMPARE(lookups.first().result, ProviderLookup::Result::NotFound); // lag: not evidence of absence
    const QList<Attempt> attempts = m_ledger->reader().attempts(action.id).value();
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.last().outcome, Attempt::Outcome::Succeeded);
    QVERIFY(attempts.last().replayed);
    QCOMPARE(attempts.last().idempotencyKey, attempts.first().idempotencyKey);
    QCOMPARE(attempts.last().providerObjectId, m_lostAnswer.providerObjectId);
    const QJsonArray truth = m_sim->refundsFor(action.id);
    QCOMPARE(truth.size(), 1);
    QCOMPARE(truth.first().toObject().value(QStringLiteral("id")).toString(), m_lostAnswer.providerObjectId);
}

void TestReconciler::ambiguousAnswerIsNeverSuccessOrFailure_data()
{
    QTest::addColumn<qint64>("extraLagMs"); // how long the original refund stays hidden after the jump
    QTest::addColumn<QString>("state");

    QTest::newRow("own refund appears later -> COMPLETED with it") << qint64(1500) << "COMPLETED";
    QTest::newRow("own refund stays hidden -> REQUIRES_REVIEW") << 5 * HourMs << "REQUIRES_REVIEW";
}

// paysim forgot the key earlier than it promised (it keeps keys 1 h here, against our 24 h window;
// its clock is 2 h on, inside the window on both clocks): the same-key retry runs as a new request
// and the fully refunded charge answers charge_already_refunded. That proves neither success nor
// failure: only this action's own refund, found by lookup, settles it. (A provider clock that runs
// past the window is caught before any retry: providerClockAheadAfterFailedLookup.)
void TestReconciler::ambiguousAnswerIsNeverSuccessOrFailure()
{
    QFETCH(qint64, extraLagMs);
    QFETCH(QString, state);
    paysim::PaysimConfig forgetful;
    forgetful.keyWindowHours = 1.0;
    m_client.reset();
    m_sim = std::make_unique<Paysim>(forgetful);
    QVERIFY(m_sim->start());
    m_client = std::make_unique<StripeClient>(providerConfig(m_sim->url(), 400));
    const QString charge = m_sim->seedCharge(4000); // the refund takes all of it
    QVERIFY(m_sim->addFault(postRule(QStringLiteral("lookup_lag"), 2 * HourMs + extraLagMs)));
    const ActionRecord action = lostResponse(charge, 4000, QStringLiteral("ambiguous"));
    QVERIFY(!action.id.isEmpty());
    m_sim->server().advanceClock(2 * HourMs);

    ExecutionConfig config = fastConfig(1);
    config.backoffBase = 200ms;
    config.backoffMax = 400ms;
    config.ambiguousLookups = 12;
    config.maxReconcileTries = 14;
    runUntilSettled(config, action.id, 20000);

    const ActionRecord after = m_ledger->reader().action(action.id).value();
    QCOMPARE(toWire(after.state), state);
    const QList<Attempt> attempts = m_ledger->reader().attempts(action.id).value();
    QCOMPARE(attempts.size(), 2); // one retry, then only lookups
    QCOMPARE(attempts.last().errorCode, QStringLiteral("charge_already_refunded"));
    QCOMPARE(attempts.last().outcome, Attempt::Outcome::Unknown);
    QCOMPARE(m_sim->refundsFor(action.id).size(), 1);
    if (after.state == ActionState::RequiresReview)
        QVERIFY2(after.reviewReason.contains(QStringLiteral("charge_already_refunded")), qPrintable(after.reviewReason));
}

void TestReconciler::contradictoryEvidence_data()
{
    QTest::addColumn<QString>("evidence");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("reasonContains");

    QTest::newRow("two refunds carry the action id -> REQUIRES_REVIEW") << "duplicate" << "REQUIRES_REVIEW" << "2 refunds";
    QTest::newRow("a refund of another amount -> REQUIRES_REVIEW") << "amount" << "REQUIRES_REVIEW" << "contradictory";
    QTest::newRow("the refund failed -> REJECTED") << "failed" << "REJECTED" << "";
}

void TestReconciler::contradictoryEvidence()
{
    QFETCH(QString, evidence);
    QFETCH(QString, state);
    QFETCH(QString, reasonContains);
    const QString charge = m_sim->seedCharge(10000);
    const ActionRecord action = lostResponse(charge, 4000, QStringLiteral("contradiction"));
    QVERIFY(!action.id.isEmpty());
    QCOMPARE(m_lostAnswer.outcome, Attempt::Outcome::Succeeded);
    if (evidence == u"duplicate") {
        // Someone sent the same request under another key: two refunds name this action.
        const RefundOutcome second = m_client->createRefund(action.providerRequest(), QStringLiteral("foreign-key"));
        QCOMPARE(second.outcome, Attempt::Outcome::Succeeded);
    } else if (evidence == u"amount") {
        // Move the real refund aside (metadata cleared) and plant one of another amount.
        SimClient &sim = m_sim->admin();
        QCOMPARE(sim.post(QStringLiteral("/v1/refunds/") + m_lostAnswer.providerObjectId,
                          {{QStringLiteral("metadata[countersign_action_id]"), QString()}})
                     .status,
                 200);
        QCOMPARE(sim.post(QStringLiteral("/v1/refunds"),
                          {{QStringLiteral("charge"), charge},
                           {QStringLiteral("amount"), QStringLiteral("3000")},
                           {QStringLiteral("metadata[countersign_action_id]"), action.id}})
                     .status,
                 200);
    } else if (evidence == u"failed") {
        QCOMPARE(m_sim->admin().adminPost(QStringLiteral("/_sim/refunds/") + m_lostAnswer.providerObjectId,
                                          QJsonObject{{QStringLiteral("status"), QStringLiteral("failed")}})
                     .status,
                 200);
    }
    runUntilSettled(fastConfig(1), action.id);
    const ActionRecord after = m_ledger->reader().action(action.id).value();
    QCOMPARE(toWire(after.state), state);
    if (!reasonContains.isEmpty())
        QVERIFY2(after.reviewReason.contains(reasonContains), qPrintable(after.reviewReason));
    QCOMPARE(m_ledger->reader().attempts(action.id)->size(), 1); // evidence, not a retry, decided it
    if (evidence != u"duplicate")
        return;
    // Issue 33: a supervisor who confirms one of the two as committed does not make the other go
    // away: the action is COMPLETED and its discrepancy opens in the same transaction.
    const QList<ProviderLookup> lookups = m_ledger->reader().lookups(action.id).value();
    const auto found = std::find_if(lookups.crbegin(), lookups.crend(),
                                    [](const ProviderLookup &l) { return l.result == ProviderLookup::Result::Found; });
    QVERIFY(found != lookups.crend());
    const auto reconciled = m_ledger->evidence().reconcile(action.id, QStringLiteral("sue"), Reconciliation::Outcome::Committed,
                                                           found->seq, QStringLiteral("the first one is ours"),
                                                           after.stateVersion);
    QVERIFY2(reconciled.ok(), qPrintable(reconciled.error().toString()));
    QCOMPARE(reconciled->record.state, ActionState::Completed);
    const auto flagged = m_ledger->reader().discrepancy(action.id).value();
    QVERIFY(flagged.has_value() && flagged->isOpen());
    QCOMPARE(flagged->refundIds.size(), 2);
    QCOMPARE(flagged->foundBy, QStringLiteral("sue"));
    QVERIFY(reconciled->record.stateVersion > after.stateVersion + 1); // the discrepancy moved it too
}

void TestReconciler::lookUpNowIsStoredWhoeverAsks()
{
    const QString charge = m_sim->seedCharge(10000);
    QVERIFY(m_sim->addFault(postRule(QStringLiteral("drop_response_after_commit"))));
    const ActionRecord unknown = lostResponse(charge, 4000, QStringLiteral("ask"));
    QVERIFY(!unknown.id.isEmpty());
    const ActionRecord pending = m_ledger->proposals().propose(refundInput(charge, 100, QStringLiteral("pending")),
                                                   QStringLiteral("agent-7"))->record;

    Reconciler reconciler(Reconciler::storesOf(*m_ledger), *m_client, fastConfig(1));
    const auto none = reconciler.lookUpNow(pending.id, QStringLiteral("bob"));
    QVERIFY2(none.ok(), qPrintable(none.error().toString()));
    QCOMPARE(none->lookup.result, ProviderLookup::Result::NotFound);
    QCOMPARE(none->lookup.askedBy, QStringLiteral("bob"));
    QCOMPARE(toWire(none->record.state), QStringLiteral("PENDING"));

    const auto found = reconciler.lookUpNow(unknown.id, QStringLiteral("bob"));
    QVERIFY2(found.ok(), qPrintable(found.error().toString()));
    QCOMPARE(found->lookup.result, ProviderLookup::Result::Found);
    QCOMPARE(found->lookup.providerObjectId, m_sim->refundsFor(unknown.id).first().toObject().value(QStringLiteral("id")).toString());
    QCOMPARE(toWire(found->record.state), QStringLiteral("COMPLETED"));

    const auto again = reconciler.lookUpNow(unknown.id, QStringLiteral("carol"));
    QVERIFY(again.ok());
    QCOMPARE(toWire(again->record.state), QStringLiteral("COMPLETED"));
    const QList<ProviderLookup> stored = m_ledger->reader().lookups(unknown.id).value();
    QCOMPARE(stored.size(), 2);
    QCOMPARE(stored.last().askedBy, QStringLiteral("carol"));
}

void TestReconciler::scheduleSurvivesARestart()
{
    const QString charge = m_sim->seedCharge(10000);
    QVERIFY(m_sim->addFault(postRule(QStringLiteral("error_500_before_commit"))));
    const ActionRecord action = lostResponse(charge, 4000, QStringLiteral("schedule"));
    QVERIFY(!action.id.isEmpty());
    ExecutionConfig config = fastConfig(1);
    config.backoffBase = 60s; // the next round is far away
    config.backoffMax = 60s;
    {
        Reconciler reconciler(Reconciler::storesOf(*m_ledger), *m_client, config);
        const Reconciler::StepResult step = reconciler.reconcile(action.id, QStringLiteral("r1"));
        QCOMPARE(toString(step.step), QStringLiteral("still_unknown"));
    }
    const auto schedule = m_ledger->evidence().reconcileSchedule(action.id);
    QVERIFY(schedule.ok());
    QCOMPARE(schedule->tries, 1);
    QVERIFY(schedule->nextCheckAt > m_ledger->currentTime().addSecs(20));
    QVERIFY(m_ledger->evidence().dueForReconciliation()->isEmpty()); // not due: no busy loop on it

    // Another process opens the same ledger: the schedule is there, and rounds keep counting.
    m_ledger.reset();
    m_ledger = std::make_unique<Ledger>();
    Ledger::Options options;
    options.clock = m_clock.clock();
    QVERIFY(m_ledger->open(m_location, options).ok());
    QCOMPARE(m_ledger->evidence().reconcileSchedule(action.id)->tries, 1);
    m_clock.advance(61 * 1000);
    QCOMPARE(m_ledger->evidence().dueForReconciliation()->size(), 1);
    Reconciler reconciler(Reconciler::storesOf(*m_ledger), *m_client, config);
    QCOMPARE(toString(reconciler.reconcileNextDue(QStringLiteral("r2")).step), QStringLiteral("still_unknown"));
    QCOMPARE(m_ledger->evidence().reconcileSchedule(action.id)->tries, 2);
    QCOMPARE(m_ledger->reader().attempts(action.id)->size(), 3); // the lost one and two same-key retries
}

// The stop switch (issue 14) holds only new claims: while everything is paused an action whose
// answer was lost is still reconciled (same-key retry, COMPLETED), a request in flight when the
// pause came is finished, and an approved action waits — until the resume, when it is sent.
void TestReconciler::reconcilesAndFinishesWhilePaused()
{
    const QString charge = m_sim->seedCharge(20000);
    const ActionRecord unknown = lostResponse(charge, 2000, QStringLiteral("paused-unknown"));
    QVERIFY(!unknown.id.isEmpty());
    QCOMPARE(m_lostAnswer.outcome, Attempt::Outcome::Succeeded);
    // The next request is answered 250 ms late (within the client's 400 ms timeout).
    QVERIFY(m_sim->addFault(postRule(QStringLiteral("delay_before_commit"), 250)));

    Executor executor(Reconciler::storesOf(*m_ledger), *m_client, fastConfig(2));
    QVERIFY(executor.start());
    const ActionRecord inFlight = approvedRefund(*m_ledger, charge, 3000, QStringLiteral("paused-in-flight"));
    QVERIFY(QTest::qWaitFor([&] { return m_ledger->reader().action(inFlight.id)->state != ActionState::Pending; }, 10000));
    const auto pause = m_ledger->pauses().pause(ExecutionPause::Scope::All, {}, {}, QStringLiteral("incident"),
                                                QStringLiteral("sue"));
    QVERIFY(pause.ok());
    const ActionRecord waiting = approvedRefund(*m_ledger, charge, 4000, QStringLiteral("paused-waiting"));
    const bool settled = QTest::qWaitFor([&] {
        return isSettled(m_ledger->reader().action(unknown.id)->state)
            && isSettled(m_ledger->reader().action(inFlight.id)->state);
    }, 15000);
    QVERIFY2(settled, qPrintable(describe(*m_ledger, unknown.id) + describe(*m_ledger, inFlight.id)));
    QCOMPARE(m_ledger->reader().action(unknown.id)->state, ActionState::Completed);
    QCOMPARE(m_ledger->reader().action(inFlight.id)->state, ActionState::Completed);
    QCOMPARE(m_sim->refundsFor(unknown.id).size(), 1);
    QCOMPARE(m_sim->refundsFor(inFlight.id).size(), 1);
    // It was in flight when the pause was committed: its attempt started before and finished after.
    const QList<Attempt> sent = m_ledger->reader().attempts(inFlight.id).value();
    QCOMPARE(sent.size(), 1);
    QVERIFY(sent.first().startedAt <= pause->pausedAt);
    QVERIFY2(sent.first().finishedAt >= pause->pausedAt, qPrintable(toWireTime(sent.first().finishedAt)));
    // Approved before either settled, and still not claimed.
    QCOMPARE(m_ledger->reader().action(waiting.id)->state, ActionState::Pending);
    QVERIFY(m_ledger->reader().attempts(waiting.id)->isEmpty());
    QCOMPARE(m_sim->refundsFor(waiting.id).size(), 0);

    QVERIFY(m_ledger->pauses().resume(pause->id, QStringLiteral("sue"), QString()).ok());
    QVERIFY2(QTest::qWaitFor([&] { return isSettled(m_ledger->reader().action(waiting.id)->state); }, 15000),
             qPrintable(describe(*m_ledger, waiting.id)));
    executor.stop();
    QCOMPARE(m_ledger->reader().action(waiting.id)->state, ActionState::Completed);
    QCOMPARE(m_sim->refundsFor(waiting.id).size(), 1);
}

QTEST_GUILESS_MAIN(TestReconciler)
#include "tst_reconciler.moc"
