// The stop switch (issue 14; server/ledger/pausestore.*), on a real ledger (a SQLite file, or a
// PostgreSQL database under tst_pauses_postgres): while a pause is in force nothing it covers is
// claimed — everything, one agent, one provider account — and the rest is; pauses survive a
// restart and every ledger on the same database sees them; the database refuses any change but
// the one resume; in-flight work finishes and reconciliation goes on while paused; and a pause
// committed while another ledger's thread claims wins the race: no claim is recorded after it.
#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <memory>
#include <thread>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

using Scope = ExecutionPause::Scope;
Q_DECLARE_METATYPE(ExecutionPause::Scope)

class TestPauses : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void pauseAllStopsEveryClaim();
    void scopesCoverWhatTheyName_data();
    void scopesCoverWhatTheyName();
    void badPausesAreRefused_data();
    void badPausesAreRefused();
    void pausesSurviveARestartAndAreShared();
    void onlyOneResumeIsAllowedByTheDatabase();
    void inFlightFinishesAndReconcilingGoesOn();
    void pauseCommittedDuringClaimsWins();

private:
    ActionRecord approved(const QString &ref, const QString &requester = agent(),
                          const QString &account = QStringLiteral("acct_demo"));
    std::optional<ExecutionStore::Claim> claimNext(Ledger &ledger);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    ManualClock m_clock;
    QString m_path;
};

void TestPauses::init()
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

void TestPauses::cleanup()
{
    m_ledger.reset();
    if (QSqlDatabase::contains(QStringLiteral("pauses-raw")))
        QSqlDatabase::removeDatabase(QStringLiteral("pauses-raw"));
    m_dir.reset();
}

ActionRecord TestPauses::approved(const QString &ref, const QString &requester, const QString &account)
{
    ProposalStore::ProposalInput input = sampleInput(ref);
    input.providerAccount = account;
    const auto p = m_ledger->proposals().propose(input, requester);
    m_clock.advance(1);
    if (!p.ok()) {
        qWarning() << "propose failed:" << p.error().toString();
        return {};
    }
    const auto a = m_ledger->approvals().approve(p->record.id, approver(), QStringLiteral("ok"), p->record.stateVersion);
    m_clock.advance(1);
    if (!a.ok()) {
        qWarning() << "approve failed:" << a.error().toString();
        return {};
    }
    return *a;
}

std::optional<ExecutionStore::Claim> TestPauses::claimNext(Ledger &ledger)
{
    const auto claimed = ledger.execution().claimNext(QStringLiteral("exec-1"), 60s);
    if (!claimed.ok()) {
        qWarning() << "claimNext failed:" << claimed.error().toString();
        return std::nullopt;
    }
    return *claimed;
}

