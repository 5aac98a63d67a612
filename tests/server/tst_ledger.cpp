// The ledger's operations against a real ledger — a SQLite file, or a PostgreSQL database under
// tst_ledger_postgres (tests/support/testledger.h): proposals and their idempotency, approval
// and key rules, amendments, claims, attempt outcomes, leases and their recovery, lookups,
// reconciliation, optimistic concurrency and list paging.

#include "server/ledger/ids.h"
#include "server/ledger/ledger.h"
#include "server/ledger/migrations.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include "models/fingerprint.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <thread>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

namespace {

QString w(ActionState state)
{
    return toWire(state);
}

QString w(LedgerError::Code code)
{
    return toWire(code);
}

// The payload and identity of a record: everything a resubmission must never change.
QJsonObject payloadOf(const ActionRecord &r)
{
    QJsonObject o = r.proposalPayload();
    o.insert(QStringLiteral("id"), r.id);
    o.insert(QStringLiteral("provider"), r.provider);
    o.insert(QStringLiteral("provider_account"), r.providerAccount);
    o.insert(QStringLiteral("requested_by"), r.requestedBy);
    o.insert(QStringLiteral("client_reference"), r.clientReference);
    o.insert(QStringLiteral("parent_id"), r.parentId);
    o.insert(QStringLiteral("request_fingerprint"), r.requestFingerprint);
    o.insert(QStringLiteral("idempotency_key"), r.idempotencyKey);
    o.insert(QStringLiteral("approval_version"), r.approvalVersion);
    o.insert(QStringLiteral("created_at"), toWireTime(r.createdAt));
    return o;
}

} // namespace

class TestLedger : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void proposeCreatesPendingAction();
    void proposeRefusesBadInput_data();
    void proposeRefusesBadInput();
    void proposeIsIdempotent();
    void changedResubmissionConflicts_data();
    void changedResubmissionConflicts();
    void reviewRequestedEscalatesWhenAttemptFinishes_data();
    void reviewRequestedEscalatesWhenAttemptFinishes();

    void approvalRules();
    void rejectRecordsDecision();
    void amendBeforeSending();
    void amendAfterSendingRefused();

    void unapprovedIsNotClaimable();
    void claimInsertsOpenAttempt();
    void claimNextTakesOldestApproved();
    void fingerprintDriftStopsForReview();

    void finishAttempt_data();
    void finishAttempt();
    void finishAttemptRefusedWithoutLease();
    void expiredLeaseRecovery();
    void recoveryOnOpen();
    void reconcilerLeaseAndSameKeyRetry();
    void recordLookupTransitions_data();
    void recordLookupTransitions();
    void transitionRules();
    void reconcile_data();
    void reconcile();
    void staleVersionRefused_data();
    void staleVersionRefused();

    void listPaging();
    void listFilters();
    void followUps();
    void readsDoNotTakeWriteLock();
    void connectionsArePerThreadAndCleanedUp();

private:
    ActionRecord propose(const QString &ref, qint64 amount = 4000);
    ActionRecord approved(const QString &ref);
    ExecutionStore::Claim claimed(const QString &ref, std::chrono::milliseconds lease = 30s);
    ActionRecord inState(ActionState state, const QString &ref);
    Ledger::Options options() const;
    int auditRows() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_store;
    ManualClock m_clock;
    QString m_path;
};

void TestLedger::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    m_clock = ManualClock();
    m_store = std::make_unique<Ledger>();
    const LedgerError error = m_store->open(m_path, options());
    QVERIFY2(error.ok(), qPrintable(error.toString()));
}

void TestLedger::cleanup()
{
    m_store.reset();
    m_dir.reset();
}

Ledger::Options TestLedger::options() const
{
    Ledger::Options o;
    o.clock = m_clock.clock();
    return o;
}

int TestLedger::auditRows() const
{
    const auto log = m_store->reader().auditLog(0, 100000);
    return log.ok() ? int(log->size()) : -1;
}

ActionRecord TestLedger::propose(const QString &ref, qint64 amount)
{
    const auto r = m_store->proposals().propose(sampleInput(ref, amount), agent());
    if (!r.ok()) {
        qWarning() << "propose failed:" << r.error().toString();
        return {};
    }
    m_clock.advance(1);
    return r->record;
}

ActionRecord TestLedger::approved(const QString &ref)
{
    const ActionRecord p = propose(ref);
    const auto r = m_store->approvals().approve(p.id, approver(), QStringLiteral("ok"), p.stateVersion);
    if (!r.ok()) {
        qWarning() << "approve failed:" << r.error().toString();
        return {};
    }
    return r.value();
}

ExecutionStore::Claim TestLedger::claimed(const QString &ref, std::chrono::milliseconds lease)
{
    const ActionRecord a = approved(ref);
    const auto r = m_store->execution().claim(a.id, QStringLiteral("exec-1"), lease);
    if (!r.ok()) {
        qWarning() << "claim failed:" << r.error().toString();
        return {};
    }
    return r.value();
}

// An action brought to `state` through the ledger's own operations.
ActionRecord TestLedger::inState(ActionState state, const QString &ref)
{
    switch (state) {
    case ActionState::Pending:
        return propose(ref);
    case ActionState::Executing:
        return claimed(ref).record;
    case ActionState::ConfirmationUnknown:
    case ActionState::Completed: {
        const auto c = claimed(ref);
        ExecutionStore::AttemptResult result;
        const bool done = state == ActionState::Completed;
        result.outcome = done ? Attempt::Outcome::Succeeded : Attempt::Outcome::Unknown;
        result.httpStatus = done ? 200 : 0;
        const auto f = m_store->execution().finishAttempt(c.record.id, c.attempt.seq, result,
                                              done ? Trigger::ProviderSucceeded : Trigger::OutcomeUnknown,
                                              QStringLiteral("test"), QStringLiteral("exec-1"));
        return f.ok() ? f->record : ActionRecord();
    }
    case ActionState::Rejected: {
        const ActionRecord p = propose(ref);
        const auto r = m_store->approvals().reject(p.id, approver(), QStringLiteral("not_eligible"), QStringLiteral("no"), p.stateVersion);
        return r.ok() ? r.value() : ActionRecord();
    }
    case ActionState::RequiresReview: {
        const ActionRecord p = propose(ref);
        const auto r = m_store->execution().transition(p.id, Trigger::StopForReview, approver(), QStringLiteral("look"));
        return r.ok() ? r.value() : ActionRecord();
    }
    }
    return {};
}

// --- proposals ---------------------------------------------------------------------------------

void TestLedger::proposeCreatesPendingAction()
{
    const auto r = m_store->proposals().propose(sampleInput(QStringLiteral("ref-1")), agent());
    QVERIFY2(r.ok(), qPrintable(r.error().toString()));
    QCOMPARE(int(r->status), int(ProposalStore::ProposeResult::Status::Created));
    const ActionRecord &a = r->record;
    QVERIFY2(Ids::looksLikeActionId(a.id), qPrintable(a.id));
    QCOMPARE(w(a.state), w(ActionState::Pending));
    QCOMPARE(a.stateVersion, 1);
    QCOMPARE(a.amount, 4000);
    QCOMPARE(a.currency, QStringLiteral("usd"));
    QCOMPARE(a.requestedBy, agent());
    QVERIFY(a.idempotencyKey.isEmpty());
    QCOMPARE(a.approvalVersion, 0);
    QCOMPARE(a.requestFingerprint, requestFingerprint(a.providerRequest()));
    QCOMPARE(a.requestFingerprint.size(), 64);
    QCOMPARE(a.createdAt, m_clock.now());

    const auto stored = m_store->reader().action(a.id);
    QVERIFY(stored.ok());
    QCOMPARE(stored.value(), a);

    const auto audit = m_store->reader().audit(a.id);
    QVERIFY(audit.ok());
    QCOMPARE(audit->size(), 1);
    QCOMPARE(audit->first().event, QStringLiteral("proposed"));
    QCOMPARE(audit->first().actor, agent());

    QCOMPARE(w(m_store->reader().action(QStringLiteral("act_nope")).code()), w(LedgerError::Code::NotFound));
}

