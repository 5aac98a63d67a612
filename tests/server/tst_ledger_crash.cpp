// Invariants 3 and 6 across a crash: a child process claims an action (the attempt row is
// committed), "sends", and is killed with SIGKILL. After its lease expires the ledger, reopened,
// says CONFIRMATION_UNKNOWN with the attempt unknown — never failed, never rejected — and the
// audit chain still verifies.

#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

class TestLedgerCrash : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void killedWhileExecuting();
    void killedDuringSameKeyRetry();

private:
    // Starts the child in `mode` on actionId; returns once it printed the expected line.
    bool runChildUntil(QProcess &child, const QString &mode, const QString &actionId, const QByteArray &expected);
    void killAndWait(QProcess &child);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_path;
    static constexpr int LeaseMs = 300;
};

void TestLedgerCrash::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
}

void TestLedgerCrash::cleanup()
{
    m_dir.reset();
}

bool TestLedgerCrash::runChildUntil(QProcess &child, const QString &mode, const QString &actionId,
                                    const QByteArray &expected)
{
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QStringLiteral(LEDGER_CLAIMER_PATH),
                {QStringLiteral("--db"), m_path, QStringLiteral("--action"), actionId, QStringLiteral("--executor"),
                 QStringLiteral("doomed"), QStringLiteral("--lease-ms"), QString::number(LeaseMs),
                 QStringLiteral("--mode"), mode});
    if (!child.waitForStarted(5000))
        return false;
    QByteArray seen;
    while (true) {
        while (child.canReadLine()) {
            const QByteArray line = child.readLine().trimmed();
            seen += line + ' ';
            if (line.startsWith(expected))
                return true;
        }
        if (!child.waitForReadyRead(10000)) {
            qWarning() << "child output:" << seen;
            return false;
        }
    }
}

void TestLedgerCrash::killAndWait(QProcess &child)
{
    child.kill(); // SIGKILL: no destructor, no rollback, no goodbye
    QVERIFY(child.waitForFinished(5000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
}

void TestLedgerCrash::killedWhileExecuting()
{
    QString actionId;
    {
        Ledger store;
        QVERIFY(store.open(m_path).ok());
        const auto p = store.proposals().propose(sampleInput(QStringLiteral("crash-1")), agent());
        QVERIFY(p.ok());
        const auto a = store.approvals().approve(p->record.id, approver(), QString(), p->record.stateVersion);
        QVERIFY(a.ok());
        actionId = a->id;
    }

    QProcess child;
    QElapsedTimer sinceClaim;
    QVERIFY(runChildUntil(child, QStringLiteral("hold"), actionId, "claimed 1"));
    sinceClaim.start();
    killAndWait(child);

    {
        // Before the lease expires nobody may touch it: recovery on open finds nothing to do.
        Ledger early;
        QVERIFY(early.open(m_path).ok());
        if (sinceClaim.elapsed() < LeaseMs - 50) {
            QCOMPARE(toWire(early.reader().action(actionId)->state), QStringLiteral("EXECUTING"));
            QCOMPARE(int(early.reader().attempts(actionId)->first().outcome), int(Attempt::Outcome::Open));
            QCOMPARE(early.reader().executionInfo(actionId)->leaseOwner, QStringLiteral("doomed"));
        }
    }

    QThread::msleep(qMax<qint64>(0, LeaseMs + 50 - sinceClaim.elapsed()));
    Ledger store;
    QVERIFY(store.open(m_path).ok()); // recovers expired leases
    const auto action = store.reader().action(actionId);
    QVERIFY(action.ok());
    QCOMPARE(toWire(action->state), QStringLiteral("CONFIRMATION_UNKNOWN"));
    const auto attempts = store.reader().attempts(actionId);
    QCOMPARE(attempts->size(), 1);
    const Attempt &attempt = attempts->first();
    QCOMPARE(int(attempt.outcome), int(Attempt::Outcome::Unknown));
    QCOMPARE(attempt.executor, QStringLiteral("doomed"));
    QCOMPARE(attempt.idempotencyKey, action->idempotencyKey);
    QVERIFY(attempt.finishedAt.isValid());
    QCOMPARE(attempt.errorExcerpt, QStringLiteral("executor lease expired (process died?)"));
    QVERIFY(store.reader().executionInfo(actionId)->leaseOwner.isEmpty());
    QCOMPARE(store.reader().audit(actionId)->last().event, QStringLiteral("recovered"));
    const auto verified = store.reader().verifyAudit();
    QVERIFY(verified.ok());
    QVERIFY2(verified->ok, qPrintable(verified->reason));

    // The reconciler can now retry with the same key.
    QVERIFY(store.execution().acquireLease(actionId, QStringLiteral("rec-1"), 10s).ok());
    const auto retry = store.execution().beginRetryAttempt(actionId, QStringLiteral("rec-1"));
    QVERIFY(retry.ok());
    QCOMPARE(retry->idempotencyKey, attempt.idempotencyKey);
}

void TestLedgerCrash::killedDuringSameKeyRetry()
{
    QString actionId;
    {
        Ledger store;
        QVERIFY(store.open(m_path).ok());
        const auto p = store.proposals().propose(sampleInput(QStringLiteral("crash-2")), agent());
        const auto a = store.approvals().approve(p->record.id, approver(), QString(), p->record.stateVersion);
        const auto c = store.execution().claim(a->id, QStringLiteral("exec-1"), 30s);
        QVERIFY(c.ok());
        ExecutionStore::AttemptResult timeout;
        timeout.outcome = Attempt::Outcome::Unknown;
        timeout.errorExcerpt = QStringLiteral("timed out");
        QVERIFY(store.execution().finishAttempt(a->id, 1, timeout, Trigger::OutcomeUnknown, QString(), QStringLiteral("exec-1")).ok());
        actionId = a->id;
    }

    QProcess child;
    QElapsedTimer sinceRetry;
    QVERIFY(runChildUntil(child, QStringLiteral("retry-hold"), actionId, "retrying 2"));
    sinceRetry.start();
    killAndWait(child);
    QThread::msleep(qMax<qint64>(0, LeaseMs + 50 - sinceRetry.elapsed()));

    Ledger store;
    QVERIFY(store.open(m_path).ok());
    QCOMPARE(toWire(store.reader().action(actionId)->state), QStringLiteral("CONFIRMATION_UNKNOWN"));
    const auto attempts = store.reader().attempts(actionId);
    QCOMPARE(attempts->size(), 2);
    QCOMPARE(int(attempts->at(1).outcome), int(Attempt::Outcome::Unknown));
    QCOMPARE(attempts->at(1).idempotencyKey, attempts->at(0).idempotencyKey);
    QVERIFY(store.reader().executionInfo(actionId)->leaseOwner.isEmpty());
    QVERIFY(store.reader().verifyAudit()->ok);
}

QTEST_GUILESS_MAIN(TestLedgerCrash)
#include "tst_ledger_crash.moc"
