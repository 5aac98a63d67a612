#pragma once

#include "server/executionconfig.h"
#include "server/providerclient.h"
#include "server/reconciler.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

class QThread;

namespace cs {

// Executes approved refunds exactly once, on `workers` threads of its own (never the HTTP
// server's thread). Each worker loops:
//
//   claim (the ledger's atomic claim + lease commits the attempt row) -> send -> record the
//   classified answer (AttemptPolicy); 429 / 409 keep the lease and send again with the same key
//   after Retry-After or backoff, at most maxBusyRetries times, then CONFIRMATION_UNKNOWN;
//   when there is nothing to claim, one reconciler round on a due CONFIRMATION_UNKNOWN action;
//   every recoverySweep, expired leases of dead executors -> CONFIRMATION_UNKNOWN.
//
// start() recovers expired leases before any worker exists. stop() lets requests in flight
// finish and be recorded (each is bounded by the adapter's deadline); a stop that runs out of
// grace aborts them, which records them honestly as unknown. Several executors — threads or
// processes — may share one ledger: the claim and the leases keep one executor per action.
//
// Group commit: a committer thread writes the workers' finished attempts and claim requests
// together (ExecutionStore::commitBatch), so one fsync serves several actions, while the workers go
// on sending; each worker holds one committed claim ahead. Each attempt row is still committed
// before its request is sent; an answer not yet committed when the process dies is recovered as
// unknown and reconciled. stop() returns only once every answer is committed.
//
// The ledger and the provider must outlive the executor. Not copyable; start/stop from one thread.
class Executor
{
public:
    using ChangeObserver = std::function<void(const ActionRecord &)>;

    // Test seams for crash tests, called on the worker thread: after an attempt row is
    // committed and before its request is sent; after the answer arrived and before it is
    // recorded. A child process blocks in them so the test can SIGKILL it at that point.
    struct Hooks
    {
        std::function<void(const ActionRecord &, const Attempt &)> attemptCommitted;
        std::function<void(const ActionRecord &, const Attempt &, const RefundOutcome &)> answered;
    };

    struct Stats
    {
        qint64 claimed = 0;
        qint64 sent = 0;          // requests sent by the executor (first attempts and 429/409 retries)
        qint64 completed = 0;     // by the executor's own answer
        qint64 rejected = 0;
        qint64 unknown = 0;       // -> CONFIRMATION_UNKNOWN
        qint64 review = 0;
        qint64 busyRetries = 0;   // 429 / 409 same-key resends
        qint64 reconcileRounds = 0;
        qint64 recovered = 0;     // actions recovered from expired leases
        qint64 groupCommits = 0;  // transactions written by the committer (finishes + claims)
    };

    // Claims and attempts go through stores.execution; the rest serves the workers' reconciler.
    Executor(Reconciler::Stores stores, ProviderClient &provider, ExecutionConfig config);
    ~Executor(); // stop()
    Q_DISABLE_COPY_MOVE(Executor)

    // Set before start(). The observer is called on the executor's threads after each state change
    // it makes; calls for one action may arrive out of order from different threads: order them
    // by ActionRecord::stateVersion.
    void setChangeObserver(ChangeObserver observer);
    void setHooks(Hooks hooks);

    // Validates the configuration, recovers expired leases, then starts the workers.
    bool start(QString *error = nullptr);
    // Graceful: no new claims; requests in flight finish and are recorded. After `grace`
    // (default: the request timeout plus 2 s) they are aborted and recorded as unknown.
    void stop();
    void stop(std::chrono::milliseconds grace);
    bool isRunning() const { return m_running; }

    // New work (an approval): idle workers look at once instead of at their next poll.
    void wake();

    const ExecutionConfig &config() const { return m_config; }
    QStringList workerIds() const { return m_workerIds; }
    Stats stats() const;
    Reconciler &reconciler() { return m_reconciler; }

private:
    class Committer;
    struct Mailbox;

    void workerLoop(int index);
    // Sends the claimed attempt; its outcome is recorded by the committer (429 / 409: at once,
    // then the same key again).
    void execute(const ExecutionStore::Claim &claim, const QString &workerId);
    // Why a 429/409 must not be followed by the same key again: the key window has passed on
    // either clock, or the evidence in hand shows a refund; empty when it may.
    QString whyNotResend(const ActionRecord &record, const QDateTime &firstStart, const ProviderClock &clock) const;
    void sweepIfDue();
    bool pause(std::chrono::milliseconds duration); // false when stopping
    void notify(const ActionRecord &record);
    void count(ActionState state);

    ExecutionStore &m_ledger;
    const ActionReader &m_reader;
    ProviderClient &m_provider;
    ExecutionConfig m_config;
    Reconciler m_reconciler;
    ChangeObserver m_observer;
    Hooks m_hooks;

    QList<QThread *> m_threads;
    QStringList m_workerIds;
    bool m_running = false;

    std::mutex m_mutex;
    std::condition_variable m_wakeup;
    std::atomic_bool m_stopping{false};
    std::atomic_bool m_aborting{false}; // stop() ran out of grace
    quint64 m_wakeSerial = 0; // guarded by m_mutex
    std::atomic<qint64> m_nextSweepMs{0};

    struct Counters;
    std::unique_ptr<Counters> m_counters;
    std::unique_ptr<Committer> m_committer;
    std::vector<std::unique_ptr<Mailbox>> m_mailboxes;
};

} // namespace cs