void TestLedger::proposeRefusesBadInput_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<qint64>("amount");

    QTest::newRow("negative amount") << QString() << QString() << qint64(-1);
    QTest::newRow("zero amount") << QString() << QString() << qint64(0);
    QTest::newRow("amount above 10^12") << QString() << QString() << qint64(1'000'000'000'001);
    QTest::newRow("unknown currency") << QStringLiteral("currency") << QStringLiteral("xyz") << qint64(4000);
    QTest::newRow("empty currency") << QStringLiteral("currency") << QString() << qint64(4000);
    QTest::newRow("empty target id") << QStringLiteral("target") << QString() << qint64(4000);
    QTest::newRow("empty client reference") << QStringLiteral("client_reference") << QString() << qint64(4000);
    QTest::newRow("unknown refund reason") << QStringLiteral("reason") << QStringLiteral("because") << qint64(4000);
    QTest::newRow("unsupported kind") << QStringLiteral("kind") << QStringLiteral("payout") << qint64(4000);
    QTest::newRow("empty provider") << QStringLiteral("provider") << QString() << qint64(4000);
    QTest::newRow("parent does not exist") << QStringLiteral("parent") << QStringLiteral("act_missing") << qint64(4000);
    QTest::newRow("empty requester") << QStringLiteral("requested_by") << QString() << qint64(4000);
}

void TestLedger::proposeRefusesBadInput()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(qint64, amount);

    ProposalStore::ProposalInput input = sampleInput(QStringLiteral("bad-1"), amount);
    QString requester = agent();
    if (field == u"currency")
        input.currency = value;
    else if (field == u"target")
        input.targetId = value;
    else if (field == u"client_reference")
        input.clientReference = value;
    else if (field == u"reason")
        input.reason = value;
    else if (field == u"kind")
        input.kind = value;
    else if (field == u"provider")
        input.provider = value;
    else if (field == u"parent")
        input.parentId = value;
    else if (field == u"requested_by")
        requester = value;

    const auto r = m_store->proposals().propose(input, requester);
    QVERIFY(!r.ok());
    QCOMPARE(w(r.code()), w(LedgerError::Code::Invalid));
    QVERIFY(!r.error().message().isEmpty());
    const auto page = m_store->reader().list(ActionReader::ListQuery());
    QVERIFY(page.ok());
    QVERIFY(page->rows.isEmpty());
    QCOMPARE(auditRows(), 0);
}

void TestLedger::proposeIsIdempotent()
{
    const auto first = m_store->proposals().propose(sampleInput(QStringLiteral("ref-1")), agent());
    QVERIFY(first.ok());
    const int rows = auditRows();
    m_clock.advance(5000);

    // Same payload, currency spelled differently: the same business action.
    ProposalStore::ProposalInput again = sampleInput(QStringLiteral("ref-1"));
    again.currency = QStringLiteral("USD");
    const auto second = m_store->proposals().propose(again, agent());
    QVERIFY2(second.ok(), qPrintable(second.error().toString()));
    QCOMPARE(int(second->status), int(ProposalStore::ProposeResult::Status::Existing));
    QCOMPARE(second->record, first->record);
    QCOMPARE(auditRows(), rows);

    // The same reference from another agent is another action.
    const auto other = m_store->proposals().propose(sampleInput(QStringLiteral("ref-1")), QStringLiteral("agent-8"));
    QVERIFY(other.ok());
    QCOMPARE(int(other->status), int(ProposalStore::ProposeResult::Status::Created));
    QVERIFY(other->record.id != first->record.id);
}

void TestLedger::changedResubmissionConflicts_data()
{
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("expectedState");
    QTest::addColumn<bool>("reviewRequested");

    QTest::newRow("PENDING stops for review") << QStringLiteral("PENDING") << QStringLiteral("REQUIRES_REVIEW") << false;
    QTest::newRow("CONFIRMATION_UNKNOWN stops for review")
        << QStringLiteral("CONFIRMATION_UNKNOWN") << QStringLiteral("REQUIRES_REVIEW") << false;
    QTest::newRow("EXECUTING flags review") << QStringLiteral("EXECUTING") << QStringLiteral("EXECUTING") << true;
    QTest::newRow("COMPLETED unchanged") << QStringLiteral("COMPLETED") << QStringLiteral("COMPLETED") << false;
    QTest::newRow("REJECTED unchanged") << QStringLiteral("REJECTED") << QStringLiteral("REJECTED") << false;
    QTest::newRow("REQUIRES_REVIEW unchanged")
        << QStringLiteral("REQUIRES_REVIEW") << QStringLiteral("REQUIRES_REVIEW") << false;
}

void TestLedger::changedResubmissionConflicts()
{
    QFETCH(QString, state);
    QFETCH(QString, expectedState);
    QFETCH(bool, reviewRequested);

    const ActionRecord before = inState(*stateFromWire(state), QStringLiteral("ref-1"));
    QCOMPARE(w(before.state), state);
    const int rows = auditRows();

    // The agent "re-reasons" $40 into $45 under the same reference.
    const auto r = m_store->proposals().propose(sampleInput(QStringLiteral("ref-1"), 4500), agent());
    QVERIFY2(r.ok(), qPrintable(r.error().toString()));
    QCOMPARE(int(r->status), int(ProposalStore::ProposeResult::Status::Conflict));
    QCOMPARE(r->reviewRequested, reviewRequested);
    QCOMPARE(r->conflictingPayload.value(QStringLiteral("amount")).toInteger(), 4500);
    QCOMPARE(r->storedPayload.value(QStringLiteral("amount")).toInteger(), 4000);

    // The stored record is unchanged, byte for byte, in everything but its state.
    const auto after = m_store->reader().action(before.id);
    QVERIFY(after.ok());
    QCOMPARE(payloadOf(after.value()), payloadOf(before));
    QCOMPARE(after->amount, 4000);
    QCOMPARE(w(after->state), expectedState);
    QCOMPARE(r->record, after.value());
    if (expectedState == u"REQUIRES_REVIEW" && state != u"REQUIRES_REVIEW")
        QVERIFY2(after->reviewReason.contains(QStringLiteral("resubmission")), qPrintable(after->reviewReason));
    const auto info = m_store->reader().executionInfo(before.id);
    QVERIFY(info.ok());
    QCOMPARE(info->reviewRequested, reviewRequested);

    const auto conflicts = m_store->proposals().conflicts(before.id);
    QVERIFY(conflicts.ok());
    QCOMPARE(conflicts->size(), 1);
    QCOMPARE(conflicts->first().seq, 1);
    QCOMPARE(conflicts->first().submittedBy, agent());
    QCOMPARE(conflicts->first().storedPayload, r->storedPayload);
    QCOMPARE(conflicts->first().conflictingPayload, r->conflictingPayload);

    const auto audit = m_store->reader().audit(before.id);
    QVERIFY(audit.ok());
    const auto conflictEvent = std::find_if(audit->cbegin(), audit->cend(), [](const AuditEvent &e) {
        return e.event == u"resubmission_conflict";
    });
    QVERIFY(conflictEvent != audit->cend());
    QCOMPARE(conflictEvent->before.value(QStringLiteral("amount")).toInteger(), 4000);
    QCOMPARE(conflictEvent->after.value(QStringLiteral("amount")).toInteger(), 4500);
    const bool changed = expectedState != state || reviewRequested;
    QCOMPARE(auditRows(), rows + (changed ? 2 : 1));

    // A second changed resubmission is recorded as conflict 2.
    const auto again = m_store->proposals().propose(sampleInput(QStringLiteral("ref-1"), 4600), agent());
    QVERIFY(again.ok());
    QCOMPARE(int(again->status), int(ProposalStore::ProposeResult::Status::Conflict));
    QCOMPARE(m_store->proposals().conflicts(before.id)->size(), 2);
    QCOMPARE(m_store->reader().action(before.id)->amount, 4000);
}

void TestLedger::reviewRequestedEscalatesWhenAttemptFinishes_data()
{
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("trigger");
    QTest::addColumn<QString>("expectedState");
    QTest::addColumn<bool>("escalated");

    QTest::newRow("unknown escalates") << QStringLiteral("unknown") << QStringLiteral("outcome_unknown")
                                       << QStringLiteral("REQUIRES_REVIEW") << true;
    QTest::newRow("rate limited escalates") << QStringLiteral("rate_limited") << QString()
                                            << QStringLiteral("REQUIRES_REVIEW") << true;
    QTest::newRow("success stands") << QStringLiteral("succeeded") << QStringLiteral("provider_succeeded")
                                    << QStringLiteral("COMPLETED") << false;
    QTest::newRow("rejection stands") << QStringLiteral("rejected") << QStringLiteral("provider_rejected")
                                      << QStringLiteral("REJECTED") << false;
}

