// The ledger operations added for execution (migration 2): group commit (commitBatch), the
// reconciler's schedule, webhook event dedupe — and that the audit chain still verifies with the
// hash shortcut and the cached statements, whatever the strings contain.

#include "server/ledger/ledger.h"
#include "server/ledger/migrations.h"
#include "tests/execution/executiontestsupport.h"
#include "tests/support/testledger.h"

#include <QSqlDatabase>
#include <QRegularExpression>
#include <QSqlQuery>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

class TestLedgerExecution : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void migrationTwoIsApplied();
    void batchClaimsOneActionPerRequestEvenForOneExecutor();
    void batchFinishesAndClaimsInOneTransaction();
    void refusedStepChangesNothingElse();
    void auditChainVerifiesWithAnyStrings();
    void scheduleAndDueActions();
    void webhookEventsAreRememberedOnce();

private:
    ActionRecord approved(const QString &reference, qint64 amount = 1000);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    OffsetClock m_clock;
    QString m_location;
};

void TestLedgerExecution::init()
{
    // The audit hash shortcut checks itself once per process and falls back quietly but for this
    // warning: here a disagreement is a failure.
    QTest::failOnWarning(QRegularExpression(QStringLiteral("shortcut disagrees")));
    m_dir = std::make_unique<QTemporaryDir>();
    m_ledger = std::make_unique<Ledger>();
    m_clock = OffsetClock();
    Ledger::Options options;
    options.clock = m_clock.clock();
    m_location = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    QVERIFY(m_ledger->open(m_location, options).ok());
}

void TestLedgerExecution::cleanup()
{
    m_ledger.reset();
    m_dir.reset();
}

ActionRecord TestLedgerExecution::approved(const QString &reference, qint64 amount)
{
    m_clock.advance(1); // created_at strictly increasing: "oldest first" is then this order
    return approvedRefund(*m_ledger, QStringLiteral("ch_batch"), amount, reference);
}

void TestLedgerExecution::migrationTwoIsApplied()
{
    QVERIFY(m_ledger->schemaVersion() >= 2);
    QCOMPARE(m_ledger->schemaVersion(), Migrations::latestVersion());
    QString error;
    QSqlDatabase db = openRawDatabase(m_location, QStringLiteral("inspect"), &error);
    QVERIFY2(db.isOpen(), qPrintable(error));
    {
        const QStringList tables = db.tables();
        QVERIFY(tables.contains(QStringLiteral("reconcile_schedule")));
        QVERIFY(tables.contains(QStringLiteral("webhook_events")));
        QSqlQuery q(db);
        // Webhook events are append-only.
        QVERIFY(q.exec(QStringLiteral("INSERT INTO webhook_events (event_id, type, action_id, disposition, received_at)"
                                       " VALUES ('evt_x', 't', '', 'd', 0)")));
        QVERIFY(!q.exec(QStringLiteral("DELETE FROM webhook_events")));
        QVERIFY(!q.exec(QStringLiteral("UPDATE webhook_events SET type = 'u'")));
    }
    db.close();
    db = QSqlDatabase();
    QSqlDatabase::removeDatabase(QStringLiteral("inspect"));
}

