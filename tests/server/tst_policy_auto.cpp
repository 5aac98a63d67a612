// Auto-approval in the ledger (ApprovalStore::autoApproveIn inside ProposalStore::propose,
// docs/POLICY.md), on both engines: a table of agents × amounts × currencies × what the agent
// already had auto-approved today; the approval's record (approver "policy", the rule, the
// version, a fresh key) and its audit; a resubmission approves nothing again; the UTC day; and two
// proposals of one agent racing on its daily total (threads, a ledger each): never both approved
// when together they exceed it.

#include "server/ledger/ledger.h"
#include "server/policy/policy.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/server/scratchledger.h"
#include "tests/support/testledger.h"

#include <QMutex>
#include <QMutexLocker>
#include <QTest>

#include <atomic>
#include <memory>
#include <thread>

using namespace cs;
using namespace cs::test;

namespace {

// usd up to $100.00: the policy approves agent-7's and agent-8's refunds up to $25.00, $60.00 a
// day each; everything else in that range needs two approvers.
std::shared_ptr<const Policy> autoPolicy(qint64 upTo = 2500, qint64 daily = 6000, int version = 5)
{
    PolicyRule rule;
    rule.id = QStringLiteral("usd-auto");
    rule.currency = QStringLiteral("usd");
    rule.amountUpTo = 10000;
    rule.requireApprovals = 2;
    rule.autoApprove = PolicyRule::AutoApprove{upTo, {agent(), QStringLiteral("agent-8")}, daily};
    return policyOf({rule}, version);
}

} // namespace

class TestPolicyAuto : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void autoApproval_data();
    void autoApproval();
    void theApprovalRecord();
    void resubmissionApprovesNothingAgain();
    void withoutPolicyNothingIsAutoApproved();
    void theDayIsTheUtcDay();
    void racingOnTheDailyTotal_data();
    void racingOnTheDailyTotal();

private:
    LedgerResult<ProposalStore::ProposeResult> propose(const QString &reference, qint64 amount, const QString &by,
                                                       const QString &currency = QStringLiteral("usd"));

    ScratchLedger m_ledger;
    ManualClock m_clock;
    std::shared_ptr<const Policy> m_policy;
};

void TestPolicyAuto::init()
{
    const QString problem = m_ledger.open(m_clock);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    m_policy = autoPolicy();
    m_ledger->approvals().setPolicy(m_policy);
}

void TestPolicyAuto::cleanup()
{
    m_ledger.close();
}

LedgerResult<ProposalStore::ProposeResult> TestPolicyAuto::propose(const QString &reference, qint64 amount,
                                                                   const QString &by, const QString &currency)
{
    ProposalStore::ProposalInput input = sampleInput(reference, amount);
    // A charge and an order of its own: two refunds of one charge are possible duplicates, which
    // are left to humans (tst_duplicates), not what these tables are about.
    input.targetId = QStringLiteral("ch_auto_") + reference;
    input.businessReference = QStringLiteral("order-") + reference;
    input.currency = currency;
    input.policy = m_ledger->approvals().policy();
    return m_ledger->proposals().propose(input, by);
}

void TestPolicyAuto::autoApproval_data()
{
    QTest::addColumn<QString>("agent");
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QString>("currency");
    QTest::addColumn<QList<qint64>>("before"); // this agent's auto-approved proposals earlier today
    QTest::addColumn<QList<qint64>>("others"); // agent-8's, the same day
    QTest::addColumn<bool>("approved");
    QTest::addColumn<QString>("skipped"); // the auto_approval_skipped audit's problem, "" for none

    const QString a7 = agent();
    const QList<qint64> none;
    QTest::newRow("a named agent at up_to") << a7 << qint64(2500) << "usd" << none << none << true << "";
    QTest::newRow("a named agent, one cent") << a7 << qint64(1) << "usd" << none << none << true << "";
    QTest::newRow("one cent above up_to: humans") << a7 << qint64(2501) << "usd" << none << none << false << "";
    QTest::newRow("an agent not named: humans") << QStringLiteral("agent-9") << qint64(100) << "usd" << none << none << false << "";
    QTest::newRow("another currency: no rule") << a7 << qint64(100) << "eur" << none << none << false << "";
    QTest::newRow("the daily total reached exactly") << a7 << qint64(1000) << "usd" << QList<qint64>{2500, 2500} << none
                                                     << true << "";
    QTest::newRow("one cent over the daily total") << a7 << qint64(1001) << "usd" << QList<qint64>{2500, 2500} << none
                                                   << false << "daily_total";
    QTest::newRow("another agent's total is its own") << a7 << qint64(2500) << "usd" << none
                                                      << QList<qint64>{2500, 2500} << true << "";
    QTest::newRow("what humans approve does not count") << a7 << qint64(2500) << "usd" << QList<qint64>{3000, 3000}
                                                        << none << true << "";
}

