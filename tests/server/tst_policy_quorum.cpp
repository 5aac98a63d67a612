// Dual control in the ledger (ApprovalStore under a policy, docs/POLICY.md), on both engines: the
// quorum's paths (sign, sign twice, the requester, reject after one signature, an amendment voids,
// below the threshold, no policy), the policy's versions (PolicyStore) and what the database
// refuses, and N approvers racing on one action (threads, a ledger each): exactly one key.

#include "server/ledger/ledger.h"
#include "server/policy/policy.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/server/scratchledger.h"
#include "tests/support/testledger.h"

#include <QCryptographicHash>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>

#include <atomic>
#include <memory>
#include <thread>

using namespace cs;
using namespace cs::test;

namespace {

// Two approvers above $500.00 (rule usd-large), one below.
std::shared_ptr<const Policy> dualControl(int approvals = 2, int version = 3)
{
    PolicyRule rule;
    rule.id = QStringLiteral("usd-large");
    rule.currency = QStringLiteral("usd");
    rule.amountAbove = 50000;
    rule.requireApprovals = approvals;
    return policyOf({rule}, version);
}

QString problemOf(const LedgerError &error)
{
    return error.detail().value(QStringLiteral("problem")).toString();
}

} // namespace

class TestPolicyQuorum : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void noPolicyIsOneApprover();
    void belowThresholdIsOneApprover();
    void quorumOfTwo();
    void rejectAfterOneSignature();
    void amendmentVoidsSignatures();
    void policyChangeTakesEffectAtTheNextApproval();
    void policyVersionsAreKept();
    void databaseRefusesEdits();
    void racingApprovers_data();
    void racingApprovers();

private:
    ActionRecord propose(const QString &reference, qint64 amount);
    int count(const QString &sql);

    ScratchLedger m_ledger;
    ManualClock m_clock;
};

