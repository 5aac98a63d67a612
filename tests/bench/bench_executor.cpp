// bench_executor: N approved refunds drained by the executor against paysim, versus a bare client
// sending the same N refunds straight to paysim at the same concurrency, in the same run.
//
//   bench_executor --paysim PATH [--actions N] [--concurrency C] [--rounds R]
//
// paysim runs as a separate process (in memory, no faults). Each round runs the bare client, then
// Countersign, each against a freshly reset paysim, and checks paysim's ground truth: exactly N
// refunds, one per action. Prints each round, the medians and the ratio Countersign / bare.
// Goal: ratio >= 0.5.

#include "server/executor.h"
#include "server/ledger/ids.h"
#include "server/ledger/ledger.h"
#include "server/stripeclient.h"
#include "tests/bench/benchfill.h"
#include "tests/bench/benchpaysim.h"
#include "tests/bench/benchstats.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QMap>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSemaphore>
#include <QSet>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <QFile>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include <sys/resource.h>
#include <unistd.h>

using namespace cs;
using namespace cs::bench;

namespace {

qint64 g_paysimPid = 0;

double paysimCpu()
{
    return processCpu(g_paysimPid);
}

// CPU seconds of this process's threads, summed by thread name ("cs-exec-commit", "cs-exec-1", ...).
QMap<QString, double> threadCpu()
{
    QMap<QString, double> out;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat(tasks.filePath(tid + QStringLiteral("/stat")));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const qsizetype open = line.indexOf('(');
        const qsizetype close = line.lastIndexOf(')');
        QString name = QString::fromUtf8(line.mid(open + 1, close - open - 1));
        if (name.startsWith(QLatin1String("cs-exec-")) && name != QLatin1String("cs-exec-commit"))
            name = QStringLiteral("cs-exec-N (workers)");
        const QList<QByteArray> fields = line.mid(close + 2).split(' ');
        if (fields.size() > 12)
            out[name] += double(fields.at(11).toLongLong() + fields.at(12).toLongLong()) / double(sysconf(_SC_CLK_TCK));
    }
    return out;
}

QString g_threadReport;

struct Cpu
{
    double self = 0;
    double paysim = 0;
};

Cpu g_lastCpu; // CPU seconds of the last timed phase

ActionRecord benchAction(const QString &charge, int i)
{
    ActionRecord a;
    a.id = Ids::newActionId();
    a.targetId = charge;
    a.amount = 1 + i % 100;
    a.currency = QStringLiteral("usd");
    a.provider = QStringLiteral("paysim");
    a.idempotencyKey = Ids::newIdempotencyKey(a.id, 1);
    return a;
}

struct Round
{
    double bareRate = 0;
    double countersignRate = 0;
    bool bareOk = false;
    bool countersignOk = false;
};

double bare(PaysimAdmin &admin, StripeClientConfig providerConfig, int n, int concurrency, bool *ok)
{
    const QString charge = admin.freshCharge();
    StripeClient client(providerConfig);
    QList<ActionRecord> actions;
    for (int i = 0; i < n; ++i)
        actions << benchAction(charge, i);
    std::atomic_int next{0};
    std::atomic_int succeeded{0};
    QList<QThread *> threads;
    QElapsedTimer timer;
    const double self0 = selfCpu();
    const double sim0 = paysimCpu();
    timer.start();
    for (int t = 0; t < concurrency; ++t) {
        threads << QThread::create([&] {
            for (int i = next++; i < n; i = next++) {
                const ActionRecord &a = actions.at(i);
                if (client.createRefund(a.providerRequest(), a.idempotencyKey).outcome == Attempt::Outcome::Succeeded)
                    ++succeeded;
            }
        });
        threads.last()->start();
    }
    for (QThread *thread : std::as_const(threads))
        thread->wait();
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    g_lastCpu = {selfCpu() - self0, paysimCpu() - sim0};
    qDeleteAll(threads);
    int total = 0;
    const QHash<QString, int> perAction = admin.groundTruth(&total);
    *ok = succeeded == n && total == n && perAction.size() == n;
    return n / seconds;
}

