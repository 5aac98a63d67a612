// The refund budget of a charge (issue 14; server/ledger/chargestore.*, models/chargebudget.*), on
// a real ledger (a SQLite file, or a PostgreSQL database under tst_charge_budget_postgres):
// snapshots are append-only in the database; each decision point counts the actions it must; a
// claim stops for review, sending nothing, what no longer fits — also after a refund made outside
// Countersign; and two claims racing on one charge from two threads never both fit when together
// they exceed it.
#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

namespace {

const QString kCharge = QStringLiteral("ch_budget0001");
const QString kIntent = QStringLiteral("pi_budget0001");

ChargeSnapshot found(qint64 captured, qint64 refunded = 0, const QList<ChargeSnapshot::Refund> &refunds = {},
                     const QString &charge = kCharge)
{
    ChargeSnapshot s;
    s.targetType = TargetType::Charge;
    s.targetId = charge;
    s.chargeId = charge;
    s.paymentIntentId = kIntent;
    s.askedBy = QStringLiteral("proposal");
    s.result = ChargeSnapshot::Result::Found;
    s.amount = captured;
    s.amountCaptured = captured;
    s.amountRefunded = refunded;
    s.currency = QStringLiteral("usd");
    s.refunds = refunds;
    return s;
}

} // namespace

class TestChargeBudget : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void snapshotsAreAppendOnly();
    void stagesCountWhatTheyMust();
    void completedRefundsCountOnceWhenTheProviderListsThem();
    void claimStopsWhatNoLongerFits();
    void refundMadeOutsideShrinksTheBudget();
    void paymentIntentAndChargeShareOneBudget();
    void unknownBudgetRefusesNothing();
    void currencyMismatchIsStopped();
    void racingClaimsNeverBothFit();
    void proposalOverTheBudgetWritesNothing();
    void resubmissionIsAnsweredEvenWhenFull();
    void approvalCountsWhatIsApproved();
    void amendmentToMoreMustFit();
    void racingProposalsNeverBothFit();

private:
    ActionRecord propose(const QString &ref, qint64 amount, const QString &target = kCharge,
                         TargetType type = TargetType::Charge);
    ActionRecord approved(const QString &ref, qint64 amount, const QString &target = kCharge,
                          TargetType type = TargetType::Charge);
    void record(const ChargeSnapshot &s);
    ChargeBudget budget(ChargeBudget::Stage stage, const QString &excluding = QString());
    // Finishes attempt 1 of a claimed action as the provider's refund `refundId`: COMPLETED.
    bool complete(const QString &actionId, const QString &refundId);
    // Runs `step(ledger, n)` on two threads at once (n = 0, 1), each with a ledger of its own on
    // this test's database, as two instances have; false if a ledger did not open.
    bool race(const std::function<void(Ledger &, int)> &step);
    int attemptsOf(const QString &actionId);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    ManualClock m_clock;
    QString m_path;
};

void TestChargeBudget::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    QVERIFY(!m_path.isEmpty());
    m_clock = ManualClock();
    m_ledger = std::make_unique<Ledger>();
    Ledger::Options o;
    o.clock = m_clock.clock();
    const LedgerError e = m_ledger->open(m_path, o);
    QVERIFY2(e.ok(), qPrintable(e.toString()));
}

void TestChargeBudget::cleanup()
{
    m_ledger.reset();
    for (const QString &name : QSqlDatabase::connectionNames()) {
        if (name.startsWith(QStringLiteral("budget-raw")))
            QSqlDatabase::removeDatabase(name);
    }
    m_dir.reset();
}

ActionRecord TestChargeBudget::propose(const QString &ref, qint64 amount, const QString &target, TargetType type)
{
    ProposalStore::ProposalInput input = sampleInput(ref, amount);
    input.targetId = target;
    input.targetType = type;
    const auto r = m_ledger->proposals().propose(input, agent());
    m_clock.advance(1);
    if (!r.ok()) {
        qWarning() << "propose failed:" << r.error().toString();
        return {};
    }
    return r->record;
}

ActionRecord TestChargeBudget::approved(const QString &ref, qint64 amount, const QString &target, TargetType type)
{
    const ActionRecord p = propose(ref, amount, target, type);
    if (p.id.isEmpty())
        return {};
    const auto a = m_ledger->approvals().approve(p.id, approver(), QStringLiteral("ok"), p.stateVersion);
    m_clock.advance(1);
    if (!a.ok()) {
        qWarning() << "approve failed:" << a.error().toString();
        return {};
    }
    return *a;
}

