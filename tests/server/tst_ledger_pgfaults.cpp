// Issue 13: the ledger on PostgreSQL when the database misbehaves. A private cluster
// (tests/support/pgcluster.h) per test binary, a fresh database per test:
//  - pg_terminate_backend of the ledger's connections, in the middle of a transaction and while
//    several threads work: the next call reconnects; a transaction that died left nothing behind;
//  - a restart (fast, immediate) while threads work: Unavailable while down, the same Ledger
//    object works again after the start, nothing half-written;
//  - a lost COMMIT through a relay that cuts the wire around it (tests/support/pgwireproxy.h):
//    committed and read back, never arrived and retried, or unknown (Unavailable);
//  - a lost COMMIT whose transaction id another transaction committed (an id handed out again
//    after a crash; LedgerDatabase's test hook rolls back instead of committing): the read-back
//    trusts only the transaction's own last audit row, and runs it again;
//  - several processes (ledger_claimer) claiming one set of actions; a fork and a gap in the audit
//    chain inserted by raw SQL are found by verify and by `countersignd audit verify`;
//  - TRUNCATE of the append-only tables refused by the triggers;
//  - the deployment of docs/DEPLOYMENT.md "Roles": instances as a role that does not own the
//    tables work, and cannot switch the triggers off.

#include "server/ledger/auditchain.h"
#include "server/ledger/ledger.h"
#include "server/ledger/migrations.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/pgcluster.h"
#include "tests/support/pgwireproxy.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;
using Code = LedgerError::Code;

namespace {

LedgerError insertProbe(QSqlDatabase &db, const QDateTime &)
{
    QSqlQuery q(db);
    return q.exec(QStringLiteral("INSERT INTO probe VALUES (1)")) ? LedgerError()
                                                                   : LedgerError(Code::Storage, q.lastError().text());
}

// Mirrors LedgerDatabase::Options::unavailableRetries (3): reconnects before a call gives up.
constexpr int kUnavailableRetries = 3;

bool isApprovable(const LedgerResult<ActionRecord> &a)
{
    return a.ok() && a->state == ActionState::Pending;
}

} // namespace

// Worker threads that propose, approve and claim actions of their own until stopped, counting
// the calls that succeeded per action; a call may fail only with Unavailable (the database is
// gone) or, after a lost session, with what its retry then finds.
struct Workload
{
    struct Tally
    {
        QHash<QString, int> succeeded; // action id -> successful writes
        int unavailable = 0;
        QStringList unexpected;
    };

    Ledger &ledger;
    std::atomic<bool> stop{false};
    std::atomic<int> operations{0};
    std::atomic<int> unavailable{0};
    std::vector<Tally> tallies;
    std::vector<std::thread> threads;

    Workload(Ledger &l, int threadCount) : ledger(l), tallies(size_t(threadCount))
    {
        for (int t = 0; t < threadCount; ++t)
            threads.emplace_back([this, t] { run(t); });
    }
    ~Workload() { join(); }

    void join()
    {
        stop = true;
        for (std::thread &thread : threads) {
            if (thread.joinable())
                thread.join();
        }
    }

    void note(Tally &tally, const QString &id, const LedgerError &error)
    {
        ++operations;
        if (error.ok()) {
            ++tally.succeeded[id];
        } else if (error.code() == Code::Unavailable) {
            ++tally.unavailable;
            ++unavailable;
        } else {
            tally.unexpected << id + QStringLiteral(": ") + error.toString();
        }
    }

    void run(int t)
    {
        Tally &tally = tallies.at(size_t(t));
        const QString executor = QStringLiteral("worker-%1").arg(t);
        for (int i = 0; !stop; ++i) {
            const auto proposed = ledger.proposals().propose(sampleInput(QStringLiteral("w%1-%2").arg(t).arg(i)), agent());
            if (!proposed.ok()) {
                note(tally, QString(), proposed.error());
                continue;
            }
            const QString id = proposed->record.id;
            note(tally, id, {});
            const auto approved = ledger.approvals().approve(id, approver(), QStringLiteral("intended"), proposed->record.stateVersion);
            note(tally, id, approved.ok() ? LedgerError() : approved.error());
            if (!approved.ok())
                continue;
            const auto claimed = ledger.execution().claim(id, executor, 30s);
            note(tally, id, claimed.ok() ? LedgerError() : claimed.error());
        }
    }
};

class TestLedgerPostgres : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void terminatedConnectionReconnects();
    void terminatedMidTransactionLeavesNothing();
    void chainTailAfterTheLock();
    void terminatedWhileThreadsWork();
    void restartWhileThreadsWork_data();
    void restartWhileThreadsWork();
    void lostCommitThatCommittedIsReadBack_data();
    void lostCommitThatCommittedIsReadBack();
    void lostCommitThatNeverArrivedIsRetried();
    void lostCommitUnknownIsUnavailable();
    void lostCommitOfAnIdHandedOutAgain_data();
    void lostCommitOfAnIdHandedOutAgain();
    void processesClaimEachActionOnce();
    void verifyFindsForkAndGap_data();
    void verifyFindsForkAndGap();
    void truncateIsRefused_data();
    void truncateIsRefused();
    void nonOwnerRoleCannotBypassTheTriggers();

private:
    QString freshDatabase();
    std::unique_ptr<Ledger> openLedger(const QString &uri);
    QStringList proposedActions(Ledger &ledger, int count, const QString &prefix);
    QStringList approvedActions(Ledger &ledger, int count, const QString &prefix);
    qint64 scalar(const QString &sql);
    QSqlDatabase rawConnection(const QString &name) const;
    static void closeRawConnection(QSqlDatabase *db);
    QString proxiedUri(const PgWireProxy &proxy) const;
    void checkNothingHalfWritten(const Workload &workload, const QHash<QString, int> &alsoSucceeded = {});

    std::unique_ptr<PgCluster> m_cluster;
    QString m_database;
    QString m_uri;
    std::unique_ptr<Ledger> m_ledger;
    int m_databases = 0;
};

