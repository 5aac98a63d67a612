// Approval expiry in the ledger (docs/POLICY.md "Approval expiry"), on both engines: an approval
// not sent within the rule's time asks for approval again (the sweep, the claim, the next
// decision each record it first), the next approval mints a fresh key, a quorum's signatures
// older than the time no longer count (expiry before the quorum) and a quorum's approval expires
// like any other (after the quorum); once an attempt exists nothing expires (invariant 4), which
// the database itself refuses too.

#include "server/ledger/ledger.h"
#include "server/policy/policy.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/server/scratchledger.h"
#include "tests/support/testledger.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

namespace {

constexpr qint64 kExpirySeconds = 30 * 60;

// Above $500.00 two approvers, below one; every approval expires 30 minutes after it was given.
std::shared_ptr<const Policy> expiringPolicy()
{
    PolicyRule large;
    large.id = QStringLiteral("usd-large");
    large.currency = QStringLiteral("usd");
    large.amountAbove = 50000;
    large.requireApprovals = 2;
    large.approvalExpiresAfterSeconds = kExpirySeconds;
    PolicyRule small;
    small.id = QStringLiteral("usd-small");
    small.requireApprovals = 1;
    small.approvalExpiresAfterSeconds = kExpirySeconds;
    return policyOf({large, small}, 4);
}

// Every proposal here is on one charge and order, so each may duplicate another: approvals carry
// the note that says why both are intended (docs/POLICY.md "Possible duplicates").
QString note()
{
    return QStringLiteral("both intended");
}

} // namespace

class TestPolicyExpiry : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void unsentApprovalExpires();
    void claimNeverSendsAnExpiredApproval();
    void nextDecisionRecordsTheExpiryFirst();
    void signaturesExpireBeforeTheQuorum();
    void quorumApprovalExpiresAfterTheQuorum();
    void nothingExpiresOnceSent();
    void noExpiryWithoutTheRule();
    void reloadKeepsTheExpiryAlreadyGiven();
    void databaseRefusesWhatExpiryMayNotDo();

private:
    ActionRecord propose(const QString &reference, qint64 amount);
    ActionRecord current(const QString &id);
    int expireDue();

    ScratchLedger m_ledger;
    ManualClock m_clock;
};

void TestPolicyExpiry::init()
{
    const QString problem = m_ledger.open(m_clock);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    m_ledger->approvals().setPolicy(expiringPolicy());
}

void TestPolicyExpiry::cleanup()
{
    m_ledger.close();
}

ActionRecord TestPolicyExpiry::propose(const QString &reference, qint64 amount)
{
    const auto p = m_ledger->proposals().propose(sampleInput(reference, amount), agent());
    if (!p.ok())
        qFatal("propose: %s", qPrintable(p.error().toString()));
    return p->record;
}

ActionRecord TestPolicyExpiry::current(const QString &id)
{
    const auto a = m_ledger->reader().action(id);
    if (!a.ok())
        qFatal("read: %s", qPrintable(a.error().toString()));
    return *a;
}

int TestPolicyExpiry::expireDue()
{
    const auto n = m_ledger->execution().expireDueApprovals();
    if (!n.ok())
        qFatal("expire: %s", qPrintable(n.error().toString()));
    return n.value();
}

void TestPolicyExpiry::unsentApprovalExpires()
{
    const ActionRecord a = propose(QStringLiteral("small"), 4000);
    const auto approved = m_ledger->approvals().approve(a.id, approver(), note(), a.stateVersion);
    QVERIFY2(approved.ok(), qPrintable(approved.error().toString()));
    const QString firstKey = approved->idempotencyKey;
    QVERIFY(!firstKey.isEmpty());
    auto approvals = m_ledger->reader().approvals(a.id);
    QCOMPARE(approvals->first().expiresAt, m_clock.now().addSecs(kExpirySeconds));
    QVERIFY(!approvals->first().expiredAt.isValid());

    // One millisecond before its time it still counts; at its time it no longer does.
    m_clock.advance(kExpirySeconds * 1000 - 1);
    QCOMPARE(expireDue(), 0);
    QCOMPARE(current(a.id).idempotencyKey, firstKey);
    m_clock.advance(1);
    QCOMPARE(expireDue(), 1);
    QCOMPARE(expireDue(), 0); // once

    const ActionRecord after = current(a.id);
    QCOMPARE(after.state, ActionState::Pending);
    QVERIFY(after.idempotencyKey.isEmpty());
    QCOMPARE(after.approvalVersion, 1);
    QCOMPARE(after.stateVersion, approved->stateVersion + 1); // an If-Match from before is stale
    approvals = m_ledger->reader().approvals(a.id);
    QCOMPARE(approvals->size(), 1);
    QCOMPARE(approvals->first().expiredAt, m_clock.now());
    QCOMPARE(approvals->first().idempotencyKey, firstKey); // what it minted stays on record, unused
    QCOMPARE(eventsOf(*m_ledger, a.id),
             (QStringList{QStringLiteral("proposed"), QStringLiteral("approved"), QStringLiteral("approval_expired")}));
    const auto audit = m_ledger->reader().audit(a.id);
    const AuditEvent expiry = audit->constLast();
    QCOMPARE(expiry.actor, Approval::policyApprover());
    QVERIFY2(expiry.reason.contains(QStringLiteral("needs approval again")), qPrintable(expiry.reason));

    // An approval from before the expiry is refused as stale; a fresh one mints a fresh key.
    QCOMPARE(m_ledger->approvals().approve(a.id, approver(), note(), approved->stateVersion).code(),
             LedgerError::Code::StaleVersion);
    const auto again = m_ledger->approvals().approve(a.id, approver(), note(), after.stateVersion);
    QVERIFY2(again.ok(), qPrintable(again.error().toString()));
    QCOMPARE(again->approvalVersion, 2);
    QVERIFY(!again->idempotencyKey.isEmpty());
    QVERIFY(again->idempotencyKey != firstKey);
    const auto verified = m_ledger->reader().verifyAudit();
    QVERIFY(verified.ok() && verified->ok);
}