void TestChargeBudget::record(const ChargeSnapshot &s)
{
    ChargeSnapshot stamped = s;
    stamped.readAt = m_clock.now();
    const auto r = m_ledger->charges().record(stamped);
    m_clock.advance(1);
    QVERIFY2(r.ok(), qPrintable(r.error().toString()));
}

ChargeBudget TestChargeBudget::budget(ChargeBudget::Stage stage, const QString &excluding)
{
    const auto b = m_ledger->charges().budget(TargetType::Charge, kCharge, stage, excluding);
    if (!b.ok()) {
        qWarning() << "budget failed:" << b.error().toString();
        return {};
    }
    return *b;
}

bool TestChargeBudget::complete(const QString &actionId, const QString &refundId)
{
    ExecutionStore::AttemptResult ok;
    ok.outcome = Attempt::Outcome::Succeeded;
    ok.httpStatus = 200;
    ok.providerObjectId = refundId;
    return m_ledger->execution()
        .finishAttempt(actionId, 1, ok, Trigger::ProviderSucceeded, QStringLiteral("200"), QStringLiteral("exec"))
        .ok();
}

bool TestChargeBudget::race(const std::function<void(Ledger &, int)> &step)
{
    std::atomic<bool> opened[2] = {false, false};
    std::atomic<int> ready{0};
    auto racer = [&](int n) {
        Ledger mine;
        Ledger::Options o;
        o.recoverExpiredLeasesOnOpen = false;
        opened[n] = mine.open(m_path, o).ok();
        ++ready;
        while (ready.load() < 2)
            std::this_thread::yield();
        if (opened[n])
            step(mine, n);
        mine.execution().releaseThread();
    };
    std::thread t1(racer, 0);
    std::thread t2(racer, 1);
    t1.join();
    t2.join();
    return opened[0] && opened[1];
}

int TestChargeBudget::attemptsOf(const QString &actionId)
{
    const auto detail = m_ledger->reader().attempts(actionId);
    return detail.ok() ? int(detail->size()) : -1;
}

void TestChargeBudget::snapshotsAreAppendOnly()
{
    record(found(9900));
    QString error;
    QSqlDatabase raw = openRawDatabase(m_path, QStringLiteral("budget-raw"), &error);
    QVERIFY2(raw.isOpen(), qPrintable(error));
    QSqlQuery q(raw);
    QVERIFY(!q.exec(QStringLiteral("UPDATE charge_snapshots SET amount_captured = 1")));
    QVERIFY2(q.lastError().text().contains(QStringLiteral("append-only")), qPrintable(q.lastError().text()));
    QVERIFY(!q.exec(QStringLiteral("DELETE FROM charge_snapshots")));
    QVERIFY2(q.lastError().text().contains(QStringLiteral("append-only")), qPrintable(q.lastError().text()));
    QVERIFY(q.exec(QStringLiteral("SELECT COUNT(*), MIN(amount_captured) FROM charge_snapshots")) && q.next());
    QCOMPARE(q.value(0).toInt(), 1);
    QCOMPARE(q.value(1).toLongLong(), qint64(9900));
    // Recorded in the audit, and the chain still verifies.
    const auto log = m_ledger->reader().auditLog(0, 100);
    QVERIFY(log.ok());
    QVERIFY(std::any_of(log->cbegin(), log->cend(), [](const AuditEvent &e) { return e.event == u"charge_read"; }));
    const auto verified = m_ledger->reader().verifyAudit();
    QVERIFY(verified.ok() && verified->ok);
}