void TestPolicyAuto::autoApproval()
{
    QFETCH(QString, agent);
    QFETCH(qint64, amount);
    QFETCH(QString, currency);
    QFETCH(QList<qint64>, before);
    QFETCH(QList<qint64>, others);
    QFETCH(bool, approved);
    QFETCH(QString, skipped);
    int n = 0;
    for (qint64 earlier : std::as_const(before)) {
        const auto p = propose(QStringLiteral("before-%1").arg(++n), earlier, agent);
        QVERIFY2(p.ok(), qPrintable(p.error().toString()));
        // Above up_to (the "humans" rows): a human approves it; it is no auto-approval.
        QCOMPARE(p->autoApproval.has_value(), earlier <= 2500);
        if (!p->autoApproval)
            QVERIFY(m_ledger->approvals().approve(p->record.id, approver(), QString(), p->record.stateVersion).ok());
        m_clock.advance(1000);
    }
    for (qint64 earlier : std::as_const(others)) {
        const auto p = propose(QStringLiteral("other-%1").arg(++n), earlier, QStringLiteral("agent-8"));
        QVERIFY(p.ok());
        QVERIFY(p->autoApproval);
    }
    const auto p = propose(QStringLiteral("this-one"), amount, agent, currency);
    QVERIFY2(p.ok(), qPrintable(p.error().toString()));
    QCOMPARE(p->status, ProposalStore::ProposeResult::Status::Created);
    QCOMPARE(p->record.state, ActionState::Pending);
    QCOMPARE(p->autoApproval.has_value(), approved);
    QCOMPARE(!p->record.idempotencyKey.isEmpty(), approved);
    QCOMPARE(p->record.approvalVersion, approved ? 1 : 0);
    const auto stored = m_ledger->reader().action(p->record.id);
    QCOMPARE(stored->idempotencyKey, p->record.idempotencyKey);
    QCOMPARE(stored->stateVersion, p->record.stateVersion);
    QStringList expected{QStringLiteral("proposed")};
    if (approved)
        expected << QStringLiteral("auto_approved");
    if (!skipped.isEmpty())
        expected << QStringLiteral("auto_approval_skipped");
    QCOMPARE(eventsOf(*m_ledger, p->record.id), expected);
    if (!skipped.isEmpty()) {
        const AuditEvent last = m_ledger->reader().audit(p->record.id)->constLast();
        QCOMPARE(last.actor, QStringLiteral("policy"));
        QCOMPARE(last.after.value(QStringLiteral("problem")).toString(), skipped);
        QCOMPARE(last.after.value(QStringLiteral("rule_id")).toString(), QStringLiteral("usd-auto"));
        QVERIFY2(last.reason.contains(QStringLiteral("needs 2 approvers")), qPrintable(last.reason));
        // Left for humans: the rule's two approvers.
        QCOMPARE(m_ledger->approvals().quorum(p->record.id)->requirement.approvals, 2);
    }
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestPolicyAuto::theApprovalRecord()
{
    const auto p = propose(QStringLiteral("record"), 1999, agent());
    QVERIFY2(p.ok(), qPrintable(p.error().toString()));
    QVERIFY(p->autoApproval);
    const auto approvals = m_ledger->reader().approvals(p->record.id);
    QCOMPARE(approvals->size(), 1);
    const Approval &a = approvals->first();
    QCOMPARE(*p->autoApproval, a);
    QCOMPARE(a.decidedBy, QStringLiteral("policy"));
    QVERIFY(a.decidedBy != agent()); // never by the agent
    QCOMPARE(a.decision, Approval::Decision::Approved);
    QCOMPARE(a.version, 1);
    QCOMPARE(a.ruleId, QStringLiteral("usd-auto"));
    QCOMPARE(a.policyVersion, 5);
    QCOMPARE(a.approvedFingerprint, p->record.requestFingerprint);
    QCOMPARE(a.idempotencyKey, p->record.idempotencyKey);
    QCOMPARE(a.decidedAt, m_clock.now());
    QVERIFY(a.signers.isEmpty());
    // The audit row carries the approval, the rule and the version.
    const AuditEvent audited = m_ledger->reader().audit(p->record.id)->constLast();
    QCOMPARE(audited.event, QStringLiteral("auto_approved"));
    QCOMPARE(audited.actor, QStringLiteral("policy"));
    const QJsonObject detail = audited.after.value(QStringLiteral("approval")).toObject();
    QCOMPARE(detail.value(QStringLiteral("rule_id")).toString(), QStringLiteral("usd-auto"));
    QCOMPARE(detail.value(QStringLiteral("policy_version")).toInt(), 5);
    QCOMPARE(detail.value(QStringLiteral("decided_by")).toString(), QStringLiteral("policy"));
    // Another auto-approval mints another key.
    const auto q = propose(QStringLiteral("record-2"), 1999, agent());
    QVERIFY(q->autoApproval);
    QVERIFY(q->record.idempotencyKey != p->record.idempotencyKey);
    // Approved: a human's approval adds nothing (the quorum's "already approved" is for quorums;
    // one approval version per sign-off: a second approval of an approved action mints nothing).
    QCOMPARE(m_ledger->approvals().quorum(p->record.id)->given.first().approver, QStringLiteral("policy"));
}

void TestPolicyAuto::resubmissionApprovesNothingAgain()
{
    const auto first = propose(QStringLiteral("again"), 2000, agent());
    QVERIFY(first->autoApproval);
    m_clock.advance(1000);
    const auto again = propose(QStringLiteral("again"), 2000, agent());
    QVERIFY2(again.ok(), qPrintable(again.error().toString()));
    QCOMPARE(again->status, ProposalStore::ProposeResult::Status::Existing);
    QVERIFY(!again->autoApproval);
    QCOMPARE(again->record.idempotencyKey, first->record.idempotencyKey);
    QCOMPARE(again->record.stateVersion, first->record.stateVersion);
    QCOMPARE(m_ledger->reader().approvals(first->record.id)->size(), 1);
    QCOMPARE(eventsOf(*m_ledger, first->record.id), (QStringList{QStringLiteral("proposed"), QStringLiteral("auto_approved")}));
    // It still counts once toward the day: 2000 + 4000 = 6000 fits, 1 more does not.
    QVERIFY(propose(QStringLiteral("more"), 2500, agent())->autoApproval);
    QVERIFY(propose(QStringLiteral("more-2"), 1500, agent())->autoApproval);
    QVERIFY(!propose(QStringLiteral("more-3"), 1, agent())->autoApproval);
}

void TestPolicyAuto::withoutPolicyNothingIsAutoApproved()
{
    m_ledger->approvals().setPolicy(nullptr);
    const auto p = propose(QStringLiteral("none"), 100, agent());
    QVERIFY(p.ok());
    QVERIFY(!p->autoApproval);
    QVERIFY(p->record.idempotencyKey.isEmpty());
    QCOMPARE(eventsOf(*m_ledger, p->record.id), QStringList{QStringLiteral("proposed")});
}

void TestPolicyAuto::theDayIsTheUtcDay()
{
    // 23:59:59.000 UTC: $50.00 today; at 00:00:00.000 the next day the total starts again.
    const QDateTime lateEvening(QDate(2026, 12, 2), QTime(23, 59, 59), Qt::UTC);
    m_clock.advance(m_clock.now().msecsTo(lateEvening));
    QVERIFY(propose(QStringLiteral("d1"), 2500, agent())->autoApproval);
    QVERIFY(propose(QStringLiteral("d2"), 2500, agent())->autoApproval);
    QVERIFY(!propose(QStringLiteral("d3"), 2000, agent())->autoApproval);
    m_clock.advance(999);
    QVERIFY(!propose(QStringLiteral("d4"), 2000, agent())->autoApproval); // 23:59:59.999
    m_clock.advance(1);
    QCOMPARE(m_clock.now().time(), QTime(0, 0));
    QVERIFY(propose(QStringLiteral("d5"), 2500, agent())->autoApproval);
    QVERIFY(propose(QStringLiteral("d6"), 2500, agent())->autoApproval);
    QVERIFY(propose(QStringLiteral("d7"), 1000, agent())->autoApproval);
    QVERIFY(!propose(QStringLiteral("d8"), 1, agent())->autoApproval);
}

void TestPolicyAuto::racingOnTheDailyTotal_data()
{
    QTest::addColumn<int>("racers");
    QTest::addColumn<int>("fit"); // how many of them the daily total holds
    QTest::newRow("2 racing, room for 1") << 2 << 1;
    QTest::newRow("4 racing, room for 2") << 4 << 2;
}

void TestPolicyAuto::racingOnTheDailyTotal()
{
    QFETCH(int, racers);
    QFETCH(int, fit);
    // Each racer proposes $25.00 for one agent (a new one each round); the daily total holds `fit`
    // of them and not one more.
    const qint64 amount = 2500;
    for (int round = 0; round < 5; ++round) {
        const QString who = QStringLiteral("racer-%1").arg(round);
        auto policy = std::make_shared<Policy>(*autoPolicy(amount, amount * (fit + 1) - 1));
        policy->rules.first().autoApprove->agents = {who};
        std::atomic<int> ready{0};
        std::atomic<int> opened{0};
        std::atomic<int> approved{0};
        QMutex idsMutex;
        QStringList ids;
        auto racer = [&](int n) {
            Ledger mine;
            Ledger::Options o;
            o.recoverExpiredLeasesOnOpen = false;
            const bool ok = mine.open(m_ledger.path(), o).ok();
            opened += ok ? 1 : 0;
            ++ready;
            while (ready.load() < racers)
                std::this_thread::yield();
            if (ok) {
                ProposalStore::ProposalInput input = sampleInput(QStringLiteral("race-%1").arg(n), amount);
                input.targetId = QStringLiteral("ch_race_%1_%2").arg(round).arg(n);
                input.businessReference = QStringLiteral("order-race-%1-%2").arg(round).arg(n);
                input.policy = policy;
                const auto r = mine.proposals().propose(input, who);
                if (r.ok()) {
                    approved += r->autoApproval ? 1 : 0;
                    QMutexLocker lock(&idsMutex);
                    ids << r->record.id;
                } else {
                    qWarning() << "unexpected refusal" << r.error().toString();
                }
            }
            mine.execution().releaseThread();
        };
        std::vector<std::thread> threads;
        for (int n = 0; n < racers; ++n)
            threads.emplace_back(racer, n);
        for (std::thread &t : threads)
            t.join();
        QCOMPARE(opened.load(), racers);
        QCOMPARE(ids.size(), racers);
        QCOMPARE(approved.load(), fit);
        // What the ledger holds agrees: `fit` approved by the policy, the rest PENDING without a
        // key and audited as skipped for the daily total.
        int keys = 0;
        int skipped = 0;
        for (const QString &id : std::as_const(ids)) {
            const auto a = m_ledger->reader().action(id);
            QCOMPARE(a->state, ActionState::Pending);
            if (!a->idempotencyKey.isEmpty()) {
                ++keys;
                QCOMPARE(m_ledger->reader().approvals(id)->first().decidedBy, QStringLiteral("policy"));
            } else {
                QVERIFY(m_ledger->reader().approvals(id)->isEmpty());
                skipped += eventsOf(*m_ledger, id).contains(QStringLiteral("auto_approval_skipped")) ? 1 : 0;
            }
        }
        QCOMPARE(keys, fit);
        QCOMPARE(skipped, racers - fit);
    }
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

QTEST_GUILESS_MAIN(TestPolicyAuto)
#include "tst_policy_auto.moc"