void TestLedger::reviewRequestedEscalatesWhenAttemptFinishes()
{
    QFETCH(QString, outcome);
    QFETCH(QString, trigger);
    QFETCH(QString, expectedState);
    QFETCH(bool, escalated);

    const auto c = claimed(QStringLiteral("ref-1"));
    QVERIFY(!c.record.id.isEmpty());
    const auto conflict = m_store->proposals().propose(sampleInput(QStringLiteral("ref-1"), 4500), agent());
    QVERIFY(conflict.ok());
    QVERIFY(conflict->reviewRequested);

    ExecutionStore::AttemptResult result;
    result.outcome = *attemptOutcomeFromWire(outcome);
    const std::optional<Trigger> t = trigger.isEmpty() ? std::nullopt : triggerFromWire(trigger);
    const auto f = m_store->execution().finishAttempt(c.record.id, c.attempt.seq, result, t, QStringLiteral("answer"),
                                          QStringLiteral("exec-1"));
    QVERIFY2(f.ok(), qPrintable(f.error().toString()));
    QCOMPARE(w(f->record.state), expectedState);
    QCOMPARE(f->escalated, escalated);
    QCOMPARE(m_store->reader().attempts(c.record.id)->first().outcome, result.outcome);
    if (escalated)
        QVERIFY(f->record.reviewReason.contains(QStringLiteral("resubmission")));
    QCOMPARE(m_store->reader().executionInfo(c.record.id)->leaseOwner, QString());
}

// --- approvals, amendments ---------------------------------------------------------------------

void TestLedger::approvalRules()
{
    const ActionRecord p = propose(QStringLiteral("ref-1"));

    // Four eyes: the proposer cannot approve.
    const auto self = m_store->approvals().approve(p.id, agent(), QString(), p.stateVersion);
    QCOMPARE(w(self.code()), w(LedgerError::Code::Forbidden));
    QVERIFY(m_store->reader().approvals(p.id)->isEmpty());

    const auto v1 = m_store->approvals().approve(p.id, approver(), QStringLiteral("looks right"), p.stateVersion);
    QVERIFY2(v1.ok(), qPrintable(v1.error().toString()));
    QCOMPARE(v1->approvalVersion, 1);
    QCOMPARE(v1->stateVersion, p.stateVersion + 1);
    QVERIFY(v1->idempotencyKey.startsWith(QStringLiteral("csk_")));
    QVERIFY(v1->idempotencyKey.contains(QStringLiteral("_v1_")));
    QVERIFY(v1->idempotencyKey.size() <= 255);
    QCOMPARE(w(v1->state), w(ActionState::Pending));

    // Re-approval before sending mints a fresh key and bumps the version.
    const auto v2 = m_store->approvals().approve(p.id, QStringLiteral("bob"), QString(), v1->stateVersion);
    QVERIFY2(v2.ok(), qPrintable(v2.error().toString()));
    QCOMPARE(v2->approvalVersion, 2);
    QVERIFY(v2->idempotencyKey != v1->idempotencyKey);
    QCOMPARE(v2->stateVersion, v1->stateVersion + 1);

    const auto approvals = m_store->reader().approvals(p.id);
    QVERIFY(approvals.ok());
    QCOMPARE(approvals->size(), 2);
    QCOMPARE(approvals->at(0).idempotencyKey, v1->idempotencyKey);
    QCOMPARE(approvals->at(1).idempotencyKey, v2->idempotencyKey);
    QCOMPARE(approvals->at(1).decidedBy, QStringLiteral("bob"));
    QCOMPARE(approvals->at(1).approvedFingerprint, p.requestFingerprint);
    QCOMPARE(int(approvals->at(1).decision), int(Approval::Decision::Approved));

    // After a claim, no approval can mint another key.
    const auto c = m_store->execution().claim(p.id, QStringLiteral("exec-1"), 30s);
    QVERIFY(c.ok());
    QCOMPARE(c->attempt.idempotencyKey, v2->idempotencyKey);
    const auto late = m_store->approvals().approve(p.id, QStringLiteral("carol"), QString(), c->record.stateVersion);
    QVERIFY(!late.ok());
    QCOMPARE(w(late.code()), w(LedgerError::Code::IllegalTransition));
    QCOMPARE(m_store->reader().approvals(p.id)->size(), 2);
    QCOMPARE(m_store->reader().action(p.id)->idempotencyKey, v2->idempotencyKey);
}

void TestLedger::rejectRecordsDecision()
{
    const ActionRecord p = propose(QStringLiteral("ref-1"));
    // A reason from the list is required, and "other" needs a note (issue 19); nothing is written.
    QCOMPARE(w(m_store->approvals().reject(p.id, approver(), QString(), QStringLiteral("x"), p.stateVersion).code()),
             w(LedgerError::Code::Invalid));
    QCOMPARE(w(m_store->approvals().reject(p.id, approver(), QStringLiteral("customer withdrew"), QString(), p.stateVersion).code()),
             w(LedgerError::Code::Invalid));
    QCOMPARE(w(m_store->approvals().reject(p.id, approver(), QStringLiteral("other"), QStringLiteral("  "), p.stateVersion).code()),
             w(LedgerError::Code::Invalid));
    QCOMPARE(m_store->reader().approvals(p.id)->size(), 0);
    const auto r = m_store->approvals().reject(p.id, approver(), QStringLiteral("duplicate"), QStringLiteral("duplicate of order-1000"), p.stateVersion);
    QVERIFY2(r.ok(), qPrintable(r.error().toString()));
    QCOMPARE(w(r->state), w(ActionState::Rejected));
    const auto approvals = m_store->reader().approvals(p.id);
    QCOMPARE(approvals->size(), 1);
    QCOMPARE(int(approvals->first().decision), int(Approval::Decision::Rejected));
    QVERIFY(approvals->first().idempotencyKey.isEmpty());
    QCOMPARE(approvals->first().note, QStringLiteral("duplicate of order-1000"));
    QCOMPARE(approvals->first().rejectionReason, QStringLiteral("duplicate"));
    // Terminal: neither approval nor claim.
    QCOMPARE(w(m_store->approvals().approve(p.id, approver(), QString(), r->stateVersion).code()),
             w(LedgerError::Code::IllegalTransition));
    QVERIFY(!m_store->execution().claim(p.id, QStringLiteral("exec-1"), 30s).ok());
}

void TestLedger::amendBeforeSending()
{
    const ActionRecord a = approved(QStringLiteral("ref-1"));
    const auto amended = m_store->proposals().amendBeforeSending(a.id, approver(), 3500, QStringLiteral("duplicate"), a.stateVersion);
    QVERIFY2(amended.ok(), qPrintable(amended.error().toString()));
    QCOMPARE(amended->amount, 3500);
    QCOMPARE(amended->reason, QStringLiteral("duplicate"));
    QVERIFY(amended->requestFingerprint != a.requestFingerprint);
    QCOMPARE(amended->requestFingerprint, requestFingerprint(amended->providerRequest()));
    QVERIFY(amended->idempotencyKey.isEmpty());
    QCOMPARE(amended->stateVersion, a.stateVersion + 1);

    // The old approval signed another request: not claimable until approved again.
    const auto refused = m_store->execution().claim(a.id, QStringLiteral("exec-1"), 30s);
    QCOMPARE(w(refused.code()), w(LedgerError::Code::Forbidden));
    QVERIFY(!m_store->execution().claimNext(QStringLiteral("exec-1"), 30s).value().has_value());

    const auto again = m_store->approvals().approve(a.id, approver(), QString(), amended->stateVersion);
    QVERIFY(again.ok());
    QCOMPARE(again->approvalVersion, 2);
    QVERIFY(!again->idempotencyKey.isEmpty());
    QVERIFY(again->idempotencyKey != a.idempotencyKey);
    QCOMPARE(m_store->reader().approvals(a.id)->last().approvedFingerprint, amended->requestFingerprint);
    const auto c = m_store->execution().claim(a.id, QStringLiteral("exec-1"), 30s);
    QVERIFY2(c.ok(), qPrintable(c.error().toString()));
    QCOMPARE(c->attempt.requestFingerprint, amended->requestFingerprint);
    QCOMPARE(c->attempt.idempotencyKey, again->idempotencyKey);

    // Invalid amounts are refused and change nothing.
    const ActionRecord p = propose(QStringLiteral("ref-2"));
    QCOMPARE(w(m_store->proposals().amendBeforeSending(p.id, approver(), -5, QString(), p.stateVersion).code()),
             w(LedgerError::Code::Invalid));
    QCOMPARE(m_store->reader().action(p.id).value(), p);
}