double countersign(PaysimAdmin &admin, const StripeClientConfig &providerConfig, int n, int concurrency, bool *ok,
                   Executor::Stats *stats)
{
    const QString charge = admin.freshCharge();
    QTemporaryDir dir;
    Ledger ledger;
    if (!ledger.open(dir.filePath(QStringLiteral("ledger.db"))).ok()) {
        *ok = false;
        return 0;
    }
    const QStringList ids = proposeApproved(ledger, charge, n, QStringLiteral("bench"));
    if (ids.size() != n) {
        *ok = false;
        return 0;
    }
    StripeClient client(providerConfig);
    ExecutionConfig config;
    config.workers = concurrency;
    config.requestTimeout = providerConfig.requestTimeout;
    config.leaseDuration = std::chrono::milliseconds(60000);
    config.idlePoll = std::chrono::milliseconds(5);
    std::atomic_int completed{0};
    QSemaphore allDone;
    Executor executor(Reconciler::storesOf(ledger), client, config);
    executor.setChangeObserver([&](const ActionRecord &record) {
        if (record.state == ActionState::Completed && ++completed == n)
            allDone.release();
    });
    QElapsedTimer timer;
    const double self0 = selfCpu();
    const double sim0 = paysimCpu();
    timer.start();
    executor.start();
    allDone.tryAcquire(1, 600000);
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    g_lastCpu = {selfCpu() - self0, paysimCpu() - sim0};
    const QMap<QString, double> threads = threadCpu(); // the executor's threads exist only now
    QStringList parts;
    for (auto it = threads.cbegin(); it != threads.cend(); ++it) {
        if (it.key().startsWith(QLatin1String("cs-exec")) || it.key().startsWith(QLatin1String("QNetwork")))
            parts << QStringLiteral("%1 %2 ms").arg(it.key()).arg(it.value() * 1000 / n, 0, 'f', 3);
    }
    g_threadReport = parts.join(QStringLiteral(", "));
    executor.stop();
    *stats = executor.stats();
    int total = 0;
    const QHash<QString, int> perAction = admin.groundTruth(&total);
    bool each = true;
    for (const QString &id : std::as_const(ids))
        each = each && perAction.value(id) == 1 && ledger.reader().action(id)->state == ActionState::Completed;
    *ok = completed == n && total == n && each;
    return n / seconds;
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
        {QStringLiteral("concurrency"), QStringLiteral("Workers / client threads."), QStringLiteral("C"), QStringLiteral("4")},
        {QStringLiteral("rounds"), QStringLiteral("Rounds of both phases."), QStringLiteral("R"), QStringLiteral("3")},
        {QStringLiteral("only"), QStringLiteral("Run one phase only, for profiling: bare or countersign."),
         QStringLiteral("phase")},
    });
    parser.process(app);
    const int n = parser.value(QStringLiteral("actions")).toInt();
    const int concurrency = parser.value(QStringLiteral("concurrency")).toInt();
    const int rounds = parser.value(QStringLiteral("rounds")).toInt();
    const QString only = parser.value(QStringLiteral("only"));

    QProcess paysim;
    const QUrl base = startPaysim(paysim, parser.value(QStringLiteral("paysim")));
    if (base.isEmpty())
        return 2;
    g_paysimPid = paysim.processId();
    PaysimAdmin admin(base);

    StripeClientConfig providerConfig;
    providerConfig.baseUrl = base;
    providerConfig.secretKey = QByteArrayLiteral("sk_test_bench");
    providerConfig.name = QStringLiteral("paysim");
    providerConfig.requestTimeout = std::chrono::milliseconds(10000);
    providerConfig.lookupTimeout = std::chrono::milliseconds(10000);

    out(QStringLiteral("bench_executor: %1 refunds per phase, concurrency %2, %3 rounds; %4, %5 cores, Qt %6")
            .arg(n).arg(concurrency).arg(rounds)
            .arg(QSysInfo::prettyProductName()).arg(QThread::idealThreadCount()).arg(QString::fromLatin1(qVersion())));
    {
        bool ok = false;
        bare(admin, providerConfig, std::min(n, 200), concurrency, &ok); // warm-up
    }
    QList<double> bareRates;
    QList<double> countersignRates;
    bool allOk = true;
    for (int r = 1; r <= rounds; ++r) {
        bool bareOk = false;
        bool csOk = false;
        Executor::Stats stats;
        const double b = only == u"countersign" ? 1 : bare(admin, providerConfig, n, concurrency, &bareOk);
        const Cpu bareCpu = g_lastCpu;
        const double c = only == u"bare" ? 1 : countersign(admin, providerConfig, n, concurrency, &csOk, &stats);
        const Cpu csCpu = g_lastCpu;
        bareRates << b;
        countersignRates << c;
        allOk = allOk && (bareOk || only == u"countersign") && (csOk || only == u"bare");
        out(QStringLiteral("round %1: bare %2 refunds/s (%3) | countersign %4 refunds/s (%5) | ratio %6")
                .arg(r)
                .arg(b, 0, 'f', 0)
                .arg(bareOk ? QStringLiteral("ground truth exactly N") : QStringLiteral("ground truth WRONG"))
                .arg(c, 0, 'f', 0)
                .arg(csOk ? QStringLiteral("ground truth exactly N, one per action") : QStringLiteral("ground truth WRONG"))
                .arg(c / b, 0, 'f', 2));
        out(QStringLiteral("         CPU per refund: bare %1 ms (client %2 + paysim %3) | countersign %4 ms (client %5 +"
                           " paysim %6); executor: %7 claimed, %8 sent, %9 completed, %10 ledger commits, %11 reconcile rounds")
                .arg((bareCpu.self + bareCpu.paysim) * 1000 / n, 0, 'f', 3)
                .arg(bareCpu.self * 1000 / n, 0, 'f', 3)
                .arg(bareCpu.paysim * 1000 / n, 0, 'f', 3)
                .arg((csCpu.self + csCpu.paysim) * 1000 / n, 0, 'f', 3)
                .arg(csCpu.self * 1000 / n, 0, 'f', 3)
                .arg(csCpu.paysim * 1000 / n, 0, 'f', 3)
                .arg(stats.claimed)
                .arg(stats.sent)
                .arg(stats.completed)
                .arg(stats.groupCommits)
                .arg(stats.reconcileRounds));
        if (only != u"bare")
            out(QStringLiteral("         countersign CPU per refund by thread (whole life of the thread): ") + g_threadReport);
    }
    const double ratio = median(countersignRates) / median(bareRates);
    out(QStringLiteral("median: bare %1 refunds/s, countersign %2 refunds/s, ratio %3 (goal >= 0.50: %4); ground truth %5")
            .arg(median(bareRates), 0, 'f', 0)
            .arg(median(countersignRates), 0, 'f', 0)
            .arg(ratio, 0, 'f', 2)
            .arg(ratio >= 0.5 ? QStringLiteral("met") : QStringLiteral("NOT met"))
            .arg(allOk ? QStringLiteral("exact in every phase") : QStringLiteral("WRONG in some phase")));
    paysim.terminate();
    paysim.waitForFinished(5000);
    return allOk ? 0 : 1;
}