void TestChargeBudget::stagesCountWhatTheyMust()
{
    record(found(9900));
    const ActionRecord pending = propose(QStringLiteral("a"), 3000);
    const ActionRecord queued = approved(QStringLiteral("b"), 2000);
    const ActionRecord inFlight = approved(QStringLiteral("c"), 1000);
    const ActionRecord rejected = propose(QStringLiteral("e"), 700);
    QVERIFY(m_ledger->approvals().reject(rejected.id, approver(), QStringLiteral("not_eligible"), QStringLiteral("no"), rejected.stateVersion).ok());
    // Claims take the oldest approved first: queued (b), then inFlight (c). Finish b as COMPLETED
    // (the provider's snapshot does not list it yet), leave c EXECUTING.
    const auto b = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(b.ok() && *b && (*b)->record.id == queued.id);
    QVERIFY(complete(queued.id, QStringLiteral("re_b")));
    const auto c = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(c.ok() && *c && (*c)->record.id == inFlight.id);
    const ActionRecord later = approved(QStringLiteral("d"), 400);

    const ChargeBudget atProposal = budget(ChargeBudget::Stage::Proposal);
    QVERIFY(atProposal.known);
    QCOMPARE(atProposal.captured, qint64(9900));
    QCOMPARE(atProposal.reserved, qint64(3000 + 2000 + 1000 + 400)); // every action but the rejected one
    const ChargeBudget atApproval = budget(ChargeBudget::Stage::Approval);
    QCOMPARE(atApproval.reserved, qint64(2000 + 1000 + 400)); // not the unapproved 3000
    const ChargeBudget atClaim = budget(ChargeBudget::Stage::Claim);
    QCOMPARE(atClaim.reserved, qint64(2000 + 1000)); // what went further than PENDING
    QCOMPARE(atClaim.available(), qint64(9900 - 3000));
    // Leaving out the action being decided.
    QCOMPARE(budget(ChargeBudget::Stage::Approval, later.id).reserved, qint64(3000));
    QCOMPARE(pending.state, ActionState::Pending);
}

void TestChargeBudget::completedRefundsCountOnceWhenTheProviderListsThem()
{
    record(found(9900));
    const ActionRecord a = approved(QStringLiteral("a"), 2500);
    const auto claimed = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(claimed.ok() && *claimed);
    QVERIFY(complete(a.id, QStringLiteral("re_a")));
    // Before the provider lists it: reserved in Countersign.
    ChargeBudget b = budget(ChargeBudget::Stage::Claim);
    QCOMPARE(b.reserved, qint64(2500));
    QCOMPARE(b.refundedAtProvider, qint64(0));
    // Listed by its refund id: refunded at the provider, no longer reserved. Never both.
    ChargeSnapshot::Refund r;
    r.id = QStringLiteral("re_a");
    r.amount = 2500;
    r.status = QStringLiteral("succeeded");
    record(found(9900, 2500, {r}));
    b = budget(ChargeBudget::Stage::Claim);
    QCOMPARE(b.refundedAtProvider, qint64(2500));
    QCOMPARE(b.reserved, qint64(0));
    QCOMPARE(b.available(), qint64(9900 - 2500));
    // Listed by the action id in its metadata (an id the attempt did not record) counts as seen too.
    r.id = QStringLiteral("re_other");
    r.actionId = a.id;
    record(found(9900, 2500, {r}));
    QCOMPARE(budget(ChargeBudget::Stage::Claim).reserved, qint64(0));
}

void TestChargeBudget::claimStopsWhatNoLongerFits()
{
    // Approved before the provider was first read (the approval check could not count them
    // against a budget it did not know), then the charge is read.
    const ActionRecord first = approved(QStringLiteral("first"), 6000);
    const ActionRecord second = approved(QStringLiteral("second"), 6000);
    const ActionRecord third = approved(QStringLiteral("third"), 4000);
    record(found(9900));
    const auto one = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(one.ok() && *one);
    QCOMPARE((*one)->record.id, first.id);
    // The next claim finds only the second, which no longer fits: stopped for review, nothing sent.
    const auto two = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(two.ok());
    QVERIFY(!*two);
    const auto stored = m_ledger->reader().action(second.id);
    QVERIFY(stored.ok());
    QCOMPARE(stored->state, ActionState::RequiresReview);
    QVERIFY2(stored->reviewReason.contains(QStringLiteral("over the charge's refundable amount")), qPrintable(stored->reviewReason));
    QVERIFY2(stored->reviewReason.contains(QStringLiteral("39.00 USD left, 60.00 USD requested")), qPrintable(stored->reviewReason));
    QCOMPARE(attemptsOf(second.id), 0);
    // claim(id) of one that no longer fits stops it as well, and is refused.
    const auto direct = m_ledger->execution().claim(third.id, QStringLiteral("exec"), 60s);
    QVERIFY(!direct.ok());
    QCOMPARE(m_ledger->reader().action(third.id)->state, ActionState::RequiresReview);
    QCOMPARE(attemptsOf(third.id), 0);
}