void TestPolicyQuorum::init()
{
    const QString problem = m_ledger.open(m_clock);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestPolicyQuorum::cleanup()
{
    m_ledger.close();
}

ActionRecord TestPolicyQuorum::propose(const QString &reference, qint64 amount)
{
    const auto p = m_ledger->proposals().propose(sampleInput(reference, amount), agent());
    if (!p.ok())
        qFatal("propose: %s", qPrintable(p.error().toString()));
    return p->record;
}

int TestPolicyQuorum::count(const QString &sql)
{
    QString error;
    int n = -1;
    {
        QSqlDatabase db = openRawDatabase(m_ledger.path(), QStringLiteral("count"), &error);
        QSqlQuery q(db);
        if (q.exec(sql) && q.next())
            n = q.value(0).toInt();
        else
            qWarning() << sql << q.lastError().text() << error;
    }
    QSqlDatabase::removeDatabase(QStringLiteral("count"));
    return n;
}

void TestPolicyQuorum::noPolicyIsOneApprover()
{
    const ActionRecord a = propose(QStringLiteral("big"), 900000);
    const auto approved = m_ledger->approvals().approve(a.id, approver(), QString(), a.stateVersion);
    QVERIFY2(approved.ok(), qPrintable(approved.error().toString()));
    QVERIFY(!approved->idempotencyKey.isEmpty());
    const auto approvals = m_ledger->reader().approvals(a.id);
    QCOMPARE(approvals->size(), 1);
    QCOMPARE(approvals->first().policyVersion, 0);
    QVERIFY(approvals->first().signers.isEmpty());
    const auto quorum = m_ledger->approvals().quorum(a.id);
    QCOMPARE(quorum->requirement.approvals, 1);
    QCOMPARE(quorum->given.size(), 1);
    QCOMPARE(quorum->given.first().approver, approver());
}

void TestPolicyQuorum::belowThresholdIsOneApprover()
{
    m_ledger->approvals().setPolicy(dualControl());
    const ActionRecord a = propose(QStringLiteral("small"), 50000); // $500.00: not above
    const auto approved = m_ledger->approvals().approve(a.id, approver(), QString(), a.stateVersion);
    QVERIFY(approved.ok());
    QVERIFY(!approved->idempotencyKey.isEmpty());
    const auto approvals = m_ledger->reader().approvals(a.id);
    QCOMPARE(approvals->first().policyVersion, 3);
    QCOMPARE(approvals->first().ruleId, QString());
}

void TestPolicyQuorum::quorumOfTwo()
{
    m_ledger->approvals().setPolicy(dualControl());
    const ActionRecord a = propose(QStringLiteral("large"), 50001);
    ApprovalStore &approvals = m_ledger->approvals();

    // The requester never counts (four-eyes).
    const auto own = approvals.approve(a.id, agent(), QString(), a.stateVersion);
    QCOMPARE(own.code(), LedgerError::Code::Forbidden);

    // The first signature: still PENDING, no key, the row unchanged (same state_version).
    const auto first = approvals.approve(a.id, QStringLiteral("alice"), QStringLiteral("looks right"), a.stateVersion);
    QVERIFY2(first.ok(), qPrintable(first.error().toString()));
    QCOMPARE(first->state, ActionState::Pending);
    QVERIFY(first->idempotencyKey.isEmpty());
    QCOMPARE(first->approvalVersion, 0);
    QCOMPARE(first->stateVersion, a.stateVersion);
    QCOMPARE(m_ledger->reader().approvals(a.id)->size(), 0);
    auto quorum = approvals.quorum(a.id);
    QCOMPARE(quorum->requirement.approvals, 2);
    QCOMPARE(quorum->requirement.ruleId, QStringLiteral("usd-large"));
    QCOMPARE(quorum->requirement.policyVersion, 3);
    QCOMPARE(quorum->given.size(), 1);
    QCOMPARE(quorum->given.first().approver, QStringLiteral("alice"));
    QCOMPARE(quorum->given.first().signedAt, m_clock.now());

    // The same approver cannot count twice.
    m_clock.advance(1000);
    const auto twice = approvals.approve(a.id, QStringLiteral("alice"), QString(), a.stateVersion);
    QCOMPARE(twice.code(), LedgerError::Code::Conflict);
    QCOMPARE(problemOf(twice.error()), QStringLiteral("already_signed"));
    QCOMPARE(approvals.quorum(a.id)->given.size(), 1);

    // The second completes the quorum: one approval version with its key, listing both.
    const auto second = approvals.approve(a.id, QStringLiteral("bob"), QString(), a.stateVersion);
    QVERIFY2(second.ok(), qPrintable(second.error().toString()));
    QVERIFY(!second->idempotencyKey.isEmpty());
    QCOMPARE(second->approvalVersion, 1);
    QCOMPARE(second->stateVersion, a.stateVersion + 1);
    const auto rows = m_ledger->reader().approvals(a.id);
    QCOMPARE(rows->size(), 1);
    const Approval &approval = rows->first();
    QCOMPARE(approval.decidedBy, QStringLiteral("bob"));
    QCOMPARE(approval.idempotencyKey, second->idempotencyKey);
    QCOMPARE(approval.approvedFingerprint, a.requestFingerprint);
    QCOMPARE(approval.ruleId, QStringLiteral("usd-large"));
    QCOMPARE(approval.policyVersion, 3);
    QCOMPARE(approval.signers.size(), 2);
    QCOMPARE(approval.signers.at(0).approver, QStringLiteral("alice"));
    QCOMPARE(approval.signers.at(1).approver, QStringLiteral("bob"));
    quorum = approvals.quorum(a.id);
    QCOMPARE(quorum->given, approval.signers);

    // Approved: a third approver adds nothing and mints nothing.
    const auto third = approvals.approve(a.id, QStringLiteral("carol"), QString(), second->stateVersion);
    QCOMPARE(problemOf(third.error()), QStringLiteral("already_approved"));
    QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM approvals WHERE action_id = '%1'").arg(a.id)), 1);
    QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM approval_signatures WHERE action_id = '%1'").arg(a.id)), 2);

    // The audit: a signature, then the approval.
    QStringList events;
    const auto audit = m_ledger->reader().audit(a.id);
    for (const AuditEvent &e : *audit)
        events << e.event;
    QCOMPARE(events, (QStringList{QStringLiteral("proposed"), QStringLiteral("approval_signed"), QStringLiteral("approved")}));
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestPolicyQuorum::rejectAfterOneSignature()
{
    m_ledger->approvals().setPolicy(dualControl());
    const ActionRecord a = propose(QStringLiteral("reject"), 80000);
    QVERIFY(m_ledger->approvals().approve(a.id, QStringLiteral("alice"), QString(), a.stateVersion).ok());
    const auto rejected = m_ledger->approvals().reject(a.id, QStringLiteral("bob"), QStringLiteral("wrong_amount"),
                                                       QString(), a.stateVersion);
    QVERIFY2(rejected.ok(), qPrintable(rejected.error().toString()));
    QCOMPARE(rejected->state, ActionState::Rejected);
    QVERIFY(rejected->idempotencyKey.isEmpty());
    const auto late = m_ledger->approvals().approve(a.id, QStringLiteral("carol"), QString(), rejected->stateVersion);
    QCOMPARE(late.code(), LedgerError::Code::IllegalTransition);
    QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM approvals WHERE idempotency_key <> '' AND action_id = '%1'").arg(a.id)), 0);
}

void TestPolicyQuorum::amendmentVoidsSignatures()
{
    m_ledger->approvals().setPolicy(dualControl());
    const ActionRecord a = propose(QStringLiteral("amend"), 80000);
    QVERIFY(m_ledger->approvals().approve(a.id, QStringLiteral("alice"), QString(), a.stateVersion).ok());
    // Amended to a new amount and back: alice signed the first request, not the amended one.
    auto amended = m_ledger->proposals().amendBeforeSending(a.id, QStringLiteral("sam"), 70000, a.reason, a.stateVersion);
    QVERIFY2(amended.ok(), qPrintable(amended.error().toString()));
    amended = m_ledger->proposals().amendBeforeSending(a.id, QStringLiteral("sam"), 80000, a.reason, amended->stateVersion);
    QVERIFY(amended.ok());
    QCOMPARE(amended->requestFingerprint, a.requestFingerprint);
    QCOMPARE(m_ledger->approvals().quorum(a.id)->given.size(), 0);
    // bob alone is not a quorum; alice may sign the amended request again.
    auto bob = m_ledger->approvals().approve(a.id, QStringLiteral("bob"), QString(), amended->stateVersion);
    QVERIFY(bob.ok());
    QVERIFY(bob->idempotencyKey.isEmpty());
    const auto alice = m_ledger->approvals().approve(a.id, QStringLiteral("alice"), QString(), amended->stateVersion);
    QVERIFY2(alice.ok(), qPrintable(alice.error().toString()));
    QVERIFY(!alice->idempotencyKey.isEmpty());
    const Approval approval = m_ledger->reader().approvals(a.id)->first();
    QCOMPARE(approval.signers.size(), 2);
    QCOMPARE(approval.signers.at(0).approver, QStringLiteral("bob"));
}

void TestPolicyQuorum::policyChangeTakesEffectAtTheNextApproval()
{
    m_ledger->approvals().setPolicy(dualControl(3));
    const ActionRecord a = propose(QStringLiteral("change"), 80000);
    QVERIFY(m_ledger->approvals().approve(a.id, QStringLiteral("alice"), QString(), a.stateVersion).ok());
    QCOMPARE(m_ledger->approvals().quorum(a.id)->requirement.approvals, 3);
    m_ledger->approvals().setPolicy(dualControl(2, 4)); // reloaded: two are enough now
    const auto bob = m_ledger->approvals().approve(a.id, QStringLiteral("bob"), QString(), a.stateVersion);
    QVERIFY(bob.ok());
    QVERIFY(!bob->idempotencyKey.isEmpty());
    QCOMPARE(m_ledger->reader().approvals(a.id)->first().policyVersion, 4);
    m_ledger->approvals().setPolicy(nullptr);
    QCOMPARE(m_ledger->approvals().policy(), nullptr);
}

void TestPolicyQuorum::policyVersionsAreKept()
{
    PolicyStore &store = m_ledger->policies();
    bool created = false;
    const auto v1 = store.recordLoad(QStringLiteral("{\"rules\": []}"), QStringLiteral("/etc/p.json"), QStringLiteral("startup"), &created);
    QVERIFY2(v1.ok(), qPrintable(v1.error().toString()));
    QVERIFY(created);
    QCOMPARE(v1->version, 1);
    QCOMPARE(v1->sha256, QString::fromLatin1(QCryptographicHash::hash("{\"rules\": []}", QCryptographicHash::Sha256).toHex()));
    m_clock.advance(1000);
    const auto again = store.recordLoad(QStringLiteral("{\"rules\": []}"), QStringLiteral("/etc/p.json"), QStringLiteral("root"), &created);
    QVERIFY(!created);
    QCOMPARE(again->version, 1);
    QCOMPARE(again->loadedBy, QStringLiteral("startup"));
    const auto v2 = store.recordLoad(QStringLiteral("{\"rules\": [ ]}"), QStringLiteral("/etc/p.json"), QStringLiteral("root"), &created);
    QVERIFY(created);
    QCOMPARE(v2->version, 2);
    QCOMPARE(v2->loadedAt, m_clock.now());
    const auto all = store.versions();
    QCOMPARE(all->size(), 2);
    QCOMPARE(all->at(0), *v1);
    QCOMPARE(all->at(1), *v2);
    // Every load is audited, about no action.
    int loads = 0;
    const auto log = m_ledger->reader().auditLog();
    QVERIFY(log.ok());
    for (const AuditEvent &e : *log) {
        if (e.event == u"policy_loaded") {
            ++loads;
            QVERIFY(e.actionId.isEmpty());
        }
    }
    QCOMPARE(loads, 3);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestPolicyQuorum::databaseRefusesEdits()
{
    QVERIFY(m_ledger->policies().recordLoad(QStringLiteral("{\"rules\": []}"), QStringLiteral("f"), QStringLiteral("startup")).ok());
    m_ledger->approvals().setPolicy(dualControl());
    const ActionRecord a = propose(QStringLiteral("edit"), 80000);
    QVERIFY(m_ledger->approvals().approve(a.id, QStringLiteral("alice"), QString(), a.stateVersion).ok());
    QString error;
    {
        QSqlDatabase db = openRawDatabase(m_ledger.path(), QStringLiteral("raw"), &error);
        QVERIFY2(db.isValid(), qPrintable(error));
        for (const char *sql : {"UPDATE policy_versions SET text = '{}'", "DELETE FROM policy_versions",
                                "UPDATE approval_signatures SET signed_by = 'mallory'", "DELETE FROM approval_signatures"}) {
            QSqlQuery q(db);
            QVERIFY2(!q.exec(QString::fromLatin1(sql)), sql);
            QVERIFY2(q.lastError().text().contains(QStringLiteral("append-only")), qPrintable(q.lastError().text()));
        }
        // One approver signs a round once, whatever the code does.
        QSqlQuery twice(db);
        QVERIFY(!twice.exec(QStringLiteral("INSERT INTO approval_signatures (action_id, seq, approval_round, void_epoch,"
                                           " signed_by, fingerprint, required, policy_version, rule_id, note, signed_at)"
                                           " SELECT action_id, seq + 1, approval_round, void_epoch, signed_by, fingerprint,"
                                           " required, policy_version, rule_id, note, signed_at FROM approval_signatures")));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
}

void TestPolicyQuorum::racingApprovers_data()
{
    QTest::addColumn<int>("required");
    QTest::addColumn<int>("approvers");
    QTest::newRow("3 of 3 at once") << 3 << 3;
    QTest::newRow("2 of 2, 4 approving at once") << 2 << 4;
}

void TestPolicyQuorum::racingApprovers()
{
    QFETCH(int, required);
    QFETCH(int, approvers);
    const std::shared_ptr<const Policy> policy = dualControl(required);
    for (int round = 0; round < 5; ++round) {
        const ActionRecord a = propose(QStringLiteral("race-%1").arg(round), 90000);
        std::atomic<int> ready{0};
        std::atomic<int> opened{0};
        std::atomic<int> signedOk{0};
        std::atomic<int> keys{0};
        auto racer = [&](int n) {
            Ledger mine;
            Ledger::Options o;
            o.recoverExpiredLeasesOnOpen = false;
            const bool ok = mine.open(m_ledger.path(), o).ok();
            opened += ok ? 1 : 0;
            mine.approvals().setPolicy(policy);
            ++ready;
            while (ready.load() < approvers)
                std::this_thread::yield();
            if (ok) {
                const auto r = mine.approvals().approve(a.id, QStringLiteral("approver-%1").arg(n), QStringLiteral("racing"), a.stateVersion);
                if (r.ok()) {
                    ++signedOk;
                    if (!r->idempotencyKey.isEmpty())
                        ++keys;
                } else if (r.code() != LedgerError::Code::StaleVersion && problemOf(r.error()) != u"already_approved") {
                    qWarning() << "unexpected refusal" << r.error().toString();
                }
            }
            mine.execution().releaseThread();
        };
        std::vector<std::thread> threads;
        for (int n = 0; n < approvers; ++n)
            threads.emplace_back(racer, n);
        for (std::thread &t : threads)
            t.join();
        QCOMPARE(opened.load(), approvers);
        // Exactly one key, the quorum counted once: `required` distinct signers, no more.
        QCOMPARE(keys.load(), 1);
        QCOMPARE(signedOk.load(), required);
        const auto rows = m_ledger->reader().approvals(a.id);
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->first().signers.size(), required);
        QStringList names;
        for (const Approval::Signer &s : rows->first().signers)
            names << s.approver;
        names.removeDuplicates();
        QCOMPARE(names.size(), required);
        const auto record = m_ledger->reader().action(a.id);
        QCOMPARE(record->idempotencyKey, rows->first().idempotencyKey);
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM approval_signatures WHERE action_id = '%1'").arg(a.id)), required);
    }
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

QTEST_GUILESS_MAIN(TestPolicyQuorum)
#include "tst_policy_quorum.moc"
