#include "tests/chaos/chaosschedule.h"

#include <QJsonDocument>
#include <QRandomGenerator>

namespace cs::chaos {

namespace {

constexpr qint64 HourMs = 3600 * 1000;
// The executor child's request timeout is 300 ms: delays above it are timeouts for the client.
constexpr int ClientTimeoutMs = 300;

int between(QRandomGenerator &random, int low, int high) // inclusive
{
    return low + static_cast<int>(random.bounded(static_cast<quint32>(high - low + 1)));
}

bool chance(QRandomGenerator &random, int percent)
{
    return static_cast<int>(random.bounded(100U)) < percent;
}

QJsonObject faultRule(QRandomGenerator &random)
{
    const QStringList kinds = injectedFaultKinds();
    const QString kind = kinds.at(static_cast<int>(random.bounded(static_cast<quint32>(kinds.size()))));
    QJsonObject rule{{QStringLiteral("method"), QStringLiteral("POST")},
                     {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                     {QStringLiteral("fault"), kind}};
    // Lookups (GET /v1/refunds?charge=..., GET /v1/refunds/{id}, GET /v1/events) fail too, at times.
    const bool onLookups = (kind == u"outage_503" || kind == u"reset_connection" || kind == u"delay_after_commit"
                            || kind == u"error_500_before_commit")
        && chance(random, 35);
    if (onLookups) {
        rule.insert(QStringLiteral("method"), QStringLiteral("GET"));
        rule.insert(QStringLiteral("path"), chance(random, 70) ? QStringLiteral("/v1/refunds*") : QStringLiteral("*"));
    }
    rule.insert(QStringLiteral("nth"), between(random, 1, 4));
    if (chance(random, 20)) {
        // A storm: unbounded, each matching request with some probability, until cleared.
        rule.insert(QStringLiteral("times"), 0);
        rule.insert(QStringLiteral("probability"), between(random, 2, 6) / 10.0);
    } else {
        rule.insert(QStringLiteral("times"), between(random, 1, 3));
        if (chance(random, 30))
            rule.insert(QStringLiteral("every"), between(random, 2, 3));
    }
    if (kind == u"delay_before_commit" || kind == u"delay_after_commit") {
        // Mostly past the client's deadline (a timeout), sometimes just late.
        rule.insert(QStringLiteral("delay_ms"),
                    chance(random, 75) ? between(random, ClientTimeoutMs + 50, 1200) : between(random, 20, ClientTimeoutMs - 100));
    } else if (kind == u"lookup_lag") {
        rule.insert(QStringLiteral("delay_ms"), between(random, 200, 4000));
    } else if (kind == u"reset_connection") {
        rule.insert(QStringLiteral("after_commit"), chance(random, 50));
    } else if (kind == u"forced_error") {
        rule.insert(QStringLiteral("status"), 402);
        rule.insert(QStringLiteral("type"), QStringLiteral("card_error"));
        rule.insert(QStringLiteral("code"), QStringLiteral("card_declined"));
        rule.insert(QStringLiteral("decline_code"), QStringLiteral("generic_decline"));
        rule.insert(QStringLiteral("save"), chance(random, 50));
    }
    return rule;
}

// An approve step for the next 1-4 planned actions.
void approveNext(QRandomGenerator &random, Step &step, int *approved, int actionCount)
{
    step.kind = Step::Kind::Approve;
    step.first = *approved;
    step.count = std::min(between(random, 1, 4), actionCount - *approved);
    *approved += step.count;
}

// The planned actions and their charges: the first draws of every schedule, the same in every mode.
void planActions(QRandomGenerator &random, Schedule &schedule, int actionCount)
{
    for (int i = 0; i < actionCount; ++i) {
        PlannedAction a;
        a.amount = between(random, 100, 5000);
        a.viaPaymentIntent = chance(random, 25);
        PlannedAction *previous = i > 0 ? &schedule.actions.last() : nullptr;
        if (previous && !previous->overRefund && !previous->sharedCharge && chance(random, 10)) {
            // The charge holds the previous action's amount and at most 99 more (refunds are >= 100):
            // only one of the two can be paid. Exactly full: the second is refused with the
            // ambiguous charge_already_refunded; not quite: with amount_too_large.
            a.sharedCharge = previous->sharedCharge = true;
            a.charge = previous->charge;
            schedule.chargeAmounts[a.charge] = previous->amount + (chance(random, 50) ? 0 : between(random, 1, 99));
        } else {
            a.overRefund = chance(random, 8);
            a.charge = static_cast<int>(schedule.chargeAmounts.size());
            // Otherwise room for a second refund of the same amount, so that a duplicate would really
            // be created (and counted) instead of being refused as amount_too_large.
            schedule.chargeAmounts << (a.overRefund ? a.amount - between(random, 1, static_cast<int>(a.amount / 2))
                                                    : 2 * a.amount + 100);
        }
        schedule.actions << a;
    }
}

} // namespace

QStringList injectedFaultKinds()
{
    return {QStringLiteral("drop_response_after_commit"), QStringLiteral("delay_before_commit"),
            QStringLiteral("delay_after_commit"),         QStringLiteral("error_500_before_commit"),
            QStringLiteral("error_500_after_commit"),     QStringLiteral("outage_503"),
            QStringLiteral("reset_connection"),           QStringLiteral("rate_limit_429"),
            QStringLiteral("idempotency_error"),          QStringLiteral("lookup_lag"),
            QStringLiteral("forced_error")};
}

QStringList postgresFaultKinds()
{
    return {QStringLiteral("kill -9"), QStringLiteral("SIGSTOP past the lease"), QStringLiteral("pg_terminate_backend"),
            QStringLiteral("database restart")};
}

QString executorName(int index)
{
    return QString(QChar(u'A' + index));
}

QString Step::describe() const
{
    QString what;
    switch (kind) {
    case Kind::Approve:
        what = QStringLiteral("approve   #%1..#%2").arg(first + 1).arg(first + count);
        break;
    case Kind::Fault:
        what = QStringLiteral("fault     ") + QString::fromUtf8(QJsonDocument(rule).toJson(QJsonDocument::Compact));
        break;
    case Kind::ClearFaults:
        what = QStringLiteral("clear     all fault rules");
        break;
    case Kind::Start:
        what = QStringLiteral("start     executor %1").arg(executorName(executor));
        break;
    case Kind::Kill:
        what = QStringLiteral("kill -9   executor %1%2")
                   .arg(executorName(executor), whenBusy ? QStringLiteral(" once an action is EXECUTING (<= 400 ms)") : QString());
        break;
    case Kind::ClockJump:
        what = QStringLiteral("clock     +%1 h (ledger clocks, then paysim)").arg(advanceMs / double(HourMs), 0, 'f', 2);
        break;
    case Kind::Pause:
        what = QStringLiteral("pause");
        break;
    case Kind::Stop:
        what = QStringLiteral("SIGSTOP   %1 for %2 ms (lease %3 ms), then SIGCONT%4")
                   .arg(executorName(executor))
                   .arg(holdMs)
                   .arg(PostgresLeaseMs)
                   .arg(whenBusy ? QStringLiteral(", once it holds the lease of an EXECUTING action (<= 1 s)") : QString());
        break;
    case Kind::Terminate:
        what = QStringLiteral("pg_terminate_backend of %1's connections%2")
                   .arg(executorName(executor), whenBusy ? QStringLiteral(" once an action is EXECUTING (<= 400 ms)") : QString());
        break;
    case Kind::OutsideRefund:
        what = QStringLiteral("outside   refund %1 of #%2's charge at paysim (as in its dashboard), %3%4")
                   .arg(amount > 0 ? QStringLiteral("%1 usd").arg(amount) : QStringLiteral("the rest"))
                   .arg(first + 1)
                   .arg(outsideVariantName(variant),
                        readCharge ? QStringLiteral(", then the charge read again") : QString());
        break;
    case Kind::TwoAgents:
        what = QStringLiteral("two agents propose #%1..#%2 on one charge at once (parallel), approve the accepted")
                   .arg(first + 1)
                   .arg(first + count);
        break;
    case Kind::SimClock:
        what = QStringLiteral("simclock  paysim's clock alone +%1 s (pending refunds due by then settle)").arg(advanceMs / 1000);
        break;
    case Kind::ProviderSkew:
        what = QStringLiteral("skew      paysim's clock alone +%1 h (ahead of the ledger's; past 24 h its keys are pruned)")
                   .arg(double(advanceMs) / 3600000.0, 0, 'f', 1);
        break;
    case Kind::DbRestart:
        what = immediate ? QStringLiteral("database  stop -m immediate, down %1 ms, start again").arg(holdMs)
                         : QStringLiteral("database  stop -m fast, down %1 ms, start again").arg(holdMs);
        break;
    }
    return QStringLiteral("+%1ms ").arg(waitMs, 4) + what;
}

Schedule generateSchedule(quint32 seed, int actionCount, int stepCount)
{
    QRandomGenerator random(seed);
    Schedule schedule;
    schedule.seed = seed;
    planActions(random, schedule, actionCount);

    bool running[2] = {false, false};
    int approved = 0;
    bool jumped = false;
    auto add = [&](Step step) {
        schedule.steps << step;
    };

    // Executor A first, sometimes already racing with B from the start.
    add(Step{Step::Kind::Start, 0, 0, 0, 0, {}, 0, false});
    running[0] = true;
    if (chance(random, 35)) {
        add(Step{Step::Kind::Start, 0, 1, 0, 0, {}, 0, false});
        running[1] = true;
    }

    while (schedule.steps.size() < stepCount) {
        Step step;
        step.waitMs = between(random, 0, 160);
        const int roll = between(random, 0, 99);
        if (roll < 22 && approved < actionCount) {
            approveNext(random, step, &approved, actionCount);
        } else if (roll < 58) {
            step.kind = Step::Kind::Fault;
            step.rule = faultRule(random);
        } else if (roll < 72) {
            const bool any = running[0] || running[1];
            if (!any)
                continue;
            step.kind = Step::Kind::Kill;
            step.whenBusy = chance(random, 60);
            if (step.whenBusy && approved < actionCount && chance(random, 60)) {
                // New work right before the kill, so that it finds requests in flight.
                Step work;
                work.kind = Step::Kind::Approve;
                work.waitMs = step.waitMs;
                work.first = approved;
                work.count = std::min(between(random, 1, 3), actionCount - approved);
                approved += work.count;
                add(work);
                step.waitMs = between(random, 0, 20);
            }
            step.executor = running[0] && running[1] ? between(random, 0, 1) : (running[0] ? 0 : 1);
            running[step.executor] = false;
        } else if (roll < 86) {
            if (running[0] && running[1])
                continue;
            step.kind = Step::Kind::Start;
            step.executor = running[0] ? 1 : (running[1] ? 0 : between(random, 0, 1));
            running[step.executor] = true;
        } else if (roll < 90) {
            step.kind = Step::Kind::ClearFaults;
        } else if (roll < 94) {
            if (jumped || approved == 0)
                continue;
            step.kind = Step::Kind::ClockJump;
            // Past the 24 h window (minus the 1 h margin) of every attempt made so far.
            step.advanceMs = 25 * HourMs + between(random, 0, 3600) * 1000LL;
            jumped = true;
        } else {
            step.kind = Step::Kind::Pause;
            step.waitMs = between(random, 100, 400);
        }
        add(step);
    }
    if (approved < actionCount)
        add(Step{Step::Kind::Approve, between(random, 0, 100), 0, approved, actionCount - approved, {}, 0, false});
    return schedule;
}

QString outsideVariantName(int variant)
{
    switch (variant) {
    case Step::OutsideBefore:
        return QStringLiteral("before its approval");
    case Step::OutsideInFlight:
        return QStringLiteral("once it is in flight (<= 400 ms)");
    default:
        return QStringLiteral("later");
    }
}

void addIssue14Steps(Schedule &schedule, bool viaApi)
{
    QRandomGenerator random(schedule.seed ^ 0x14d0c5e7u);
    // 1. A refund made outside Countersign, on a planned action's charge (one that holds twice its
    // refund plus 100): leaving it room (<= refund + 100), taking it (more), or the rest.
    QList<int> plain;
    for (int i = 0; i < schedule.actions.size(); ++i) {
        const PlannedAction &a = schedule.actions.at(i);
        if (!a.overRefund && !a.sharedCharge && !a.contested)
            plain << i;
    }
    if (!plain.isEmpty()) {
        Step step;
        step.kind = Step::Kind::OutsideRefund;
        step.first = plain.at(between(random, 0, static_cast<int>(plain.size()) - 1));
        const qint64 refund = schedule.actions.at(step.first).amount;
        const int room = between(random, 0, 99);
        step.amount = room < 25 ? between(random, 100, static_cast<int>(refund) + 100)
                                : (room < 75 ? between(random, static_cast<int>(refund) + 101, 2 * static_cast<int>(refund) + 100) : 0);
        step.variant = between(random, 0, 2);
        step.readCharge = chance(random, 60);
        step.waitMs = step.variant == Step::OutsideInFlight ? 0 : between(random, 0, 160);
        qsizetype approveAt = -1;
        for (qsizetype k = 0; k < schedule.steps.size() && approveAt < 0; ++k) {
            const Step &s = schedule.steps.at(k);
            if (s.kind == Step::Kind::Approve && s.first <= step.first && step.first < s.first + s.count)
                approveAt = k;
        }
        if (approveAt >= 0) {
            qsizetype at = approveAt; // before it
            if (step.variant == Step::OutsideInFlight)
                at = approveAt + 1;
            else if (step.variant == Step::OutsideLater)
                at = between(random, static_cast<int>(approveAt) + 1, static_cast<int>(schedule.steps.size()));
            schedule.steps.insert(at, step);
        }
    }
    if (!viaApi)
        return;
    // 2. Two agents on one charge of their own, 2-3 refunds each of 30-60 % of it: together more
    // than it holds (at least 120 %), each one alone within it.
    const int charge = static_cast<int>(schedule.chargeAmounts.size());
    const qint64 captured = between(random, 3000, 9000);
    schedule.chargeAmounts << captured;
    Step step;
    step.kind = Step::Kind::TwoAgents;
    step.first = static_cast<int>(schedule.actions.size());
    for (int agent = 0; agent < 2; ++agent) {
        const int n = between(random, 2, 3);
        for (int k = 0; k < n; ++k) {
            PlannedAction a;
            a.amount = between(random, static_cast<int>(captured * 3 / 10), static_cast<int>(captured * 6 / 10));
            a.charge = charge;
            a.contested = true;
            a.agent = agent;
            schedule.actions << a;
        }
    }
    step.count = static_cast<int>(schedule.actions.size()) - step.first;
    step.waitMs = between(random, 0, 160);
    // Anywhere after the first start (the first steps start executors).
    schedule.steps.insert(between(random, 1, static_cast<int>(schedule.steps.size())), step);
}

QString settlementRuleKind()
{
    return QStringLiteral("refund_settles");
}

bool webhooksFor(quint32 seed)
{
    QRandomGenerator random(seed ^ 0x3eb400c5u);
    return random.bounded(4) != 0;
}

void addSettlementSteps(Schedule &schedule)
{
    QRandomGenerator random(schedule.seed ^ 0x18e77a1eu);
    if (!chance(random, 75))
        return;
    const int rules = chance(random, 35) ? 2 : 1;
    for (int r = 0; r < rules; ++r) {
        Step step;
        step.kind = Step::Kind::Fault;
        step.waitMs = between(random, 0, 160);
        const int to = between(random, 0, 99);
        const int afterSeconds = between(random, 30, SettlementMaxAfterSeconds);
        QJsonObject rule{{QStringLiteral("method"), QStringLiteral("POST")},
                         {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                         {QStringLiteral("fault"), settlementRuleKind()},
                         {QStringLiteral("after_seconds"), afterSeconds},
                         {QStringLiteral("to"), to < 35 ? QStringLiteral("succeeded")
                                                        : (to < 80 ? QStringLiteral("failed") : QStringLiteral("canceled"))}};
        if (to >= 35 && to < 80) {
            static const char *const reasons[] = {"lost_or_stolen_card", "expired_or_canceled_card", "insufficient_funds",
                                                  "declined"};
            rule.insert(QStringLiteral("failure_reason"), QString::fromLatin1(reasons[between(random, 0, 3)]));
        }
        if (chance(random, 60)) {
            // A share of the refunds from now on, until a clear.
            rule.insert(QStringLiteral("times"), 0);
            rule.insert(QStringLiteral("probability"), between(random, 3, 9) / 10.0);
        } else {
            rule.insert(QStringLiteral("nth"), between(random, 1, 3));
            rule.insert(QStringLiteral("times"), between(random, 1, 4));
        }
        step.rule = rule;
        // Anywhere after the first start (the first steps start executors).
        const int at = between(random, 1, static_cast<int>(schedule.steps.size()));
        schedule.steps.insert(at, step);
        if (!chance(random, 70))
            continue; // only the settle moves paysim's clock past it
        Step clock;
        clock.kind = Step::Kind::SimClock;
        clock.waitMs = between(random, 0, 160);
        clock.advanceMs = (afterSeconds + between(random, 1, 30)) * 1000LL;
        schedule.steps.insert(between(random, at + 1, static_cast<int>(schedule.steps.size())), clock);
    }
}

void addProviderSkewSteps(Schedule &schedule)
{
    QRandomGenerator random(schedule.seed ^ 0x33c10c4bu);
    if (!chance(random, 80))
        return;
    Step skew;
    skew.kind = Step::Kind::ProviderSkew;
    skew.waitMs = between(random, 0, 400);
    // In whole minutes: past the key window (24 h .. 48 h) in 3 of 5, else 1 h .. 23 h (inside the
    // margin, or across the window's end on paysim's clock only).
    skew.advanceMs = (chance(random, 60) ? between(random, 24 * 60, static_cast<int>(ProviderSkewMaxMs / 60000))
                                         : between(random, 60, 23 * 60))
        * 60000LL;
    schedule.steps.insert(between(random, 1, static_cast<int>(schedule.steps.size())), skew);
}

Schedule scheduleFor(quint32 seed, int actionCount, int stepCount, bool viaApi, bool postgres)
{
    Schedule schedule = postgres ? generatePostgresSchedule(seed, actionCount, stepCount)
                                 : generateSchedule(seed, actionCount, stepCount);
    addIssue14Steps(schedule, viaApi || postgres);
    addSettlementSteps(schedule);
    addProviderSkewSteps(schedule);
    return schedule;
}

Schedule generatePostgresSchedule(quint32 seed, int actionCount, int stepCount)
{
    QRandomGenerator random(seed);
    Schedule schedule;
    schedule.seed = seed;
    planActions(random, schedule, actionCount);

    bool running[PostgresInstances] = {true, true, true};
    int approved = 0;
    int restarts = 0;
    for (int i = 0; i < PostgresInstances; ++i)
        schedule.steps << Step{Step::Kind::Start, 0, i, 0, 0, {}, 0, false};
    auto pick = [&](bool wantRunning) { // a random instance that is (not) running; -1 if none
        QList<int> candidates;
        for (int i = 0; i < PostgresInstances; ++i) {
            if (running[i] == wantRunning)
                candidates << i;
        }
        return candidates.isEmpty() ? -1 : candidates.at(between(random, 0, static_cast<int>(candidates.size()) - 1));
    };
    // New work right before a step aimed at requests in flight.
    auto workBefore = [&](Step &step) {
        if (approved >= actionCount || !chance(random, 60))
            return;
        Step work;
        work.kind = Step::Kind::Approve;
        work.waitMs = step.waitMs;
        work.first = approved;
        work.count = std::min(between(random, 1, 3), actionCount - approved);
        approved += work.count;
        schedule.steps << work;
        step.waitMs = between(random, 0, 20);
    };

    while (schedule.steps.size() < stepCount) {
        Step step;
        step.waitMs = between(random, 0, 160);
        const int roll = between(random, 0, 99);
        if (roll < 22 && approved < actionCount) {
            approveNext(random, step, &approved, actionCount);
        } else if (roll < 50) {
            step.kind = Step::Kind::Fault;
            step.rule = faultRule(random);
        } else if (roll < 60) {
            step.executor = pick(true);
            if (step.executor < 0)
                continue;
            step.kind = Step::Kind::Kill;
            step.whenBusy = chance(random, 60);
            if (step.whenBusy)
                workBefore(step);
            running[step.executor] = false;
        } else if (roll < 70) {
            step.executor = pick(false);
            if (step.executor < 0)
                continue;
            step.kind = Step::Kind::Start;
            running[step.executor] = true;
        } else if (roll < 80) {
            step.executor = pick(true);
            if (step.executor < 0)
                continue;
            step.kind = Step::Kind::Stop;
            step.whenBusy = chance(random, 70);
            if (step.whenBusy && chance(random, 70)) {
                // Answers that take a while (committed at paysim, then 150-280 ms, within the 300 ms
                // client deadline), so that the SIGSTOP finds a request in flight: the fencing case.
                Step slow;
                slow.kind = Step::Kind::Fault;
                slow.waitMs = step.waitMs;
                slow.rule = QJsonObject{{QStringLiteral("method"), QStringLiteral("POST")},
                                        {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                                        {QStringLiteral("fault"), QStringLiteral("delay_after_commit")},
                                        {QStringLiteral("nth"), 1},
                                        {QStringLiteral("times"), between(random, 1, 3)},
                                        {QStringLiteral("delay_ms"), between(random, 150, ClientTimeoutMs - 20)}};
                schedule.steps << slow;
                step.waitMs = 0;
            }
            if (step.whenBusy)
                workBefore(step);
            // Past the lease, so that another instance rescues what it held, and sometimes past
            // several reconciler rounds too.
            step.holdMs = PostgresLeaseMs + between(random, 400, 2000);
        } else if (roll < 87) {
            step.executor = pick(true);
            if (step.executor < 0)
                continue;
            step.kind = Step::Kind::Terminate;
            step.whenBusy = chance(random, 50);
        } else if (roll < 91) {
            if (restarts >= 2)
                continue;
            ++restarts;
            step.kind = Step::Kind::DbRestart;
            step.immediate = chance(random, 60);
            step.holdMs = step.immediate ? between(random, 200, 1500) : between(random, 0, 500);
        } else if (roll < 95) {
            step.kind = Step::Kind::ClearFaults;
        } else {
            step.kind = Step::Kind::Pause;
            step.waitMs = between(random, 100, 400);
        }
        schedule.steps << step;
    }
    if (approved < actionCount)
        schedule.steps << Step{Step::Kind::Approve, between(random, 0, 100), 0, approved, actionCount - approved, {}, 0, false};
    return schedule;
}

} // namespace cs::chaos
