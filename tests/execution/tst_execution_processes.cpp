// Real executor processes (executor_child) on one ledger file, against a paysim on loopback:
// two processes racing for the same actions, and a process SIGKILLed right after its attempt row
// is committed — once before paysim committed, once after — then a restarted one finishing.

#include "tests/execution/executiontestsupport.h"
#include "tests/support/testledger.h"

#include <QFile>
#include <QProcess>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

class TestExecutionProcesses : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void twoProcessesRaceForTheSameActions();
    void killedRightAfterTheAttemptRow_data();
    void killedRightAfterTheAttemptRow();

private:
    QProcess *startChild(const QString &name, const QStringList &extra);
    bool waitForLine(QProcess *child, const QByteArray &prefix, QByteArray *line = nullptr, int timeoutMs = 10000);
    bool waitSettled(const QString &actionId, int timeoutMs = 20000);
    void stopChildren();

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    std::unique_ptr<Paysim> m_sim;
    QString m_dbPath;
    QString m_keyFile;
    QList<QProcess *> m_children;
    QHash<QProcess *, QByteArray> m_output;
};

void TestExecutionProcesses::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_dbPath = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    m_keyFile = writeSecretKeyFile(*m_dir);
    m_sim = std::make_unique<Paysim>();
    QVERIFY(m_sim->start());
    m_ledger = std::make_unique<Ledger>();
    Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false; // only the executors recover
    QVERIFY(m_ledger->open(m_dbPath, options).ok());
}

void TestExecutionProcesses::cleanup()
{
    for (QProcess *child : std::as_const(m_children)) {
        if (child->state() != QProcess::NotRunning) {
            child->kill();
            child->waitForFinished(5000);
        }
        delete child;
    }
    m_children.clear();
    m_output.clear();
    m_ledger.reset();
    m_sim.reset();
    m_dir.reset();
}

QProcess *TestExecutionProcesses::startChild(const QString &name, const QStringList &extra)
{
    auto *child = new QProcess;
    m_children << child;
    child->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QObject::connect(child, &QProcess::readyReadStandardOutput, child, [this, child] {
        m_output[child] += child->readAllStandardOutput();
    });
    QStringList args{QStringLiteral("--db"), m_dbPath,
                     QStringLiteral("--provider-url"), m_sim->url().toString(),
                     QStringLiteral("--key-file"), m_keyFile,
                     QStringLiteral("--name"), name,
                     QStringLiteral("--stop-file"), m_dir->filePath(QStringLiteral("stop"))};
    args << extra;
    child->start(QStringLiteral(EXECUTOR_CHILD_PATH), args);
    return child;
}

bool TestExecutionProcesses::waitForLine(QProcess *child, const QByteArray &prefix, QByteArray *line, int timeoutMs)
{
    // The event loop keeps running meanwhile: paysim lives on this thread.
    auto find = [&] {
        for (const QByteArray &l : m_output.value(child).split('\n')) {
            if (l.startsWith(prefix)) {
                if (line)
                    *line = l;
                return true;
            }
        }
        return false;
    };
    const bool ended = QTest::qWaitFor([&] { return find() || child->state() == QProcess::NotRunning; }, timeoutMs);
    Q_UNUSED(ended) // found, exited or timed out: find() tells
    const bool seen = find();
    if (!seen)
        qWarning() << "child said:" << m_output.value(child);
    return seen;
}

bool TestExecutionProcesses::waitSettled(const QString &actionId, int timeoutMs)
{
    return QTest::qWaitFor([&] {
        const auto action = m_ledger->reader().action(actionId);
        return action.ok() && isSettled(action->state);
    }, timeoutMs);
}

void TestExecutionProcesses::stopChildren()
{
    QFile stop(m_dir->filePath(QStringLiteral("stop")));
    QVERIFY(stop.open(QIODevice::WriteOnly));
    stop.close();
    for (QProcess *child : std::as_const(m_children)) {
        if (child->state() == QProcess::NotRunning)
            continue;
        QVERIFY(QTest::qWaitFor([child] { return child->state() == QProcess::NotRunning; }, 10000));
        QCOMPARE(child->exitStatus(), QProcess::NormalExit);
        QCOMPARE(child->exitCode(), 0);
    }
}