void TestLedgerPostgres::initTestCase()
{
    m_cluster = std::make_unique<PgCluster>();
    QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
}

void TestLedgerPostgres::init()
{
    if (!m_cluster->isRunning())
        QVERIFY2(m_cluster->startAgain(), qPrintable(m_cluster->errorString())); // a failed test left it down
    m_database = freshDatabase();
    QVERIFY(!m_database.isEmpty());
    m_uri = m_cluster->uri(m_database);
    m_ledger = openLedger(m_uri);
    QVERIFY(m_ledger);
}

void TestLedgerPostgres::cleanup()
{
    m_ledger.reset();
}

QString TestLedgerPostgres::freshDatabase()
{
    const QString name = QStringLiteral("resilience_%1").arg(++m_databases);
    return m_cluster->createDatabase(name).isEmpty() ? QString() : name;
}

std::unique_ptr<Ledger> TestLedgerPostgres::openLedger(const QString &uri)
{
    auto ledger = std::make_unique<Ledger>();
    Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false;
    const LedgerError opened = ledger->open(uri, options);
    if (!opened.ok()) {
        qWarning() << "open" << uri << opened.toString();
        return nullptr;
    }
    return ledger;
}

QStringList TestLedgerPostgres::proposedActions(Ledger &ledger, int count, const QString &prefix)
{
    QStringList ids;
    for (int i = 0; i < count; ++i) {
        const auto p = ledger.proposals().propose(sampleInput(prefix + QString::number(i)), agent());
        if (!p.ok())
            return {};
        ids << p->record.id;
    }
    return ids;
}

QStringList TestLedgerPostgres::approvedActions(Ledger &ledger, int count, const QString &prefix)
{
    QStringList ids;
    for (const QString &id : proposedActions(ledger, count, prefix)) {
        const auto action = ledger.reader().action(id);
        if (!isApprovable(action) || !ledger.approvals().approve(id, approver(), QStringLiteral("intended"), action->stateVersion).ok())
            return {};
        ids << id;
    }
    return ids;
}

// A connection of its own to the test's database, outside the ledger (open it on the thread that uses it).
QSqlDatabase TestLedgerPostgres::rawConnection(const QString &name) const
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
    db.setHostName(PgCluster::host());
    db.setPort(m_cluster->port());
    db.setUserName(PgCluster::superuser());
    db.setDatabaseName(m_database);
    return db;
}

void TestLedgerPostgres::closeRawConnection(QSqlDatabase *db)
{
    const QString name = db->connectionName();
    db->close();
    *db = QSqlDatabase();
    QSqlDatabase::removeDatabase(name);
}

qint64 TestLedgerPostgres::scalar(const QString &sql)
{
    const PgCluster::PsqlResult result = m_cluster->psql(m_database, sql);
    if (!result.ok)
        qWarning() << sql << result.error;
    bool number = false;
    const qint64 value = result.output.trimmed().toLongLong(&number);
    return result.ok && number ? value : -1;
}

QString TestLedgerPostgres::proxiedUri(const PgWireProxy &proxy) const
{
    return QStringLiteral("postgresql://%1@127.0.0.1:%2/%3").arg(PgCluster::superuser()).arg(proxy.port()).arg(m_database);
}

