// Issue 13: the executor when its ledger's COMMIT is lost, and fencing of a paused executor.
//  - A claim whose COMMIT reached PostgreSQL but whose answer was lost (tests/support/pgwireproxy.h):
//    read back as committed, sent once; or, with the database unreachable, not sent at all until
//    the row is known — then rescued and executed with the same key, once.
//  - Two executor processes (executor_child) on one database, a short lease: the owner is
//    SIGSTOPped while its request is in flight (paysim delays the answer), the other instance
//    rescues the expired lease (CONFIRMATION_UNKNOWN) and reconciles it; SIGCONT: the woken owner's
//    finish is refused and records nothing. At most one refund, one key, an intact chain. On
//    PostgreSQL and on SQLite (two processes on one file).

#include "server/executor.h"
#include "server/reconciler.h"
#include "tests/execution/executiontestsupport.h"
#include "tests/support/pgcluster.h"
#include "tests/support/pgwireproxy.h"

#include <QFile>
#include <QMutex>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>

#include <memory>
#include <optional>
#include <vector>

#include <signal.h>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

namespace {

// Warnings of this process, so a test can wait for what the ledger said (thread-safe).
QMutex g_logMutex;
QStringList g_log;
QtMessageHandler g_previousHandler = nullptr;

void capture(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    {
        QMutexLocker locker(&g_logMutex);
        g_log << message;
    }
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

bool logged(const QString &text)
{
    QMutexLocker locker(&g_logMutex);
    return std::any_of(g_log.cbegin(), g_log.cend(), [&](const QString &line) { return line.contains(text); });
}

} // namespace

class TestExecutionPostgres : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void claimWhoseCommitAnswerWasLostIsSentOnce();
    void claimWhoseCommitIsUnknownIsNotSent();
    void pausedOwnerIsFenced_data();
    void pausedOwnerIsFenced();

private:
    QString location(bool postgres);
    QString proxiedUri(const PgWireProxy &proxy) const;
    std::unique_ptr<Ledger> openLedger(const QString &where);
    QProcess *startChild(const QString &where, const QString &name, const QStringList &extra);
    bool waitForOutput(QProcess *child, const QByteArray &text, int timeoutMs = 10000);
    void checkOnceWithOneKey(const QString &actionId);
    struct LostCommitRig;
    bool startLostCommitRig(LostCommitRig *rig, const QString &reference, bool stayRefusing, ActionRecord *action);

    std::unique_ptr<PgCluster> m_cluster;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Paysim> m_sim;
    std::unique_ptr<Ledger> m_ledger; // the test's own handle, straight to the database
    QString m_database;
    QString m_charge;
    QString m_keyFile;
    int m_databases = 0;
    QList<QProcess *> m_children;
    QHash<QProcess *, QByteArray> m_output; // stdout and stderr, merged
};

void TestExecutionPostgres::initTestCase()
{
    g_previousHandler = qInstallMessageHandler(capture);
    m_cluster = std::make_unique<PgCluster>();
    QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
}

void TestExecutionPostgres::cleanupTestCase()
{
    qInstallMessageHandler(g_previousHandler); // before the statics it writes to go
    m_cluster.reset();
}

void TestExecutionPostgres::init()
{
    {
        QMutexLocker locker(&g_logMutex);
        g_log.clear();
    }
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_keyFile = writeSecretKeyFile(*m_dir);
    m_sim = std::make_unique<Paysim>();
    QVERIFY(m_sim->start());
    m_charge = m_sim->seedCharge(10000);
}