void TestLedgerExecution::batchClaimsOneActionPerRequestEvenForOneExecutor()
{
    QStringList ids;
    for (int i = 0; i < 5; ++i)
        ids << approved(QStringLiteral("b%1").arg(i)).id;
    ExecutionStore::Batch batch;
    batch.leaseDuration = 30s;
    batch.claimFor = {QStringLiteral("w1"), QStringLiteral("w1"), QStringLiteral("w2"), QStringLiteral("w1")};
    const auto outcome = m_ledger->execution().commitBatch(batch);
    QVERIFY2(outcome.ok(), qPrintable(outcome.error().toString()));
    QCOMPARE(outcome->claims.size(), size_t(4));
    QSet<QString> claimed;
    for (size_t i = 0; i < outcome->claims.size(); ++i) {
        QVERIFY(outcome->claims.at(i).has_value());
        QVERIFY(outcome->claimErrors.at(i).ok());
        claimed.insert(outcome->claims.at(i)->record.id);
        QCOMPARE(m_ledger->reader().executionInfo(outcome->claims.at(i)->record.id)->leaseOwner, batch.claimFor.at(qsizetype(i)));
    }
    QCOMPARE(claimed.size(), 4); // four different actions, oldest first
    QCOMPARE(claimed, QSet<QString>(ids.cbegin(), ids.cbegin() + 4));
    // One left: a second batch of two claims gets it once, then nothing.
    batch.claimFor = {QStringLiteral("w3"), QStringLiteral("w3")};
    const auto rest = m_ledger->execution().commitBatch(batch);
    QVERIFY(rest.ok());
    QCOMPARE(rest->claims.at(0)->record.id, ids.last());
    QVERIFY(!rest->claims.at(1).has_value());
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestLedgerExecution::batchFinishesAndClaimsInOneTransaction()
{
    const ActionRecord a = approved(QStringLiteral("f1"));
    const ActionRecord b = approved(QStringLiteral("f2"));
    const auto claimA = m_ledger->execution().claim(a.id, QStringLiteral("w1"), 30s);
    QVERIFY(claimA.ok());
    ExecutionStore::AttemptResult ok;
    ok.outcome = Attempt::Outcome::Succeeded;
    ok.httpStatus = 200;
    ok.providerObjectId = QStringLiteral("re_1");
    ExecutionStore::Batch batch;
    batch.leaseDuration = 30s;
    batch.finishes << ExecutionStore::FinishRequest{a.id, 1, ok, Trigger::ProviderSucceeded, QStringLiteral("200"),
                                                 QStringLiteral("w1")};
    batch.claimFor << QStringLiteral("w1");
    const qint64 auditBefore = m_ledger->reader().auditLog(0, 100000)->size();
    const auto outcome = m_ledger->execution().commitBatch(batch);
    QVERIFY(outcome.ok());
    QCOMPARE(outcome->finished.size(), size_t(1));
    QVERIFY(outcome->finished.at(0).ok());
    QCOMPARE(toWire(outcome->finished.at(0)->record.state), QStringLiteral("COMPLETED"));
    QCOMPARE(outcome->claims.at(0)->record.id, b.id);
    QCOMPARE(toWire(m_ledger->reader().action(b.id)->state), QStringLiteral("EXECUTING"));
    QCOMPARE(m_ledger->reader().attempts(b.id)->size(), 1); // the attempt row of the claim, committed
    QCOMPARE(m_ledger->reader().auditLog(0, 100000)->size(), auditBefore + 2);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestLedgerExecution::refusedStepChangesNothingElse()
{
    const ActionRecord a = approved(QStringLiteral("r1"));
    const ActionRecord b = approved(QStringLiteral("r2"));
    const ActionRecord c = approved(QStringLiteral("r3"));
    QVERIFY(m_ledger->execution().claim(a.id, QStringLiteral("w1"), 30s).ok());
    QVERIFY(m_ledger->execution().claim(b.id, QStringLiteral("w2"), 30s).ok());
    ExecutionStore::AttemptResult unknown;
    unknown.outcome = Attempt::Outcome::Unknown;
    ExecutionStore::Batch batch;
    batch.leaseDuration = 30s;
    // The first is refused (w9 holds no lease on a), the second is fine, and a claim follows.
    batch.finishes << ExecutionStore::FinishRequest{a.id, 1, unknown, Trigger::OutcomeUnknown, QStringLiteral("x"),
                                                 QStringLiteral("w9")}
                   << ExecutionStore::FinishRequest{b.id, 1, unknown, Trigger::OutcomeUnknown, QStringLiteral("timeout"),
                                                 QStringLiteral("w2")}
                   << ExecutionStore::FinishRequest{b.id, 1, unknown, std::nullopt, QStringLiteral("twice"),
                                                 QStringLiteral("w2")};
    batch.claimFor << QStringLiteral("w3");
    const auto outcome = m_ledger->execution().commitBatch(batch);
    QVERIFY2(outcome.ok(), qPrintable(outcome.error().toString()));
    QCOMPARE(outcome->finished.at(0).code(), LedgerError::Code::LeaseLost);
    QVERIFY(outcome->finished.at(1).ok());
    QCOMPARE(outcome->finished.at(2).code(), LedgerError::Code::Conflict); // already finished, just above
    QCOMPARE(outcome->claims.at(0)->record.id, c.id);
    QCOMPARE(toWire(m_ledger->reader().action(a.id)->state), QStringLiteral("EXECUTING"));
    QCOMPARE(m_ledger->reader().attempts(a.id)->first().outcome, Attempt::Outcome::Open);
    QCOMPARE(toWire(m_ledger->reader().action(b.id)->state), QStringLiteral("CONFIRMATION_UNKNOWN"));
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestLedgerExecution::auditChainVerifiesWithAnyStrings()
{
    // A plain row first (the shortcut checks itself once against AuditEvent::chainHash), then
    // strings that JSON must escape: only the shortcut hashes those.
    const ActionRecord plain = approved(QStringLiteral("plain"));
    QVERIFY(!plain.id.isEmpty());
    const QStringList notes = {QStringLiteral("quote \" backslash \\ slash /"), QStringLiteral("tab\tnew\nline\r"),
                               QStringLiteral("unicode: é ü 漢字 🚀 \u2028"), QString(QChar(0x01)) + QStringLiteral("ctl"),
                               QString()};
    for (int i = 0; i < notes.size(); ++i) {
        const auto proposed = m_ledger->proposals().propose(refundInput(QStringLiteral("ch_\"odd\""), 100 + i,
                                                            QStringLiteral("ref \"%1\" ü").arg(i)),
                                                QStringLiteral("agent \"x\" ü"));
        QVERIFY2(proposed.ok(), qPrintable(proposed.error().toString()));
        QVERIFY(m_ledger->approvals().reject(proposed->record.id, QStringLiteral("bob ü"), QStringLiteral("not_eligible"), notes.at(i), proposed->record.stateVersion).ok());
    }
    const auto verification = m_ledger->reader().verifyAudit();
    QVERIFY(verification.ok());
    QVERIFY2(verification->ok, qPrintable(verification->reason));
    QVERIFY(verification->rowsChecked >= 12);
    // The stored before/after read back as the objects that were hashed.
    const QList<AuditEvent> events = m_ledger->reader().auditLog(0, 1000).value();
    for (const AuditEvent &e : events)
        QCOMPARE(e.chainHash(e.prevHash), e.hash);
}

void TestLedgerExecution::scheduleAndDueActions()
{
    const ActionRecord a = approved(QStringLiteral("s1"));
    const ActionRecord b = approved(QStringLiteral("s2"));
    for (const ActionRecord &r : {a, b}) {
        const auto claim = m_ledger->execution().claim(r.id, QStringLiteral("w"), 30s);
        ExecutionStore::AttemptResult unknown;
        unknown.outcome = Attempt::Outcome::Unknown;
        QVERIFY(m_ledger->execution().finishAttempt(r.id, claim->attempt.seq, unknown, Trigger::OutcomeUnknown,
                                        QStringLiteral("timeout"), QStringLiteral("w")).ok());
    }
    // No schedule row: due now.
    QCOMPARE(m_ledger->evidence().dueForReconciliation()->size(), 2);
    QCOMPARE(m_ledger->evidence().reconcileSchedule(a.id)->tries, 0);
    QVERIFY(m_ledger->evidence().scheduleReconciliation(a.id, 3, m_ledger->currentTime().addSecs(60), QStringLiteral("later")).ok());
    const auto due = m_ledger->evidence().dueForReconciliation();
    QCOMPARE(due->size(), 1);
    QCOMPARE(due->first().id, b.id);
    // A live lease hides it too.
    QVERIFY(m_ledger->execution().acquireLease(b.id, QStringLiteral("r"), 30s).ok());
    QVERIFY(m_ledger->evidence().dueForReconciliation()->isEmpty());
    m_clock.advance(61 * 1000);
    QCOMPARE(m_ledger->evidence().dueForReconciliation()->size(), 2); // a's time came, b's lease expired
    const auto schedule = m_ledger->evidence().reconcileSchedule(a.id);
    QCOMPARE(schedule->tries, 3);
    QCOMPARE(schedule->note, QStringLiteral("later"));
    QCOMPARE(m_ledger->evidence().scheduleReconciliation(QStringLiteral("act_nope"), 1, m_ledger->currentTime(), QString()).code(),
             LedgerError::Code::NotFound);
}

void TestLedgerExecution::webhookEventsAreRememberedOnce()
{
    const ActionRecord a = approved(QStringLiteral("w1"));
    EvidenceStore::WebhookEvent event;
    event.eventId = QStringLiteral("evt_1");
    event.type = QStringLiteral("refund.created");
    event.actionId = a.id;
    event.disposition = QStringLiteral("lookup");
    ProviderLookup lookup;
    lookup.actionId = a.id;
    lookup.method = ProviderLookup::Method::Webhook;
    lookup.askedBy = QStringLiteral("webhook");
    lookup.result = ProviderLookup::Result::Found;
    lookup.providerObjectId = QStringLiteral("re_1");
    lookup.status = QStringLiteral("succeeded");
    lookup.amount = 1000;
    const auto first = m_ledger->evidence().recordWebhookEvent(event, lookup, std::nullopt, QStringLiteral("webhook"));
    QVERIFY(first.ok());
    QVERIFY(!first->duplicate);
    QVERIFY(first->lookup.has_value());
    const auto again = m_ledger->evidence().recordWebhookEvent(event, lookup, std::nullopt, QStringLiteral("webhook"));
    QVERIFY(again.ok());
    QVERIFY(again->duplicate);
    QCOMPARE(m_ledger->reader().lookups(a.id)->size(), 1);
    // A refused transition leaves neither the lookup nor the event id behind.
    event.eventId = QStringLiteral("evt_2");
    const auto refused = m_ledger->evidence().recordWebhookEvent(event, lookup, Trigger::ProviderSucceeded, QStringLiteral("x"));
    QVERIFY(!refused.ok()); // PENDING cannot complete
    QVERIFY(!m_ledger->evidence().webhookEvent(QStringLiteral("evt_2"))->has_value());
    QCOMPARE(m_ledger->reader().lookups(a.id)->size(), 1);
}

QTEST_GUILESS_MAIN(TestLedgerExecution)
#include "tst_ledger_execution.moc"