void TestPauses::pauseAllStopsEveryClaim()
{
    const ActionRecord first = approved(QStringLiteral("r1"));
    const ActionRecord second = approved(QStringLiteral("r2"), QStringLiteral("agent-8"), QStringLiteral("acct_other"));
    QVERIFY(!first.id.isEmpty() && !second.id.isEmpty());
    const auto pause = m_ledger->pauses().pause(Scope::All, {}, {}, QStringLiteral("provider incident"),
                                                QStringLiteral("sue"));
    QVERIFY2(pause.ok(), qPrintable(pause.error().toString()));
    QVERIFY(pause->id.startsWith(QLatin1String("pau_")));
    QVERIFY(pause->inForce());
    QCOMPARE(pause->describe(), QStringLiteral("Execution paused: all \u2014 by sue: provider incident"));

    QVERIFY(!claimNext(*m_ledger));
    const auto byId = m_ledger->execution().claim(first.id, QStringLiteral("exec-1"), 60s);
    QVERIFY(!byId.ok());
    QCOMPARE(byId.error().code(), LedgerError::Code::Conflict);
    QVERIFY2(byId.error().message().contains(pause->id), qPrintable(byId.error().message()));
    ExecutionStore::Batch batch;
    batch.claimFor = {QStringLiteral("exec-1"), QStringLiteral("exec-2")};
    batch.leaseDuration = 60s;
    const auto outcome = m_ledger->execution().commitBatch(batch);
    QVERIFY(outcome.ok());
    QVERIFY(!outcome->claims.at(0) && !outcome->claims.at(1));
    // Nothing changed: both still PENDING and approved.
    for (const ActionRecord &r : {first, second}) {
        const auto now = m_ledger->reader().action(r.id);
        QVERIFY(now.ok());
        QCOMPARE(now->state, ActionState::Pending);
        QCOMPARE(now->stateVersion, r.stateVersion);
    }

    const auto resumed = m_ledger->pauses().resume(pause->id, QStringLiteral("sue"), QStringLiteral("provider is back"));
    QVERIFY2(resumed.ok(), qPrintable(resumed.error().toString()));
    QVERIFY(!resumed->inForce());
    QCOMPARE(resumed->resumedBy, QStringLiteral("sue"));
    QVERIFY(m_ledger->pauses().inForce()->isEmpty());
    const auto claimed = claimNext(*m_ledger);
    QVERIFY(claimed);
    QCOMPARE(claimed->record.id, first.id); // the oldest first, as before the pause

    // The audit log has who and why, and still verifies.
    const auto log = m_ledger->reader().auditLog(0, 1000);
    QVERIFY(log.ok());
    QStringList events;
    for (const AuditEvent &event : *log) {
        if (event.event.startsWith(QLatin1String("execution_"))) {
            QVERIFY(event.actionId.isEmpty());
            QCOMPARE(event.actor, QStringLiteral("sue"));
            events << event.event + QLatin1Char(':') + event.reason;
        }
    }
    QCOMPARE(events, QStringList({QStringLiteral("execution_paused:provider incident"),
                                  QStringLiteral("execution_resumed:resumed all: provider is back")}));
    const auto verified = m_ledger->reader().verifyAudit();
    QVERIFY(verified.ok() && verified->ok);
}

void TestPauses::scopesCoverWhatTheyName_data()
{
    QTest::addColumn<Scope>("scope");
    QTest::addColumn<QString>("agentName");
    QTest::addColumn<QString>("account");
    QTest::addColumn<QStringList>("claimed"); // of r7 (agent-7, acct_demo) and r8 (agent-8, acct_other)

    QTest::newRow("agent-7 paused: only agent-8's is claimed")
        << Scope::Agent << QStringLiteral("agent-7") << QString() << QStringList{QStringLiteral("r8")};
    QTest::newRow("an agent with no actions paused: both are claimed")
        << Scope::Agent << QStringLiteral("agent-9") << QString() << QStringList{QStringLiteral("r7"), QStringLiteral("r8")};
    QTest::newRow("acct_other paused: only acct_demo's is claimed")
        << Scope::Account << QString() << QStringLiteral("acct_other") << QStringList{QStringLiteral("r7")};
    QTest::newRow("an unknown account paused: both are claimed")
        << Scope::Account << QString() << QStringLiteral("acct_none") << QStringList{QStringLiteral("r7"), QStringLiteral("r8")};
    QTest::newRow("all paused: none is claimed") << Scope::All << QString() << QString() << QStringList();
}

void TestPauses::scopesCoverWhatTheyName()
{
    QFETCH(Scope, scope);
    QFETCH(QString, agentName);
    QFETCH(QString, account);
    QFETCH(QStringList, claimed);
    const ActionRecord r7 = approved(QStringLiteral("r7"), QStringLiteral("agent-7"), QStringLiteral("acct_demo"));
    const ActionRecord r8 = approved(QStringLiteral("r8"), QStringLiteral("agent-8"), QStringLiteral("acct_other"));
    QVERIFY(!r7.id.isEmpty() && !r8.id.isEmpty());
    const auto pause = m_ledger->pauses().pause(scope, agentName, account, QStringLiteral("why"), QStringLiteral("sue"));
    QVERIFY2(pause.ok(), qPrintable(pause.error().toString()));
    QCOMPARE(pause->covers(r7), !claimed.contains(QStringLiteral("r7")));
    QCOMPARE(pause->covers(r8), !claimed.contains(QStringLiteral("r8")));
    QStringList got;
    while (const auto c = claimNext(*m_ledger))
        got << c->record.clientReference;
    QCOMPARE(got, claimed);
    // A claim by id agrees with the candidate read.
    for (const ActionRecord &r : {r7, r8}) {
        if (claimed.contains(r.clientReference))
            continue;
        const auto byId = m_ledger->execution().claim(r.id, QStringLiteral("exec-1"), 60s);
        QVERIFY(!byId.ok());
        QCOMPARE(byId.error().code(), LedgerError::Code::Conflict);
    }
}