void TestLedger::amendAfterSendingRefused()
{
    for (ActionState state : {ActionState::Executing, ActionState::ConfirmationUnknown, ActionState::Completed}) {
        const ActionRecord a = inState(state, QStringLiteral("ref-") + toWire(state));
        QCOMPARE(w(a.state), w(state));
        const auto r = m_store->proposals().amendBeforeSending(a.id, approver(), 4500, QString(), a.stateVersion);
        QVERIFY(!r.ok());
        QCOMPARE(w(r.code()), w(LedgerError::Code::IllegalTransition));
        QCOMPARE(m_store->reader().action(a.id)->amount, 4000);
        QCOMPARE(m_store->reader().action(a.id)->idempotencyKey, a.idempotencyKey);
    }
}

// --- claims --------------------------------------------------------------------------------------

void TestLedger::unapprovedIsNotClaimable()
{
    const ActionRecord p = propose(QStringLiteral("ref-1"));
    const auto r = m_store->execution().claim(p.id, QStringLiteral("exec-1"), 30s);
    QCOMPARE(w(r.code()), w(LedgerError::Code::Forbidden));
    const auto next = m_store->execution().claimNext(QStringLiteral("exec-1"), 30s);
    QVERIFY(next.ok());
    QVERIFY(!next->has_value());
    QVERIFY(m_store->reader().attempts(p.id)->isEmpty());
    QCOMPARE(m_store->reader().action(p.id).value(), p);
    QCOMPARE(w(m_store->execution().claim(QStringLiteral("act_missing"), QStringLiteral("exec-1"), 30s).code()),
             w(LedgerError::Code::NotFound));
}

void TestLedger::claimInsertsOpenAttempt()
{
    const ActionRecord a = approved(QStringLiteral("ref-1"));
    const auto c = m_store->execution().claim(a.id, QStringLiteral("exec-1"), 30s);
    QVERIFY2(c.ok(), qPrintable(c.error().toString()));
    QCOMPARE(w(c->record.state), w(ActionState::Executing));
    QCOMPARE(c->record.stateVersion, a.stateVersion + 1);
    QCOMPARE(c->attempt.seq, 1);
    QCOMPARE(int(c->attempt.outcome), int(Attempt::Outcome::Open));
    QCOMPARE(c->attempt.idempotencyKey, a.idempotencyKey);
    QCOMPARE(c->attempt.requestFingerprint, a.requestFingerprint);
    QCOMPARE(c->attempt.executor, QStringLiteral("exec-1"));
    QCOMPARE(c->attempt.startedAt, m_clock.now());

    // Committed before the caller may send: visible to another connection right away.
    const auto stored = m_store->reader().attempts(a.id);
    QVERIFY(stored.ok());
    QCOMPARE(stored->size(), 1);
    QCOMPARE(stored->first(), c->attempt);
    const auto info = m_store->reader().executionInfo(a.id);
    QCOMPARE(info->leaseOwner, QStringLiteral("exec-1"));
    QCOMPARE(info->leaseExpiresAt, m_clock.now().addSecs(30));

    const auto second = m_store->execution().claim(a.id, QStringLiteral("exec-2"), 30s);
    QVERIFY(!second.ok());
    QCOMPARE(w(second.code()), w(LedgerError::Code::IllegalTransition));
    QVERIFY(!m_store->execution().claimNext(QStringLiteral("exec-2"), 30s).value().has_value());
    QCOMPARE(m_store->reader().attempts(a.id)->size(), 1);
    QCOMPARE(m_store->reader().executionInfo(a.id)->leaseOwner, QStringLiteral("exec-1"));
}

void TestLedger::claimNextTakesOldestApproved()
{
    const ActionRecord first = approved(QStringLiteral("ref-1"));
    propose(QStringLiteral("ref-unapproved"));
    const ActionRecord second = approved(QStringLiteral("ref-2"));

    const auto c1 = m_store->execution().claimNext(QStringLiteral("exec-1"), 30s);
    QVERIFY(c1.ok() && c1->has_value());
    QCOMPARE((*c1)->record.id, first.id);
    const auto c2 = m_store->execution().claimNext(QStringLiteral("exec-2"), 30s);
    QVERIFY(c2.ok() && c2->has_value());
    QCOMPARE((*c2)->record.id, second.id);
    QCOMPARE((*c2)->attempt.seq, 1);
    const auto none = m_store->execution().claimNext(QStringLiteral("exec-3"), 30s);
    QVERIFY(none.ok());
    QVERIFY(!none->has_value());
}