// The seed scenario across processes: every response is dropped after commit, two executor
// processes (two workers each) start at the same instant on one ledger file.
void TestExecutionProcesses::twoProcessesRaceForTheSameActions()
{
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("drop_response_after_commit")},
                                        {QStringLiteral("times"), 0}}));
    const QString charge = m_sim->seedCharge(100000);
    QStringList ids;
    for (int i = 0; i < 4; ++i)
        ids << approvedRefund(*m_ledger, charge, 1000 + i, QStringLiteral("race-%1").arg(i)).id;
    const QString startFile = m_dir->filePath(QStringLiteral("go"));
    // Every POST's answer is dropped; the reconciler's look-up must then find the refund. A look-up
    // slower than its deadline would (rightly) lead to a same-key resend and a second attempt row,
    // so on a loaded machine the calls get 2 s (the default 400 ms, as a POST's, was tight), and
    // the lease covers them (>= 2 x 2 s + 1 s; nothing is killed here).
    const QStringList lookupTime = {QStringLiteral("--timeout-ms"), QStringLiteral("2000"),
                                    QStringLiteral("--lease-ms"), QStringLiteral("5000")};
    QProcess *a = startChild(QStringLiteral("alpha"), QStringList{QStringLiteral("--start-file"), startFile} + lookupTime);
    QProcess *b = startChild(QStringLiteral("beta"), QStringList{QStringLiteral("--start-file"), startFile} + lookupTime);
    QVERIFY(waitForLine(a, "ready"));
    QVERIFY(waitForLine(b, "ready"));
    QFile go(startFile);
    QVERIFY(go.open(QIODevice::WriteOnly));
    go.close();
    QVERIFY(waitForLine(a, "started"));
    QVERIFY(waitForLine(b, "started"));
    for (const QString &id : std::as_const(ids))
        QVERIFY2(waitSettled(id), qPrintable(describe(*m_ledger, id)));
    stopChildren();

    QStringList claimers;
    for (const QString &id : std::as_const(ids)) {
        QCOMPARE(toWire(m_ledger->reader().action(id)->state), QStringLiteral("COMPLETED"));
        const QJsonArray truth = m_sim->refundsFor(id);
        QCOMPARE(truth.size(), 1);
        const QList<Attempt> attempts = m_ledger->reader().attempts(id).value();
        QCOMPARE(attempts.size(), 1); // one claim won; the lookup, not a resend, completed it
        claimers << attempts.first().executor.section(QLatin1Char('-'), 0, 0);
        const QList<ProviderLookup> lookups = m_ledger->reader().lookups(id).value();
        QCOMPARE(lookups.last().providerObjectId, truth.first().toObject().value(QStringLiteral("id")).toString());
    }
    QCOMPARE(m_sim->groundTruth().size(), ids.size());
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
    qInfo() << "claims won by" << claimers;
}

void TestExecutionProcesses::killedRightAfterTheAttemptRow_data()
{
    QTest::addColumn<QString>("pauseAt");
    QTest::addColumn<qint64>("lagMs");
    QTest::addColumn<int>("refundsAtKill");
    QTest::addColumn<int>("attempts");
    QTest::addColumn<bool>("replayed");

    QTest::newRow("killed before paysim committed -> same-key retry executes once")
        << "committed" << qint64(0) << 0 << 2 << false;
    QTest::newRow("killed after paysim committed -> lookup finds it") << "answered" << qint64(0) << 1 << 1 << false;
    QTest::newRow("killed after paysim committed, refund hidden by lag -> replayed, no duplicate")
        << "answered" << qint64(20000) << 1 << 2 << true;
}

void TestExecutionProcesses::killedRightAfterTheAttemptRow()
{
    QFETCH(QString, pauseAt);
    QFETCH(qint64, lagMs);
    QFETCH(int, refundsAtKill);
    QFETCH(int, attempts);
    QFETCH(bool, replayed);

    if (lagMs > 0) {
        QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                            {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                            {QStringLiteral("fault"), QStringLiteral("lookup_lag")},
                                            {QStringLiteral("delay_ms"), lagMs}}));
    }
    const QString charge = m_sim->seedCharge(10000);
    const ActionRecord action = approvedRefund(*m_ledger, charge, 4000, QStringLiteral("doomed"));
    QProcess *doomed = startChild(QStringLiteral("doomed"), {QStringLiteral("--workers"), QStringLiteral("1"),
                                                             QStringLiteral("--timeout-ms"), QStringLiteral("300"),
                                                             QStringLiteral("--lease-ms"), QStringLiteral("1600"),
                                                             QStringLiteral("--pause-at"), pauseAt});
    QByteArray paused;
    QVERIFY(waitForLine(doomed, "paused", &paused));
    QCOMPARE(paused, QByteArray("paused " + action.id.toLatin1() + " 1"));
    // The attempt row is committed and open; the request did (answered) or did not (committed) leave.
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("EXECUTING"));
    QCOMPARE(m_ledger->reader().attempts(action.id)->first().outcome, Attempt::Outcome::Open);
    QCOMPARE(m_sim->refundsFor(action.id).size(), refundsAtKill);

    doomed->kill(); // SIGKILL: no stop, no rollback, no goodbye
    QVERIFY(QTest::qWaitFor([doomed] { return doomed->state() == QProcess::NotRunning; }, 5000));
    QCOMPARE(doomed->exitStatus(), QProcess::CrashExit);
    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("EXECUTING")); // until its lease expires

    QProcess *restarted = startChild(QStringLiteral("restarted"), {QStringLiteral("--workers"), QStringLiteral("2")});
    QVERIFY(waitForLine(restarted, "started"));
    QVERIFY2(waitSettled(action.id), qPrintable(describe(*m_ledger, action.id)));
    stopChildren();

    QCOMPARE(toWire(m_ledger->reader().action(action.id)->state), QStringLiteral("COMPLETED"));
    const QJsonArray truth = m_sim->refundsFor(action.id);
    QCOMPARE(truth.size(), 1);
    const QList<Attempt> rows = m_ledger->reader().attempts(action.id).value();
    QCOMPARE(rows.size(), attempts);
    QCOMPARE(rows.first().outcome, Attempt::Outcome::Unknown); // the dead one's: never failed, never rejected
    QVERIFY(rows.first().errorExcerpt.contains(QStringLiteral("lease expired")));
    QCOMPARE(rows.last().replayed, replayed);
    QCOMPARE(m_sim->groundTruth().size(), 1);
    bool recovered = false;
    const QList<AuditEvent> events = m_ledger->reader().audit(action.id).value();
    for (const AuditEvent &e : events)
        recovered |= e.event == u"recovered";
    QVERIFY(recovered);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

QTEST_GUILESS_MAIN(TestExecutionProcesses)
#include "tst_execution_processes.moc"
