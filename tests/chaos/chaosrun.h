#pragma once

// One chaos run: real paysim and executor processes on 127.0.0.1, one SQLite ledger in a
// temporary folder, the seeded schedule played against them, a bounded settle, then the
// invariant checks against paysim's ground truth. See docs/CHAOS.md.

#include "tests/chaos/chaosschedule.h"

#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>

namespace cs::chaos {

struct RunOptions
{
    quint32 seed = 1;
    int actions = 20;
    int steps = 24;
    int settleMs = 20000;
    bool verbose = false;
    bool selfTestDuplicate = false; // send one extra refund with a fresh key: the checks must fail
    // Issue 18: once the settlements have converged, fail one COMPLETED action's refund at paysim
    // behind Countersign's back (POST /_sim/refunds/{id}): invariant 11 must report it.
    bool selfTestSettlement = false;
    // Through the REST API: one or two `countersignd serve` processes (executor + reconciler +
    // API) instead of executor_child processes; proposals and approvals over HTTP by an agent and
    // an approver user; clock jumps skipped (countersignd runs on the system clock).
    bool viaApi = false;
    // PostgreSQL (implies viaApi): a fresh database per seed on the process's private cluster
    // (cs::test::PgCluster), three `countersignd serve` instances A, B, C on it, the schedule of
    // generatePostgresSchedule (kill -9, SIGSTOP past the lease, pg_terminate_backend, database
    // restarts besides paysim's faults).
    bool postgres = false;
    // Issue 18, with viaApi: paysim's webhooks delivered to the countersignd instances through a
    // relay in the harness. BySeed: webhooksFor(seed) decides.
    enum class Webhooks { BySeed, On, Off };
    Webhooks webhooks = Webhooks::BySeed;
    QString paysimBin;
    QString childBin;
    QString countersigndBin;
};

struct RunResult
{
    enum class Verdict { Pass, Fail, Broken }; // Broken: the harness could not run (no paysim, ...)
    Verdict verdict = Verdict::Broken;
    QStringList violations;
    double seconds = 0;
    // Coverage, summed over seeds by the caller.
    QMap<QString, int> faultsFired; // fault name -> requests it was applied to
    int kills = 0;
    int killsWithWorkInFlight = 0; // killed while some action was EXECUTING
    int starts = 0;
    int raceSteps = 0;   // steps run while both executors were up
    int clockJumps = 0;
    // --via-api only.
    int skippedClockJumps = 0;
    int resentProposals = 0;   // same Idempotency-Key again: must replay, never a second action
    int replayedProposals = 0; // of those, answered with Idempotent-Replayed: true
    int resentApprovals = 0;
    int deferredApprovals = 0; // an approve step while no countersignd was up: done at the next start
    // --postgres only.
    int stops = 0;               // SIGSTOP past the lease (then SIGCONT)
    int stopsHoldingLease = 0;   // ... while the instance held the lease of an EXECUTING action
    int fencedActions = 0;       // actions whose lease a stopped instance held: checked after SIGCONT
    // Late writes the ledger refused, from the instances' logs (an executor's "attempt N could not
    // be recorded by", "lease lost by", "not sent by"): its lease was gone ("no longer holds the lease
    // ...; nothing recorded") or the attempt was already finished by the one who rescued it.
    int leaseRefusals = 0;
    int finishedRefusals = 0;
    int refusalsAfterStop = 0; // ... of both, by an instance that had been SIGSTOPped
    int terminations = 0;        // pg_terminate_backend steps
    int backendsTerminated = 0;  // connections they ended
    int dbRestarts = 0;
    int unavailableAnswers = 0;  // 503 answers to the probes while the database was down
    int recoveries = 0;          // instances that answered again after a restart without being restarted
    int internalErrors = 0;      // API answers 5xx other than 503 (each one a violation of invariant 6)
    int lostCommits = 0;         // "lost the answer to COMMIT" in the instances' logs (read back, pg_xact_status)
    // Issue 14's schedules.
    int outsideRefunds = 0;        // OutsideRefund steps played
    int outsideCreated = 0;        // ... that paysim's ground truth holds (the rest it refused)
    int outsideWithoutRoom = 0;    // ... created, leaving the planned action no room
    int outsideReads = 0;          // the charge read again after it (a look-up, a snapshot recorded)
    int twoAgentSteps = 0;         // TwoAgents steps played
    int contestedProposed = 0;     // their proposals
    int contestedAccepted = 0;     // ... answered 201
    int contestedRefused = 0;      // ... answered 422 exceeds_refundable
    // Approval expiry (docs/POLICY.md; without --via-api: the harness approves under a policy
    // whose rule expires approvals unsent after an hour, and a clock jump passes it).
    int approvalsExpired = 0;      // approvals the ledger recorded as expired unsent
    int reapproved = 0;            // ... whose action the harness approved again (a fresh key)
    // Issue 18: settlement after COMPLETED (invariant 11).
    int simClockSteps = 0;          // SimClock steps played (paysim's clock alone)
    int settleClockMoves = 0;       // the settle moved paysim's clock past scheduled settlements
    int completedPending = 0;       // COMPLETED actions whose settlement began pending
    int settledSucceeded = 0;       // COMPLETED actions whose refund is, at the provider and in the ledger:
    int settledFailed = 0;
    int settledCanceled = 0;
    int reviewItems = 0;            // settlement attention "open"
    int apiLookups = 0;             // --via-api: look-ups the settle asked through the API (POST .../lookups)
    QMap<QString, int> settledBy;   // how the ledger learned each final status: the source of its
                                    // change (attempt, lookup, schedule, webhook, reconciliation)
    int rejectedFailedRefund = 0;   // REJECTED with one refund paysim holds failed or canceled (a look-up proved it)
    // Issue 18, --via-api: paysim's webhooks through the harness's relay.
    int webhookRuns = 0;            // runs with webhooks on
    QMap<int, int> webhookAnswers;  // countersignd's HTTP status -> deliveries it answered so (0: no answer)
    int webhooksDelivered = 0;      // paysim's deliveries at the end of the run: answered 2xx ...
    int webhooksGaveUp = 0;         // ... failed after all of paysim's attempts ...
    int webhooksPending = 0;        // ... still being retried when the run ended
    QMap<QString, int> finalStates;
    int reviewsByRule[7] = {0, 0, 0, 0, 0, 0, 0}; // W, M, S, F, A, B, K (see docs/CHAOS.md)
};

RunResult runChaos(const RunOptions &options);

} // namespace cs::chaos
