// bench_executor_pg: executor throughput with 1, 2 and 4 instances (separate processes) on one
// PostgreSQL against paysim (issue 13), beside two baselines in the same run:
//   bare loop    the same claims and finishes without an executor or HTTP: threads with a libpq
//                connection each run `SELECT … FOR UPDATE SKIP LOCKED` on the same schema (its
//                triggers and indexes), claim one approved PENDING action, insert its attempt
//                (commit), finish the attempt and complete the action (commit);
//   bare client  paysim alone: the same refund requests through the same StripeClient, no ledger.
// Each uses the same number of workers in all: instances × --workers (connections, client
// threads, executor workers). Goals: executor >= 0.5 × the bare loop; more instances not slower
// than one.
//
//   bench_executor_pg [--actions N] [--workers W] [--instances 1,2,4] [--rounds R]
//
// PostgreSQL is a private cluster (PgCluster, Durability::Full: fsync and synchronous_commit on)
// on 127.0.0.1; paysim runs as a separate process (in memory, no faults); every phase gets a
// fresh database with N approved refunds (filled through the ledger, not timed) and a freshly
// reset paysim. An executor instance is this program run with --instance: a Ledger on the
// database's URI and an Executor with W workers, started on "go" on its standard input. The
// phase ends when the ledger counts N COMPLETED actions. Checks: paysim's ground truth holds
// exactly N refunds, one per action, and every action is COMPLETED. Exits 1 if a check fails.

#include "server/executor.h"
#include "server/ledger/ids.h"
#include "server/ledger/ledger.h"
#include "server/stripeclient.h"
#include "tests/bench/benchfill.h"
#include "tests/bench/benchpaysim.h"
#include "tests/bench/benchpg.h"
#include "tests/bench/benchstats.h"
#include "tests/support/pgcluster.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QSysInfo>
#include <QTextStream>
#include <QThread>

#include <atomic>
#include <memory>

using namespace cs;
using namespace cs::bench;
using namespace std::chrono_literals;

