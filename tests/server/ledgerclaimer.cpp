// Child process for tst_ledger_race, tst_ledger_crash and tst_ledger_pgfaults: opens a ledger
// (a file or a PostgreSQL URI) and works on one action — or on every approved one — so tests can
// race real processes and kill one mid-flight.
//
//   ledger_claimer --db PATH|URI --action ID --executor NAME [--lease-ms N] [--start-file PATH]
//                  [--mode claim|hold|retry-hold|claim-all]
//
// Prints "ready" once the ledger is open, then waits for --start-file to exist (if given).
//   claim       claim(); prints "won <seq>" or "lost <error code>"; exits 0
//   hold        claim(); prints "claimed <seq>", then sleeps until killed
//   retry-hold  acquireLease() + beginRetryAttempt() on a CONFIRMATION_UNKNOWN action; prints
//               "retrying <seq>", then sleeps until killed
//   claim-all   (no --action) claimNext() until nothing is left; prints "claimed <action> <seq>"
//               for each, "error <code> <message>" for a refused call, then "done <count>"; exits 0

#include "server/ledger/ledger.h"
#include "tests/support/childprocess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QThread>

using namespace cs;
using cs::test::say;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addOptions({
        {QStringLiteral("db"), QStringLiteral("Ledger: a SQLite file or a postgresql:// URI."), QStringLiteral("location")},
        {QStringLiteral("action"), QStringLiteral("Action id."), QStringLiteral("id")},
        {QStringLiteral("executor"), QStringLiteral("Executor id."), QStringLiteral("name")},
        {QStringLiteral("lease-ms"), QStringLiteral("Lease duration."), QStringLiteral("ms"), QStringLiteral("30000")},
        {QStringLiteral("start-file"), QStringLiteral("Wait for this file before acting."), QStringLiteral("path")},
        {QStringLiteral("mode"), QStringLiteral("claim, hold or retry-hold."), QStringLiteral("mode"), QStringLiteral("claim")},
    });
    parser.process(app);
    const QString mode = parser.value(QStringLiteral("mode"));
    const QString actionId = parser.value(QStringLiteral("action"));
    const QString executor = parser.value(QStringLiteral("executor"));
    const std::chrono::milliseconds lease(parser.value(QStringLiteral("lease-ms")).toLongLong());
    if ((actionId.isEmpty() && mode != u"claim-all") || executor.isEmpty() || parser.value(QStringLiteral("db")).isEmpty()) {
        say(QStringLiteral("usage error"));
        return 2;
    }

    Ledger store;
    Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false; // the test decides when recovery runs
    const LedgerError opened = store.open(parser.value(QStringLiteral("db")), options);
    if (!opened.ok()) {
        say(QStringLiteral("open failed ") + opened.toString());
        return 3;
    }
    say(QStringLiteral("ready"));

    if (!cs::test::waitForStartFile(parser.value(QStringLiteral("start-file"))))
        return 4;

    if (mode == u"claim-all") {
        int count = 0;
        for (int errors = 0; errors < 50;) {
            const auto claimed = store.execution().claimNext(executor, lease);
            if (!claimed.ok()) {
                ++errors;
                say(QStringLiteral("error ") + toWire(claimed.code()) + QLatin1Char(' ') + claimed.error().message());
                continue;
            }
            if (!claimed->has_value())
                break;
            ++count;
            say(QStringLiteral("claimed %1 %2").arg((*claimed)->record.id).arg((*claimed)->attempt.seq));
        }
        say(QStringLiteral("done %1").arg(count));
        return 0;
    }
    if (mode == u"claim" || mode == u"hold") {
        const auto claimed = store.execution().claim(actionId, executor, lease);
        if (!claimed.ok()) {
            say(QStringLiteral("lost ") + toWire(claimed.code()) + QLatin1Char(' ') + claimed.error().message());
            return 0;
        }
        if (mode == u"claim") {
            say(QStringLiteral("won %1").arg(claimed->attempt.seq));
            return 0;
        }
        say(QStringLiteral("claimed %1").arg(claimed->attempt.seq));
    } else if (mode == u"retry-hold") {
        const auto leased = store.execution().acquireLease(actionId, executor, lease);
        if (!leased.ok()) {
            say(QStringLiteral("lease failed ") + leased.error().toString());
            return 5;
        }
        const auto retry = store.execution().beginRetryAttempt(actionId, executor);
        if (!retry.ok()) {
            say(QStringLiteral("retry failed ") + retry.error().toString());
            return 5;
        }
        say(QStringLiteral("retrying %1").arg(retry->seq));
    } else {
        say(QStringLiteral("unknown mode ") + mode);
        return 2;
    }
    // "Sending": the request is in flight when the test kills this process.
    QThread::sleep(60);
    return 0;
}