void TestChargeBudget::refundMadeOutsideShrinksTheBudget()
{
    record(found(9900));
    const ActionRecord a = approved(QStringLiteral("a"), 4000);
    // The dashboard refunded 7000 meanwhile; the next read says so.
    ChargeSnapshot::Refund outside;
    outside.id = QStringLiteral("re_dashboard");
    outside.amount = 7000;
    outside.status = QStringLiteral("succeeded");
    record(found(9900, 7000, {outside}));
    const auto claimed = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(claimed.ok());
    QVERIFY(!*claimed);
    QCOMPARE(m_ledger->reader().action(a.id)->state, ActionState::RequiresReview);
    QCOMPARE(attemptsOf(a.id), 0);
    // A failed refund gives its money back at the provider: what the provider's amount says.
    outside.status = QStringLiteral("failed");
    record(found(9900, 0, {outside}));
    const ActionRecord b = approved(QStringLiteral("b"), 4000);
    const auto again = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(again.ok() && *again);
    QCOMPARE((*again)->record.id, b.id);
    // The one in review still counts as possibly committed: 9900 − 4000 (a) − 4000 (b) = 1900.
    QCOMPARE(budget(ChargeBudget::Stage::Claim).available(), qint64(1900));
}

void TestChargeBudget::paymentIntentAndChargeShareOneBudget()
{
    const ActionRecord onIntent = approved(QStringLiteral("pi"), 3000, kIntent, TargetType::PaymentIntent);
    const ActionRecord onCharge = approved(QStringLiteral("ch"), 3000);
    ChargeSnapshot viaIntent = found(5000);
    viaIntent.targetType = TargetType::PaymentIntent;
    viaIntent.targetId = kIntent;
    record(viaIntent);
    // Read through the payment intent, the charge's budget holds both: a third on the intent
    // cannot even be proposed.
    ProposalStore::ProposalInput late = sampleInput(QStringLiteral("late"), 1000);
    late.targetType = TargetType::PaymentIntent;
    late.targetId = kIntent;
    QCOMPARE(m_ledger->proposals().propose(late, agent()).code(), LedgerError::Code::OverBudget);
    const auto one = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(one.ok() && *one);
    QCOMPARE((*one)->record.id, onIntent.id);
    const auto two = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(two.ok() && !*two);
    QCOMPARE(m_ledger->reader().action(onCharge.id)->state, ActionState::RequiresReview);
    const auto viaPi = m_ledger->charges().budget(TargetType::PaymentIntent, kIntent, ChargeBudget::Stage::Claim);
    QVERIFY(viaPi.ok() && viaPi->known);
    QCOMPARE(viaPi->chargeId, kCharge);
    QCOMPARE(viaPi->reserved, qint64(6000));
}

void TestChargeBudget::unknownBudgetRefusesNothing()
{
    // Never read (or only failed reads): nothing is refused for the budget; the provider itself
    // refuses a refund over what is left.
    ChargeSnapshot failed;
    failed.targetId = kCharge;
    failed.askedBy = QStringLiteral("proposal");
    failed.result = ChargeSnapshot::Result::Error;
    failed.httpStatus = 503;
    failed.excerpt = QStringLiteral("Service Unavailable");
    record(failed);
    const ActionRecord a = approved(QStringLiteral("a"), 60000);
    const auto claimed = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(claimed.ok() && *claimed);
    QCOMPARE((*claimed)->record.id, a.id);
    QVERIFY(!budget(ChargeBudget::Stage::Claim).known);
    const auto latest = m_ledger->charges().latest(kCharge);
    QVERIFY(latest.ok() && *latest);
    QCOMPARE((*latest)->snapshot.result, ChargeSnapshot::Result::Error);
    QCOMPARE((*latest)->snapshot.httpStatus, 503);
}

void TestChargeBudget::currencyMismatchIsStopped()
{
    const ActionRecord a = approved(QStringLiteral("a"), 100); // sampleInput: usd
    QVERIFY(!a.id.isEmpty());
    ChargeSnapshot euros = found(9900);
    euros.currency = QStringLiteral("eur");
    record(euros);
    // Known now: a proposal in another currency than the charge's is refused outright.
    ProposalStore::ProposalInput dollars = sampleInput(QStringLiteral("b"), 100);
    dollars.targetId = kCharge;
    const auto proposed = m_ledger->proposals().propose(dollars, agent());
    QCOMPARE(proposed.code(), LedgerError::Code::OverBudget);
    QVERIFY2(proposed.error().message().contains(QStringLiteral("a charge in EUR")), qPrintable(proposed.error().message()));
    const auto claimed = m_ledger->execution().claimNext(QStringLiteral("exec"), 60s);
    QVERIFY(claimed.ok() && !*claimed);
    const ActionRecord stored = *m_ledger->reader().action(a.id);
    QCOMPARE(stored.state, ActionState::RequiresReview);
    QVERIFY2(stored.reviewReason.contains(QStringLiteral("a charge in EUR")), qPrintable(stored.reviewReason));
}

