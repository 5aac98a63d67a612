#pragma once

// The chaos harness's schedule: everything random in a run, drawn from one seed with
// QRandomGenerator and nothing else, so that `chaos --seed N` replays the same schedule.
// (Thread interleavings, the OS scheduler and wall-clock timing are not replayed: a replay runs
// the same steps at the same offsets, which reproduces most, not all, failures.)

#include <QJsonObject>
#include <QList>
#include <QString>

#include <chrono>

namespace cs::chaos {

// One refund to propose: amount in minor units (usd) against charge `charge` (an index into
// Schedule::chargeAmounts), named by its charge id or by its payment intent.
// overRefund: the charge is smaller than the refund: the provider must refuse it (amount_too_large).
// sharedCharge: two neighbouring actions on one charge that holds only the first one's amount:
// whichever runs second must be refused (amount_too_large or the ambiguous charge_already_refunded).
struct PlannedAction
{
    qint64 amount = 0;
    int charge = 0;
    bool viaPaymentIntent = false;
    bool overRefund = false;
    bool sharedCharge = false;
    // --via-api (addIssue14Steps): one of the refunds two agents propose at once on a charge of
    // their own (a TwoAgents step); agent 0 is agent-chaos, 1 agent-b-chaos. Together they are
    // more than the charge holds: only those that fit may be accepted (422 exceeds_refundable).
    bool contested = false;
    int agent = 0;
};

struct Step
{
    enum class Kind {
        Approve,     // propose + approve actions [first, first + count) through the ledger API
        Fault,       // POST /_sim/faults with `rule`
        ClearFaults, // DELETE /_sim/faults
        Start,       // start executor process `executor` (0 = A, 1 = B)
        Kill,        // SIGKILL executor process `executor` (whenBusy: once an action is EXECUTING, <= 400 ms)
        ClockJump,   // ledger clocks, then paysim's clock, forward by advanceMs (past the key window)
        Pause,       // nothing: let the system run for waitMs more
        // --postgres only (generatePostgresSchedule):
        Stop,        // SIGSTOP instance `executor` for holdMs (past the lease), then SIGCONT
                     // (whenBusy: once it holds the lease of an EXECUTING action, <= 1 s)
        Terminate,   // pg_terminate_backend of every connection of instance `executor`
        DbRestart,   // the database goes: stopImmediate (or a fast stop) for holdMs, then startAgain
        // Issue 14 (addIssue14Steps, every mode):
        OutsideRefund, // POST /v1/refunds straight at paysim on planned action `first`'s charge, as a
                       // person in the provider's dashboard would (its own API key, no Countersign
                       // metadata): `amount` (0: the rest), `variant` when (OutsideBefore...), then
                       // (readCharge) the charge read again: an approver's charge look-up (--via-api)
                       // or a snapshot recorded in the ledger
        TwoAgents,     // --via-api: two agents propose planned actions [first, first + count) at once
                       // (parallel HTTP), then the accepted ones are approved with a note
        // Issue 18 (addSettlementSteps, every mode):
        SimClock,      // paysim's clock alone forward by advanceMs (POST /_sim/clock): the refunds a
                       // refund_settles rule left pending settle at the provider; the ledger learns
                       // it later (scheduled look-ups, look-ups through the API)
        // Issue 33 (addProviderSkewSteps, every mode):
        ProviderSkew,  // paysim's clock alone ahead by advanceMs, up to two key windows: the provider
                       // prunes idempotency keys that the ledger's clock still holds inside the window
    };
    enum Variant { OutsideBefore = 0, OutsideInFlight = 1, OutsideLater = 2 };
    Kind kind = Kind::Pause;
    int waitMs = 0; // slept before the step
    int executor = 0;
    int first = 0;
    int count = 0;
    QJsonObject rule;
    qint64 advanceMs = 0;
    bool whenBusy = false;
    int holdMs = 0;         // Stop: how long SIGSTOP lasts; DbRestart: how long the database stays down
    bool immediate = false; // DbRestart: pg_ctl stop -m immediate (a crash) rather than -m fast
    qint64 amount = 0;      // OutsideRefund: minor units; 0 = what is left of the charge
    int variant = 0;        // OutsideRefund: OutsideBefore (its approval), OutsideInFlight, OutsideLater
    bool readCharge = false; // OutsideRefund: the charge is read again right after it