void TestPauses::badPausesAreRefused_data()
{
    QTest::addColumn<Scope>("scope");
    QTest::addColumn<QString>("agentName");
    QTest::addColumn<QString>("account");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("field");

    QTest::newRow("no reason") << Scope::All << QString() << QString() << QString() << QStringLiteral("reason");
    QTest::newRow("a blank reason") << Scope::All << QString() << QString() << QStringLiteral("  ") << QStringLiteral("reason");
    QTest::newRow("a reason too long") << Scope::All << QString() << QString() << QString(2001, QLatin1Char('x'))
                                       << QStringLiteral("reason");
    QTest::newRow("agent scope without an agent") << Scope::Agent << QString() << QString() << QStringLiteral("why")
                                                  << QStringLiteral("agent");
    QTest::newRow("account scope without an account") << Scope::Account << QString() << QString() << QStringLiteral("why")
                                                      << QStringLiteral("account");
    QTest::newRow("all naming an agent") << Scope::All << QStringLiteral("agent-7") << QString() << QStringLiteral("why")
                                         << QStringLiteral("agent");
    QTest::newRow("agent scope naming an account") << Scope::Agent << QStringLiteral("agent-7") << QStringLiteral("acct")
                                                   << QStringLiteral("why") << QStringLiteral("account");
}

void TestPauses::badPausesAreRefused()
{
    QFETCH(Scope, scope);
    QFETCH(QString, agentName);
    QFETCH(QString, account);
    QFETCH(QString, reason);
    QFETCH(QString, field);
    const auto before = m_ledger->reader().latestAuditSeq();
    const auto pause = m_ledger->pauses().pause(scope, agentName, account, reason, QStringLiteral("sue"));
    QVERIFY(!pause.ok());
    QCOMPARE(pause.error().code(), LedgerError::Code::Invalid);
    QVERIFY2(pause.error().message().contains(field), qPrintable(pause.error().message()));
    QVERIFY(m_ledger->pauses().inForce()->isEmpty());
    QCOMPARE(m_ledger->reader().latestAuditSeq().value(), before.value());
}

void TestPauses::pausesSurviveARestartAndAreShared()
{
    const ActionRecord r = approved(QStringLiteral("r1"));
    QVERIFY(!r.id.isEmpty());
    const auto pause = m_ledger->pauses().pause(Scope::Agent, agent(), {}, QStringLiteral("agent misbehaves"),
                                                QStringLiteral("sue"));
    QVERIFY(pause.ok());
    // The same pause again is refused while the first is in force.
    const auto again = m_ledger->pauses().pause(Scope::Agent, agent(), {}, QStringLiteral("again"), QStringLiteral("bob"));
    QVERIFY(!again.ok());
    QCOMPARE(again.error().code(), LedgerError::Code::Conflict);
    QVERIFY(again.error().message().contains(pause->id));

    // Another ledger on the same database (another instance) sees it and claims nothing ...
    Ledger other;
    QVERIFY(other.open(m_path).ok());
    const auto seen = other.pauses().inForce();
    QVERIFY(seen.ok());
    QCOMPARE(seen->size(), 1);
    QCOMPARE(seen->constFirst(), *pause);
    QVERIFY(!claimNext(other));
    // ... and after a restart of this one it is still in force.
    m_ledger.reset();
    m_ledger = std::make_unique<Ledger>();
    QVERIFY(m_ledger->open(m_path).ok());
    QCOMPARE(m_ledger->pauses().inForce()->size(), 1);
    QVERIFY(!claimNext(*m_ledger));
    // Resumed by the other instance: claimed here.
    QVERIFY(other.pauses().resume(pause->id, QStringLiteral("bob"), QString()).ok());
    const auto claimed = claimNext(*m_ledger);
    QVERIFY(claimed);
    QCOMPARE(claimed->record.id, r.id);
    other.execution().releaseThread();
}