void TestPolicyExpiry::claimNeverSendsAnExpiredApproval()
{
    // No sweep ran: the claim itself sees the time, records the expiry and sends nothing.
    const ActionRecord a = propose(QStringLiteral("claim"), 4000);
    QVERIFY(m_ledger->approvals().approve(a.id, approver(), note(), a.stateVersion).ok());
    m_clock.advance(kExpirySeconds * 1000);
    const auto next = m_ledger->execution().claimNext(QStringLiteral("exec-1"), 60s);
    QVERIFY2(next.ok(), qPrintable(next.error().toString()));
    QVERIFY(!next->has_value());
    QCOMPARE(m_ledger->reader().attempts(a.id)->size(), 0);
    QVERIFY(current(a.id).idempotencyKey.isEmpty());
    QVERIFY(eventsOf(*m_ledger, a.id).contains(QStringLiteral("approval_expired")));

    // The same through a claim by id.
    const ActionRecord b = propose(QStringLiteral("claim-by-id"), 4000);
    QVERIFY(m_ledger->approvals().approve(b.id, approver(), note(), b.stateVersion).ok());
    m_clock.advance(kExpirySeconds * 1000 + 5);
    const auto claimed = m_ledger->execution().claim(b.id, QStringLiteral("exec-1"), 60s);
    QCOMPARE(claimed.code(), LedgerError::Code::Conflict);
    QVERIFY2(claimed.error().message().contains(QStringLiteral("expired")), qPrintable(claimed.error().toString()));
    QCOMPARE(m_ledger->reader().attempts(b.id)->size(), 0);
    QVERIFY(current(b.id).idempotencyKey.isEmpty());

    // Approved again, it is claimed with the fresh key.
    const auto again = m_ledger->approvals().approve(b.id, approver(), note(), current(b.id).stateVersion);
    QVERIFY(again.ok());
    const auto sent = m_ledger->execution().claim(b.id, QStringLiteral("exec-1"), 60s);
    QVERIFY2(sent.ok(), qPrintable(sent.error().toString()));
    QCOMPARE(sent->attempt.idempotencyKey, again->idempotencyKey);
}

void TestPolicyExpiry::nextDecisionRecordsTheExpiryFirst()
{
    // The sweep has not run; a rejection after the time finds the approval expired first.
    const ActionRecord a = propose(QStringLiteral("reject-late"), 4000);
    const auto approved = m_ledger->approvals().approve(a.id, approver(), note(), a.stateVersion);
    QVERIFY(approved.ok());
    m_clock.advance(kExpirySeconds * 1000 + 1);
    const auto rejected = m_ledger->approvals().reject(a.id, approver(), QStringLiteral("other"),
                                                       QStringLiteral("no longer wanted"), approved->stateVersion);
    QVERIFY2(rejected.ok(), qPrintable(rejected.error().toString()));
    QCOMPARE(rejected->state, ActionState::Rejected);
    QCOMPARE(eventsOf(*m_ledger, a.id),
             (QStringList{QStringLiteral("proposed"), QStringLiteral("approved"), QStringLiteral("approval_expired"),
                          QStringLiteral("rejected")}));
}