    QString describe() const;
};

struct Schedule
{
    quint32 seed = 0;
    QList<PlannedAction> actions;
    QList<qint64> chargeAmounts;
    QList<Step> steps;
};

// Fault names paysim supports that the harness injects (clock_advance is not among them: ClockJump
// steps move both clocks, and ProviderSkew steps move paysim's alone, by the schedule).
QStringList injectedFaultKinds();

Schedule generateSchedule(quint32 seed, int actionCount, int stepCount);

// --postgres: the same planned actions as generateSchedule(seed, ...) (drawn first, the same way),
// then steps for three `countersignd serve` instances A, B, C on one PostgreSQL database: approvals,
// the same paysim faults, kill -9 and restarts of instances, SIGSTOP past the lease, pg_terminate_backend
// of one instance's connections and database restarts (at most two a run). No clock jumps.
Schedule generatePostgresSchedule(quint32 seed, int actionCount, int stepCount);
constexpr int PostgresInstances = 3;

// Issue 14's two schedules, drawn from the seed by a generator of their own (so that the steps
// and actions above stay exactly what they were for a seed): one OutsideRefund step on a planned
// action's charge (before its approval, while it is in flight, or later; leaving it room, taking
// it, or refunding the rest), and with viaApi one TwoAgents step with 4-6 contested actions
// appended to schedule.actions on a charge of their own (appended to chargeAmounts).
void addIssue14Steps(Schedule &schedule, bool viaApi);
// Issue 18's settlement after COMPLETED, drawn from the seed by a generator of its own (so the
// steps above stay what they were for a seed): in ~3 seeds of 4 one or two `refund_settles` fault
// rules (Fault steps on POST /v1/refunds: refunds answered `pending` that become succeeded, failed
// or canceled after_seconds later on paysim's clock; a share, or the nth..nth+times-1 request),
// and for most rules a later SimClock step past their after_seconds. paysim's clock moves at most
// SettlementMaxAfterSeconds + 30 s per step, two steps a run: well inside the 1 h margin of the
// key window, which paysim's clock running ahead of ours eats into.
void addSettlementSteps(Schedule &schedule);
constexpr int SettlementMaxAfterSeconds = 600;
QString settlementRuleKind(); // "refund_settles": paysim decides it in a lane of its own
// Issue 33: the provider's clock running ahead of the ledger's. In 4 seeds of 5 (a generator of its
// own: nothing else a seed draws changes) one ProviderSkew step, anywhere after the first start,
// moves paysim's clock alone ahead: in 3 of 5 of them past the key window (24 h to two windows,
// 48 h) — past its key retention while the ledger's clock is still inside the window — else 1 h
// to 23 h. Countersign must then read paysim's clock
// from the Date of its answers and never resend a key paysim may have forgotten.
void addProviderSkewSteps(Schedule &schedule);
constexpr qint64 ProviderSkewMaxMs = 48LL * 3600 * 1000;
// Issue 18, --via-api and --postgres: whether paysim's signed webhooks reach the countersignd
// instances in this seed's run (through a relay in the harness; docs/CHAOS.md). Three seeds in
// four, by the seed alone (a generator of its own: nothing else a seed draws changes); the rest
// learn what became of a refund only from their own answers and look-ups.
bool webhooksFor(quint32 seed);
// What a run plays: generateSchedule or generatePostgresSchedule, then addIssue14Steps, then
// addSettlementSteps, then addProviderSkewSteps.
Schedule scheduleFor(quint32 seed, int actionCount, int stepCount, bool viaApi, bool postgres);
QString outsideVariantName(int variant); // "before its approval", "in flight", "later"
// The executor lease of the instances in --postgres runs (request_timeout_ms 300: the validated
// minimum 2 x 300 + 1000, as executor_child's): every Stop step lasts longer than this.
constexpr int PostgresLeaseMs = 1600;
constexpr int PostgresRequestTimeoutMs = 300;

// The fault kinds of --postgres besides paysim's, as the summary and --require-coverage name them.
QStringList postgresFaultKinds(); // kill -9, SIGSTOP past the lease, pg_terminate_backend, database restart

QString executorName(int index); // "A", "B", "C"

} // namespace cs::chaos
