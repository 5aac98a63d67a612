// bench_step_latency: the durable steps of execution, one at a time, on PostgreSQL and on SQLite
// in the same run (issue 13: "record before send", goal p50 <= 2 ms on PostgreSQL).
//
//   bench_step_latency [--samples N] [--warmup N] [--engine both|postgres|sqlite] [--dir PATH]
//
// Each sample is one approved PENDING action taken through the two transactions the executor
// commits around a provider request:
//   claim    the transaction that claims the action (PENDING -> EXECUTING under a lease) and
//            commits its open attempt row: the request may leave only after it returns.
//            Alternately ExecutionStore::claimNext and ExecutionStore::commitBatch with one claim
//            (the executor's committer), reported separately.
//   finish   ExecutionStore::finishAttempt: the answer recorded, the action COMPLETED.
// Beside them, two floors of each engine at the same durability: one transaction inserting one
// row into a table of its own (no triggers, no audit), and the same with a claim's number of
// round trips (four one-row SELECTs before the INSERT: seven round trips with BEGIN and COMMIT).
// Before the samples, --warmup actions go through the same two steps
// unmeasured, and the PostgreSQL ledger is then ANALYZEd: the state of a ledger that has been
// running for a minute (autovacuum analyzes a table after 50 + 10 % of its rows changed). Analyzed
// while attempts was still empty, the planner took it for empty and scanned it whole in the
// triggers' look-ups, ever longer as the samples added attempts.
// PostgreSQL is a private cluster with PostgreSQL's default durability (fsync on,
// synchronous_commit on: PgCluster::Durability::Full) on 127.0.0.1; SQLite is a ledger file in
// --dir with WAL and synchronous=FULL (the ledger's own settings). Not a test: it prints figures, and exits 1 only if a step fails.

#include "server/ledger/ledger.h"
#include "tests/bench/benchfill.h"
#include "tests/bench/benchpaysim.h"
#include "tests/bench/benchstats.h"
#include "tests/support/pgcluster.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QThread>

#include <sqlite3.h>

using namespace cs;
using namespace cs::bench;
using namespace std::chrono_literals;

namespace {

struct Series
{
    QList<double> claimNext, commitBatch, finish, floor, roundTrips;
};

double msSince(const QElapsedTimer &timer)
{
    return double(timer.nsecsElapsed()) / 1e6;
}

// One-row INSERT + COMMIT through Qt SQL on the same database (*floor); and the same transaction
// with a claim's seven round trips (*roundTrips): BEGIN, four one-row SELECTs (where a claim reads
// its candidate, updates the action, inserts the attempt and calls the chain's tail), the INSERT
// (its audit row), COMMIT.
class Floor
{
public:
    explicit Floor(QSqlDatabase db) : m_db(db), m_insert(db), m_one(db) {}

    bool prepare()
    {
        QSqlQuery q(m_db);
        return q.exec(QStringLiteral("CREATE TABLE bench_floor (i BIGINT NOT NULL, at BIGINT NOT NULL)"))
            && m_insert.prepare(QStringLiteral("INSERT INTO bench_floor (i, at) VALUES (?, ?)"))
            && m_one.prepare(QStringLiteral("SELECT ?"));
    }