// Two threads, each with its own ledger on the same database (its own connections, as two
// instances have), claim at once; the two approved refunds of 60 % cannot both go.
void TestChargeBudget::racingClaimsNeverBothFit()
{
    for (int round = 0; round < 10; ++round) {
        // A charge of its own per round: the one stopped for review keeps its reservation.
        // Both approved before the charge was read (the approval check would refuse the second).
        const QString charge = QStringLiteral("ch_race%1").arg(round);
        const ActionRecord a = approved(QStringLiteral("race-a-%1").arg(round), 6000, charge);
        const ActionRecord b = approved(QStringLiteral("race-b-%1").arg(round), 6000, charge);
        QVERIFY(!a.id.isEmpty() && !b.id.isEmpty());
        ChargeSnapshot s = found(9900, 0, {}, charge);
        s.paymentIntentId.clear();
        record(s);
        std::atomic<int> claims{0};
        std::atomic<bool> failed{false};
        QVERIFY(race([&](Ledger &mine, int) {
            const auto c = mine.execution().claimNext(QStringLiteral("racer"), 60s);
            if (!c.ok())
                failed = true;
            else if (*c)
                ++claims;
        }));
        QVERIFY(!failed.load());
        QCOMPARE(claims.load(), 1);
        const ActionState sa = m_ledger->reader().action(a.id)->state;
        const ActionState sb = m_ledger->reader().action(b.id)->state;
        QVERIFY2((sa == ActionState::Executing) != (sb == ActionState::Executing),
                 qPrintable(toWire(sa) + QLatin1Char('/') + toWire(sb)));
        QCOMPARE(attemptsOf(a.id) + attemptsOf(b.id), 1);
        QCOMPARE(sa == ActionState::Executing ? sb : sa, ActionState::RequiresReview);
    }
}

void TestChargeBudget::proposalOverTheBudgetWritesNothing()
{
    record(found(9900));
    QVERIFY(!propose(QStringLiteral("a"), 6000).id.isEmpty());
    const auto auditBefore = m_ledger->reader().auditLog(0, 1000);
    QVERIFY(auditBefore.ok());
    ProposalStore::ProposalInput input = sampleInput(QStringLiteral("b"), 6000);
    input.targetId = kCharge;
    ChargeSnapshot fresh = found(9900);
    fresh.readAt = m_clock.now();
    input.charge = fresh; // recorded only with a proposal that is accepted
    const auto refused = m_ledger->proposals().propose(input, agent());
    QVERIFY(!refused.ok());
    QCOMPARE(refused.code(), LedgerError::Code::OverBudget);
    QVERIFY2(refused.error().message().contains(QStringLiteral("cannot be proposed")), qPrintable(refused.error().message()));
    const QJsonObject detail = refused.error().detail();
    QCOMPARE(detail.value(QLatin1String("captured")).toInteger(), qint64(9900));
    QCOMPARE(detail.value(QLatin1String("reserved")).toInteger(), qint64(6000));
    QCOMPARE(detail.value(QLatin1String("requested")).toInteger(), qint64(6000));
    QCOMPARE(detail.value(QLatin1String("available")).toInteger(), qint64(3900));
    // Nothing written: no action, no snapshot, no audit row.
    const auto auditAfter = m_ledger->reader().auditLog(0, 1000);
    QVERIFY(auditAfter.ok());
    QCOMPARE(auditAfter->size(), auditBefore->size());
    QString error;
    QSqlDatabase raw = openRawDatabase(m_path, QStringLiteral("budget-raw"), &error);
    QSqlQuery q(raw);
    QVERIFY(q.exec(QStringLiteral("SELECT (SELECT COUNT(*) FROM actions), (SELECT COUNT(*) FROM charge_snapshots)")) && q.next());
    QCOMPARE(q.value(0).toInt(), 1);
    QCOMPARE(q.value(1).toInt(), 1);
    // What fits is accepted, with its snapshot.
    input.amount = 3900;
    input.clientReference = QStringLiteral("c");
    QVERIFY(m_ledger->proposals().propose(input, agent()).ok());
    QVERIFY(q.exec(QStringLiteral("SELECT COUNT(*) FROM charge_snapshots")) && q.next());
    QCOMPARE(q.value(0).toInt(), 2);
}