void TestPauses::onlyOneResumeIsAllowedByTheDatabase()
{
    const auto pause = m_ledger->pauses().pause(Scope::Account, {}, QStringLiteral("acct_demo"), QStringLiteral("why"),
                                                QStringLiteral("sue"));
    QVERIFY(pause.ok());
    QString error;
    QSqlDatabase raw = openRawDatabase(m_path, QStringLiteral("pauses-raw"), &error);
    QVERIFY2(raw.isOpen(), qPrintable(error));
    {
        QSqlQuery q(raw);
        QVERIFY(!q.exec(QStringLiteral("UPDATE execution_pauses SET reason = 'edited'")));
        QVERIFY2(q.lastError().text().contains(QLatin1String("only ever resumed")), qPrintable(q.lastError().text()));
        QVERIFY(!q.exec(QStringLiteral("UPDATE execution_pauses SET account = 'acct_other'")));
        QVERIFY(!q.exec(QStringLiteral("DELETE FROM execution_pauses")));
        QVERIFY2(q.lastError().text().contains(QLatin1String("only ever resumed")), qPrintable(q.lastError().text()));
    }
    QVERIFY(m_ledger->pauses().resume(pause->id, QStringLiteral("sue"), QStringLiteral("done")).ok());
    const auto twice = m_ledger->pauses().resume(pause->id, QStringLiteral("bob"), QString());
    QVERIFY(!twice.ok());
    QCOMPARE(twice.error().code(), LedgerError::Code::Conflict);
    const auto unknown = m_ledger->pauses().resume(QStringLiteral("pau_nope"), QStringLiteral("bob"), QString());
    QCOMPARE(unknown.error().code(), LedgerError::Code::NotFound);
    {
        QSqlQuery q(raw);
        QVERIFY(!q.exec(QStringLiteral("UPDATE execution_pauses SET resumed_at = NULL, resumed_by = NULL")));
        QVERIFY(!q.exec(QStringLiteral("UPDATE execution_pauses SET resume_note = 'edited'")));
        QVERIFY(q.exec(QStringLiteral("SELECT resumed_by, resume_note FROM execution_pauses")) && q.next());
        QCOMPARE(q.value(0).toString(), QStringLiteral("sue"));
        QCOMPARE(q.value(1).toString(), QStringLiteral("done"));
    }
    raw.close();
}

void TestPauses::inFlightFinishesAndReconcilingGoesOn()
{
    const ActionRecord sent = approved(QStringLiteral("sent"));
    const ActionRecord unknown = approved(QStringLiteral("unknown"));
    const ActionRecord waiting = approved(QStringLiteral("waiting"));
    const auto c1 = claimNext(*m_ledger);
    const auto c2 = claimNext(*m_ledger);
    QVERIFY(c1 && c2);
    QCOMPARE(c2->record.id, unknown.id);
    // The second's answer was lost: CONFIRMATION_UNKNOWN.
    ExecutionStore::AttemptResult lost;
    lost.outcome = Attempt::Outcome::Unknown;
    QVERIFY(m_ledger->execution()
                .finishAttempt(unknown.id, 1, lost, Trigger::OutcomeUnknown, QStringLiteral("timeout"), QStringLiteral("exec-1"))
                .ok());
    QVERIFY(m_ledger->pauses().pause(Scope::All, {}, {}, QStringLiteral("stop"), QStringLiteral("sue")).ok());

    // In flight: the first attempt's answer is recorded.
    ExecutionStore::AttemptResult ok;
    ok.outcome = Attempt::Outcome::Succeeded;
    ok.httpStatus = 200;
    ok.providerObjectId = QStringLiteral("re_1");
    const auto finished = m_ledger->execution().finishAttempt(sent.id, 1, ok, Trigger::ProviderSucceeded,
                                                              QStringLiteral("200"), QStringLiteral("exec-1"));
    QVERIFY2(finished.ok(), qPrintable(finished.error().toString()));
    QCOMPARE(finished->record.state, ActionState::Completed);
    // Reconciling: a lease, a same-key retry, its answer.
    QVERIFY(m_ledger->execution().acquireLease(unknown.id, QStringLiteral("reconciler"), 60s).ok());
    const auto retry = m_ledger->execution().beginRetryAttempt(unknown.id, QStringLiteral("reconciler"));
    QVERIFY2(retry.ok(), qPrintable(retry.error().toString()));
    QCOMPARE(retry->idempotencyKey, c2->attempt.idempotencyKey);
    const auto answered = m_ledger->execution().finishAttempt(unknown.id, retry->seq, ok, Trigger::ProviderSucceeded,
                                                              QStringLiteral("replayed 200"), QStringLiteral("reconciler"));
    QVERIFY2(answered.ok(), qPrintable(answered.error().toString()));
    QCOMPARE(answered->record.state, ActionState::Completed);
    // And the one not yet claimed stays PENDING.
    QVERIFY(!claimNext(*m_ledger));
    QCOMPARE(m_ledger->reader().action(waiting.id)->state, ActionState::Pending);
}