void TestPolicyExpiry::signaturesExpireBeforeTheQuorum()
{
    ApprovalStore &approvals = m_ledger->approvals();
    const ActionRecord a = propose(QStringLiteral("big"), 90000);
    QVERIFY(approvals.approve(a.id, QStringLiteral("alice"), note(), a.stateVersion).ok());
    QCOMPARE(approvals.quorum(a.id)->given.size(), 1);
    // Alice's signature is 30 minutes old: it no longer counts, and bob's alone is 1 of 2.
    m_clock.advance(kExpirySeconds * 1000);
    QCOMPARE(approvals.quorum(a.id)->given.size(), 0);
    const auto awaiting = approvals.awaitingQuorums({current(a.id)});
    QCOMPARE(awaiting->value(a.id).requirement.approvals, 2);
    QCOMPARE(awaiting->value(a.id).given.size(), 0);
    const auto bob = approvals.approve(a.id, QStringLiteral("bob"), note(), a.stateVersion);
    QVERIFY2(bob.ok(), qPrintable(bob.error().toString()));
    QVERIFY(bob->idempotencyKey.isEmpty());
    auto quorum = approvals.quorum(a.id);
    QCOMPARE(quorum->given.size(), 1);
    QCOMPARE(quorum->given.first().approver, QStringLiteral("bob"));
    // Alice signs again (her old signature is void, so she may), within bob's time: the quorum.
    m_clock.advance(60 * 1000);
    const auto alice = approvals.approve(a.id, QStringLiteral("alice"), note(), a.stateVersion);
    QVERIFY2(alice.ok(), qPrintable(alice.error().toString()));
    QVERIFY(!alice->idempotencyKey.isEmpty());
    const auto rows = m_ledger->reader().approvals(a.id);
    const Approval approval = rows->constLast();
    QCOMPARE(approval.signers.size(), 2);
    QCOMPARE(approval.signers.at(0).approver, QStringLiteral("bob"));
    QCOMPARE(approval.signers.at(1).approver, QStringLiteral("alice"));
    QCOMPARE(approval.expiresAt, m_clock.now().addSecs(kExpirySeconds));
}

void TestPolicyExpiry::quorumApprovalExpiresAfterTheQuorum()
{
    ApprovalStore &approvals = m_ledger->approvals();
    const ActionRecord a = propose(QStringLiteral("big-late"), 90000);
    QVERIFY(approvals.approve(a.id, QStringLiteral("alice"), note(), a.stateVersion).ok());
    const auto approved = approvals.approve(a.id, QStringLiteral("bob"), note(), a.stateVersion);
    QVERIFY(approved.ok() && !approved->idempotencyKey.isEmpty());
    m_clock.advance(kExpirySeconds * 1000);
    QCOMPARE(expireDue(), 1);
    const ActionRecord after = current(a.id);
    QVERIFY(after.idempotencyKey.isEmpty());
    // It needs the whole quorum again: the signatures that made the expired approval are spent.
    auto quorum = approvals.quorum(a.id);
    QCOMPARE(quorum->requirement.approvals, 2);
    QCOMPARE(quorum->given.size(), 0);
    const auto alice = approvals.approve(a.id, QStringLiteral("alice"), note(), after.stateVersion);
    QVERIFY2(alice.ok(), qPrintable(alice.error().toString()));
    QVERIFY(alice->idempotencyKey.isEmpty());
    QCOMPARE(approvals.quorum(a.id)->given.size(), 1);
    const auto bob = approvals.approve(a.id, QStringLiteral("bob"), note(), after.stateVersion);
    QVERIFY2(bob.ok(), qPrintable(bob.error().toString()));
    QVERIFY(!bob->idempotencyKey.isEmpty());
    QVERIFY(bob->idempotencyKey != approved->idempotencyKey);
    QCOMPARE(bob->approvalVersion, 2);
}

void TestPolicyExpiry::nothingExpiresOnceSent()
{
    const ActionRecord a = propose(QStringLiteral("sent"), 4000);
    const auto approved = m_ledger->approvals().approve(a.id, approver(), note(), a.stateVersion);
    QVERIFY(approved.ok());
    const auto claimed = m_ledger->execution().claim(a.id, QStringLiteral("exec-1"), 600s);
    QVERIFY2(claimed.ok(), qPrintable(claimed.error().toString()));
    m_clock.advance(kExpirySeconds * 1000 * 4);
    QCOMPARE(expireDue(), 0);
    const ActionRecord after = current(a.id);
    QCOMPARE(after.state, ActionState::Executing);
    QCOMPARE(after.idempotencyKey, approved->idempotencyKey);
    const auto rows = m_ledger->reader().approvals(a.id);
    QVERIFY(!rows->first().expiredAt.isValid());
    QVERIFY(!eventsOf(*m_ledger, a.id).contains(QStringLiteral("approval_expired")));
}

