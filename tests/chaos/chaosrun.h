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
    // Through the REST API: one or two `countersignd serve` processes (executor + reconciler +
    // API) instead of executor_child processes; proposals and approvals over HTTP by an agent and
    // an approver user; clock jumps skipped (countersignd runs on the system clock).
    bool viaApi = false;
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
    QMap<QString, int> finalStates;
    int reviewsByRule[5] = {0, 0, 0, 0, 0}; // W, M, S, F, A (see docs/CHAOS.md)
};

RunResult runChaos(const RunOptions &options);

} // namespace cs::chaos
