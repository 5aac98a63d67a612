// Invariant 8: one executor per action, across threads and across processes. Two claimants race
// for the same action again and again; exactly one wins each time and exactly one attempt row
// exists.

#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <barrier>
#include <memory>
#include <thread>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

class TestLedgerRace : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void threadsRaceClaim();
    void threadsRaceClaimNext();
    void processesRaceClaim();

private:
    QStringList approvedActions(int count, const QString &prefix);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_store;
    QString m_path;
};

void TestLedgerRace::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    m_store = std::make_unique<Ledger>();
    QVERIFY(m_store->open(m_path).ok());
}

void TestLedgerRace::cleanup()
{
    m_store.reset();
    m_dir.reset();
}

QStringList TestLedgerRace::approvedActions(int count, const QString &prefix)
{
    QStringList ids;
    for (int i = 0; i < count; ++i) {
        const auto p = m_store->proposals().propose(sampleInput(prefix + QString::number(i)), agent());
        if (!p.ok())
            return {};
        const auto a = m_store->approvals().approve(p->record.id, approver(), QStringLiteral("ok"), p->record.stateVersion);
        if (!a.ok())
            return {};
        ids << a->id;
    }
    return ids;
}

void TestLedgerRace::threadsRaceClaim()
{
    constexpr int rounds = 200;
    const QStringList ids = approvedActions(rounds, QStringLiteral("t-"));
    QCOMPARE(ids.size(), rounds);

    // Both threads start each round together (barrier) and claim the same fresh action.
    std::barrier start(2);
    std::vector<LedgerError::Code> results[2];
    auto worker = [&](int which) {
        const QString executor = QStringLiteral("thread-%1").arg(which);
        for (int round = 0; round < rounds; ++round) {
            start.arrive_and_wait();
            const auto r = m_store->execution().claim(ids.at(round), executor, 30s);
            results[which].push_back(r.code());
        }
    };
    std::thread a(worker, 0);
    std::thread b(worker, 1);
    a.join();
    b.join();

    for (int round = 0; round < rounds; ++round) {
        const LedgerError::Code first = results[0].at(round);
        const LedgerError::Code second = results[1].at(round);
        const int winners = (first == LedgerError::Code::None) + (second == LedgerError::Code::None);
        QVERIFY2(winners == 1, qPrintable(QStringLiteral("round %1: %2 / %3").arg(round)
                                              .arg(toWire(first), toWire(second))));
        const LedgerError::Code loser = first == LedgerError::Code::None ? second : first;
        QVERIFY2(loser == LedgerError::Code::IllegalTransition || loser == LedgerError::Code::Conflict,
                 qPrintable(toWire(loser)));
        const auto attempts = m_store->reader().attempts(ids.at(round));
        QCOMPARE(attempts->size(), 1);
        QCOMPARE(toWire(m_store->reader().action(ids.at(round))->state), QStringLiteral("EXECUTING"));
    }
    QVERIFY(m_store->reader().verifyAudit()->ok);
}

void TestLedgerRace::threadsRaceClaimNext()
{
    constexpr int actions = 100;
    const QStringList ids = approvedActions(actions, QStringLiteral("n-"));
    QCOMPARE(ids.size(), actions);

    std::barrier start(2);
    QStringList claimed[2];
    std::atomic<int> failures{0};
    auto worker = [&](int which) {
        const QString executor = QStringLiteral("thread-%1").arg(which);
        for (int round = 0; round < actions; ++round) {
            start.arrive_and_wait();
            const auto r = m_store->execution().claimNext(executor, 30s);
            if (!r.ok())
                ++failures;
            else if (r->has_value())
                claimed[which] << (*r)->record.id;
        }
    };
    std::thread a(worker, 0);
    std::thread b(worker, 1);
    a.join();
    b.join();

    QCOMPARE(failures.load(), 0);
    QStringList all = claimed[0] + claimed[1];
    QCOMPARE(all.size(), actions);
    all.sort();
    all.removeDuplicates();
    QCOMPARE(all.size(), actions); // nothing claimed twice
    for (const QString &id : ids)
        QCOMPARE(m_store->reader().attempts(id)->size(), 1);
    QVERIFY(!claimed[0].isEmpty() && !claimed[1].isEmpty());
}

void TestLedgerRace::processesRaceClaim()
{
    constexpr int rounds = 20;
    const QStringList ids = approvedActions(rounds, QStringLiteral("p-"));
    QCOMPARE(ids.size(), rounds);
    int winsA = 0;
    for (int round = 0; round < rounds; ++round) {
        const QString startFile = m_dir->filePath(QStringLiteral("go-%1").arg(round));
        QProcess children[2];
        for (int i = 0; i < 2; ++i) {
            children[i].setProcessChannelMode(QProcess::ForwardedErrorChannel);
            children[i].start(QStringLiteral(LEDGER_CLAIMER_PATH),
                              {QStringLiteral("--db"), m_path, QStringLiteral("--action"), ids.at(round),
                               QStringLiteral("--executor"), QStringLiteral("proc-%1").arg(i),
                               QStringLiteral("--start-file"), startFile});
        }
        for (QProcess &child : children) {
            QVERIFY(child.waitForStarted(5000));
            while (!child.canReadLine())
                QVERIFY2(child.waitForReadyRead(10000), "child never became ready");
            QCOMPARE(child.readLine().trimmed(), QByteArray("ready"));
        }
        {
            QFile go(startFile); // both children are polling for it: they claim at the same moment
            QVERIFY(go.open(QIODevice::WriteOnly));
        }
        QStringList outputs;
        int winners = 0;
        for (int i = 0; i < 2; ++i) {
            QVERIFY(children[i].waitForFinished(20000));
            QCOMPARE(children[i].exitCode(), 0);
            const QString line = QString::fromUtf8(children[i].readAll()).trimmed();
            outputs << line;
            if (line.startsWith(QStringLiteral("won"))) {
                ++winners;
                winsA += i == 0;
                QCOMPARE(line, QStringLiteral("won 1"));
            } else {
                QVERIFY2(line.startsWith(QStringLiteral("lost illegal_transition"))
                             || line.startsWith(QStringLiteral("lost conflict")),
                         qPrintable(line));
            }
        }
        QVERIFY2(winners == 1, qPrintable(QStringLiteral("round %1: ").arg(round) + outputs.join(QStringLiteral(" / "))));
        const auto attempts = m_store->reader().attempts(ids.at(round));
        QCOMPARE(attempts->size(), 1);
        QVERIFY(attempts->first().executor.startsWith(QStringLiteral("proc-")));
    }
    qInfo("process A won %d of %d rounds", winsA, rounds);
    QVERIFY(m_store->reader().verifyAudit()->ok);
}

QTEST_GUILESS_MAIN(TestLedgerRace)
#include "tst_ledger_race.moc"