// Two ledgers on one database, as two instances: one claims approved actions as fast as it can
// while the other pauses everything. Whatever the interleaving, no claim is committed after the
// pause: every `claimed` audit row comes before the pause's (the audit seq is the commit order),
// and the claims that start after pause() returned find nothing.
void TestPauses::pauseCommittedDuringClaimsWins()
{
    const int n = 400;
    for (int i = 0; i < n; ++i)
        QVERIFY(!approved(QStringLiteral("race-%1").arg(i)).id.isEmpty());
    std::atomic<int> claims{0};
    std::atomic<bool> paused{false};
    std::atomic<bool> pauseOk{false};
    std::atomic<bool> pausing{false};
    std::atomic<int> claimedAfterPause{0};
    std::atomic<bool> opened[2] = {false, false};
    std::atomic<int> ready{0};
    auto racer = [&](int me) {
        Ledger mine;
        Ledger::Options o;
        o.recoverExpiredLeasesOnOpen = false;
        opened[me] = mine.open(m_path, o).ok();
        ++ready;
        while (ready.load() < 2)
            std::this_thread::yield();
        if (opened[me] && me == 0) {
            // Until a claim that started after pause() returned found nothing.
            for (;;) {
                const bool pausedBefore = paused.load();
                const auto c = mine.execution().claimNext(QStringLiteral("exec-race"), 60s);
                if (!c.ok() || !*c) {
                    if (pausedBefore)
                        break;
                    std::this_thread::yield();
                    continue;
                }
                ++claims;
                if (pausedBefore)
                    ++claimedAfterPause;
                // Pacing, not a condition of the test: SQLite's busy handler sleeps between its
                // tries, and a writer that begins again at once would starve the pause until
                // nothing is left to claim (which would prove nothing).
                if (pausing.load())
                    std::this_thread::sleep_for(2ms);
            }
        } else if (opened[me]) {
            while (claims.load() < 5)
                std::this_thread::yield();
            pausing = true;
            const bool ok = mine.pauses().pause(Scope::All, {}, {}, QStringLiteral("race"), QStringLiteral("sue")).ok();
            if (!ok)
                qWarning() << "the pause failed";
            paused = true; // also on failure, so the claimer stops (the test then fails below)
            pauseOk = ok;
        }
        mine.execution().releaseThread();
    };
    std::thread t1(racer, 0);
    std::thread t2(racer, 1);
    t1.join();
    t2.join();
    QVERIFY(opened[0] && opened[1]);
    QVERIFY(pauseOk.load());
    QCOMPARE(claimedAfterPause.load(), 0);
    QVERIFY2(claims.load() >= 5 && claims.load() < n, qPrintable(QString::number(claims.load())));

    const auto log = m_ledger->reader().auditLog(0, 10000);
    QVERIFY(log.ok());
    qint64 pauseSeq = 0;
    qint64 lastClaimSeq = 0;
    int claimedRows = 0;
    for (const AuditEvent &event : *log) {
        if (event.event == u"execution_paused")
            pauseSeq = event.seq;
        if (event.event == u"claimed") {
            lastClaimSeq = std::max(lastClaimSeq, event.seq);
            ++claimedRows;
        }
    }
    QVERIFY(pauseSeq > 0);
    QCOMPARE(claimedRows, claims.load());
    QVERIFY2(lastClaimSeq < pauseSeq, qPrintable(QStringLiteral("claim %1 after pause %2").arg(lastClaimSeq).arg(pauseSeq)));
}

QTEST_GUILESS_MAIN(TestPauses)
#include "tst_pauses.moc"