    // n samples of each floor, one floor after the other.
    bool measure(int n, Series *s)
    {
        for (const auto &[selects, series] : {std::pair<int, QList<double> *>{0, &s->floor}, {4, &s->roundTrips}}) {
            for (int i = 0; i < n; ++i) {
                QElapsedTimer timer;
                timer.start();
                if (!m_db.transaction())
                    return false;
                for (int k = 0; k < selects; ++k) {
                    m_one.addBindValue(k);
                    if (!m_one.exec() || !m_one.next())
                        return false;
                }
                m_insert.addBindValue(i);
                m_insert.addBindValue(QDateTime::currentMSecsSinceEpoch());
                if (!m_insert.exec() || !m_db.commit())
                    return false;
                *series << msSince(timer);
            }
        }
        return true;
    }

private:
    QSqlDatabase m_db;
    QSqlQuery m_insert;
    QSqlQuery m_one;
};

// The samples: claim (claimNext and commitBatch alternately), then finish, one action at a time.
// Without `s`, nothing is recorded (the warm-up).
bool measureSteps(Ledger &ledger, int n, Series *s)
{
    Series ignored;
    if (!s)
        s = &ignored;
    const QString executor = QStringLiteral("bench-step");
    for (int i = 0; i < n; ++i) {
        QElapsedTimer timer;
        timer.start();
        std::optional<ExecutionStore::Claim> claim;
        if (i % 2 == 0) {
            const auto claimed = ledger.execution().claimNext(executor, 60s);
            if (!claimed.ok() || !*claimed)
                return false;
            s->claimNext << msSince(timer);
            claim = **claimed;
        } else {
            ExecutionStore::Batch batch;
            batch.claimFor = QStringList{executor};
            batch.leaseDuration = 60s;
            const auto outcome = ledger.execution().commitBatch(batch);
            if (!outcome.ok() || outcome->claims.size() != 1 || !outcome->claims.front())
                return false;
            s->commitBatch << msSince(timer);
            claim = outcome->claims.front();
        }
        ExecutionStore::AttemptResult result;
        result.outcome = Attempt::Outcome::Succeeded;
        result.httpStatus = 200;
        result.providerObjectId = QStringLiteral("re_step_%1").arg(i);
        result.providerRequestId = QStringLiteral("req_step_%1").arg(i);
        timer.start();
        const auto finished = ledger.execution().finishAttempt(claim->record.id, claim->attempt.seq, result,
                                                               Trigger::ProviderSucceeded,
                                                               QStringLiteral("provider answered 200"), executor);
        if (!finished.ok() || finished->record.state != ActionState::Completed)
            return false;
        s->finish << msSince(timer);
    }
    return true;
}

void report(const QString &engine, const QString &step, const QList<double> &v)
{
    out(QStringLiteral("%1 %2 %3 %4 %5 %6 %7")
            .arg(engine, -10)
            .arg(step, -34)
            .arg(v.size(), 6)
            .arg(percentile(v, 50), 8, 'f', 3)
            .arg(percentile(v, 90), 8, 'f', 3)
            .arg(percentile(v, 99), 8, 'f', 3)
            .arg(v.isEmpty() ? 0.0 : *std::max_element(v.cbegin(), v.cend()), 8, 'f', 3));
}

bool runPostgres(int n, int warmup, Series *s)
{
    test::PgCluster cluster(test::PgCluster::Durability::Full);
    if (!cluster.start()) {
        out(QStringLiteral("postgres: cannot start a cluster: ") + cluster.errorString());
        return false;
    }
    QStringList ids;
    const QString uri = approvedDatabase(cluster, QStringLiteral("steps"), QStringLiteral("ch_bench_steps"), warmup + n, &ids);
    if (uri.isEmpty())
        return false;
    bool ok = false;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("floor"));
        db.setHostName(test::PgCluster::host());
        db.setPort(cluster.port());
        db.setUserName(test::PgCluster::superuser());
        db.setDatabaseName(QStringLiteral("steps"));
        Ledger ledger;
        Floor floor(db);
        // The steady state of a running ledger (autovacuum has analyzed its tables with attempts
        // and audit rows in them); the ledger's session replans after the ANALYZE.
        ok = ledger.open(uri).ok() && measureSteps(ledger, warmup, nullptr)
            && cluster.psql(QStringLiteral("steps"), QStringLiteral("ANALYZE")).ok && measureSteps(ledger, n, s)
            && db.open() && floor.prepare() && floor.measure(n, s);
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("floor"));
    out(QStringLiteral("postgres: PostgreSQL %1 on 127.0.0.1:%2, fsync on, synchronous_commit on")
            .arg(cluster.psql(QStringLiteral("steps"), QStringLiteral("SHOW server_version")).output)
            .arg(cluster.port()));
    return ok;
}