void TestLedger::fingerprintDriftStopsForReview()
{
    const ActionRecord drifted = approved(QStringLiteral("ref-1"));
    const ActionRecord clean = approved(QStringLiteral("ref-2"));
    {
        // Someone changes the amount behind the ledger's back before anything was sent (the
        // trigger allows it: no attempt yet). What runs must never drift from what was approved.
        QString error;
        QSqlDatabase raw = openRawDatabase(m_path, QStringLiteral("raw-drift"), &error);
        QVERIFY2(raw.isOpen(), qPrintable(error));
        QSqlQuery q(raw);
        QVERIFY(q.prepare(QStringLiteral("UPDATE actions SET amount = 4500 WHERE id = ?")));
        q.addBindValue(drifted.id);
        QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
        QCOMPARE(q.numRowsAffected(), 1);
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw-drift"));

    const auto r = m_store->execution().claim(drifted.id, QStringLiteral("exec-1"), 30s);
    QVERIFY(!r.ok());
    QCOMPARE(w(r.code()), w(LedgerError::Code::Conflict));
    const auto stopped = m_store->reader().action(drifted.id);
    QCOMPARE(w(stopped->state), w(ActionState::RequiresReview));
    QVERIFY2(stopped->reviewReason.contains(QStringLiteral("fingerprint")), qPrintable(stopped->reviewReason));
    QVERIFY(m_store->reader().attempts(drifted.id)->isEmpty());

    // claimNext skips (and stops) drifted actions and claims the next clean one.
    const ActionRecord drifted2 = approved(QStringLiteral("ref-3"));
    Q_UNUSED(drifted2);
    const auto next = m_store->execution().claimNext(QStringLiteral("exec-1"), 30s);
    QVERIFY(next.ok() && next->has_value());
    QCOMPARE((*next)->record.id, clean.id);
}

// --- attempts and leases -------------------------------------------------------------------------

void TestLedger::finishAttempt_data()
{
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("trigger");
    QTest::addColumn<QString>("expectedState"); // empty: refused with expectedError
    QTest::addColumn<QString>("expectedError");

    QTest::newRow("2xx -> COMPLETED") << QStringLiteral("succeeded") << QStringLiteral("provider_succeeded")
                                      << QStringLiteral("COMPLETED") << QString();
    QTest::newRow("definitive 4xx -> REJECTED") << QStringLiteral("rejected") << QStringLiteral("provider_rejected")
                                                << QStringLiteral("REJECTED") << QString();
    QTest::newRow("timeout -> CONFIRMATION_UNKNOWN") << QStringLiteral("unknown") << QStringLiteral("outcome_unknown")
                                                     << QStringLiteral("CONFIRMATION_UNKNOWN") << QString();
    QTest::newRow("idempotency mismatch -> REQUIRES_REVIEW")
        << QStringLiteral("idempotency_mismatch") << QStringLiteral("stop_for_review")
        << QStringLiteral("REQUIRES_REVIEW") << QString();
    QTest::newRow("429 keeps EXECUTING") << QStringLiteral("rate_limited") << QString() << QStringLiteral("EXECUTING")
                                         << QString();
    QTest::newRow("timeout can never be REJECTED") << QStringLiteral("unknown") << QStringLiteral("provider_rejected")
                                                   << QString() << QStringLiteral("invalid");
    QTest::newRow("success is not a rejection") << QStringLiteral("succeeded") << QStringLiteral("provider_rejected")
                                                << QString() << QStringLiteral("invalid");
    QTest::newRow("rejection is not a success") << QStringLiteral("rejected") << QStringLiteral("provider_succeeded")
                                                << QString() << QStringLiteral("invalid");
    QTest::newRow("open is not an outcome") << QStringLiteral("open") << QString() << QString()
                                            << QStringLiteral("invalid");
    QTest::newRow("claim is not an outcome") << QStringLiteral("unknown") << QStringLiteral("claim") << QString()
                                             << QStringLiteral("invalid");
}

void TestLedger::finishAttempt()
{
    QFETCH(QString, outcome);
    QFETCH(QString, trigger);
    QFETCH(QString, expectedState);
    QFETCH(QString, expectedError);

    const auto c = claimed(QStringLiteral("ref-1"));
    m_clock.advance(250);
    ExecutionStore::AttemptResult result;
    result.outcome = *attemptOutcomeFromWire(outcome);
    result.httpStatus = 418;
    result.errorCode = QStringLiteral("code");
    result.providerRequestId = QStringLiteral("req_1");
    result.providerObjectId = QStringLiteral("re_1");
    result.replayed = true;
    result.errorExcerpt = QString(800, QLatin1Char('x'));
    const std::optional<Trigger> t = trigger.isEmpty() ? std::nullopt : triggerFromWire(trigger);
    const auto f = m_store->execution().finishAttempt(c.record.id, c.attempt.seq, result, t, QStringLiteral("provider said so"),
                                          QStringLiteral("exec-1"));
    if (!expectedError.isEmpty()) {
        QVERIFY(!f.ok());
        QCOMPARE(w(f.code()), expectedError);
        QCOMPARE(int(m_store->reader().attempts(c.record.id)->first().outcome), int(Attempt::Outcome::Open));
        QCOMPARE(m_store->reader().action(c.record.id).value(), c.record);
        return;
    }
    QVERIFY2(f.ok(), qPrintable(f.error().toString()));
    QCOMPARE(w(f->record.state), expectedState);
    const Attempt stored = m_store->reader().attempts(c.record.id)->first();
    QCOMPARE(stored, f->attempt);
    QCOMPARE(stored.outcome, result.outcome);
    QCOMPARE(stored.finishedAt, m_clock.now());
    QCOMPARE(stored.httpStatus, 418);
    QCOMPARE(stored.providerObjectId, QStringLiteral("re_1"));
    QVERIFY(stored.replayed);
    QCOMPARE(stored.errorExcerpt.size(), 500);
    QCOMPARE(stored.idempotencyKey, c.attempt.idempotencyKey);

    const bool stateChanged = expectedState != u"EXECUTING";
    QCOMPARE(f->record.stateVersion, c.record.stateVersion + (stateChanged ? 1 : 0));
    // The lease ends when the action leaves EXECUTING, and is kept otherwise.
    QCOMPARE(m_store->reader().executionInfo(c.record.id)->leaseOwner, stateChanged ? QString() : QStringLiteral("exec-1"));
    if (expectedState == u"REQUIRES_REVIEW")
        QCOMPARE(f->record.reviewReason, QStringLiteral("provider said so"));

    // Finished exactly once.
    const auto again = m_store->execution().finishAttempt(c.record.id, c.attempt.seq, result, std::nullopt, QString(),
                                              QStringLiteral("exec-1"));
    QCOMPARE(w(again.code()), w(LedgerError::Code::Conflict));
}

void TestLedger::finishAttemptRefusedWithoutLease()
{
    const auto c = claimed(QStringLiteral("ref-1"), 1s);
    ExecutionStore::AttemptResult result;
    result.outcome = Attempt::Outcome::Succeeded;

    const auto stranger = m_store->execution().finishAttempt(c.record.id, c.attempt.seq, result, Trigger::ProviderSucceeded,
                                                 QString(), QStringLiteral("exec-2"));
    QCOMPARE(w(stranger.code()), w(LedgerError::Code::LeaseLost));
    QCOMPARE(w(m_store->execution().finishAttempt(c.record.id, 7, result, Trigger::ProviderSucceeded, QString(),
                                      QStringLiteral("exec-1")).code()),
             w(LedgerError::Code::NotFound));

    m_clock.advance(1000); // the lease has just expired
    const auto late = m_store->execution().finishAttempt(c.record.id, c.attempt.seq, result, Trigger::ProviderSucceeded, QString(),
                                             QStringLiteral("exec-1"));
    QCOMPARE(w(late.code()), w(LedgerError::Code::LeaseLost));
    QCOMPARE(int(m_store->reader().attempts(c.record.id)->first().outcome), int(Attempt::Outcome::Open));
    QCOMPARE(w(m_store->reader().action(c.record.id)->state), w(ActionState::Executing));
    QCOMPARE(w(m_store->execution().renewLease(c.record.id, QStringLiteral("exec-1"), 1s).code()), w(LedgerError::Code::LeaseLost));
}

void TestLedger::expiredLeaseRecovery()
{
    const auto c = claimed(QStringLiteral("ref-1"), 30s);
    const ActionRecord untouched = approved(QStringLiteral("ref-2"));

    m_clock.advance(20'000);
    QCOMPARE(m_store->execution().recoverExpiredLeases().value(), 0);
    const ActionRecord beforeRenewal = m_store->reader().action(c.record.id).value();
    const auto renewed = m_store->execution().renewLease(c.record.id, QStringLiteral("exec-1"), 30s);
    QVERIFY2(renewed.ok(), qPrintable(renewed.error().toString()));
    // Lease bookkeeping is audited but is no change of the record: a reviewer's If-Match (the
    // state_version) and the "last change" time stay as they were.
    QCOMPARE(m_store->reader().action(c.record.id).value(), beforeRenewal);
    QCOMPARE(renewed->stateVersion, beforeRenewal.stateVersion);
    QCOMPARE(m_store->reader().audit(c.record.id)->last().event, QStringLiteral("lease_renewed"));
    QCOMPARE(m_store->reader().executionInfo(c.record.id)->leaseExpiresAt, m_clock.now().addSecs(30));
    m_clock.advance(29'999);
    QCOMPARE(m_store->execution().recoverExpiredLeases().value(), 0);
    m_clock.advance(1);
    QCOMPARE(m_store->execution().recoverExpiredLeases().value(), 1);

    const auto a = m_store->reader().action(c.record.id);
    QCOMPARE(w(a->state), w(ActionState::ConfirmationUnknown));
    const Attempt attempt = m_store->reader().attempts(c.record.id)->first();
    QCOMPARE(int(attempt.outcome), int(Attempt::Outcome::Unknown));
    QCOMPARE(attempt.errorExcerpt, QStringLiteral("executor lease expired (process died?)"));
    QCOMPARE(attempt.finishedAt, m_clock.now());
    QVERIFY(m_store->reader().executionInfo(c.record.id)->leaseOwner.isEmpty());
    QCOMPARE(m_store->reader().audit(c.record.id)->last().event, QStringLiteral("recovered"));
    QCOMPARE(m_store->reader().action(untouched.id).value(), untouched);
    QCOMPARE(m_store->execution().recoverExpiredLeases().value(), 0);

    // The late executor can record nothing.
    ExecutionStore::AttemptResult result;
    result.outcome = Attempt::Outcome::Succeeded;
    QCOMPARE(w(m_store->execution().finishAttempt(c.record.id, 1, result, Trigger::ProviderSucceeded, QString(),
                                      QStringLiteral("exec-1")).code()),
             w(LedgerError::Code::Conflict));
}

void TestLedger::recoveryOnOpen()
{
    const auto c = claimed(QStringLiteral("ref-1"), 5s);
    m_store.reset();
    m_clock.advance(6000);

    Ledger::Options noRecovery = options();
    noRecovery.recoverExpiredLeasesOnOpen = false;
    m_store = std::make_unique<Ledger>();
    QVERIFY(m_store->open(m_path, noRecovery).ok());
    QCOMPARE(w(m_store->reader().action(c.record.id)->state), w(ActionState::Executing));
    m_store.reset();

    m_store = std::make_unique<Ledger>();
    QVERIFY(m_store->open(m_path, options()).ok());
    QCOMPARE(w(m_store->reader().action(c.record.id)->state), w(ActionState::ConfirmationUnknown));
    QCOMPARE(int(m_store->reader().attempts(c.record.id)->first().outcome), int(Attempt::Outcome::Unknown));
    QCOMPARE(m_store->schemaVersion(), Migrations::latestVersion());
}

void TestLedger::reconcilerLeaseAndSameKeyRetry()
{
    const ActionRecord cu = inState(ActionState::ConfirmationUnknown, QStringLiteral("ref-1"));
    QCOMPARE(w(cu.state), w(ActionState::ConfirmationUnknown));
    const QString key = cu.idempotencyKey;

    QCOMPARE(w(m_store->execution().beginRetryAttempt(cu.id, QStringLiteral("rec-1")).code()), w(LedgerError::Code::LeaseLost));
    const auto leased = m_store->execution().acquireLease(cu.id, QStringLiteral("rec-1"), 10s);
    QVERIFY2(leased.ok(), qPrintable(leased.error().toString()));
    QCOMPARE(leased->stateVersion, cu.stateVersion); // a lease is not a change of the record
    QCOMPARE(w(m_store->execution().acquireLease(cu.id, QStringLiteral("rec-2"), 10s).code()), w(LedgerError::Code::Conflict));
    QCOMPARE(w(m_store->execution().releaseLease(cu.id, QStringLiteral("rec-2")).code()), w(LedgerError::Code::LeaseLost));

    const auto retry = m_store->execution().beginRetryAttempt(cu.id, QStringLiteral("rec-1"));
    QVERIFY2(retry.ok(), qPrintable(retry.error().toString()));
    QCOMPARE(retry->seq, 2);
    QCOMPARE(retry->idempotencyKey, key); // never a new key
    QCOMPARE(retry->requestFingerprint, cu.requestFingerprint);
    QCOMPARE(w(m_store->execution().beginRetryAttempt(cu.id, QStringLiteral("rec-1")).code()), w(LedgerError::Code::Conflict));
    QCOMPARE(w(m_store->execution().releaseLease(cu.id, QStringLiteral("rec-1")).code()), w(LedgerError::Code::Conflict));

    // The reconciler dies; its lease expires; another one takes over and the open attempt is
    // finished as unknown on the way.
    m_clock.advance(10'000);
    const auto takeover = m_store->execution().acquireLease(cu.id, QStringLiteral("rec-2"), 10s);
    QVERIFY2(takeover.ok(), qPrintable(takeover.error().toString()));
    QCOMPARE(int(m_store->reader().attempts(cu.id)->at(1).outcome), int(Attempt::Outcome::Unknown));
    const auto retry3 = m_store->execution().beginRetryAttempt(cu.id, QStringLiteral("rec-2"));
    QVERIFY(retry3.ok());
    QCOMPARE(retry3->seq, 3);
    QCOMPARE(retry3->idempotencyKey, key);

    ExecutionStore::AttemptResult replay;
    replay.outcome = Attempt::Outcome::Succeeded;
    replay.httpStatus = 200;
    replay.replayed = true;
    replay.providerObjectId = QStringLiteral("re_42");
    const auto done = m_store->execution().finishAttempt(cu.id, 3, replay, Trigger::ProviderSucceeded, QStringLiteral("replayed"),
                                             QStringLiteral("rec-2"));
    QVERIFY2(done.ok(), qPrintable(done.error().toString()));
    QCOMPARE(w(done->record.state), w(ActionState::Completed));
    QVERIFY(m_store->reader().executionInfo(cu.id)->leaseOwner.isEmpty());

    const auto attempts = m_store->reader().attempts(cu.id);
    QCOMPARE(attempts->size(), 3);
    for (const Attempt &a : attempts.value())
        QCOMPARE(a.idempotencyKey, key);

    // Release after an idle lease works; acquire refused outside CONFIRMATION_UNKNOWN.
    const ActionRecord cu2 = inState(ActionState::ConfirmationUnknown, QStringLiteral("ref-2"));
    QVERIFY(m_store->execution().acquireLease(cu2.id, QStringLiteral("rec-1"), 10s).ok());
    QVERIFY(m_store->execution().releaseLease(cu2.id, QStringLiteral("rec-1")).ok());
    QVERIFY(m_store->reader().executionInfo(cu2.id)->leaseOwner.isEmpty());
    QCOMPARE(w(m_store->execution().acquireLease(cu.id, QStringLiteral("rec-1"), 10s).code()),
             w(LedgerError::Code::IllegalTransition));

    // An expired reconciler lease with an open attempt is recovered too, the state kept.
    QVERIFY(m_store->execution().acquireLease(cu2.id, QStringLiteral("rec-1"), 1s).ok());
    QVERIFY(m_store->execution().beginRetryAttempt(cu2.id, QStringLiteral("rec-1")).ok());
    m_clock.advance(1000);
    QCOMPARE(m_store->execution().recoverExpiredLeases().value(), 1);
    QCOMPARE(w(m_store->reader().action(cu2.id)->state), w(ActionState::ConfirmationUnknown));
    QCOMPARE(int(m_store->reader().attempts(cu2.id)->last().outcome), int(Attempt::Outcome::Unknown));
    QVERIFY(m_store->reader().executionInfo(cu2.id)->leaseOwner.isEmpty());
}

void TestLedger::recordLookupTransitions_data()
{
    QTest::addColumn<QString>("result");
    QTest::addColumn<QString>("status");
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QString>("trigger");
    QTest::addColumn<QString>("expected"); // a state, or an error code

    QTest::newRow("found succeeded -> COMPLETED") << QStringLiteral("FOUND") << QStringLiteral("succeeded")
                                                  << qint64(4000) << QStringLiteral("provider_succeeded")
                                                  << QStringLiteral("COMPLETED");
    QTest::newRow("found failed -> REJECTED") << QStringLiteral("FOUND") << QStringLiteral("failed") << qint64(4000)
                                              << QStringLiteral("provider_rejected") << QStringLiteral("REJECTED");
    QTest::newRow("not found is no rejection") << QStringLiteral("NOT_FOUND") << QString() << qint64(0)
                                               << QStringLiteral("provider_rejected") << QStringLiteral("invalid");
    QTest::newRow("found with another amount") << QStringLiteral("FOUND") << QStringLiteral("succeeded")
                                               << qint64(4500) << QStringLiteral("provider_succeeded")
                                               << QStringLiteral("invalid");
    QTest::newRow("inconclusive -> REQUIRES_REVIEW") << QStringLiteral("ERROR") << QString() << qint64(0)
                                                     << QStringLiteral("stop_for_review")
                                                     << QStringLiteral("REQUIRES_REVIEW");
    QTest::newRow("no transition") << QStringLiteral("NOT_FOUND") << QString() << qint64(0) << QString()
                                   << QStringLiteral("CONFIRMATION_UNKNOWN");
}

void TestLedger::recordLookupTransitions()
{
    QFETCH(QString, result);
    QFETCH(QString, status);
    QFETCH(qint64, amount);
    QFETCH(QString, trigger);
    QFETCH(QString, expected);

    const ActionRecord cu = inState(ActionState::ConfirmationUnknown, QStringLiteral("ref-1"));
    ProviderLookup lookup;
    lookup.actionId = cu.id;
    lookup.askedBy = QStringLiteral("reconciler");
    lookup.result = *lookupResultFromWire(result);
    lookup.status = status;
    lookup.amount = amount;
    lookup.currency = QStringLiteral("usd");
    lookup.providerObjectId = QStringLiteral("re_1");
    const std::optional<Trigger> t = trigger.isEmpty() ? std::nullopt : triggerFromWire(trigger);
    const auto r = m_store->evidence().recordLookup(lookup, t, QStringLiteral("lookup"));
    if (stateFromWire(expected)) {
        QVERIFY2(r.ok(), qPrintable(r.error().toString()));
        QCOMPARE(w(r->record.state), expected);
        QCOMPARE(r->lookup.seq, 1);
        QCOMPARE(r->lookup.at, m_clock.now());
        QCOMPARE(m_store->reader().lookups(cu.id)->size(), 1);
        QCOMPARE(m_store->reader().lookups(cu.id)->first(), r->lookup);
    } else {
        QVERIFY(!r.ok());
        QCOMPARE(w(r.code()), expected);
        QVERIFY(m_store->reader().lookups(cu.id)->isEmpty());
        QCOMPARE(m_store->reader().action(cu.id).value(), cu);
    }
}

void TestLedger::transitionRules()
{
    const ActionRecord p = propose(QStringLiteral("ref-1"));
    const auto stopped = m_store->execution().transition(p.id, Trigger::StopForReview, QStringLiteral("reconciler"),
                                             QStringLiteral("key window passed"), p.stateVersion);
    QVERIFY(stopped.ok());
    QCOMPARE(w(stopped->state), w(ActionState::RequiresReview));
    QCOMPARE(stopped->reviewReason, QStringLiteral("key window passed"));

    const ActionRecord done = inState(ActionState::Completed, QStringLiteral("ref-2"));
    const auto terminal = m_store->execution().transition(done.id, Trigger::StopForReview, QStringLiteral("x"), QString());
    QCOMPARE(w(terminal.code()), w(LedgerError::Code::IllegalTransition));
    QVERIFY(!terminal.error().message().isEmpty());

    const ActionRecord p3 = approved(QStringLiteral("ref-3"));
    QCOMPARE(w(m_store->execution().transition(p3.id, Trigger::Claim, QStringLiteral("x"), QString()).code()),
             w(LedgerError::Code::Invalid));
    QCOMPARE(w(m_store->execution().transition(p3.id, Trigger::ConfirmCommitted, QStringLiteral("x"), QString()).code()),
             w(LedgerError::Code::Invalid));

    // Not while a request is in flight: its executor finishes it.
    const auto c = claimed(QStringLiteral("ref-4"));
    QCOMPARE(w(m_store->execution().transition(c.record.id, Trigger::StopForReview, QStringLiteral("x"), QString()).code()),
             w(LedgerError::Code::Conflict));
}

void TestLedger::reconcile_data()
{
    QTest::addColumn<QString>("lookupResult"); // empty: no lookup recorded
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("expected"); // a state, or an error code

    QTest::newRow("found succeeded, committed") << QStringLiteral("FOUND") << QStringLiteral("succeeded")
                                                << QStringLiteral("committed") << QStringLiteral("COMPLETED");
    QTest::newRow("found pending, committed") << QStringLiteral("FOUND") << QStringLiteral("pending")
                                              << QStringLiteral("committed") << QStringLiteral("COMPLETED");
    QTest::newRow("found failed, committed") << QStringLiteral("FOUND") << QStringLiteral("failed")
                                             << QStringLiteral("committed") << QStringLiteral("forbidden");
    QTest::newRow("not found, committed") << QStringLiteral("NOT_FOUND") << QString() << QStringLiteral("committed")
                                          << QStringLiteral("forbidden");
    QTest::newRow("error, committed") << QStringLiteral("ERROR") << QString() << QStringLiteral("committed")
                                      << QStringLiteral("forbidden");
    QTest::newRow("not found, not committed") << QStringLiteral("NOT_FOUND") << QString()
                                              << QStringLiteral("not_committed") << QStringLiteral("REJECTED");
    QTest::newRow("found canceled, not committed") << QStringLiteral("FOUND") << QStringLiteral("canceled")
                                                   << QStringLiteral("not_committed") << QStringLiteral("REJECTED");
    QTest::newRow("found succeeded, not committed") << QStringLiteral("FOUND") << QStringLiteral("succeeded")
                                                    << QStringLiteral("not_committed") << QStringLiteral("forbidden");
    QTest::newRow("found requires_action, not committed") << QStringLiteral("FOUND") << QStringLiteral("requires_action")
                                                          << QStringLiteral("not_committed") << QStringLiteral("forbidden");
    QTest::newRow("error, not committed") << QStringLiteral("ERROR") << QString() << QStringLiteral("not_committed")
                                          << QStringLiteral("forbidden");
    QTest::newRow("no evidence, committed") << QString() << QString() << QStringLiteral("committed")
                                            << QStringLiteral("forbidden");
    QTest::newRow("no evidence, not committed") << QString() << QString() << QStringLiteral("not_committed")
                                                << QStringLiteral("forbidden");
}

void TestLedger::reconcile()
{
    QFETCH(QString, lookupResult);
    QFETCH(QString, status);
    QFETCH(QString, outcome);
    QFETCH(QString, expected);

    // EXECUTING -> REQUIRES_REVIEW through an idempotency mismatch.
    const auto c = claimed(QStringLiteral("ref-1"));
    ExecutionStore::AttemptResult mismatch;
    mismatch.outcome = Attempt::Outcome::IdempotencyMismatch;
    mismatch.httpStatus = 400;
    const auto rr = m_store->execution().finishAttempt(c.record.id, 1, mismatch, Trigger::StopForReview,
                                           QStringLiteral("idempotency_error"), QStringLiteral("exec-1"));
    QVERIFY(rr.ok());
    ActionRecord current = rr->record;
    QCOMPARE(w(current.state), w(ActionState::RequiresReview));

    int evidence = 99;
    if (!lookupResult.isEmpty()) {
        m_clock.advance(100);
        ProviderLookup lookup;
        lookup.actionId = c.record.id;
        lookup.askedBy = QStringLiteral("sue");
        lookup.result = *lookupResultFromWire(lookupResult);
        lookup.status = status;
        lookup.amount = 4000;
        const auto l = m_store->evidence().recordLookup(lookup, std::nullopt, QStringLiteral("look up now"));
        QVERIFY(l.ok());
        evidence = l->lookup.seq;
        current = l->record;
    }
    // Wrong state and stale versions are refused before the evidence is judged.
    const ActionRecord pending = propose(QStringLiteral("ref-2"));
    QCOMPARE(w(m_store->evidence().reconcile(pending.id, QStringLiteral("sue"), Reconciliation::Outcome::Committed, 1, QString(),
                                  pending.stateVersion).code()),
             w(LedgerError::Code::IllegalTransition));
    const auto out = *reconciliationOutcomeFromWire(outcome);
    QCOMPARE(w(m_store->evidence().reconcile(c.record.id, QStringLiteral("sue"), out, evidence, QString(), current.stateVersion - 1)
                   .code()),
             w(LedgerError::Code::StaleVersion));

    const auto r = m_store->evidence().reconcile(c.record.id, QStringLiteral("sue"), out, evidence, QStringLiteral("checked"),
                                      current.stateVersion);
    if (stateFromWire(expected)) {
        QVERIFY2(r.ok(), qPrintable(r.error().toString()));
        QCOMPARE(w(r->record.state), expected);
        QVERIFY(r->record.reviewReason.isEmpty());
        QCOMPARE(r->reconciliation.evidenceLookupSeq, evidence);
        QCOMPARE(m_store->reader().reconciliations(c.record.id)->size(), 1);
        QCOMPARE(m_store->reader().reconciliations(c.record.id)->first(), r->reconciliation);
    } else {
        QVERIFY(!r.ok());
        QCOMPARE(w(r.code()), expected);
        QCOMPARE(w(m_store->reader().action(c.record.id)->state), w(ActionState::RequiresReview));
        QVERIFY(m_store->reader().reconciliations(c.record.id)->isEmpty());
    }
}

void TestLedger::staleVersionRefused_data()
{
    QTest::addColumn<QString>("operation");
    QTest::newRow("approve") << QStringLiteral("approve");
    QTest::newRow("reject") << QStringLiteral("reject");
    QTest::newRow("amend") << QStringLiteral("amend");
    QTest::newRow("transition") << QStringLiteral("transition");
}

void TestLedger::staleVersionRefused()
{
    QFETCH(QString, operation);
    const ActionRecord p = propose(QStringLiteral("ref-1"));
    const auto v2 = m_store->approvals().approve(p.id, approver(), QString(), p.stateVersion);
    QVERIFY(v2.ok());
    const qint64 stale = p.stateVersion; // a console that has not seen the approval

    LedgerError error;
    if (operation == u"approve")
        error = m_store->approvals().approve(p.id, QStringLiteral("bob"), QString(), stale).error();
    else if (operation == u"reject")
        error = m_store->approvals().reject(p.id, QStringLiteral("bob"), QStringLiteral("not_eligible"), QString(), stale).error();
    else if (operation == u"amend")
        error = m_store->proposals().amendBeforeSending(p.id, QStringLiteral("bob"), 1000, QString(), stale).error();
    else if (operation == u"transition")
        error = m_store->execution().transition(p.id, Trigger::StopForReview, QStringLiteral("bob"), QString(), stale).error();
    QCOMPARE(w(error.code()), w(LedgerError::Code::StaleVersion));
    QCOMPARE(m_store->reader().action(p.id).value(), v2.value());
}

// --- reads ---------------------------------------------------------------------------------------

void TestLedger::listPaging()
{
    constexpr int total = 250;
    QSet<QString> all;
    for (int i = 0; i < total; ++i) {
        const auto r = m_store->proposals().propose(sampleInput(QStringLiteral("page-%1").arg(i), 100 + i), agent());
        QVERIFY(r.ok());
        all.insert(r->record.id);
        if (i % 3 == 0) // several actions share a millisecond: the id breaks the tie
            m_clock.advance(1);
    }
    QCOMPARE(all.size(), total);

    QSet<QString> seen;
    QString newest;
    std::optional<ActionRecord> cursor; // the last row of the previous page
    int pages = 0;
    std::optional<ActionRecord> previous;
    bool more = true;
    while (more && pages < 20) {
        ActionReader::ListQuery query;
        query.limit = 50;
        if (cursor) {
            query.afterCursor = true;
            query.cursorCreatedAtMs = cursor->createdAt.toMSecsSinceEpoch();
            query.cursorId = cursor->id;
        }
        const auto page = m_store->reader().list(query);
        QVERIFY2(page.ok(), qPrintable(page.error().toString()));
        ++pages;
        QVERIFY(page->rows.size() <= 50);
        for (const ActionReader::Summary &row : page->rows) {
            const ActionRecord &r = row.record;
            QVERIFY2(!seen.contains(r.id), "duplicate across pages");
            if (newest.isEmpty())
                newest = r.id;
            seen.insert(r.id);
            if (previous) { // newest first, strictly
                QVERIFY(previous->createdAt > r.createdAt
                        || (previous->createdAt == r.createdAt && previous->id > r.id));
            }
            previous = r;
        }
        more = page->hasMore;
        if (!page->rows.isEmpty())
            cursor = page->rows.constLast().record;
    }
    QCOMPARE(pages, 5);
    QCOMPARE(seen, all);

    // The newest comes first; limits are clamped. (A malformed cursor is refused where cursors
    // are decoded, by the API: tst_api_contract "forged cursor".)
    ActionReader::ListQuery first;
    first.limit = 1;
    const auto one = m_store->reader().list(first);
    QCOMPARE(one->rows.size(), 1);
    QCOMPARE(one->rows.first().record.id, newest);
    ActionReader::ListQuery big;
    big.limit = 1000;
    QCOMPARE(m_store->reader().list(big)->rows.size(), 200);
}

void TestLedger::listFilters()
{
    const ActionRecord p1 = propose(QStringLiteral("ref-a"));
    const ActionRecord rr = inState(ActionState::RequiresReview, QStringLiteral("ref-b"));
    const ActionRecord done = inState(ActionState::Completed, QStringLiteral("ref-c"));
    ProposalStore::ProposalInput special = sampleInput(QStringLiteral("ref-100%_x"));
    special.businessReference = QStringLiteral("ORDER-Special-77");
    special.targetId = QStringLiteral("pi_Target99");
    special.targetType = TargetType::PaymentIntent;
    const auto sp = m_store->proposals().propose(special, QStringLiteral("agent-9"));
    QVERIFY(sp.ok());

    auto ids = [&](const ActionReader::ListQuery &q) {
        QStringList out;
        const auto page = m_store->reader().list(q);
        if (page.ok()) {
            for (const ActionReader::Summary &r : page->rows)
                out << r.record.id;
        }
        return out;
    };
    ActionReader::ListQuery q;
    q.states = {ActionState::RequiresReview};
    QCOMPARE(ids(q), QStringList{rr.id});
    q.states = {ActionState::RequiresReview, ActionState::Completed};
    QCOMPARE(ids(q), (QStringList{done.id, rr.id}));
    q.states = {ActionState::Pending};
    QCOMPARE(ids(q), (QStringList{sp->record.id, p1.id}));

    ActionReader::ListQuery text;
    text.text = QStringLiteral("special-77"); // business reference, case-insensitive
    QCOMPARE(ids(text), QStringList{sp->record.id});
    text.text = QStringLiteral("TARGET99"); // target id
    QCOMPARE(ids(text), QStringList{sp->record.id});
    text.text = QStringLiteral("agent-9"); // requested_by
    QCOMPARE(ids(text), QStringList{sp->record.id});
    text.text = QStringLiteral("100%_"); // LIKE wildcards are matched literally
    QCOMPARE(ids(text), QStringList{sp->record.id});
    text.text = QStringLiteral("%");
    QCOMPARE(ids(text), QStringList{sp->record.id});
    text.text = rr.id.mid(4, 10); // part of an id
    QCOMPARE(ids(text), QStringList{rr.id});
    text.states = {ActionState::Pending};
    QVERIFY(ids(text).isEmpty());

    const auto counts = m_store->reader().counts(QString());
    QVERIFY(counts.ok());
    QCOMPARE(counts->size(), 6);
    QCOMPARE(counts->value(ActionState::Pending), 2);
    QCOMPARE(counts->value(ActionState::RequiresReview), 1);
    QCOMPARE(counts->value(ActionState::Completed), 1);
    QCOMPARE(counts->value(ActionState::Executing), 0);
    QCOMPARE(counts->value(ActionState::ConfirmationUnknown), 0);
    QCOMPARE(counts->value(ActionState::Rejected), 0);
}

void TestLedger::followUps()
{
    const ActionRecord parent = inState(ActionState::Completed, QStringLiteral("ref-1"));
    ProposalStore::ProposalInput child = sampleInput(QStringLiteral("ref-1-adjust"), 500);
    child.parentId = parent.id;
    const auto c = m_store->proposals().propose(child, QStringLiteral("sue"));
    QVERIFY2(c.ok(), qPrintable(c.error().toString()));
    QCOMPARE(c->record.parentId, parent.id);
    const auto children = m_store->reader().followUps(parent.id);
    QVERIFY(children.ok());
    QCOMPARE(children->size(), 1);
    QCOMPARE(children->first(), c->record);
    QVERIFY(m_store->reader().followUps(c->record.id)->isEmpty());
}

void TestLedger::readsDoNotTakeWriteLock()
{
    SKIP_ON_POSTGRES("SQLite's one write lock (BEGIN IMMEDIATE, WAL readers, busy_timeout)");
    const ActionRecord p = propose(QStringLiteral("ref-1"));
    const QString name = QStringLiteral("raw-writer");
    {
        QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        raw.setDatabaseName(m_path);
        QVERIFY(raw.open());
        QSqlQuery lock(raw);
        QVERIFY2(lock.exec(QStringLiteral("BEGIN IMMEDIATE")), qPrintable(lock.lastError().text()));

        // Another process holds the write lock: reads go on (WAL) ...
        QElapsedTimer timer;
        timer.start();
        QVERIFY(m_store->reader().action(p.id).ok());
        QVERIFY(m_store->reader().list(ActionReader::ListQuery()).ok());
        QVERIFY(m_store->reader().counts(QString()).ok());
        QVERIFY(m_store->reader().verifyAudit().ok());
        QVERIFY(timer.elapsed() < 1000);

        // ... and a writer that cannot get the lock gives up with Busy after bounded retries.
        Ledger impatient;
        Ledger::Options o = options();
        o.busyTimeoutMs = 50;
        o.busyRetries = 2;
        o.recoverExpiredLeasesOnOpen = false;
        QVERIFY(impatient.open(m_path, o).ok());
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("approve could not begin: .*busy")));
        const auto r = impatient.approvals().approve(p.id, approver(), QString(), p.stateVersion);
        QCOMPARE(w(r.code()), w(LedgerError::Code::Busy));
        QVERIFY(lock.exec(QStringLiteral("ROLLBACK")));
        const auto ok = impatient.approvals().approve(p.id, approver(), QString(), p.stateVersion);
        QVERIFY2(ok.ok(), qPrintable(ok.error().toString()));
    }
    QSqlDatabase::removeDatabase(name);
}

void TestLedger::connectionsArePerThreadAndCleanedUp()
{
    QTest::failOnWarning(QRegularExpression(QStringLiteral("still in use")));
    auto ledgerConnections = [] {
        QStringList names = QSqlDatabase::connectionNames();
        names.removeIf([](const QString &n) { return !n.startsWith(QStringLiteral("countersign.ledger.")); });
        return names;
    };
    const ActionRecord p = propose(QStringLiteral("ref-1"));
    const QStringList mainOnly = ledgerConnections();
    QCOMPARE(mainOnly.size(), 1);

    // A worker thread gets its own connection, removed when the thread exits.
    QStringList duringThread;
    bool readOk = false;
    std::thread worker([&] {
        readOk = m_store->reader().action(p.id).ok() && m_store->reader().list({}).ok();
        duringThread = ledgerConnections();
    });
    worker.join();
    QVERIFY(readOk);
    QCOMPARE(duringThread.size(), 2);
    QCOMPARE(ledgerConnections(), mainOnly);

    // A second store on the same file has its own names; destroying a store removes its own.
    {
        Ledger second;
        QVERIFY(second.open(m_path, options()).ok());
        QVERIFY(second.reader().action(p.id).ok());
        QCOMPARE(ledgerConnections().size(), 2);
    }
    QCOMPARE(ledgerConnections(), mainOnly);
    m_store.reset();
    QVERIFY(ledgerConnections().isEmpty());
}

QTEST_GUILESS_MAIN(TestLedger)
#include "tst_ledger.moc"