void TestPolicyExpiry::noExpiryWithoutTheRule()
{
    m_ledger->approvals().setPolicy(nullptr);
    const ActionRecord a = propose(QStringLiteral("no-policy"), 4000);
    const auto approved = m_ledger->approvals().approve(a.id, approver(), note(), a.stateVersion);
    QVERIFY(approved.ok());
    const auto rows = m_ledger->reader().approvals(a.id);
    QVERIFY(!rows->first().expiresAt.isValid());
    m_clock.advance(90LL * 24 * 3600 * 1000);
    QCOMPARE(expireDue(), 0);
    QCOMPARE(current(a.id).idempotencyKey, approved->idempotencyKey);
}

void TestPolicyExpiry::reloadKeepsTheExpiryAlreadyGiven()
{
    // Approved under the 30-minute rule; then a policy without expiry is put in force (a reload).
    const ActionRecord a = propose(QStringLiteral("reload"), 4000);
    QVERIFY(m_ledger->approvals().approve(a.id, approver(), note(), a.stateVersion).ok());
    PolicyRule one;
    one.id = QStringLiteral("one-approver");
    one.requireApprovals = 1;
    m_ledger->approvals().setPolicy(policyOf({one}, 5));
    // The approval keeps the expires_at it recorded: it still expires, and is not sent.
    m_clock.advance(kExpirySeconds * 1000);
    QCOMPARE(expireDue(), 1);
    QVERIFY(current(a.id).idempotencyKey.isEmpty());
    // The next approval, under the policy now in force, does not expire.
    const auto again = m_ledger->approvals().approve(a.id, approver(), note(), current(a.id).stateVersion);
    QVERIFY2(again.ok(), qPrintable(again.error().toString()));
    QVERIFY(!m_ledger->reader().approvals(a.id)->constLast().expiresAt.isValid());
    m_clock.advance(90LL * 24 * 3600 * 1000);
    QCOMPARE(expireDue(), 0);
}

void TestPolicyExpiry::databaseRefusesWhatExpiryMayNotDo()
{
    const ActionRecord unsent = propose(QStringLiteral("db-unsent"), 4000);
    QVERIFY(m_ledger->approvals().approve(unsent.id, approver(), note(), unsent.stateVersion).ok());
    const ActionRecord sent = propose(QStringLiteral("db-sent"), 4000);
    QVERIFY(m_ledger->approvals().approve(sent.id, approver(), note(), sent.stateVersion).ok());
    QVERIFY(m_ledger->execution().claim(sent.id, QStringLiteral("exec-1"), 600s).ok());
    const ActionRecord rejected = propose(QStringLiteral("db-rejected"), 4000);
    QVERIFY(m_ledger->approvals().reject(rejected.id, approver(), QStringLiteral("duplicate"), QString(),
                                         rejected.stateVersion).ok());
    QString error;
    {
        QSqlDatabase db = openRawDatabase(m_ledger.path(), QStringLiteral("raw"), &error);
        QVERIFY2(db.isOpen(), qPrintable(error));
        QSqlQuery q(db);
        const auto insertExpiry = [&](const QString &id) {
            return q.exec(QStringLiteral("INSERT INTO approval_expiries (action_id, approval_version, expired_by,"
                                         " expired_at, note) VALUES ('%1', 1, 'mallory', 1, 'x')").arg(id));
        };
        // Invariant 4: an action with an attempt keeps its approval.
        QVERIFY(!insertExpiry(sent.id));
        QVERIFY2(q.lastError().text().contains(QStringLiteral("invariant 4")), qPrintable(q.lastError().text()));
        // A rejection has nothing to expire; neither has a version that does not exist.
        QVERIFY(!insertExpiry(rejected.id));
        QVERIFY(!q.exec(QStringLiteral("INSERT INTO approval_expiries (action_id, approval_version, expired_by,"
                                       " expired_at, note) VALUES ('%1', 2, 'mallory', 1, 'x')").arg(unsent.id)));
        // A key is not cleared behind the expiry's back.
        QVERIFY(!q.exec(QStringLiteral("UPDATE actions SET idempotency_key = '' WHERE id = '%1'").arg(unsent.id)));
        QVERIFY2(q.lastError().text().contains(QStringLiteral("cleared only by its approval")),
                 qPrintable(q.lastError().text()));
        // Recorded once, append-only.
        QVERIFY(insertExpiry(unsent.id));
        QVERIFY(!insertExpiry(unsent.id));
        QVERIFY(!q.exec(QStringLiteral("UPDATE approval_expiries SET expired_by = 'x'")));
        QVERIFY(!q.exec(QStringLiteral("DELETE FROM approval_expiries")));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
}

QTEST_GUILESS_MAIN(TestPolicyExpiry)
#include "tst_policy_expiry.moc"