bool runSqlite(const QString &dir, int n, int warmup, Series *s)
{
    const QString path = dir + QStringLiteral("/steps.db");
    bool ok = false;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("floor"));
        db.setDatabaseName(dir + QStringLiteral("/floor.db"));
        ok = db.open();
        {
            QSqlQuery pragma(db);
            ok = ok && pragma.exec(QStringLiteral("PRAGMA journal_mode=WAL")) && pragma.exec(QStringLiteral("PRAGMA synchronous=FULL"));
        }
        Ledger ledger;
        Floor floor(db);
        ok = ok && floor.prepare() && ledger.open(path).ok()
            && proposeApproved(ledger, QStringLiteral("ch_bench_steps"), warmup + n, QStringLiteral("s")).size() == warmup + n
            && measureSteps(ledger, warmup, nullptr) && measureSteps(ledger, n, s) && floor.measure(n, s);
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("floor"));
    out(QStringLiteral("sqlite: SQLite %1, a file in %2, WAL, synchronous=FULL").arg(QLatin1String(sqlite3_libversion()), dir));
    return ok;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("samples"), QStringLiteral("Actions per engine."), QStringLiteral("N"), QStringLiteral("2000")},
        {QStringLiteral("engine"), QStringLiteral("both, postgres or sqlite."), QStringLiteral("engine"), QStringLiteral("both")},
        {QStringLiteral("dir"), QStringLiteral("Folder for the SQLite files (default: a temporary one)."), QStringLiteral("path")},
        {QStringLiteral("warmup"), QStringLiteral("Actions taken through both steps, unmeasured, before the samples."),
         QStringLiteral("N"), QStringLiteral("500")},
    });
    parser.process(app);
    const int n = parser.value(QStringLiteral("samples")).toInt();
    const int warmup = parser.value(QStringLiteral("warmup")).toInt();
    const QString engine = parser.value(QStringLiteral("engine"));
    QTemporaryDir temp(parser.isSet(QStringLiteral("dir")) ? parser.value(QStringLiteral("dir")) + QStringLiteral("/steps-XXXXXX")
                                                           : QDir::tempPath() + QStringLiteral("/steps-XXXXXX"));
    out(QStringLiteral("bench_step_latency: %1 actions per engine, one at a time, after %2 unmeasured; %3, %4 cores")
            .arg(n).arg(warmup).arg(QSysInfo::prettyProductName()).arg(QThread::idealThreadCount()));
    Series pg, lite;
    bool ok = true;
    if (engine != u"sqlite")
        ok = runPostgres(n, warmup, &pg) && ok;
    if (engine != u"postgres")
        ok = runSqlite(temp.path(), n, warmup, &lite) && ok;

    out(QString());
    out(QStringLiteral("%1 %2 %3 %4 %5 %6 %7").arg(QStringLiteral("engine"), -10).arg(QStringLiteral("step (ms)"), -34)
            .arg(QStringLiteral("n"), 6).arg(QStringLiteral("p50"), 8).arg(QStringLiteral("p90"), 8)
            .arg(QStringLiteral("p99"), 8).arg(QStringLiteral("max"), 8));
    for (const auto &[name, s] : {std::pair<QString, const Series *>{QStringLiteral("postgres"), &pg},
                                  std::pair<QString, const Series *>{QStringLiteral("sqlite"), &lite}}) {
        if (s->finish.isEmpty())
            continue;
        report(name, QStringLiteral("claim: claimNext"), s->claimNext);
        report(name, QStringLiteral("claim: commitBatch (one claim)"), s->commitBatch);
        report(name, QStringLiteral("finish: finishAttempt"), s->finish);
        report(name, QStringLiteral("floor: INSERT one row + COMMIT"), s->floor);
        report(name, QStringLiteral("floor: a claim's 7 round trips"), s->roundTrips);
    }
    if (!pg.finish.isEmpty()) {
        const double claim = percentile(pg.claimNext + pg.commitBatch, 50);
        const double finish = percentile(pg.finish, 50);
        const double floor = percentile(pg.floor, 50);
        const double trips = percentile(pg.roundTrips, 50);
        out(QStringLiteral("postgres: claim p50 %1 ms, finish p50 %2 ms (goal <= 2 ms: %3); the floor's p50 %4 ms, so the"
                           " ledger's own part is %5 ms (claim) and %6 ms (finish); a claim's round trips alone"
                           " take %7 ms, so its work beyond them is %8 ms")
                .arg(claim, 0, 'f', 2).arg(finish, 0, 'f', 2)
                .arg(claim <= 2 && finish <= 2 ? QStringLiteral("met") : QStringLiteral("NOT met"))
                .arg(floor, 0, 'f', 2).arg(claim - floor, 0, 'f', 2).arg(finish - floor, 0, 'f', 2)
                .arg(trips, 0, 'f', 2).arg(claim - trips, 0, 'f', 2));
        if (!lite.finish.isEmpty())
            out(QStringLiteral("postgres / sqlite p50: claim %1x, finish %2x")
                    .arg(claim / percentile(lite.claimNext + lite.commitBatch, 50), 0, 'f', 2)
                    .arg(finish / percentile(lite.finish, 50), 0, 'f', 2));
    }
    if (!ok)
        out(QStringLiteral("A STEP FAILED"));
    return ok ? 0 : 1;
}