void TestExecutionPostgres::cleanup()
{
    for (QProcess *child : std::as_const(m_children)) {
        if (child->state() != QProcess::NotRunning) {
            ::kill(pid_t(child->processId()), SIGCONT);
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

QString TestExecutionPostgres::location(bool postgres)
{
    if (!postgres)
        return m_dir->filePath(QStringLiteral("ledger.db"));
    m_database = QStringLiteral("execution_%1").arg(++m_databases);
    return m_cluster->createDatabase(m_database);
}

QString TestExecutionPostgres::proxiedUri(const PgWireProxy &proxy) const
{
    return QStringLiteral("postgresql://%1@127.0.0.1:%2/%3").arg(PgCluster::superuser()).arg(proxy.port()).arg(m_database);
}

std::unique_ptr<Ledger> TestExecutionPostgres::openLedger(const QString &where)
{
    auto ledger = std::make_unique<Ledger>();
    Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false; // only the executors recover
    const LedgerError opened = ledger->open(where, options);
    if (!opened.ok()) {
        qWarning() << "open" << where << opened.toString();
        return nullptr;
    }
    return ledger;
}

QProcess *TestExecutionPostgres::startChild(const QString &where, const QString &name, const QStringList &extra)
{
    auto *child = new QProcess;
    m_children << child;
    child->setProcessChannelMode(QProcess::MergedChannels);
    QObject::connect(child, &QProcess::readyRead, child, [this, child] { m_output[child] += child->readAll(); });
    child->start(QStringLiteral(EXECUTOR_CHILD_PATH),
                 QStringList{QStringLiteral("--db"), where, QStringLiteral("--provider-url"), m_sim->url().toString(),
                             QStringLiteral("--key-file"), m_keyFile, QStringLiteral("--name"), name,
                             QStringLiteral("--stop-file"), m_dir->filePath(QStringLiteral("stop"))}
                     + extra);
    return child;
}

bool TestExecutionPostgres::waitForOutput(QProcess *child, const QByteArray &text, int timeoutMs)
{
    // The event loop runs meanwhile: paysim lives on this thread.
    const bool ended = QTest::qWaitFor(
        [&] { return m_output.value(child).contains(text) || child->state() == QProcess::NotRunning; }, timeoutMs);
    Q_UNUSED(ended) // seen, exited or timed out: the output tells
    const bool seen = m_output.value(child).contains(text);
    if (!seen)
        qWarning() << "waited for" << text << "; the child said:" << m_output.value(child);
    return seen;
}

// Invariants 1 and 4 for one action: exactly one refund at paysim, the ledger COMPLETED with it,
// every attempt under the one key; and the chain intact.
void TestExecutionPostgres::checkOnceWithOneKey(const QString &actionId)
{
    const auto action = m_ledger->reader().action(actionId);
    QVERIFY(action.ok());
    QCOMPARE(action->state, ActionState::Completed);
    QCOMPARE(m_sim->refundsFor(actionId).size(), 1);
    const auto attempts = m_ledger->reader().attempts(actionId);
    QVERIFY(attempts.ok() && !attempts->isEmpty());
    for (const Attempt &attempt : *attempts)
        QCOMPARE(attempt.idempotencyKey, action->idempotencyKey);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

// A claim's COMMIT through a relay that loses its answer (PgWireProxy, armed on the COMMIT after
// the attempt's INSERT; stayRefusing: and then refuses every connection until told otherwise),
// with an executor whose ledger talks through the relay: an approved refund in a fresh database,
// the executor started. Members end in reverse order: the executor, then its provider, then its
// ledger — whose threads release their sessions and statements before they end
// (ExecutionStore::releaseThread), or their thread-local QSqlQuery objects would outlive the
// QPSQL driver and crash — then the relay.
struct TestExecutionPostgres::LostCommitRig
{
    explicit LostCommitRig(quint16 upstreamPort) : proxy(upstreamPort) {}
    PgWireProxy proxy;
    std::unique_ptr<Ledger> ledger;
    std::unique_ptr<StripeClient> provider;
    std::unique_ptr<Executor> executor;
};

bool TestExecutionPostgres::startLostCommitRig(LostCommitRig *rig, const QString &reference, bool stayRefusing,
                                                ActionRecord *action)
{
    const QString where = location(true);
    m_ledger = where.isEmpty() ? nullptr : openLedger(where);
    if (!m_ledger)
        return false;
    *action = approvedRefund(*m_ledger, m_charge, 4000, reference);
    if (action->id.isEmpty() || !rig->proxy.start())
        return false;
    rig->ledger = openLedger(proxiedUri(rig->proxy));
    if (!rig->ledger)
        return false;
    rig->proxy.armCommitFault(PgWireProxy::CommitFault::AnswerLost, stayRefusing, "INSERT INTO attempts");
    rig->provider = std::make_unique<StripeClient>(providerConfig(m_sim->url()));
    rig->executor = std::make_unique<Executor>(Reconciler::storesOf(*rig->ledger), *rig->provider, fastConfig(1));
    QString error;
    if (!rig->executor->start(&error)) {
        qWarning() << "the executor did not start:" << error;
        return false;
    }
    return true;
}

// The claim's COMMIT reached the server and committed; its answer was lost. The ledger reads the
// transaction's status back (committed), so the executor sends — once.
void TestExecutionPostgres::claimWhoseCommitAnswerWasLostIsSentOnce()
{
    ActionRecord action;
    LostCommitRig rig(m_cluster->port());
    QVERIFY(startLostCommitRig(&rig, QStringLiteral("lost-answer"), false, &action));
    Executor &executor = *rig.executor;
    PgWireProxy &proxy = rig.proxy;
    QVERIFY(QTest::qWaitFor([&] { return m_ledger->reader().action(action.id)->state == ActionState::Completed; }, 20000));
    executor.stop();
    QCOMPARE(proxy.faultsFired(), 1);
    QVERIFY(logged(QStringLiteral("lost the answer to COMMIT; it committed")));
    QCOMPARE(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 1);
    QCOMPARE(m_ledger->reader().attempts(action.id)->size(), 1);
    checkOnceWithOneKey(action.id);
}

// The claim's COMMIT reached the server and committed, its answer was lost, and the database
// then stays unreachable: the ledger cannot read the row back and says Unavailable, and the
// executor does not send — no request reaches paysim — although the attempt row exists. Once the
// database is back, the lease expires, recovery makes the action CONFIRMATION_UNKNOWN and the
// reconciler finishes it with the same key: one refund.
void TestExecutionPostgres::claimWhoseCommitIsUnknownIsNotSent()
{
    ActionRecord action;
    LostCommitRig rig(m_cluster->port());
    QVERIFY(startLostCommitRig(&rig, QStringLiteral("unknown-commit"), true, &action));
    Executor &executor = *rig.executor;
    PgWireProxy &proxy = rig.proxy;
    QVERIFY(QTest::qWaitFor([&] { return logged(QStringLiteral("cannot find out whether it committed")); }, 30000));
    QCOMPARE(proxy.faultsFired(), 1);
    // The claim committed (its attempt row is there), but nobody knew: nothing was sent.
    QCOMPARE(m_ledger->reader().attempts(action.id)->size(), 1);
    QCOMPARE(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 0);
    QCOMPARE(m_ledger->reader().action(action.id)->state, ActionState::Executing);

    proxy.setRefusing(false);
    QVERIFY(QTest::qWaitFor([&] { return m_ledger->reader().action(action.id)->state == ActionState::Completed; }, 30000));
    executor.stop();
    const auto attempts = m_ledger->reader().attempts(action.id);
    QVERIFY(attempts->size() >= 2); // the unsent one, finished as unknown by recovery; the retry
    QCOMPARE(attempts->first().outcome, Attempt::Outcome::Unknown);
    checkOnceWithOneKey(action.id);
}

void TestExecutionPostgres::pausedOwnerIsFenced_data()
{
    QTest::addColumn<bool>("postgres");
    QTest::newRow("postgres: two processes on one database") << true;
    QTest::newRow("sqlite: two processes on one file") << false;
}

void TestExecutionPostgres::pausedOwnerIsFenced()
{
    QFETCH(bool, postgres);
    const QString where = location(postgres);
    QVERIFY(!where.isEmpty());
    m_ledger = openLedger(where);
    QVERIFY(m_ledger);
    // paysim commits the refund at once and answers 1.5 s later: the owner's request is in flight.
    QVERIFY(m_sim->addFault(QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("delay_after_commit")},
                                        {QStringLiteral("delay_ms"), 1500}}));
    // Timeout 1 s, lease 3 s (the least the configuration allows for it).
    const QStringList timing{QStringLiteral("--workers"), QStringLiteral("1"), QStringLiteral("--timeout-ms"),
                             QStringLiteral("1000"), QStringLiteral("--lease-ms"), QStringLiteral("3000")};
    QProcess *owner = startChild(where, QStringLiteral("owner"), timing);
    QVERIFY(waitForOutput(owner, "started"));
    const ActionRecord action = approvedRefund(*m_ledger, m_charge, 4000, QStringLiteral("fenced"));
    QVERIFY(!action.id.isEmpty());
    QVERIFY(QTest::qWaitFor([&] { return m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")) == 1; },
                            10000));
    {
        // On SQLite a process stopped inside a write transaction would hold the file's lock until
        // it wakes (PostgreSQL ends such a session after idle_in_transaction_session_timeout): the
        // owner is stopped while this test holds the write lock, so it holds none itself.
        std::optional<QSqlDatabase> gate;
        if (!postgres) {
            gate = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("write-gate"));
            gate->setDatabaseName(where);
            QVERIFY(gate->open());
            QSqlQuery lock(*gate);
            QVERIFY(lock.exec(QStringLiteral("PRAGMA busy_timeout = 10000")));
            QVERIFY(lock.exec(QStringLiteral("BEGIN IMMEDIATE")));
        }
        QCOMPARE(::kill(pid_t(owner->processId()), SIGSTOP), 0); // a GC pause, a debugger, a slow disk
        if (gate) {
            QSqlQuery(*gate).exec(QStringLiteral("ROLLBACK"));
            gate->close();
            gate.reset();
            QSqlDatabase::removeDatabase(QStringLiteral("write-gate"));
        }
    }
    const auto claimed = m_ledger->reader().attempts(action.id);
    QCOMPARE(claimed->size(), 1);
    QVERIFY(claimed->first().executor.startsWith(QStringLiteral("owner")));

    // The other instance rescues the expired lease and reconciles: paysim has the refund.
    QProcess *rescuer = startChild(where, QStringLiteral("rescuer"), timing);
    QVERIFY(waitForOutput(rescuer, "started"));
    QVERIFY(QTest::qWaitFor([&] { return m_ledger->reader().action(action.id)->state == ActionState::Completed; }, 20000));
    const auto audit = m_ledger->reader().audit(action.id);
    QVERIFY(std::any_of(audit->cbegin(), audit->cend(), [](const AuditEvent &e) { return e.event == u"recovered"; }));
    const auto attemptsBefore = m_ledger->reader().attempts(action.id);
    const qint64 lastSeqBefore = *m_ledger->reader().latestAuditSeq();

    // The owner wakes with its answer (or its timeout) and tries to record it: refused.
    QCOMPARE(::kill(pid_t(owner->processId()), SIGCONT), 0);
    QVERIFY(waitForOutput(owner, QStringLiteral("\"%1\" attempt 1 could not be recorded by").arg(action.id).toUtf8()));
    const QByteArray said = m_output.value(owner);
    QVERIFY2(said.contains("no longer holds the lease") || said.contains("already finished"), said.constData());
    qInfo("the woken owner was refused with: %s",
          said.contains("no longer holds the lease") ? "LeaseLost" : "Conflict (the attempt was already finished)");
    QCOMPARE(*m_ledger->reader().latestAuditSeq(), lastSeqBefore); // nothing recorded
    const auto attemptsAfter = m_ledger->reader().attempts(action.id);
    QCOMPARE(attemptsAfter->size(), attemptsBefore->size());
    for (qsizetype i = 0; i < attemptsAfter->size(); ++i) {
        QCOMPARE(attemptsAfter->at(i).outcome, attemptsBefore->at(i).outcome);
        QCOMPARE(attemptsAfter->at(i).finishedAt, attemptsBefore->at(i).finishedAt);
    }
    QFile stop(m_dir->filePath(QStringLiteral("stop")));
    QVERIFY(stop.open(QIODevice::WriteOnly));
    stop.close();
    for (QProcess *child : {owner, rescuer})
        QVERIFY(QTest::qWaitFor([child] { return child->state() == QProcess::NotRunning; }, 10000));
    QCOMPARE(m_sim->requestsTo(QStringLiteral("POST"), QStringLiteral("/v1/refunds")), 1); // reconciled, not resent
    checkOnceWithOneKey(action.id);
}

QTEST_GUILESS_MAIN(TestExecutionPostgres)
#include "tst_execution_postgres.moc"
