// Child process for tst_execution_processes and the chaos harness (tests/chaos): a real executor
// (workers + reconciler rounds + expired-lease recovery) on a ledger (a SQLite file or a
// postgresql:// URI), talking to a paysim over loopback, so tests can race processes and SIGKILL
// one at an exact point or at random.
//
//   executor_child --db PATH|URI --provider-url URL --key-file PATH [--workers N] [--timeout-ms N]
//                  [--lease-ms N] [--name NAME] [--start-file PATH] [--stop-file PATH]
//                  [--pause-at committed|answered] [--clock-file PATH] [--max-busy-retries N]
//                  [--ambiguous-lookups N] [--backoff-max-ms N]
//
// Prints "ready" once the ledger is open, waits for --start-file (if given), starts the executor
// and prints "started". With --pause-at, the first worker to reach that point prints
// "paused <action> <seq>" and blocks until the process is killed: "committed" is right after the
// attempt row is committed (before sending), "answered" right after the provider answered
// (before the answer is recorded). When --stop-file appears: graceful stop, "stopped", exit 0.
// --clock-file: the ledger's "now" is the system clock plus the milliseconds in that file (absent
// or empty: 0), read on every call, so that a harness can move the clock of a running executor
// forward (the chaos harness's key-window jump, seen by both sides).

#include "server/executor.h"
#include "server/ledger/ledger.h"
#include "server/stripeclient.h"
#include "tests/support/childprocess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QThread>
#include <QTimer>

using namespace cs;
using cs::test::say;

namespace {

// Thread-safe: every call opens its own QFile.
Clock fileClock(const QString &path)
{
    return [path] {
        qint64 offset = 0;
        QFile file(path);
        if (file.open(QIODevice::ReadOnly))
            offset = file.readAll().trimmed().toLongLong();
        return QDateTime::currentDateTimeUtc().addMSecs(offset);
    };
}

[[noreturn]] void pauseForever(const ActionRecord &action, const Attempt &attempt)
{
    say(QStringLiteral("paused %1 %2").arg(action.id).arg(attempt.seq));
    for (;;)
        QThread::sleep(1);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("db"), QStringLiteral("Ledger: a SQLite file or a postgresql:// URI."), QStringLiteral("location")},
        {QStringLiteral("provider-url"), QStringLiteral("paysim base URL."), QStringLiteral("url")},
        {QStringLiteral("key-file"), QStringLiteral("Secret key file."), QStringLiteral("path")},
        {QStringLiteral("workers"), QStringLiteral("Worker threads."), QStringLiteral("n"), QStringLiteral("2")},
        {QStringLiteral("timeout-ms"), QStringLiteral("Request timeout."), QStringLiteral("ms"), QStringLiteral("400")},
        {QStringLiteral("lease-ms"), QStringLiteral("Lease duration."), QStringLiteral("ms"), QStringLiteral("2000")},
        {QStringLiteral("name"), QStringLiteral("Instance name."), QStringLiteral("name"), QStringLiteral("child")},
        {QStringLiteral("start-file"), QStringLiteral("Wait for this file before starting."), QStringLiteral("path")},
        {QStringLiteral("stop-file"), QStringLiteral("Stop gracefully when this file appears."), QStringLiteral("path")},
        {QStringLiteral("pause-at"), QStringLiteral("committed or answered."), QStringLiteral("point")},
        {QStringLiteral("clock-file"), QStringLiteral("Clock offset file (ms)."), QStringLiteral("path")},
        {QStringLiteral("max-busy-retries"), QStringLiteral("Busy ledger retries."), QStringLiteral("n")},
        {QStringLiteral("ambiguous-lookups"), QStringLiteral("Inconclusive lookups before review."), QStringLiteral("n")},
        {QStringLiteral("backoff-max-ms"), QStringLiteral("Longest backoff."), QStringLiteral("ms"), QStringLiteral("400")},
    });
    parser.process(app);

    QString error;
    const auto key = StripeClient::readSecretKeyFile(parser.value(QStringLiteral("key-file")), &error);
    if (!key) {
        say(QStringLiteral("key error ") + error);
        return 2;
    }
    StripeClientConfig providerConfig;
    providerConfig.baseUrl = QUrl(parser.value(QStringLiteral("provider-url")));
    providerConfig.secretKey = *key;
    providerConfig.name = QStringLiteral("paysim");
    providerConfig.requestTimeout = std::chrono::milliseconds(parser.value(QStringLiteral("timeout-ms")).toInt());
    providerConfig.lookupTimeout = providerConfig.requestTimeout;
    if (const QString problem = providerConfig.validate(); !problem.isEmpty()) {
        say(QStringLiteral("config error ") + problem);
        return 2;
    }
    StripeClient provider(providerConfig);

    ExecutionConfig config;
    config.workers = parser.value(QStringLiteral("workers")).toInt();
    config.requestTimeout = providerConfig.requestTimeout;
    config.leaseDuration = std::chrono::milliseconds(parser.value(QStringLiteral("lease-ms")).toInt());
    config.idlePoll = std::chrono::milliseconds(10);
    config.recoverySweep = std::chrono::milliseconds(100);
    config.backoffBase = std::chrono::milliseconds(50);
    config.backoffMax = std::chrono::milliseconds(parser.value(QStringLiteral("backoff-max-ms")).toInt());
    if (parser.isSet(QStringLiteral("max-busy-retries")))
        config.maxBusyRetries = parser.value(QStringLiteral("max-busy-retries")).toInt();
    if (parser.isSet(QStringLiteral("ambiguous-lookups")))
        config.ambiguousLookups = parser.value(QStringLiteral("ambiguous-lookups")).toInt();
    config.maxReconcileTries = 8;
    config.instanceName = parser.value(QStringLiteral("name"));
    if (const QString problem = config.validate(); !problem.isEmpty()) {
        say(QStringLiteral("config error ") + problem);
        return 2;
    }

    Ledger ledger;
    Ledger::Options options;
    if (parser.isSet(QStringLiteral("clock-file")))
        options.clock = fileClock(parser.value(QStringLiteral("clock-file")));
    options.recoverExpiredLeasesOnOpen = false; // the executor's start() recovers, before its workers
    const LedgerError opened = ledger.open(parser.value(QStringLiteral("db")), options);
    if (!opened.ok()) {
        say(QStringLiteral("open failed ") + opened.toString());
        return 3;
    }
    say(QStringLiteral("ready"));

    if (!cs::test::waitForStartFile(parser.value(QStringLiteral("start-file"))))
        return 4;

    Executor executor(Reconciler::storesOf(ledger), provider, config);
    const QString pauseAt = parser.value(QStringLiteral("pause-at"));
    Executor::Hooks hooks;
    if (pauseAt == u"committed")
        hooks.attemptCommitted = [](const ActionRecord &a, const Attempt &t) { pauseForever(a, t); };
    else if (pauseAt == u"answered")
        hooks.answered = [](const ActionRecord &a, const Attempt &t, const RefundOutcome &) { pauseForever(a, t); };
    executor.setHooks(hooks);
    if (!executor.start(&error)) {
        say(QStringLiteral("start failed ") + error);
        return 5;
    }
    say(QStringLiteral("started %1").arg(executor.workerIds().join(QLatin1Char(' '))));

    const QString stopFile = parser.value(QStringLiteral("stop-file"));
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &app, [&] {
        if (!stopFile.isEmpty() && QFile::exists(stopFile)) {
            poll.stop();
            executor.stop();
            say(QStringLiteral("stopped"));
            app.quit();
        }
    });
    poll.start(20);
    return app.exec();
}