namespace {

StripeClientConfig providerConfig(const QUrl &base)
{
    StripeClientConfig config;
    config.baseUrl = base;
    config.secretKey = QByteArrayLiteral("sk_test_bench");
    config.name = QStringLiteral("paysim");
    config.requestTimeout = 10000ms;
    config.lookupTimeout = 10000ms;
    return config;
}

// ---- an executor instance (--instance) -------------------------------------------------------

// Prints "ready" with the ledger open, starts on "go", and on "stop" stops and prints
// "stats <claimed> <sent> <completed> <commits> <cpu seconds between go and stop>".
int runInstance(const QString &uri, const QUrl &provider, int workers, const QString &name)
{
    Ledger ledger;
    Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false;
    if (!ledger.open(uri, options).ok()) {
        out(QStringLiteral("open failed"));
        return 3;
    }
    const StripeClientConfig providerConf = providerConfig(provider);
    StripeClient client(providerConf);
    ExecutionConfig config;
    config.workers = workers;
    config.requestTimeout = providerConf.requestTimeout;
    config.leaseDuration = 60000ms;
    config.idlePoll = 5ms;
    config.instanceName = name;
    Executor executor(Reconciler::storesOf(ledger), client, config);
    out(QStringLiteral("ready"));
    QTextStream in(stdin);
    if (in.readLine() != u"go")
        return 4;
    const double cpu0 = selfCpu();
    QString error;
    if (!executor.start(&error)) {
        out(QStringLiteral("start failed ") + error);
        return 5;
    }
    if (in.readLine() != u"stop")
        return 6;
    executor.stop();
    const double cpu = selfCpu() - cpu0;
    const Executor::Stats s = executor.stats();
    out(QStringLiteral("stats %1 %2 %3 %4 %5").arg(s.claimed).arg(s.sent).arg(s.completed).arg(s.groupCommits).arg(cpu, 0, 'f', 3));
    return 0;
}

// ---- the parent ------------------------------------------------------------------------------

struct Context
{
    test::PgCluster *cluster = nullptr;
    PaysimAdmin *admin = nullptr;
    QUrl paysim;
    qint64 paysimPid = 0;
    QString self;
    int n = 0;
    int workers = 0;
    int phase = 0;
};

struct Phase
{
    double rate = 0;   // actions (refunds) per second
    bool ok = false;
    QString detail;
};

// CPU seconds of the cluster's processes (the postmaster's children: backends, WAL writer, ...).
double clusterCpu(const test::PgCluster &cluster)
{
    double total = 0;
    const qint64 postmaster = cluster.postmasterPid();
    for (const QString &pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        const QList<QByteArray> fields = procStat(pid.toLongLong());
        if (fields.size() > 12 && fields.at(1).toLongLong() == postmaster)
            total += processCpu(pid.toLongLong());
    }
    return total;
}

bool allCompleted(PgSession &session, int n)
{
    return session.scalar("SELECT COUNT(*) FROM actions WHERE state = 'COMPLETED'") == n;
}

// Paysim's ground truth: exactly n refunds, one per action of `ids` (if given).
bool groundTruthExact(PaysimAdmin &admin, int n, const QStringList &ids)
{
    int total = 0;
    const QHash<QString, int> perAction = admin.groundTruth(&total);
    bool each = perAction.size() == n;
    for (const QString &id : ids)
        each = each && perAction.value(id) == 1;
    return total == n && each;
}

Phase bareClient(Context &c, int concurrency)
{
    const QString charge = c.admin->freshCharge();
    StripeClient client(providerConfig(c.paysim));
    QList<ActionRecord> actions;
    for (int i = 0; i < c.n; ++i) {
        ActionRecord a;
        a.id = Ids::newActionId();
        a.targetId = charge;
        a.amount = 1 + i % 100;
        a.currency = QStringLiteral("usd");
        a.provider = QStringLiteral("paysim");
        a.idempotencyKey = Ids::newIdempotencyKey(a.id, 1);
        actions << a;
    }
    std::atomic_int next{0};
    std::atomic_int succeeded{0};
    QList<QThread *> threads;
    QElapsedTimer timer;
    timer.start();
    for (int t = 0; t < concurrency; ++t) {
        threads << QThread::create([&] {
            for (int i = next++; i < c.n; i = next++) {
                const ActionRecord &a = actions.at(i);
                if (client.createRefund(a.providerRequest(), a.idempotencyKey).outcome == Attempt::Outcome::Succeeded)
                    ++succeeded;
            }
        });
        threads.last()->start();
    }
    for (QThread *thread : std::as_const(threads))
        thread->wait();
    Phase p;
    p.rate = c.n / (double(timer.nsecsElapsed()) / 1e9);
    qDeleteAll(threads);
    p.ok = succeeded == c.n && groundTruthExact(*c.admin, c.n, {});
    return p;
}

// One worker of the bare loop: claim-and-finish until nothing is left. Retries a transaction
// after a deadlock or serialization failure (none expected). False on any other error.
bool bareWorker(const QString &uri, const QByteArray &name, std::atomic_int *done)
{
    PgSession s(uri);
    if (!s.ok()) {
        std::fprintf(stderr, "bare loop: %s\n", qPrintable(s.error()));
        return false;
    }
    // The ledger's own candidate query (approved PENDING, oldest first, with its approval), one row.
    const bool prepared =
        s.prepare("claim", "SELECT a.id, a.idempotency_key, a.request_fingerprint FROM actions a JOIN approvals p"
                           " ON p.action_id = a.id AND p.version = a.approval_version"
                           " WHERE a.state = 'PENDING' AND a.idempotency_key <> '' AND p.decision = 'approved'"
                           " ORDER BY a.created_at, a.id LIMIT 1 FOR UPDATE OF a SKIP LOCKED")
        && s.prepare("execute", "UPDATE actions SET state = 'EXECUTING', state_version = state_version + 1,"
                                " lease_owner = $2, lease_expires_at = $3, updated_at = $4 WHERE id = $1")
        && s.prepare("attempt", "INSERT INTO attempts (action_id, seq, idempotency_key, request_fingerprint, executor,"
                                " started_at, finished_at, outcome, http_status, error_code, provider_request_id,"
                                " provider_object_id, replayed, error_excerpt)"
                                " VALUES ($1, 1, $2, $3, $4, $5, NULL, 'open', 0, '', '', '', 0, '')")
        && s.prepare("finish", "UPDATE attempts SET finished_at = $2, outcome = 'succeeded', http_status = 200,"
                               " provider_object_id = $3 WHERE action_id = $1 AND seq = 1 AND outcome = 'open'")
        && s.prepare("complete", "UPDATE actions SET state = 'COMPLETED', state_version = state_version + 1,"
                                 " lease_owner = NULL, lease_expires_at = NULL, updated_at = $2 WHERE id = $1");
    if (!prepared)
        return false;
    // A transaction of prepared steps; the claim's row (empty when nothing is left) in *row.
    const auto transaction = [&](const std::function<bool(QList<QByteArray> *row)> &steps, QList<QByteArray> *row) {
        for (int attempt = 0; attempt < 10; ++attempt) {
            if (!s.exec("BEGIN"))
                return false;
            if (steps(row)) {
                PGresult *r = PQexec(s.raw(), "COMMIT");
                const bool committed = PQresultStatus(r) == PGRES_COMMAND_OK;
                const QByteArray state = PgSession::state(r);
                PQclear(r);
                if (committed)
                    return true;
                if (state != "40P01" && state != "40001")
                    return false;
            } else {
                s.exec("ROLLBACK");
            }
        }
        return false;
    };
    bool failed = false;
    const auto step = [&](const char *statement, const QList<QByteArray> &params, QList<QByteArray> *row = nullptr) {
        PGresult *r = s.run(statement, params);
        const ExecStatusType status = PQresultStatus(r);
        const bool good = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
        if (good && row) {
            row->clear();
            if (PQntuples(r) > 0) {
                for (int col = 0; col < PQnfields(r); ++col)
                    *row << QByteArray(PQgetvalue(r, 0, col));
            }
        }
        const QByteArray state = PgSession::state(r);
        if (!good && state != "40P01" && state != "40001") {
            std::fprintf(stderr, "bare loop: %s: %s\n", statement, PQresultErrorMessage(r));
            failed = true;
        }
        PQclear(r);
        return good;
    };
    for (;;) {
        QList<QByteArray> row;
        const bool claimed = transaction([&](QList<QByteArray> *r) {
            if (!step("claim", {}, r))
                return false;
            if (r->isEmpty())
                return true; // nothing left: an empty transaction
            const QByteArray now = QByteArray::number(QDateTime::currentMSecsSinceEpoch());
            return step("execute", {r->at(0), name, QByteArray::number(now.toLongLong() + 60000), now})
                && step("attempt", {r->at(0), r->at(1), r->at(2), name, now});
        }, &row);
        if (!claimed || failed)
            return false;
        if (row.isEmpty())
            return true;
        const QByteArray id = row.at(0);
        const bool finished = transaction([&](QList<QByteArray> *) {
            const QByteArray now = QByteArray::number(QDateTime::currentMSecsSinceEpoch());
            return step("finish", {id, now, "re_" + id}) && step("complete", {id, now});
        }, nullptr);
        if (!finished || failed)
            return false;
        ++*done;
    }
}

Phase bareLoop(Context &c, int concurrency)
{
    QStringList ids;
    const QString name = QStringLiteral("bare_%1").arg(++c.phase);
    const QString uri = approvedDatabase(*c.cluster, name, QStringLiteral("ch_bare"), c.n, &ids);
    Phase p;
    if (uri.isEmpty())
        return p;
    std::atomic_int done{0};
    std::atomic_int failures{0};
    QList<QThread *> threads;
    QElapsedTimer timer;
    timer.start();
    for (int t = 0; t < concurrency; ++t) {
        threads << QThread::create([&, t] {
            if (!bareWorker(uri, "bare-" + QByteArray::number(t), &done))
                ++failures;
        });
        threads.last()->start();
    }
    for (QThread *thread : std::as_const(threads))
        thread->wait();
    p.rate = c.n / (double(timer.nsecsElapsed()) / 1e9);
    qDeleteAll(threads);
    PgSession check(uri);
    p.ok = failures == 0 && done == c.n && allCompleted(check, c.n);
    return p;
}

Phase executors(Context &c, int instances)
{
    const QString charge = c.admin->freshCharge();
    QStringList ids;
    const QString name = QStringLiteral("exec_%1").arg(++c.phase);
    const QString uri = approvedDatabase(*c.cluster, name, charge, c.n, &ids);
    Phase p;
    if (uri.isEmpty())
        return p;
    std::vector<std::unique_ptr<QProcess>> children;
    for (int i = 0; i < instances; ++i) {
        auto child = std::make_unique<QProcess>();
        child->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child->start(c.self, {QStringLiteral("--instance"), QStringLiteral("--db"), uri, QStringLiteral("--provider-url"),
                              c.paysim.toString(), QStringLiteral("--workers"), QString::number(c.workers),
                              QStringLiteral("--name"), QStringLiteral("inst%1").arg(i + 1)});
        children.push_back(std::move(child));
    }
    bool ready = true;
    for (auto &child : children) {
        ready = ready && child->waitForStarted(10000);
        while (ready && !child->canReadLine())
            ready = child->waitForReadyRead(30000);
        ready = ready && child->readLine().trimmed() == "ready";
    }
    PgSession poll(uri);
    poll.exec("LISTEN countersign_changes"); // AuditChain::changesChannel()
    QElapsedTimer timer;
    const double pg0 = clusterCpu(*c.cluster);
    const double sim0 = processCpu(c.paysimPid);
    if (ready && poll.ok()) {
        timer.start();
        for (auto &child : children)
            child->write("go\n");
        for (auto &child : children)
            child->waitForBytesWritten(5000);
        // The phase ends with the n-th COMPLETED: the maintained count (one row) is read after
        // each notification of a commit (the ledger's NOTIFY), or every 20 ms without one.
        QElapsedTimer limit;
        limit.start();
        while (poll.scalar("SELECT n FROM action_state_counts WHERE state = 'COMPLETED'") < c.n && limit.elapsed() < 600000)
            poll.waitForNotification(20);
        p.rate = c.n / (double(timer.nsecsElapsed()) / 1e9);
    }
    const double pgCpu = clusterCpu(*c.cluster) - pg0;
    const double simCpu = processCpu(c.paysimPid) - sim0;
    double instanceCpu = 0;
    qint64 claimed = 0, commits = 0;
    bool stopped = true;
    for (auto &child : children) {
        child->write("stop\n");
        child->waitForBytesWritten(5000);
    }
    for (auto &child : children) {
        const bool finished = child->waitForFinished(60000);
        if (!finished || child->exitCode() != 0)
            out(QStringLiteral("         an instance %1 (exit code %2)")
                    .arg(finished ? QStringLiteral("failed") : QStringLiteral("did not stop in 60 s")).arg(child->exitCode()));
        stopped = finished && child->exitCode() == 0 && stopped;
        const QList<QByteArray> lines = child->readAllStandardOutput().trimmed().split('\n');
        const QList<QByteArray> f = lines.last().split(' ');
        if (f.size() == 6 && f.at(0) == "stats") {
            claimed += f.at(1).toLongLong();
            commits += f.at(4).toLongLong();
            instanceCpu += f.at(5).toDouble();
        } else {
            out(QStringLiteral("         an instance ended with: ") + QString::fromUtf8(lines.last()));
            stopped = false;
        }
    }
    const qint64 completed = poll.scalar("SELECT COUNT(*) FROM actions WHERE state = 'COMPLETED'");
    int refunds = 0;
    const QHash<QString, int> perAction = c.admin->groundTruth(&refunds);
    int once = 0;
    for (const QString &id : std::as_const(ids))
        once += perAction.value(id) == 1 ? 1 : 0;
    p.ok = ready && stopped && completed == c.n && claimed == c.n && refunds == c.n && once == c.n;
    if (!p.ok) // which check failed, with its figures
        out(QStringLiteral("         CHECK: instances ready %1, stopped cleanly %2; COMPLETED %3 of %4; claims %5;"
                           " paysim refunds %6, actions with exactly one %7")
                .arg(ready).arg(stopped).arg(completed).arg(c.n).arg(claimed).arg(refunds).arg(once));
    p.detail = QStringLiteral("%1 ledger commits (%2 actions each); CPU per action: instances %3 ms + PostgreSQL %4 ms +"
                              " paysim %5 ms")
                   .arg(commits).arg(commits ? double(c.n) * 2 / double(commits) : 0, 0, 'f', 1)
                   .arg(instanceCpu * 1000 / c.n, 0, 'f', 3).arg(pgCpu * 1000 / c.n, 0, 'f', 3)
                   .arg(simCpu * 1000 / c.n, 0, 'f', 3);
    return p;
}

QString checked(const Phase &p)
{
    return p.ok ? QStringLiteral("ok") : QStringLiteral("CHECK FAILED");
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("paysim"), QStringLiteral("The paysim executable."), QStringLiteral("path"), QStringLiteral(PAYSIM_BIN)},
        {QStringLiteral("actions"), QStringLiteral("Refunds per phase."), QStringLiteral("N"), QStringLiteral("2000")},
        {QStringLiteral("workers"), QStringLiteral("Workers per instance."), QStringLiteral("W"), QStringLiteral("4")},
        {QStringLiteral("instances"), QStringLiteral("Instance counts, comma-separated."), QStringLiteral("list"),
         QStringLiteral("1,2,4")},
        {QStringLiteral("rounds"), QStringLiteral("Rounds of every phase."), QStringLiteral("R"), QStringLiteral("3")},
        {QStringLiteral("instance"), QStringLiteral("(internal) Run one executor instance.")},
        {QStringLiteral("db"), QStringLiteral("(internal) The instance's ledger URI."), QStringLiteral("uri")},
        {QStringLiteral("provider-url"), QStringLiteral("(internal) The instance's paysim."), QStringLiteral("url")},
        {QStringLiteral("name"), QStringLiteral("(internal) The instance's name."), QStringLiteral("name")},
    });
    parser.process(app);
    const int workers = parser.value(QStringLiteral("workers")).toInt();
    if (parser.isSet(QStringLiteral("instance")))
        return runInstance(parser.value(QStringLiteral("db")), QUrl(parser.value(QStringLiteral("provider-url"))), workers,
                           parser.value(QStringLiteral("name")));

    Context c;
    c.n = parser.value(QStringLiteral("actions")).toInt();
    c.workers = workers;
    c.self = QCoreApplication::applicationFilePath();
    const int rounds = parser.value(QStringLiteral("rounds")).toInt();
    QList<int> counts;
    for (const QString &k : parser.value(QStringLiteral("instances")).split(QLatin1Char(',')))
        counts << k.toInt();

    test::PgCluster cluster(test::PgCluster::Durability::Full);
    if (!cluster.start()) {
        out(QStringLiteral("cannot start a PostgreSQL cluster: ") + cluster.errorString());
        return 2;
    }
    c.cluster = &cluster;
    QProcess paysim;
    c.paysim = startPaysim(paysim, parser.value(QStringLiteral("paysim")));
    if (c.paysim.isEmpty())
        return 2;
    c.paysimPid = paysim.processId();
    PaysimAdmin admin(c.paysim);
    c.admin = &admin;

    out(QStringLiteral("bench_executor_pg: %1 refunds per phase, %2 workers per instance, instances %3, %4 rounds;"
                       " PostgreSQL %5 (fsync on, synchronous_commit on) on 127.0.0.1:%6; %7, %8 cores, Qt %9")
            .arg(c.n).arg(workers).arg(parser.value(QStringLiteral("instances"))).arg(rounds)
            .arg(cluster.psql(QStringLiteral("postgres"), QStringLiteral("SHOW server_version")).output)
            .arg(cluster.port())
            .arg(QSysInfo::prettyProductName()).arg(QThread::idealThreadCount()).arg(QString::fromLatin1(qVersion())));
    bareClient(c, workers); // warm-up

    struct Medians
    {
        QList<double> client, loop, exec;
    };
    QMap<int, Medians> byCount;
    bool allOk = true;
    for (int r = 1; r <= rounds; ++r) {
        for (int k : std::as_const(counts)) {
            const int concurrency = k * workers;
            const Phase client = bareClient(c, concurrency);
            const Phase loop = bareLoop(c, concurrency);
            const Phase exec = executors(c, k);
            allOk = allOk && client.ok && loop.ok && exec.ok;
            byCount[k].client << client.rate;
            byCount[k].loop << loop.rate;
            byCount[k].exec << exec.rate;
            out(QStringLiteral("round %1, %2 instance(s) x %3 workers: bare client %4/s (%5) | bare loop %6/s (%7) |"
                               " executors %8/s (%9) | executors / bare loop %10, / bare client %11")
                    .arg(r).arg(k).arg(workers)
                    .arg(client.rate, 0, 'f', 0).arg(checked(client))
                    .arg(loop.rate, 0, 'f', 0).arg(checked(loop))
                    .arg(exec.rate, 0, 'f', 0).arg(checked(exec))
                    .arg(exec.rate / loop.rate, 0, 'f', 2).arg(exec.rate / client.rate, 0, 'f', 2));
            out(QStringLiteral("         ") + exec.detail);
        }
    }
    out(QString());
    out(QStringLiteral("median of %1 rounds, actions/s:").arg(rounds));
    out(QStringLiteral("%1 %2 %3 %4 %5 %6 %7").arg(QStringLiteral("instances"), -10).arg(QStringLiteral("workers"), 8)
            .arg(QStringLiteral("bare client"), 12).arg(QStringLiteral("bare loop"), 10).arg(QStringLiteral("executors"), 10)
            .arg(QStringLiteral("/ loop"), 8).arg(QStringLiteral("vs 1 instance"), 14));
    const double one = byCount.isEmpty() ? 0 : median(byCount.first().exec);
    bool loopGoal = true;
    bool scaleGoal = true;
    for (auto it = byCount.cbegin(); it != byCount.cend(); ++it) {
        const double e = median(it->exec);
        const double l = median(it->loop);
        loopGoal = loopGoal && e >= 0.5 * l;
        scaleGoal = scaleGoal && e >= one;
        out(QStringLiteral("%1 %2 %3 %4 %5 %6 %7").arg(it.key(), -10).arg(it.key() * workers, 8)
                .arg(median(it->client), 12, 'f', 0).arg(l, 10, 'f', 0).arg(e, 10, 'f', 0)
                .arg(e / l, 8, 'f', 2).arg(e / one, 14, 'f', 2));
    }
    out(QStringLiteral("goal executors >= 0.5 x bare loop: %1; more instances not slower than one: %2;"
                       " checks: %3")
            .arg(loopGoal ? QStringLiteral("met") : QStringLiteral("NOT met"))
            .arg(scaleGoal ? QStringLiteral("met") : QStringLiteral("NOT met"))
            .arg(allOk ? QStringLiteral("exact in every phase") : QStringLiteral("FAILED in some phase")));
    paysim.terminate();
    paysim.waitForFinished(5000);
    return allOk ? 0 : 1;
}