// The ledger's sessions are terminated between calls: the next call of every kind reconnects —
// the reads that take the thread's connection directly (the queue, counts, the audit tail) as
// well as those that go through LedgerDatabase::read and the writes.
void TestLedgerPostgres::terminatedConnectionReconnects()
{
    const QStringList ids = proposedActions(*m_ledger, 2, QStringLiteral("t-"));
    QCOMPARE(ids.size(), 2);
    auto terminate = [&] { return m_cluster->terminateBackends(m_database, QStringLiteral("countersignd%")); };
    QVERIFY(terminate() >= 1);
    const auto tail = m_ledger->reader().latestAuditSeq();
    QVERIFY2(tail.ok(), qPrintable(tail.error().toString()));
    QCOMPARE(*tail, 2);
    QVERIFY(terminate() >= 1);
    const auto page = m_ledger->reader().list(ActionReader::ListQuery());
    QVERIFY2(page.ok(), qPrintable(page.error().toString()));
    QVERIFY(terminate() >= 1);
    const auto counts = m_ledger->reader().counts(QString());
    QVERIFY2(counts.ok(), qPrintable(counts.error().toString()));
    QCOMPARE(counts->value(ActionState::Pending), 2);
    QVERIFY(terminate() >= 1);
    QVERIFY(m_ledger->reader().action(ids.at(0)).ok());
    QVERIFY(terminate() >= 1);
    const auto action = m_ledger->reader().action(ids.at(1));
    QVERIFY(action.ok());
    QVERIFY(terminate() >= 1);
    QVERIFY(m_ledger->approvals().approve(ids.at(1), approver(), QStringLiteral("intended"), action->stateVersion).ok()); // a write
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM approvals")), 1);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

// An approval whose session is terminated while its transaction is open — after its rows were
// written, while it waits for the audit chain's lock (held here) — leaves no approval row, no
// audit row and no state change, however often it is retried; once the lock is free it commits
// exactly once.
void TestLedgerPostgres::terminatedMidTransactionLeavesNothing()
{
    const QStringList ids = proposedActions(*m_ledger, 1, QStringLiteral("m-"));
    QCOMPARE(ids.size(), 1);
    const QString id = ids.first();
    const auto before = m_ledger->reader().action(id);
    QVERIFY(before.ok());
    const qint64 auditBefore = scalar(QStringLiteral("SELECT count(*) FROM audit"));

    QSqlDatabase holder = rawConnection(QStringLiteral("chain-lock-holder"));
    QVERIFY2(holder.open(), qPrintable(holder.lastError().text()));
    auto releaseHolder = qScopeGuard([&] { closeRawConnection(&holder); });
    QSqlQuery lock(holder);
    QVERIFY(lock.exec(QStringLiteral("SELECT pg_advisory_lock(%1)").arg(AuditChain::kChainLockKey)));

    // The approval runs on a thread of its own; each try blocks on the chain lock and is
    // terminated there — exactly when its approval row and action update are written but not committed.
    std::atomic<bool> done{false};
    LedgerResult<ActionRecord> result = LedgerError(Code::Storage, QStringLiteral("not run"));
    std::thread approver([&] {
        result = m_ledger->approvals().approve(id, cs::test::approver(), QStringLiteral("intended"), before->stateVersion);
        done = true;
    });
    auto joinApprover = qScopeGuard([&] { approver.join(); });
    int terminated = 0;
    const QString waitingOnChain = QStringLiteral(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'countersignd%'"
        " AND wait_event_type = 'Lock' AND wait_event = 'advisory'");
    while (!done) {
        QVERIFY(QTest::qWaitFor([&] { return done || scalar(waitingOnChain) == 1; }, 10000));
        if (done)
            break;
        QVERIFY2(terminated <= kUnavailableRetries, "more tries than the retry bound");
        // The approval's writes are in its open transaction: invisible to everybody else.
        QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM approvals")), 0);
        QVERIFY(m_cluster->terminateBackends(m_database, QStringLiteral("countersignd%")) >= 1);
        ++terminated;
    }
    joinApprover.dismiss();
    approver.join();
    QCOMPARE(terminated, kUnavailableRetries + 1);
    QCOMPARE(result.code(), Code::Unavailable);
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM approvals")), 0);
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM audit")), auditBefore);
    const auto after = m_ledger->reader().action(id);
    QVERIFY(after.ok());
    QCOMPARE(after->state, ActionState::Pending);
    QCOMPARE(after->stateVersion, before->stateVersion);

    QVERIFY(lock.exec(QStringLiteral("SELECT pg_advisory_unlock(%1)").arg(AuditChain::kChainLockKey)));
    const auto approved = m_ledger->approvals().approve(id, cs::test::approver(), QStringLiteral("intended"), before->stateVersion);
    QVERIFY2(approved.ok(), qPrintable(approved.error().toString()));
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM approvals")), 1);
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM audit")), auditBefore + 1);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

// AuditChain::flush takes the chain's lock and reads its tail in one call
// (countersign_chain_tail, migration 8). A writer that waited for the lock must read the tail
// committed by the lock's holder while it waited — a tail read in the snapshot of the calling
// statement, taken before the wait, would miss it. The holder's row is a raw copy of the last
// row (so this test's database ends with a forked chain; it is dropped with the cluster).
void TestLedgerPostgres::chainTailAfterTheLock()
{
    QCOMPARE(approvedActions(*m_ledger, 1, QStringLiteral("t-")).size(), 1);
    const qint64 last = scalar(QStringLiteral("SELECT max(seq) FROM audit"));
    QVERIFY(last > 0);

    QSqlDatabase holder = rawConnection(QStringLiteral("chain-tail-holder"));
    QVERIFY2(holder.open(), qPrintable(holder.lastError().text()));
    auto releaseHolder = qScopeGuard([&] { closeRawConnection(&holder); });
    QSqlQuery h(holder);
    QVERIFY(h.exec(QStringLiteral("BEGIN")));
    QVERIFY(h.exec(QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(AuditChain::kChainLockKey)));

    std::atomic<qint64> seen{-1};
    QString waiterError;
    std::thread waiter([&] {
        QSqlDatabase db = rawConnection(QStringLiteral("chain-tail-waiter"));
        if (db.open()) {
            QSqlQuery q(db);
            if (q.exec(QStringLiteral("BEGIN"))
                && q.exec(QStringLiteral("SELECT tail_seq FROM countersign_chain_tail(%1, 'chain_tail_test')")
                              .arg(AuditChain::kChainLockKey))
                && q.next()) {
                seen = q.value(0).toLongLong();
            } else {
                waiterError = q.lastError().text();
            }
            q.exec(QStringLiteral("ROLLBACK"));
        } else {
            waiterError = db.lastError().text();
        }
        closeRawConnection(&db);
        if (waiterError.isEmpty() && seen < 0)
            waiterError = QStringLiteral("no row");
    });
    auto joinWaiter = qScopeGuard([&] { waiter.join(); });
    const QString waiting = QStringLiteral("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                           " AND wait_event_type = 'Lock' AND wait_event = 'advisory'");
    QVERIFY(QTest::qWaitFor([&] { return scalar(waiting) == 1; }, 10000));
    QVERIFY2(h.exec(QStringLiteral("INSERT INTO audit (seq, action_id, at, actor, event, reason, before_json, after_json,"
                                   " prev_hash, hash) SELECT seq + 1, action_id, at, actor, event, reason, before_json,"
                                   " after_json, hash, hash FROM audit WHERE seq = %1").arg(last)),
             qPrintable(h.lastError().text()));
    QVERIFY(h.exec(QStringLiteral("COMMIT")));
    joinWaiter.dismiss();
    waiter.join();
    QVERIFY2(waiterError.isEmpty(), qPrintable(waiterError));
    QCOMPARE(seen.load(), last + 1);
}

// Every action's audit rows are exactly the writes that reported success, and its rows agree with
// its state: nothing half-written, nothing written twice, nothing reported that is not there.
void TestLedgerPostgres::checkNothingHalfWritten(const Workload &workload, const QHash<QString, int> &alsoSucceeded)
{
    QHash<QString, int> succeeded = alsoSucceeded;
    for (const auto &tally : workload.tallies) {
        QVERIFY2(tally.unexpected.isEmpty(), qPrintable(tally.unexpected.join(QStringLiteral("; "))));
        for (auto it = tally.succeeded.cbegin(); it != tally.succeeded.cend(); ++it)
            succeeded[it.key()] += it.value();
    }
    const PgCluster::PsqlResult rows = m_cluster->psql(
        m_database, QStringLiteral("SELECT a.id, (SELECT count(*) FROM audit WHERE action_id = a.id), a.state,"
                                   " (SELECT count(*) FROM approvals WHERE action_id = a.id),"
                                   " (SELECT count(*) FROM attempts WHERE action_id = a.id) FROM actions a"));
    QVERIFY2(rows.ok, qPrintable(rows.error));
    for (const QString &line : rows.output.split(u'\n', Qt::SkipEmptyParts)) {
        const QStringList f = line.split(u'|');
        QCOMPARE(f.size(), 5);
        // PENDING: proposed, perhaps approved (one approval row); EXECUTING: approved and claimed.
        const int approvals = f.at(3).toInt();
        const int attempts = f.at(4).toInt();
        QVERIFY2(f.at(2) == u"PENDING" || f.at(2) == u"EXECUTING", qPrintable(line));
        QVERIFY2(approvals <= 1 && attempts == (f.at(2) == u"EXECUTING" ? 1 : 0), qPrintable(line));
        QVERIFY2(attempts == 0 || approvals == 1, qPrintable(line));
        QCOMPARE(f.at(1).toInt(), 1 + approvals + attempts);
        QVERIFY2(f.at(1).toInt() == succeeded.value(f.at(0)), qPrintable(line + QStringLiteral(": %1 writes reported").arg(succeeded.value(f.at(0)))));
        succeeded.remove(f.at(0));
    }
    QVERIFY2(succeeded.isEmpty(), "a write reported success but is not in the ledger");
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

// Four threads write while every session of the ledger is terminated again and again.
void TestLedgerPostgres::terminatedWhileThreadsWork()
{
    constexpr int rounds = 12;
    Workload workload(*m_ledger, 4);
    int terminatedSessions = 0;
    for (int round = 0; round < rounds; ++round) {
        const int before = workload.operations.load();
        QVERIFY(QTest::qWaitFor([&] { return workload.operations.load() >= before + 6; }, 20000));
        const int n = m_cluster->terminateBackends(m_database, QStringLiteral("countersignd%"));
        QVERIFY(n >= 0);
        terminatedSessions += n;
    }
    const int before = workload.operations.load();
    QVERIFY(QTest::qWaitFor([&] { return workload.operations.load() >= before + 12; }, 20000)); // working again
    workload.join();
    qInfo("%d operations, %d sessions terminated, %d calls unavailable", workload.operations.load(), terminatedSessions,
          workload.unavailable.load());
    QVERIFY(terminatedSessions >= rounds);
    checkNothingHalfWritten(workload);
}

void TestLedgerPostgres::restartWhileThreadsWork_data()
{
    QTest::addColumn<bool>("immediate");
    QTest::newRow("fast shutdown") << false;
    QTest::newRow("immediate shutdown (a crash)") << true;
}

// Threads write while the server stops: while it is down every call answers Unavailable; after
// startAgain the same Ledger object goes on, and nothing is half-written.
void TestLedgerPostgres::restartWhileThreadsWork()
{
    QFETCH(bool, immediate);
    const QStringList ids = proposedActions(*m_ledger, 1, QStringLiteral("r-"));
    QCOMPARE(ids.size(), 1);
    Workload workload(*m_ledger, 3);
    QVERIFY(QTest::qWaitFor([&] { return workload.operations.load() >= 20; }, 20000));
    QVERIFY(immediate ? m_cluster->stopImmediate() : m_cluster->stop());

    // Down: reads and writes of this thread answer Unavailable (after their bounded reconnects).
    const auto read = m_ledger->reader().action(ids.first());
    QCOMPARE(read.code(), Code::Unavailable);
    const auto written = m_ledger->proposals().propose(sampleInput(QStringLiteral("while-down")), agent());
    QCOMPARE(written.code(), Code::Unavailable);
    const int unavailableBefore = workload.unavailable.load();
    QVERIFY(QTest::qWaitFor([&] { return workload.unavailable.load() >= unavailableBefore + 3; }, 20000));

    QVERIFY2(m_cluster->startAgain(), qPrintable(m_cluster->errorString()));
    QVERIFY(m_ledger->reader().action(ids.first()).ok());
    QVERIFY(m_ledger->proposals().propose(sampleInput(QStringLiteral("after-restart")), agent()).ok());
    const int before = workload.operations.load();
    QVERIFY(QTest::qWaitFor([&] { return workload.operations.load() >= before + 12; }, 20000));
    workload.join();
    qInfo("%d operations, %d calls unavailable", workload.operations.load(), workload.unavailable.load());
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM actions WHERE client_reference = 'while-down'")), 0);
    // This thread's two proposals, besides the workers' writes.
    QHash<QString, int> mine{{ids.first(), 1}};
    const PgCluster::PsqlResult afterRestart =
        m_cluster->psql(m_database, QStringLiteral("SELECT id FROM actions WHERE client_reference = 'after-restart'"));
    QVERIFY(afterRestart.ok && !afterRestart.output.isEmpty());
    mine.insert(afterRestart.output.trimmed(), 1);
    checkNothingHalfWritten(workload, mine);
}

void TestLedgerPostgres::lostCommitThatCommittedIsReadBack_data()
{
    QTest::addColumn<bool>("withAudit");
    QTest::newRow("a claim (audit rows, the chain's lock)") << true;
    QTest::newRow("a plain write (no audit row)") << false;
}

// The server got COMMIT and committed; the answer never came back. write() asks the database on
// a new connection. A claim: its id committed and its last audit row is there with its hash, so
// write() reports success; the row is there once (a write that ran again would find the action
// EXECUTING, IllegalTransition). A plain write leaves no audit row: "committed" about its id
// could be about another transaction that got the id after a crash, so write() does not claim a
// success it cannot prove — Unavailable, the outcome unknown — and does not run it again either
// (it did commit: one row).
void TestLedgerPostgres::lostCommitThatCommittedIsReadBack()
{
    QFETCH(bool, withAudit);
    const QStringList ids = approvedActions(*m_ledger, 1, QStringLiteral("c-"));
    QCOMPARE(ids.size(), 1);
    QCOMPARE(scalar(QStringLiteral("CREATE TABLE probe (n INT); SELECT 0")), 0);
    PgWireProxy proxy(m_cluster->port());
    QVERIFY(proxy.start());
    auto ledger = openLedger(proxiedUri(proxy));
    QVERIFY(ledger);
    proxy.armCommitFault(PgWireProxy::CommitFault::AnswerLost);
    if (withAudit) {
        const auto claimed = ledger->execution().claim(ids.first(), QStringLiteral("exec-1"), 30s);
        QVERIFY2(claimed.ok(), qPrintable(claimed.error().toString()));
        QCOMPARE(claimed->attempt.seq, 1);
    } else {
        const LedgerError wrote = ledger->database().write("probe", insertProbe);
        QCOMPARE(wrote.code(), Code::Unavailable);
        QVERIFY2(wrote.message().contains(QStringLiteral("no audit row")), qPrintable(wrote.toString()));
    }
    QCOMPARE(proxy.faultsFired(), 1);
    QVERIFY(proxy.connectionsAccepted() >= 2); // the status was asked on a new connection
    if (withAudit) {
        QCOMPARE(m_ledger->reader().attempts(ids.first())->size(), 1);
        QCOMPARE(m_ledger->reader().action(ids.first())->state, ActionState::Executing);
    } else {
        QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM probe")), 1);
    }
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

// COMMIT never reached the server: the transaction rolled back there, and write() runs it again
// on a new connection — the row is there once.
void TestLedgerPostgres::lostCommitThatNeverArrivedIsRetried()
{
    const QStringList ids = approvedActions(*m_ledger, 1, QStringLiteral("n-"));
    QCOMPARE(ids.size(), 1);
    PgWireProxy proxy(m_cluster->port());
    QVERIFY(proxy.start());
    auto ledger = openLedger(proxiedUri(proxy));
    QVERIFY(ledger);
    const qint64 auditBefore = scalar(QStringLiteral("SELECT count(*) FROM audit"));
    proxy.armCommitFault(PgWireProxy::CommitFault::RequestLost);
    const auto claimed = ledger->execution().claim(ids.first(), QStringLiteral("exec-1"), 30s);
    QVERIFY2(claimed.ok(), qPrintable(claimed.error().toString()));
    QCOMPARE(proxy.faultsFired(), 1);
    QVERIFY(proxy.commitsSeen() >= 2); // the lost one and the retry's
    QCOMPARE(m_ledger->reader().attempts(ids.first())->size(), 1);
    QCOMPARE(claimed->attempt.seq, 1);
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM audit")), auditBefore + 1);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

// COMMIT reached the server, the answer did not come back, and the database cannot be reached
// to ask: write() answers Unavailable — never success, never a blind retry. The claim did commit:
// its attempt row is there (EXECUTING under the lease of a caller who was told nothing is sure;
// the lease expires and recovery makes it CONFIRMATION_UNKNOWN, never a blind resend).
void TestLedgerPostgres::lostCommitUnknownIsUnavailable()
{
    const QStringList ids = approvedActions(*m_ledger, 1, QStringLiteral("u-"));
    QCOMPARE(ids.size(), 1);
    PgWireProxy proxy(m_cluster->port());
    QVERIFY(proxy.start());
    auto ledger = openLedger(proxiedUri(proxy));
    QVERIFY(ledger);
    proxy.armCommitFault(PgWireProxy::CommitFault::AnswerLost, true);
    QElapsedTimer timer;
    timer.start();
    const auto claimed = ledger->execution().claim(ids.first(), QStringLiteral("exec-1"), 1s);
    QCOMPARE(claimed.code(), Code::Unavailable);
    QVERIFY2(claimed.error().message().contains(QStringLiteral("outcome is unknown")),
             qPrintable(claimed.error().toString()));
    QCOMPARE(proxy.faultsFired(), 1);
    QVERIFY(proxy.connectionsRefused() >= 1); // it did try to ask
    qInfo("unknown after %lld ms", timer.elapsed());
    QCOMPARE(m_ledger->reader().attempts(ids.first())->size(), 1); // it had committed

    // Reachable again: the same ledger object works; recovery takes the expired lease.
    proxy.setRefusing(false);
    QVERIFY(ledger->reader().action(ids.first()).ok());
    QCOMPARE(ledger->reader().action(ids.first())->state, ActionState::Executing);
    const auto recovered = ledger->execution().recoverExpiredLeases();
    QVERIFY(recovered.ok());
    QCOMPARE(*recovered, 1);
    QCOMPARE(m_ledger->reader().action(ids.first())->state, ActionState::ConfirmationUnknown);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

void TestLedgerPostgres::lostCommitOfAnIdHandedOutAgain_data()
{
    QTest::addColumn<QString>("write");    // propose, approve, plain (no audit row), nothing (no row at all)
    QTest::addColumn<QString>("askAbout"); // committed: another transaction's id; future: one not handed out yet
    QTest::newRow("a proposal, its id committed by another") << "propose" << "committed";
    QTest::newRow("an approval, its id committed by another") << "approve" << "committed";
    QTest::newRow("a proposal, its id not handed out yet") << "propose" << "future";
    QTest::newRow("a plain write (no audit row), its id committed by another") << "plain" << "committed";
    QTest::newRow("a write that wrote nothing (no id)") << "nothing" << "own";
}

// The reused-id situation of a crash (an immediate shutdown before the transaction's WAL reached
// the disk; PostgreSQL then hands its id out again, and another transaction commits under it),
// made exact by LedgerDatabase's test hook: at the chosen write's COMMIT the transaction is rolled
// back instead, its answer reported lost, and the read-back asks about the id of a transaction
// that did commit (psql's). pg_xact_status says "committed"; the transaction's own last audit row
// is not there, so it did not commit and runs again: the proposal (the approval) exists exactly
// once and the chain verifies. An id not handed out yet ("future") did not commit either. A plain
// write has no audit row to prove it: Unavailable, never success. A write that wrote nothing has
// no id and nothing to lose: success, not run again.
void TestLedgerPostgres::lostCommitOfAnIdHandedOutAgain()
{
    QFETCH(QString, write);
    QFETCH(QString, askAbout);
    QCOMPARE(scalar(QStringLiteral("CREATE TABLE probe (n INT); SELECT 0")), 0);
    const qint64 committedElsewhere = scalar(QStringLiteral("SELECT pg_current_xact_id()")); // autocommit: committed
    QVERIFY(committedElsewhere > 0);
    QString approvable;
    qint64 approvableVersion = 0;
    if (write == u"approve") {
        const QStringList ids = proposedActions(*m_ledger, 1, QStringLiteral("h-"));
        QCOMPARE(ids.size(), 1);
        approvable = ids.first();
        approvableVersion = m_ledger->reader().action(approvable)->stateVersion;
    }
    const QByteArray operation = write == u"plain" || write == u"nothing" ? QByteArray("probe") : write.toLatin1();
    int commits = 0;
    QString ownId;
    LedgerDatabase &database = m_ledger->database();
    database.setLostCommitHookForTesting([&](const char *op, const QString &xactId) -> std::optional<QString> {
        if (operation != op || commits++ > 0)
            return std::nullopt; // other writes, and the retry, commit
        ownId = xactId;
        if (askAbout == u"committed")
            return QString::number(committedElsewhere);
        if (askAbout == u"future")
            return QString::number(xactId.toLongLong() + 1000000);
        return xactId;
    });
    auto unhook = qScopeGuard([&] { database.setLostCommitHookForTesting({}); });

    if (write == u"propose") {
        const auto proposed = m_ledger->proposals().propose(sampleInput(QStringLiteral("reused-id")), agent());
        QVERIFY2(proposed.ok(), qPrintable(proposed.error().toString()));
        QCOMPARE(commits, 2); // the lost one, then the retry's
        QVERIFY2(m_ledger->reader().action(proposed->record.id).ok(), "the proposal reported is not there");
        QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM actions WHERE client_reference = 'reused-id'")), 1);
        QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM audit WHERE action_id = '%1'").arg(proposed->record.id)), 1);
    } else if (write == u"approve") {
        const auto approved = m_ledger->approvals().approve(approvable, approver(), QStringLiteral("intended"), approvableVersion);
        QVERIFY2(approved.ok(), qPrintable(approved.error().toString()));
        QCOMPARE(commits, 2);
        QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM approvals WHERE action_id = '%1'").arg(approvable)), 1);
        QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM audit WHERE action_id = '%1'").arg(approvable)), 2);
        QVERIFY(m_ledger->execution().claim(approvable, QStringLiteral("exec-1"), 30s).ok()); // it is approved
    } else if (write == u"plain") {
        const LedgerError wrote = database.write("probe", insertProbe);
        QCOMPARE(wrote.code(), Code::Unavailable);
        QVERIFY2(wrote.message().contains(QStringLiteral("no audit row")), qPrintable(wrote.toString()));
        QCOMPARE(commits, 1); // not run again: it might have committed
        QVERIFY(!ownId.isEmpty());
        QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM probe")), 0);
    } else {
        const LedgerError wrote = database.write("probe", [](QSqlDatabase &db, const QDateTime &) {
            QSqlQuery q(db);
            return q.exec(QStringLiteral("SELECT count(*) FROM probe")) ? LedgerError()
                                                                         : LedgerError(Code::Storage, q.lastError().text());
        });
        QVERIFY2(wrote.ok(), qPrintable(wrote.toString()));
        QCOMPARE(commits, 1);
        QVERIFY(ownId.isEmpty()); // a transaction that wrote nothing has no id
    }
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

// Invariant 8 across processes on one database: six ledger_claimer processes claim from the same
// 120 approved actions at once until none is left; each action is claimed exactly once, and the
// one audit chain has no fork and no gap.
void TestLedgerPostgres::processesClaimEachActionOnce()
{
    constexpr int processes = 6;
    constexpr int actions = 120;
    const QStringList ids = approvedActions(*m_ledger, actions, QStringLiteral("p-"));
    QCOMPARE(ids.size(), actions);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString startFile = dir.filePath(QStringLiteral("go"));
    std::vector<std::unique_ptr<QProcess>> children;
    for (int i = 0; i < processes; ++i) {
        auto child = std::make_unique<QProcess>();
        child->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child->start(QStringLiteral(LEDGER_CLAIMER_PATH),
                     {QStringLiteral("--db"), m_uri, QStringLiteral("--executor"), QStringLiteral("proc-%1").arg(i),
                      QStringLiteral("--mode"), QStringLiteral("claim-all"), QStringLiteral("--start-file"), startFile});
        QVERIFY(child->waitForStarted(5000));
        children.push_back(std::move(child));
    }
    for (auto &child : children) {
        while (!child->canReadLine())
            QVERIFY2(child->waitForReadyRead(10000), "child never became ready");
        QCOMPARE(child->readLine().trimmed(), QByteArray("ready"));
    }
    {
        QFile go(startFile);
        QVERIFY(go.open(QIODevice::WriteOnly));
    }
    QHash<QString, QString> claimedBy;
    int busiest = 0;
    for (int i = 0; i < processes; ++i) {
        QProcess &child = *children.at(size_t(i));
        QVERIFY(child.waitForFinished(60000));
        QCOMPARE(child.exitCode(), 0);
        const QStringList lines = QString::fromUtf8(child.readAll()).split(u'\n', Qt::SkipEmptyParts);
        QVERIFY(!lines.isEmpty());
        QVERIFY2(lines.last().startsWith(QStringLiteral("done ")), qPrintable(lines.last()));
        int mine = 0;
        for (const QString &line : lines) {
            QVERIFY2(!line.startsWith(QStringLiteral("error ")), qPrintable(line));
            if (!line.startsWith(QStringLiteral("claimed ")))
                continue;
            const QString id = line.section(u' ', 1, 1);
            QVERIFY2(!claimedBy.contains(id), qPrintable(id + QStringLiteral(" claimed twice")));
            claimedBy.insert(id, QStringLiteral("proc-%1").arg(i));
            ++mine;
        }
        busiest = std::max(busiest, mine);
    }
    qInfo("%lld actions claimed by %d processes, the busiest claimed %d", qlonglong(claimedBy.size()), processes, busiest);
    QCOMPARE(claimedBy.size(), actions);
    QVERIFY(busiest < actions); // they really ran side by side
    for (const QString &id : ids) {
        const auto attempts = m_ledger->reader().attempts(id);
        QCOMPARE(attempts->size(), 1);
        QCOMPARE(attempts->first().executor, claimedBy.value(id));
    }
    // One chain: seqs 1..N without a hole, each prev_hash the hash of the row before.
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM audit")), scalar(QStringLiteral("SELECT max(seq) FROM audit")));
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) FROM audit a JOIN audit b ON b.seq = a.seq + 1"
                                   " WHERE b.prev_hash <> a.hash")), 0);
    QCOMPARE(scalar(QStringLiteral("SELECT count(*) - count(DISTINCT prev_hash) FROM audit")), 0);
    const auto verified = m_ledger->reader().verifyAudit();
    QVERIFY(verified->ok);
    QCOMPARE(verified->rowsChecked, scalar(QStringLiteral("SELECT count(*) FROM audit")));
}

void TestLedgerPostgres::verifyFindsForkAndGap_data()
{
    QTest::addColumn<QString>("damage");
    QTest::newRow("fork: the next seq repeats the last row's prev_hash") << "fork";
    QTest::newRow("gap: a row after a missing seq") << "gap";
}

// Raw INSERTs (the triggers refuse UPDATE and DELETE, not INSERT) of a row that forks the chain
// or leaves a hole: verify names the row, and `countersignd audit verify` fails.
void TestLedgerPostgres::verifyFindsForkAndGap()
{
    QFETCH(QString, damage);
    QCOMPARE(approvedActions(*m_ledger, 2, QStringLiteral("v-")).size(), 2);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
    const qint64 last = scalar(QStringLiteral("SELECT max(seq) FROM audit"));
    QVERIFY(last > 1);
    const qint64 seq = damage == u"fork" ? last + 1 : last + 2;
    // fork: a second successor of row last-1 (same prev_hash as row last); gap: a successor of
    // row last that skips a seq. The copied columns are a real row's.
    const QString prev = damage == u"fork" ? QStringLiteral("(SELECT prev_hash FROM audit WHERE seq = %1)").arg(last)
                                           : QStringLiteral("(SELECT hash FROM audit WHERE seq = %1)").arg(last);
    const PgCluster::PsqlResult inserted = m_cluster->psql(
        m_database, QStringLiteral("INSERT INTO audit (seq, action_id, at, actor, event, reason, before_json, after_json,"
                                   " prev_hash, hash) SELECT %1, action_id, at, actor, event, reason, before_json,"
                                   " after_json, %2, hash FROM audit WHERE seq = %3")
                        .arg(seq).arg(prev).arg(last));
    QVERIFY2(inserted.ok, qPrintable(inserted.error));
    const auto verified = m_ledger->reader().verifyAudit();
    QVERIFY(verified.ok());
    QVERIFY(!verified->ok);
    QCOMPARE(verified->firstBrokenSeq, seq);
    QVERIFY2(verified->reason.contains(damage == u"fork" ? QStringLiteral("prev_hash") : QStringLiteral("missing")),
             qPrintable(verified->reason));

    QProcess verify;
    verify.setProcessChannelMode(QProcess::MergedChannels);
    verify.start(QStringLiteral(COUNTERSIGND_BIN), {QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), m_uri});
    QVERIFY(verify.waitForFinished(30000));
    const QString output = QString::fromUtf8(verify.readAll());
    QVERIFY2(verify.exitCode() != 0, qPrintable(output));
    QVERIFY2(output.contains(QString::number(seq)), qPrintable(output));
}

void TestLedgerPostgres::truncateIsRefused_data()
{
    QTest::addColumn<QString>("statement");
    for (const char *table : {"approvals", "reconciliations", "audit", "conflicts", "attempts"})
        QTest::newRow(table) << QStringLiteral("TRUNCATE %1").arg(QLatin1String(table));
    // lookups is referenced by reconciliations: a plain TRUNCATE is refused by the foreign key
    // before any trigger runs; CASCADE gets past that and meets the triggers.
    QTest::newRow("lookups, cascading") << QStringLiteral("TRUNCATE lookups CASCADE");
    QTest::newRow("actions, cascading") << QStringLiteral("TRUNCATE actions CASCADE");
    QTest::newRow("audit, restarting identities") << QStringLiteral("TRUNCATE TABLE ONLY audit RESTART IDENTITY");
    QTest::newRow("two tables at once") << QStringLiteral("TRUNCATE attempts, approvals");
}

// Invariant 9 and the append-only tables against TRUNCATE, which fires no row trigger: the
// statement triggers refuse it, and every row is still there.
void TestLedgerPostgres::truncateIsRefused()
{
    QFETCH(QString, statement);
    const QStringList ids = approvedActions(*m_ledger, 1, QStringLiteral("x-"));
    QCOMPARE(ids.size(), 1);
    QVERIFY(m_ledger->execution().claim(ids.first(), QStringLiteral("exec-1"), 30s).ok());
    const QString counts = QStringLiteral(
        "SELECT (SELECT count(*) FROM actions) || ' ' || (SELECT count(*) FROM approvals) || ' ' ||"
        " (SELECT count(*) FROM attempts) || ' ' || (SELECT count(*) FROM audit)");
    const QString before = m_cluster->psql(m_database, counts).output;
    const PgCluster::PsqlResult truncated = m_cluster->psql(m_database, statement);
    QVERIFY2(!truncated.ok, qPrintable(statement + QStringLiteral(" was allowed")));
    QVERIFY2(truncated.error.contains(QStringLiteral("countersign:")), qPrintable(truncated.error));
    QCOMPARE(m_cluster->psql(m_database, counts).output, before);
    QVERIFY(m_ledger->reader().verifyAudit()->ok);
}

// docs/DEPLOYMENT.md "Roles: the instances do not own the tables", step by step: one role owns the
// schema and applies the migrations, the instances run as another that was granted SELECT,
// INSERT, UPDATE and DELETE on the tables. As that role the ledger works, and every way around
// the append-only triggers is refused: the row triggers themselves, DISABLE TRIGGER (only the
// owner may), session_replication_role (only a superuser may), TRUNCATE (not granted).
void TestLedgerPostgres::nonOwnerRoleCannotBypassTheTriggers()
{
    const QString database = QStringLiteral("roles");
    QVERIFY(!m_cluster->createDatabase(database).isEmpty());
    const QString ownerPassword = QStringLiteral("owner secret");
    const QString appPassword = QStringLiteral("app secret");
    QVERIFY(m_cluster->createRole(QStringLiteral("countersign_owner"), ownerPassword));
    QVERIFY(m_cluster->createRole(QStringLiteral("countersign_app"), appPassword));
    QVERIFY(m_cluster->psql(database, QStringLiteral("ALTER DATABASE roles OWNER TO countersign_owner;"
                                                     " ALTER SCHEMA public OWNER TO countersign_owner")).ok);
    QTemporaryDir dir;
    const auto passwordFile = [&dir](const QString &name, const QString &password) {
        const QString path = dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(password.toUtf8() + "\n") < 0)
            return QString();
        file.close();
        return QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner) ? path : QString();
    };
    Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false;

    // The owner migrates (pg_trgm is a trusted extension: the database's owner may create it).
    options.passwordFile = passwordFile(QStringLiteral("owner"), ownerPassword);
    {
        Ledger owner;
        const LedgerError opened = owner.open(m_cluster->uri(database, QStringLiteral("countersign_owner")), options);
        QVERIFY2(opened.ok(), qPrintable(opened.toString()));
        QCOMPARE(owner.schemaVersion(), Migrations::latestVersion());
    }
    const PgCluster::PsqlResult granted = m_cluster->psql(
        database, QStringLiteral("SET ROLE countersign_owner;"
                                 " GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO countersign_app"));
    QVERIFY2(granted.ok, qPrintable(granted.error));

    // An instance as the app role: propose, approve, claim, finish.
    options.passwordFile = passwordFile(QStringLiteral("app"), appPassword);
    Ledger app;
    const LedgerError opened = app.open(m_cluster->uri(database, QStringLiteral("countersign_app")), options);
    QVERIFY2(opened.ok(), qPrintable(opened.toString()));
    const QStringList ids = approvedActions(app, 1, QStringLiteral("role-"));
    QCOMPARE(ids.size(), 1);
    const auto claimed = app.execution().claim(ids.first(), QStringLiteral("exec-role"), 30s);
    QVERIFY2(claimed.ok(), qPrintable(claimed.error().toString()));
    ExecutionStore::AttemptResult result;
    result.outcome = Attempt::Outcome::Succeeded;
    result.httpStatus = 200;
    result.providerObjectId = QStringLiteral("re_role");
    const auto finished = app.execution().finishAttempt(ids.first(), claimed->attempt.seq, result,
                                                        Trigger::ProviderSucceeded, QStringLiteral("200"),
                                                        QStringLiteral("exec-role"));
    QVERIFY2(finished.ok(), qPrintable(finished.error().toString()));
    QVERIFY(app.reader().verifyAudit()->ok);

    // The same role, by hand: every way around the triggers is refused, and nothing changed.
    QSqlDatabase raw = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("app-role"));
    raw.setHostName(PgCluster::host());
    raw.setPort(m_cluster->port());
    raw.setUserName(QStringLiteral("countersign_app"));
    raw.setPassword(appPassword);
    raw.setDatabaseName(database);
    QVERIFY2(raw.open(), qPrintable(raw.lastError().text()));
    auto releaseRaw = qScopeGuard([&] { closeRawConnection(&raw); });
    const QString counts = QStringLiteral(
        "SELECT (SELECT count(*) FROM audit) || ' ' || (SELECT count(*) FROM attempts) || ' ' ||"
        " (SELECT string_agg(reason, ',' ORDER BY seq) FROM audit)");
    const QString before = m_cluster->psql(database, counts).output;
    const struct
    {
        const char *statement;
        const char *refusal;
    } attempts[] = {
        {"UPDATE audit SET reason = 'rewritten'", "countersign:"},
        {"DELETE FROM attempts", "countersign:"},
        {"ALTER TABLE audit DISABLE TRIGGER ALL", "must be owner"},
        {"SET session_replication_role = replica", "permission denied"},
        {"TRUNCATE audit", "permission denied"},
    };
    for (const auto &attempt : attempts) {
        QSqlQuery q(raw);
        QVERIFY2(!q.exec(QLatin1String(attempt.statement)), attempt.statement);
        QVERIFY2(q.lastError().text().contains(QLatin1String(attempt.refusal)),
                 qPrintable(QLatin1String(attempt.statement) + QStringLiteral(": ") + q.lastError().text()));
    }
    QCOMPARE(m_cluster->psql(database, counts).output, before);
    QVERIFY(app.reader().verifyAudit()->ok);
}

QTEST_GUILESS_MAIN(TestLedgerPostgres)
#include "tst_ledger_pgfaults.moc"