void TestChargeBudget::resubmissionIsAnsweredEvenWhenFull()
{
    record(found(9900));
    const ActionRecord a = propose(QStringLiteral("a"), 9900);
    QVERIFY(!a.id.isEmpty());
    // The agent's retry of the same proposal (a lost answer) gets the same action, not a refusal.
    ProposalStore::ProposalInput input = sampleInput(QStringLiteral("a"), 9900);
    input.targetId = kCharge;
    const auto again = m_ledger->proposals().propose(input, agent());
    QVERIFY2(again.ok(), qPrintable(again.error().toString()));
    QCOMPARE(again->status, ProposalStore::ProposeResult::Status::Existing);
    QCOMPARE(again->record.id, a.id);
}

void TestChargeBudget::approvalCountsWhatIsApproved()
{
    record(found(9900));
    const ActionRecord a = propose(QStringLiteral("a"), 6000);
    const ActionRecord b = propose(QStringLiteral("b"), 3000);
    QVERIFY(!a.id.isEmpty() && !b.id.isEmpty());
    ChargeSnapshot::Refund outside;
    outside.id = QStringLiteral("re_dashboard");
    outside.amount = 2000;
    outside.status = QStringLiteral("succeeded");
    record(found(9900, 2000, {outside}));
    // a: 6000 of 7900, nothing approved yet (b is not counted: not approved).
    QVERIFY(m_ledger->approvals().approve(a.id, approver(), QStringLiteral("ok"), a.stateVersion).ok());
    // b: 3000 more than the 1900 left once a is approved.
    const auto refused = m_ledger->approvals().approve(b.id, approver(), QStringLiteral("ok"), b.stateVersion);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.code(), LedgerError::Code::OverBudget);
    QVERIFY2(refused.error().message().contains(QStringLiteral("cannot be approved")), qPrintable(refused.error().message()));
    QCOMPARE(refused.error().detail().value(QLatin1String("available")).toInteger(), qint64(1900));
    const ActionRecord stored = *m_ledger->reader().action(b.id);
    QCOMPARE(stored.approvalVersion, 0);
    QVERIFY(stored.idempotencyKey.isEmpty());
    // Rejecting a frees its room: b fits again.
    const ActionRecord current = *m_ledger->reader().action(a.id);
    QVERIFY(m_ledger->approvals().reject(a.id, approver(), QStringLiteral("wrong_amount"), QString(), current.stateVersion).ok());
    QVERIFY(m_ledger->approvals().approve(b.id, approver(), QStringLiteral("ok"), b.stateVersion).ok());
}

void TestChargeBudget::amendmentToMoreMustFit()
{
    record(found(9900));
    const ActionRecord a = propose(QStringLiteral("a"), 5000);
    QVERIFY(!propose(QStringLiteral("b"), 4000).id.isEmpty());
    const auto more = m_ledger->proposals().amendBeforeSending(a.id, approver(), 6000, QString(), a.stateVersion);
    QVERIFY(!more.ok());
    QCOMPARE(more.code(), LedgerError::Code::OverBudget);
    const auto less = m_ledger->proposals().amendBeforeSending(a.id, approver(), 4500, QString(), a.stateVersion);
    QVERIFY2(less.ok(), qPrintable(less.error().toString()));
}

// Two threads, each with its own ledger on the same database, propose 60 % of one charge at once
// under different references: exactly one proposal is accepted.
void TestChargeBudget::racingProposalsNeverBothFit()
{
    for (int round = 0; round < 10; ++round) {
        const QString charge = QStringLiteral("ch_prace%1").arg(round);
        ChargeSnapshot s = found(9900, 0, {}, charge);
        s.paymentIntentId.clear();
        record(s);
        std::atomic<int> created{0};
        std::atomic<int> overBudget{0};
        std::atomic<bool> failed{false};
        QVERIFY(race([&](Ledger &mine, int n) {
            ProposalStore::ProposalInput input = sampleInput(QStringLiteral("p%1-%2").arg(n).arg(round), 6000);
            input.targetId = charge;
            const auto r = mine.proposals().propose(input, agent());
            if (r.ok() && r->status == ProposalStore::ProposeResult::Status::Created)
                ++created;
            else if (!r.ok() && r.code() == LedgerError::Code::OverBudget)
                ++overBudget;
            else
                failed = true;
        }));
        QVERIFY(!failed.load());
        QCOMPARE(created.load(), 1);
        QCOMPARE(overBudget.load(), 1);
    }
}

QTEST_GUILESS_MAIN(TestChargeBudget)
#include "tst_charge_budget.moc"
