// chaos: a randomized, seeded fault-schedule harness, replayable from its seed. See docs/CHAOS.md.
//
//   chaos --seed N [--actions 20] [--steps 24] [--settle-ms 20000] [--verbose]
//         [--self-test-duplicate] [--self-test-settlement] [--require-coverage] [--via-api] [--postgres]
//         [--webhooks on|off] [--print-schedule]
//
// --seed takes one seed, a list (1,5,9) or a range (1-50). Exit 0 only if every run holds every
// invariant (1 violated, 2 usage, 3 the harness could not run).

#include "tests/chaos/chaosrun.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLoggingCategory>

#include <cstdio>

using namespace cs::chaos;

namespace {

void out(const QString &line)
{
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

bool parseSeeds(const QString &text, QList<quint32> *seeds)
{
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok1 = false;
        bool ok2 = false;
        if (const qsizetype dash = part.indexOf(QLatin1Char('-')); dash > 0) {
            const quint32 from = part.left(dash).toUInt(&ok1);
            const quint32 to = part.mid(dash + 1).toUInt(&ok2);
            if (!ok1 || !ok2 || to < from || to - from > 100000)
                return false;
            for (quint32 s = from; s <= to; ++s)
                seeds->append(s);
        } else {
            seeds->append(part.toUInt(&ok1));
            if (!ok1)
                return false;
        }
    }
    return !seeds->isEmpty();
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Seeded fault-schedule harness for Countersign's exactly-once executor."));
    parser.addHelpOption();
    const QCommandLineOption seedOption(QStringLiteral("seed"), QStringLiteral("Seed, list (1,5) or range (1-50)."),
                                        QStringLiteral("n"));
    const QCommandLineOption actionsOption(QStringLiteral("actions"), QStringLiteral("Actions per run."),
                                           QStringLiteral("n"), QStringLiteral("20"));
    const QCommandLineOption stepsOption(QStringLiteral("steps"), QStringLiteral("Schedule steps per run."),
                                         QStringLiteral("n"), QStringLiteral("24"));
    const QCommandLineOption settleOption(QStringLiteral("settle-ms"), QStringLiteral("Settle bound."),
                                          QStringLiteral("ms"), QStringLiteral("20000"));
    const QCommandLineOption verboseOption(QStringLiteral("verbose"), QStringLiteral("Executor output and review reasons."));
    const QCommandLineOption selfTestOption(QStringLiteral("self-test-duplicate"),
                                            QStringLiteral("Send one extra refund with a fresh key: the checks must fail."));
    const QCommandLineOption selfTestSettlementOption(
        QStringLiteral("self-test-settlement"),
        QStringLiteral("Once the settlements converged, fail one COMPLETED action's succeeded refund at paysim behind "
                       "Countersign's back: invariant 11 must report it."));
    const QCommandLineOption coverageOption(
        QStringLiteral("require-coverage"),
        QStringLiteral("Fail unless the schedules together inject every fault kind, kill executors with work in flight "
                       "at least 3 times, start both executors and jump the clock (decided by the seeds alone), and the "
                       "runs actually fired faults and killed an executor with an action EXECUTING."));
    const QCommandLineOption viaApiOption(
        QStringLiteral("via-api"),
        QStringLiteral("Run `countersignd serve` processes instead of executor_child, propose and approve over its REST "
                       "API (some requests resent with the same Idempotency-Key); clock jumps are skipped."));
    const QCommandLineOption postgresOption(
        QStringLiteral("postgres"),
        QStringLiteral("Three `countersignd serve` instances on one PostgreSQL database (a private cluster, a fresh "
                       "database per seed; implies --via-api); kill -9, SIGSTOP past the lease, pg_terminate_backend and "
                       "database restarts join paysim's faults."));
    const QCommandLineOption webhooksOption(
        QStringLiteral("webhooks"),
        QStringLiteral("With --via-api: paysim's webhooks reach countersignd through a relay (on) or not at all (off). "
                       "Default: three seeds in four, decided by the seed."),
        QStringLiteral("on|off"));
    const QCommandLineOption printOption(QStringLiteral("print-schedule"),
                                         QStringLiteral("Print each seed's planned actions and schedule, run nothing."));
    const QCommandLineOption paysimOption(QStringLiteral("paysim"), QStringLiteral("paysim binary."), QStringLiteral("path"),
                                          QStringLiteral(PAYSIM_BIN));
    const QCommandLineOption childOption(QStringLiteral("child"), QStringLiteral("executor_child binary (tests/execution)."), QStringLiteral("path"),
                                         QStringLiteral(CHAOS_CHILD_BIN));
    const QCommandLineOption countersigndOption(QStringLiteral("countersignd"), QStringLiteral("countersignd binary."),
                                                QStringLiteral("path"), QStringLiteral(COUNTERSIGND_BIN));
    parser.addOptions({seedOption, actionsOption, stepsOption, settleOption, verboseOption, selfTestOption,
                       selfTestSettlementOption, coverageOption,
                       viaApiOption, postgresOption, webhooksOption, printOption, paysimOption, childOption, countersigndOption});
    parser.process(app);

    QList<quint32> seeds;
    if (!parser.isSet(seedOption) || !parseSeeds(parser.value(seedOption), &seeds)) {
        out(QStringLiteral("usage: chaos --seed N|A,B|A-B [--actions 20] [--steps 24] [--verbose]"));
        return 2;
    }
    RunOptions options;
    options.actions = parser.value(actionsOption).toInt();
    options.steps = parser.value(stepsOption).toInt();
    options.settleMs = parser.value(settleOption).toInt();
    options.verbose = parser.isSet(verboseOption);
    // The webhook relay says so each time an instance it forwards to gives no answer (every kill
    // mid-delivery); the run counts those. Said only with --verbose.
    if (!options.verbose)
        QLoggingCategory::setFilterRules(QStringLiteral("countersign.demo.warning=false"));
    options.selfTestDuplicate = parser.isSet(selfTestOption);
    options.selfTestSettlement = parser.isSet(selfTestSettlementOption);
    options.postgres = parser.isSet(postgresOption);
    options.viaApi = parser.isSet(viaApiOption) || options.postgres; // PostgreSQL runs through the API
    if (parser.isSet(webhooksOption)) {
        const QString w = parser.value(webhooksOption);
        if ((w != u"on" && w != u"off") || !options.viaApi) {
            out(QStringLiteral("--webhooks on|off, with --via-api or --postgres"));
            return 2;
        }
        options.webhooks = w == u"on" ? RunOptions::Webhooks::On : RunOptions::Webhooks::Off;
    }
    options.paysimBin = parser.value(paysimOption);
    options.childBin = parser.value(childOption);
    options.countersigndBin = parser.value(countersigndOption);
    if (options.actions < 1 || options.actions > 500 || options.steps < 1 || options.steps > 1000 || options.settleMs < 1000) {
        out(QStringLiteral("--actions 1..500, --steps 1..1000, --settle-ms >= 1000"));
        return 2;
    }

    if (parser.isSet(printOption)) {
        for (const quint32 seed : std::as_const(seeds)) {
            const Schedule schedule = scheduleFor(seed, options.actions, options.steps, options.viaApi, options.postgres);
            out(QStringLiteral("seed %1:").arg(seed));
            for (int i = 0; i < schedule.steps.size(); ++i)
                out(QStringLiteral("  %1 %2").arg(i + 1, 2).arg(schedule.steps.at(i).describe()));
        }
        return 0;
    }

    QElapsedTimer total;
    total.start();
    QStringList failed;
    bool broken = false;
    RunResult sum;
    for (const quint32 seed : std::as_const(seeds)) {
        options.seed = seed;
        const RunResult r = runChaos(options);
        QString replay = QStringLiteral("chaos --seed %1 --actions %2 --steps %3").arg(seed).arg(options.actions).arg(options.steps);
        if (options.settleMs != 20000)
            replay += QStringLiteral(" --settle-ms %1").arg(options.settleMs);
        if (options.selfTestDuplicate)
            replay += QStringLiteral(" --self-test-duplicate");
        if (options.selfTestSettlement)
            replay += QStringLiteral(" --self-test-settlement");
        if (options.postgres)
            replay += QStringLiteral(" --postgres");
        if (options.viaApi)
            replay += QStringLiteral(" --via-api");
        if (options.webhooks != RunOptions::Webhooks::BySeed)
            replay += options.webhooks == RunOptions::Webhooks::On ? QStringLiteral(" --webhooks on") : QStringLiteral(" --webhooks off");
        switch (r.verdict) {
        case RunResult::Verdict::Pass:
            out(QStringLiteral("verdict: PASS seed=%1 (%2 s)").arg(seed).arg(r.seconds, 0, 'f', 1));
            break;
        case RunResult::Verdict::Fail:
            for (const QString &v : r.violations)
                out(QStringLiteral("  ") + v);
            out(QStringLiteral("verdict: FAIL seed=%1: %2 violation(s)").arg(seed).arg(r.violations.size()));
            out(QStringLiteral("replay: ") + replay);
            failed << QString::number(seed);
            break;
        case RunResult::Verdict::Broken:
            out(QStringLiteral("verdict: BROKEN seed=%1: the harness could not run the schedule").arg(seed));
            out(QStringLiteral("replay: ") + replay);
            broken = true;
            break;
        }
        out(QString());
        for (auto it = r.faultsFired.cbegin(); it != r.faultsFired.cend(); ++it)
            sum.faultsFired[it.key()] += it.value();
        for (auto it = r.finalStates.cbegin(); it != r.finalStates.cend(); ++it)
            sum.finalStates[it.key()] += it.value();
        sum.kills += r.kills;
        sum.killsWithWorkInFlight += r.killsWithWorkInFlight;
        sum.starts += r.starts;
        sum.raceSteps += r.raceSteps;
        sum.clockJumps += r.clockJumps;
        sum.skippedClockJumps += r.skippedClockJumps;
        sum.resentProposals += r.resentProposals;
        sum.replayedProposals += r.replayedProposals;
        sum.resentApprovals += r.resentApprovals;
        sum.deferredApprovals += r.deferredApprovals;
        for (int i = 0; i < 7; ++i)
            sum.reviewsByRule[i] += r.reviewsByRule[i];
        sum.stops += r.stops;
        sum.stopsHoldingLease += r.stopsHoldingLease;
        sum.fencedActions += r.fencedActions;
        sum.leaseRefusals += r.leaseRefusals;
        sum.finishedRefusals += r.finishedRefusals;
        sum.refusalsAfterStop += r.refusalsAfterStop;
        sum.terminations += r.terminations;
        sum.backendsTerminated += r.backendsTerminated;
        sum.dbRestarts += r.dbRestarts;
        sum.unavailableAnswers += r.unavailableAnswers;
        sum.recoveries += r.recoveries;
        sum.internalErrors += r.internalErrors;
        sum.lostCommits += r.lostCommits;
        sum.outsideRefunds += r.outsideRefunds;
        sum.outsideCreated += r.outsideCreated;
        sum.outsideWithoutRoom += r.outsideWithoutRoom;
        sum.outsideReads += r.outsideReads;
        sum.twoAgentSteps += r.twoAgentSteps;
        sum.contestedProposed += r.contestedProposed;
        sum.contestedAccepted += r.contestedAccepted;
        sum.contestedRefused += r.contestedRefused;
        sum.approvalsExpired += r.approvalsExpired;
        sum.reapproved += r.reapproved;
        sum.simClockSteps += r.simClockSteps;
        sum.settleClockMoves += r.settleClockMoves;
        sum.completedPending += r.completedPending;
        sum.settledSucceeded += r.settledSucceeded;
        sum.settledFailed += r.settledFailed;
        sum.settledCanceled += r.settledCanceled;
        sum.reviewItems += r.reviewItems;
        sum.apiLookups += r.apiLookups;
        sum.rejectedFailedRefund += r.rejectedFailedRefund;
        sum.webhookRuns += r.webhookRuns;
        for (auto it = r.webhookAnswers.cbegin(); it != r.webhookAnswers.cend(); ++it)
            sum.webhookAnswers[it.key()] += it.value();
        sum.webhooksDelivered += r.webhooksDelivered;
        sum.webhooksGaveUp += r.webhooksGaveUp;
        sum.webhooksPending += r.webhooksPending;
        for (auto it = r.settledBy.cbegin(); it != r.settledBy.cend(); ++it)
            sum.settledBy[it.key()] += it.value();
    }

    QStringList fired;
    QStringList missing;
    for (const QString &kind : injectedFaultKinds()) {
        fired << QStringLiteral("%1=%2").arg(kind).arg(sum.faultsFired.value(kind));
        if (sum.faultsFired.value(kind) == 0)
            missing << kind;
    }
    QStringList states;
    for (auto it = sum.finalStates.cbegin(); it != sum.finalStates.cend(); ++it)
        states << QStringLiteral("%1=%2").arg(it.key()).arg(it.value());
    out(QStringLiteral("summary: %1 seed(s) in %2 s; failed: [%3]")
            .arg(seeds.size())
            .arg(total.elapsed() / 1000.0, 0, 'f', 1)
            .arg(failed.join(QLatin1Char(','))));
    out(QStringLiteral("  faults fired (requests): ") + fired.join(QLatin1Char(' ')));
    out(QStringLiteral("  executor starts=%1 kill -9=%2 (with an action EXECUTING: %3) steps with two executors racing=%4 clock jumps=%5")
            .arg(sum.starts)
            .arg(sum.kills)
            .arg(sum.killsWithWorkInFlight)
            .arg(sum.raceSteps)
            .arg(sum.clockJumps));
    if (options.postgres)
        out(QStringLiteral("  postgres: three instances A/B/C on one database; SIGSTOP past the %1 ms lease=%2 (holding a "
                           "lease: %3; actions fenced: %4); late writes refused=%5 (lease lost \"nothing recorded\" %6, attempt "
                           "already finished %7; by stopped instances: %8); pg_terminate_backend=%9")
                .arg(PostgresLeaseMs)
                .arg(sum.stops)
                .arg(sum.stopsHoldingLease)
                .arg(sum.fencedActions)
                .arg(sum.leaseRefusals + sum.finishedRefusals)
                .arg(sum.leaseRefusals)
                .arg(sum.finishedRefusals)
                .arg(sum.refusalsAfterStop)
                .arg(sum.terminations)
            + QStringLiteral(" (connections ended: %1); database restarts=%2").arg(sum.backendsTerminated).arg(sum.dbRestarts)
            + QStringLiteral(" (503 answers while down: %1; instances answering again without a restart: %2); "
                             "API answers 5xx other than 503: %3; COMMITs whose answer was lost: %4")
                  .arg(sum.unavailableAnswers)
                  .arg(sum.recoveries)
                  .arg(sum.internalErrors)
                  .arg(sum.lostCommits));
    if (options.viaApi)
        out(QStringLiteral("  via-api: countersignd serve processes as %6; clock jumps skipped=%1 (not possible: system clock); "
                           "proposals resent=%2 (replayed=%3) approvals resent=%4 approvals deferred to a start=%5")
                .arg(sum.skippedClockJumps)
                .arg(sum.resentProposals)
                .arg(sum.replayedProposals)
                .arg(sum.resentApprovals)
                .arg(sum.deferredApprovals)
                .arg(options.postgres ? QStringLiteral("A/B/C") : QStringLiteral("A/B")));
    out(QStringLiteral("  final states: %1; reviews by rule W=%2 M=%3 S=%4 F=%5 A=%6 B=%7 K=%8")
            .arg(states.join(QLatin1Char(' ')))
            .arg(sum.reviewsByRule[0])
            .arg(sum.reviewsByRule[1])
            .arg(sum.reviewsByRule[2])
            .arg(sum.reviewsByRule[3])
            .arg(sum.reviewsByRule[4])
            .arg(sum.reviewsByRule[5])
            .arg(sum.reviewsByRule[6]));
    out(QStringLiteral("  issue 14: refunds made outside Countersign=%1 (made by paysim %2, leaving the action no room %3; "
                       "charge read again after %4)")
            .arg(sum.outsideRefunds)
            .arg(sum.outsideCreated)
            .arg(sum.outsideWithoutRoom)
            .arg(sum.outsideReads)
        + (options.viaApi ? QStringLiteral("; two agents on one charge=%1 (proposals %2: accepted %3, refused 422 %4)")
                                .arg(sum.twoAgentSteps)
                                .arg(sum.contestedProposed)
                                .arg(sum.contestedAccepted)
                                .arg(sum.contestedRefused)
                          : QStringLiteral("; approvals expired unsent=%1 (approved again with a fresh key: %2)")
                                .arg(sum.approvalsExpired)
                                .arg(sum.reapproved)));
    QStringList learned;
    for (auto it = sum.settledBy.cbegin(); it != sum.settledBy.cend(); ++it)
        learned << QStringLiteral("%1 %2").arg(it.key()).arg(it.value());
    out(QStringLiteral("  issue 18: refund_settles applied to %1 request(s); COMPLETED on a pending refund %2; "
                       "settled: %3 succeeded, %4 failed, %5 canceled → review items %6; final status learned by [%7]%8; "
                       "paysim's clock moved by %9 step(s)")
            .arg(sum.faultsFired.value(settlementRuleKind()))
            .arg(sum.completedPending)
            .arg(sum.settledSucceeded)
            .arg(sum.settledFailed)
            .arg(sum.settledCanceled)
            .arg(sum.reviewItems)
            .arg(learned.join(QStringLiteral(", ")))
            .arg(options.viaApi ? QStringLiteral(" (look-ups through the API %1)").arg(sum.apiLookups) : QString())
            .arg(sum.simClockSteps)
        + QStringLiteral(" and by %1 settle(s); REJECTED with a failed/canceled refund %2")
              .arg(sum.settleClockMoves)
              .arg(sum.rejectedFailedRefund));
    if (options.viaApi) {
        QStringList answers;
        for (auto it = sum.webhookAnswers.cbegin(); it != sum.webhookAnswers.cend(); ++it)
            answers << QStringLiteral("%1×%2").arg(it.key() == 0 ? QStringLiteral("no answer") : QString::number(it.key())).arg(it.value());
        out(QStringLiteral("  webhooks: on in %1 of %2 run(s); paysim's deliveries delivered %3, given up %4, still retried %5; "
                           "countersignd answered [%6]")
                .arg(sum.webhookRuns)
                .arg(seeds.size())
                .arg(sum.webhooksDelivered)
                .arg(sum.webhooksGaveUp)
                .arg(sum.webhooksPending)
                .arg(answers.join(QStringLiteral(", "))));
    }
    bool coverageOk = true;
    if (parser.isSet(coverageOption)) {
        // What the schedules contain is decided by the seeds alone, so requiring it cannot be
        // flaky. Which injected faults actually meet a matching request, and whether a kill
        // lands while an action is EXECUTING, depends on timing: per kind that is reported
        // above (the rarest kind fired in about half the seeds of a 100-seed sweep), and only
        // "something fired" and "one kill hit work in flight" are required of it.
        QSet<QString> scheduledKinds;
        int busyKills = 0;
        int jumps = 0;
        bool secondExecutor = false;
        QMap<QString, int> scheduledPostgres; // postgresFaultKinds() -> steps (kill -9 and SIGSTOP: the "once busy" ones)
        int outsideSteps = 0;
        int twoAgentSteps = 0;
        int settlesRules = 0;
        int simClockSteps = 0;
        int skewSteps = 0;      // issue 33
        int skewPastWindow = 0;
        for (const quint32 seed : std::as_const(seeds)) {
            const Schedule schedule = scheduleFor(seed, options.actions, options.steps, options.viaApi, options.postgres);
            for (const Step &step : schedule.steps) {
                if (step.kind == Step::Kind::Kill && step.whenBusy)
                    ++scheduledPostgres[postgresFaultKinds().at(0)];
                if (step.kind == Step::Kind::Stop && step.whenBusy)
                    ++scheduledPostgres[postgresFaultKinds().at(1)];
                if (step.kind == Step::Kind::Terminate)
                    ++scheduledPostgres[postgresFaultKinds().at(2)];
                if (step.kind == Step::Kind::DbRestart)
                    ++scheduledPostgres[postgresFaultKinds().at(3)];
                if (step.kind == Step::Kind::Fault)
                    scheduledKinds.insert(step.rule.value(QLatin1String("fault")).toString());
                busyKills += step.kind == Step::Kind::Kill && step.whenBusy ? 1 : 0;
                outsideSteps += step.kind == Step::Kind::OutsideRefund ? 1 : 0;
                twoAgentSteps += step.kind == Step::Kind::TwoAgents ? 1 : 0;
                settlesRules += step.kind == Step::Kind::Fault
                        && step.rule.value(QLatin1String("fault")).toString() == settlementRuleKind()
                    ? 1
                    : 0;
                simClockSteps += step.kind == Step::Kind::SimClock ? 1 : 0;
                skewSteps += step.kind == Step::Kind::ProviderSkew ? 1 : 0;
                skewPastWindow += step.kind == Step::Kind::ProviderSkew && step.advanceMs > 24LL * 3600 * 1000 ? 1 : 0;
                jumps += step.kind == Step::Kind::ClockJump ? 1 : 0;
                secondExecutor = secondExecutor || (step.kind == Step::Kind::Start && step.executor == 1);
            }
        }
        QStringList unscheduled;
        for (const QString &kind : injectedFaultKinds()) {
            if (!scheduledKinds.contains(kind))
                unscheduled << kind;
        }
        int firedTotal = 0;
        for (int n : std::as_const(sum.faultsFired))
            firedTotal += n;
        // --via-api cannot jump the clock; it requires instead that the seeds resend proposals
        // (m_apiRandom draws them from the seed alone; an approve step never goes unexecuted).
        const bool clockOk = options.viaApi ? sum.resentProposals > 0 : jumps > 0;
        if (options.viaApi)
            out(QStringLiteral("coverage (--via-api): proposals resent %1 (need 1; clock jumps not required)").arg(sum.resentProposals));
        // Issue 14's two step kinds, by the seeds alone: a refund made outside Countersign (every
        // mode), two agents on one charge (through the API).
        out(QStringLiteral("coverage (issue 14): scheduled outside refunds %1 (need 1)%2")
                .arg(outsideSteps)
                .arg(options.viaApi ? QStringLiteral(", two agents on one charge %1 (need 1)").arg(twoAgentSteps) : QString()));
        const bool issue14Ok = outsideSteps >= 1 && (!options.viaApi || twoAgentSteps >= 1);
        if (!issue14Ok)
            out(QStringLiteral("coverage: NOT MET (issue 14): an outside refund or a two-agents step never scheduled"));
        // Issue 18, by the seeds alone: a refund_settles rule and a step that moves paysim's clock.
        out(QStringLiteral("coverage (issue 18): scheduled refund_settles rules %1, paysim clock steps %2 (need 1 each)")
                .arg(settlesRules)
                .arg(simClockSteps));
        int webhookSeeds = 0;
        for (const quint32 seed : std::as_const(seeds))
            webhookSeeds += options.webhooks == RunOptions::Webhooks::On
                    || (options.webhooks == RunOptions::Webhooks::BySeed && webhooksFor(seed))
                ? 1
                : 0;
        if (options.viaApi)
            out(QStringLiteral("coverage (issue 18, --via-api): seeds with webhooks %1 (need 1, unless --webhooks off)").arg(webhookSeeds));
        const bool issue18Ok = settlesRules >= 1 && simClockSteps >= 1
            && (!options.viaApi || webhookSeeds >= 1 || options.webhooks == RunOptions::Webhooks::Off);
        if (!issue18Ok)
            out(QStringLiteral("coverage: NOT MET (issue 18): a refund_settles rule or a paysim clock step never scheduled"));
        // Issue 33, by the seeds alone: paysim's clock ahead of the ledger's, once past a key window.
        out(QStringLiteral("coverage (issue 33): provider clock skew steps %1, of them past a key window %2 (need 1 each)")
                .arg(skewSteps)
                .arg(skewPastWindow));
        const bool issue33Ok = skewSteps >= 1 && skewPastWindow >= 1;
        if (!issue33Ok)
            out(QStringLiteral("coverage: NOT MET (issue 33): no step ran paysim's clock past a key window ahead of ours"));
        coverageOk = unscheduled.isEmpty() && busyKills >= (options.postgres ? 1 : 3) && clockOk && secondExecutor
            && firedTotal > 0 && sum.killsWithWorkInFlight >= 1 && issue14Ok && issue18Ok && issue33Ok;
        if (options.postgres) {
            // Each new kind scheduled at least once (by the seeds alone), and of what timing decides,
            // that a SIGSTOP caught an instance holding a lease and that a stopped instance's late
            // write was refused: the fencing case happened, and held.
            QStringList postgresMissing;
            QStringList postgresScheduled;
            for (const QString &kind : postgresFaultKinds()) {
                postgresScheduled << QStringLiteral("%1=%2").arg(kind).arg(scheduledPostgres.value(kind));
                if (scheduledPostgres.value(kind) == 0)
                    postgresMissing << kind;
            }
            const bool fencingSeen = sum.stopsHoldingLease >= 1 && sum.refusalsAfterStop >= 1;
            out(QStringLiteral("coverage (--postgres): scheduled %1 (kill -9 and SIGSTOP counted when aimed at work in flight); "
                               "SIGSTOPs that caught a lease %2, late writes refused after SIGCONT %3 (need 1 each)")
                    .arg(postgresScheduled.join(QLatin1Char(' ')))
                    .arg(sum.stopsHoldingLease)
                    .arg(sum.refusalsAfterStop));
            if (!postgresMissing.isEmpty())
                out(QStringLiteral("coverage: NOT MET (--postgres): never scheduled: [%1]").arg(postgresMissing.join(QStringLiteral(", "))));
            coverageOk = coverageOk && postgresMissing.isEmpty() && fencingSeen;
        }
        out(coverageOk ? QStringLiteral("coverage: ok (scheduled: every fault kind, %1 kills with work in flight, %2 clock "
                                        "jumps, two executors; fired: %3 faults; kills that hit work in flight: %4; "
                                        "kinds that never met a request: [%5])")
                             .arg(busyKills)
                             .arg(options.viaApi ? QStringLiteral("%1 skipped").arg(jumps) : QString::number(jumps))
                             .arg(firedTotal).arg(sum.killsWithWorkInFlight).arg(missing.join(QLatin1Char(',')))
                       : QStringLiteral("coverage: NOT MET (never scheduled: [%1], scheduled kills with work in flight %2 "
                                        "(need 3), clock jumps %3, second executor %4, faults fired %5, kills that hit "
                                        "work in flight %6 (need 1))")
                             .arg(unscheduled.join(QLatin1Char(',')))
                             .arg(busyKills)
                             .arg(jumps)
                             .arg(secondExecutor ? QStringLiteral("yes") : QStringLiteral("no"))
                             .arg(firedTotal)
                             .arg(sum.killsWithWorkInFlight));
    }
    if (broken)
        return 3;
    return failed.isEmpty() && coverageOk ? 0 : 1;
}
