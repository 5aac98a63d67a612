#include "server/executor.h"

#include "server/attemptpolicy.h"
#include "server/backoff.h"
#include "server/executionlog.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QSysInfo>
#include <QThread>

#include <algorithm>
#include <deque>

namespace cs {

namespace {

using ms = std::chrono::milliseconds;
using Code = LedgerError::Code;

qint64 steadyMs()
{
    return std::chrono::duration_cast<ms>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::atomic<quint64> g_executorSerial{0};

constexpr int ClaimsBetweenReconcileRounds = 8;
// Committed claims a worker holds ahead of the one it sends: they keep it sending while the
// committer writes, and they make the committer's batches larger (fewer fsyncs per action).
constexpr int ClaimsAhead = 4;
constexpr qsizetype MaxFinishesPerCommit = 64;
constexpr int FinishCommitTries = 5;
// How long the committer waits for more requests before it commits what it has, unless a worker
// is starving for a claim; and how many requests per worker end the wait at once.
constexpr std::chrono::microseconds GatherWindow{1000};
constexpr size_t GatherPerWorker = 6;

} // namespace

struct Executor::Counters
{
    std::atomic<qint64> claimed{0};
    std::atomic<qint64> sent{0};
    std::atomic<qint64> completed{0};
    std::atomic<qint64> rejected{0};
    std::atomic<qint64> unknown{0};
    std::atomic<qint64> review{0};
    std::atomic<qint64> busyRetries{0};
    std::atomic<qint64> reconcileRounds{0};
    std::atomic<qint64> recovered{0};
    std::atomic<qint64> groupCommits{0};
};

// Where the committer leaves a worker's claims: a committed claim, or nothing (nothing to claim).
struct Executor::Mailbox
{
    std::mutex mutex;
    std::condition_variable delivered;
    std::deque<std::optional<ExecutionStore::Claim>> answers;

    void put(std::optional<ExecutionStore::Claim> answer)
    {
        {
            std::lock_guard lock(mutex);
            answers.push_back(std::move(answer));
        }
        delivered.notify_one();
    }
};

// Group commit on a thread of its own: whatever the workers queued meanwhile — finished attempts
// and claim requests — goes to the ledger in one transaction (ExecutionStore::commitBatch), so one
// fsync serves several actions and the workers keep sending while it commits. A worker never
// sends before its claim, and thus its attempt row, is committed; an answer whose commit is still
// queued when the process dies is recovered as unknown and reconciled, like any crash.
class Executor::Committer
{
public:
    using Done = std::function<void(const LedgerResult<ExecutionStore::FinishedAttempt> &)>;

    Committer(ExecutionStore &ledger, ms lease, std::atomic<qint64> *commits)
        : m_ledger(ledger), m_lease(lease), m_commits(commits)
    {
    }
    ~Committer() { stop(); }

    void start(const QStringList &workerIds, std::vector<std::unique_ptr<Mailbox>> *mailboxes)
    {
        m_workerIds = workerIds;
        m_mailboxes = mailboxes;
        m_stop = false;
        m_claiming = true;
        m_thread = QThread::create([this] {
            loop();
            m_ledger.releaseThread();
        });
        m_thread->setObjectName(QStringLiteral("cs-exec-commit"));
        m_thread->start();
    }

    // Commits what is queued, then ends. Call once no worker submits any more.
    void stop()
    {
        if (!m_thread)
            return;
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_work.notify_all();
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }

    // From now on claim requests are answered "nothing" without claiming.
    void stopClaiming() { m_claiming = false; }

    void finish(ExecutionStore::FinishRequest request, Done done)
    {
        {
            std::lock_guard lock(m_mutex);
            m_finishes.push_back({std::move(request), std::move(done), 0});
        }
        m_work.notify_one();
    }

    // A worker waits for a claim with nothing else to send: commit at once, do not gather.
    void starving(int delta)
    {
        {
            std::lock_guard lock(m_mutex);
            m_starving += delta;
        }
        if (delta > 0)
            m_work.notify_one();
    }

    void requestClaim(int worker)
    {
        {
            std::lock_guard lock(m_mutex);
            m_claims.push_back(worker);
        }
        m_work.notify_one();
    }

private:
    struct PendingFinish
    {
        ExecutionStore::FinishRequest request;
        Done done;
        int tries = 0;
    };

    void loop()
    {
        for (;;) {
            std::vector<PendingFinish> finishes;
            std::vector<int> claims;
            {
                std::unique_lock lock(m_mutex);
                m_work.wait(lock, [this] { return m_stop || !m_finishes.empty() || !m_claims.empty(); });
                if (m_finishes.empty() && m_claims.empty())
                    return; // stopping, and everything is committed
                // Gather: while workers are busy the next requests are a fraction of a millisecond
                // away; waiting for them shares one transaction (and its fsync) between more actions.
                const size_t target = size_t(m_workerIds.size()) * GatherPerWorker;
                m_work.wait_for(lock, GatherWindow, [&] {
                    return m_stop || m_starving > 0 || m_finishes.size() + m_claims.size() >= target;
                });
                const qsizetype take = std::min<qsizetype>(qsizetype(m_finishes.size()), MaxFinishesPerCommit);
                finishes.assign(std::make_move_iterator(m_finishes.begin()),
                                std::make_move_iterator(m_finishes.begin() + take));
                m_finishes.erase(m_finishes.begin(), m_finishes.begin() + take);
                claims.swap(m_claims);
            }
            commit(finishes, claims);
        }
    }

    void commit(std::vector<PendingFinish> &finishes, const std::vector<int> &claims)
    {
        ExecutionStore::Batch batch;
        batch.leaseDuration = m_lease;
        for (const PendingFinish &f : finishes)
            batch.finishes << f.request;
        const bool claiming = m_claiming;
        if (claiming) {
            for (int worker : claims)
                batch.claimFor << m_workerIds.at(worker);
        }
        const auto outcome = m_ledger.commitBatch(batch);
        ++*m_commits;
        if (!outcome.ok()) {
            qCWarning(lcExecutor) << "group commit of" << finishes.size() << "finishes and" << claims.size()
                                  << "claims failed:" << outcome.error().toString();
            for (PendingFinish &f : finishes) {
                // Unavailable too: a finish whose COMMIT did commit after all is refused on its
                // retry (the attempt is finished), so trying again only ever records once.
                if (++f.tries < FinishCommitTries
                    && (outcome.code() == Code::Busy || outcome.code() == Code::Storage
                        || outcome.code() == Code::Unavailable || outcome.code() == Code::CannotWrite)) {
                    std::lock_guard lock(m_mutex);
                    m_finishes.push_back(std::move(f)); // once more, in the next batch
                } else {
                    f.done(outcome.error());
                }
            }
            for (int worker : claims)
                m_mailboxes->at(size_t(worker))->put(std::nullopt);
            if (!finishes.empty())
                QThread::msleep(20);
            return;
        }
        for (size_t i = 0; i < finishes.size(); ++i)
            finishes[i].done(outcome->finished.at(i));
        for (size_t i = 0; i < claims.size(); ++i) {
            const int worker = claims.at(i);
            if (!claiming) {
                m_mailboxes->at(size_t(worker))->put(std::nullopt);
                continue;
            }
            if (!outcome->claimErrors.at(i).ok())
                qCWarning(lcExecutor) << m_workerIds.at(worker) << "claim failed:" << outcome->claimErrors.at(i).toString();
            m_mailboxes->at(size_t(worker))->put(outcome->claims.at(i));
        }
        qCDebug(lcExecutor) << "committed" << finishes.size() << "finishes and" << claims.size() << "claim requests";
    }

    ExecutionStore &m_ledger;
    const ms m_lease;
    std::atomic<qint64> *m_commits;
    QStringList m_workerIds;
    std::vector<std::unique_ptr<Mailbox>> *m_mailboxes = nullptr;
    QThread *m_thread = nullptr;
    std::mutex m_mutex;
    std::condition_variable m_work;
    std::vector<PendingFinish> m_finishes;
    std::vector<int> m_claims;
    bool m_stop = false;
    int m_starving = 0; // guarded by m_mutex
    std::atomic_bool m_claiming{true};
};

Executor::Executor(Reconciler::Stores stores, ProviderClient &provider, ExecutionConfig config)
    : m_ledger(stores.execution), m_reader(stores.reader), m_provider(provider), m_config(std::move(config)), m_reconciler(stores, provider, m_config),
      m_counters(std::make_unique<Counters>()),
      m_committer(std::make_unique<Committer>(stores.execution, m_config.leaseDuration, &m_counters->groupCommits))
{
    m_reconciler.setChangeObserver([this](const ActionRecord &record) { notify(record); });
}

Executor::~Executor()
{
    stop();
}

void Executor::setChangeObserver(ChangeObserver observer)
{
    Q_ASSERT(!m_running);
    m_observer = std::move(observer);
}

void Executor::setHooks(Hooks hooks)
{
    Q_ASSERT(!m_running);
    m_hooks = std::move(hooks);
}

Executor::Stats Executor::stats() const
{
    Stats s;
    s.claimed = m_counters->claimed;
    s.sent = m_counters->sent;
    s.completed = m_counters->completed;
    s.rejected = m_counters->rejected;
    s.unknown = m_counters->unknown;
    s.review = m_counters->review;
    s.busyRetries = m_counters->busyRetries;
    s.reconcileRounds = m_counters->reconcileRounds;
    s.recovered = m_counters->recovered;
    s.groupCommits = m_counters->groupCommits;
    return s;
}

bool Executor::start(QString *error)
{
    if (m_running)
        return true;
    QString problem = m_config.validate();
    if (problem.isEmpty() && m_provider.longestDeadline() > m_config.requestTimeout) {
        // The lease (>= 2 x request_timeout_ms + 1 s) must outlive every call to the provider.
        problem = QStringLiteral("the provider adapter may wait %1 ms, longer than request_timeout_ms (%2 ms):"
                                 " a lease could end while a request is still in flight")
                      .arg(m_provider.longestDeadline().count())
                      .arg(m_config.requestTimeout.count());
    }
    if (problem.isEmpty() && !m_ledger.isOpen())
        problem = QStringLiteral("the ledger is not open");
    if (problem.isEmpty()) {
        // Before any worker exists: whatever a dead executor left EXECUTING with an expired
        // lease becomes CONFIRMATION_UNKNOWN (never failed, never rejected).
        const auto recovered = m_ledger.recoverExpiredLeases();
        if (!recovered.ok())
            problem = QStringLiteral("startup recovery failed: ") + recovered.error().toString();
        else
            m_counters->recovered += recovered.value();
        if (recovered.ok() && recovered.value() > 0)
            qCInfo(lcExecutor) << "startup recovery:" << recovered.value() << "actions with expired leases";
    }
    if (!problem.isEmpty()) {
        qCWarning(lcExecutor) << "cannot start:" << problem;
        if (error)
            *error = problem;
        return false;
    }
    m_stopping = false;
    m_aborting = false;
    m_nextSweepMs = steadyMs() + m_config.recoverySweep.count();
    const quint64 serial = ++g_executorSerial;
    const QString host = QSysInfo::machineHostName().isEmpty() ? QStringLiteral("localhost")
                                                                : QSysInfo::machineHostName();
    m_workerIds.clear();
    m_mailboxes.clear();
    for (int i = 0; i < m_config.workers; ++i) {
        m_workerIds << QStringLiteral("%1-w%2@%3:%4#%5")
                           .arg(m_config.instanceName)
                           .arg(i + 1)
                           .arg(host)
                           .arg(QCoreApplication::applicationPid())
                           .arg(serial);
        m_mailboxes.push_back(std::make_unique<Mailbox>());
    }
    m_committer->start(m_workerIds, &m_mailboxes);
    for (int i = 0; i < m_config.workers; ++i) {
        QThread *thread = QThread::create([this, i] {
            workerLoop(i);
            m_ledger.releaseThread(); // before the thread's own end: the ledger may go right after stop()
        });
        thread->setObjectName(QStringLiteral("cs-exec-%1").arg(i + 1));
        m_threads << thread;
    }
    m_running = true;
    for (QThread *thread : std::as_const(m_threads))
        thread->start();
    qCInfo(lcExecutor) << "started" << m_config.workers << "workers";
    return true;
}

void Executor::stop()
{
    stop(m_config.requestTimeout + ms(2000));
}

void Executor::stop(ms grace)
{
    if (!m_running)
        return;
    m_committer->stopClaiming();
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        ++m_wakeSerial;
    }
    m_wakeup.notify_all();
    QDeadlineTimer deadline(grace);
    bool finished = true;
    for (QThread *thread : std::as_const(m_threads)) {
        if (!thread->wait(deadline)) {
            finished = false;
            break;
        }
    }
    if (!finished) {
        qCWarning(lcExecutor) << "stop: requests still in flight after" << grace.count()
                              << "ms; aborting them (recorded as unknown)";
        m_aborting = true;
        for (QThread *thread : std::as_const(m_threads)) {
            while (!thread->wait(QDeadlineTimer(200)))
                m_provider.abortInFlight();
        }
    }
    qDeleteAll(m_threads);
    m_threads.clear();
    m_committer->stop(); // every answer the workers queued is committed before stop() returns
    m_running = false;
    qCInfo(lcExecutor) << "stopped";
}

void Executor::wake()
{
    {
        std::lock_guard lock(m_mutex);
        ++m_wakeSerial;
    }
    m_wakeup.notify_all();
}

bool Executor::pause(ms duration)
{
    std::unique_lock lock(m_mutex);
    m_wakeup.wait_for(lock, duration, [this] { return m_stopping.load(); });
    return !m_stopping;
}

void Executor::notify(const ActionRecord &record)
{
    if (m_observer)
        m_observer(record);
}

void Executor::count(ActionState state)
{
    switch (state) {
    case ActionState::Completed: ++m_counters->completed; break;
    case ActionState::Rejected: ++m_counters->rejected; break;
    case ActionState::ConfirmationUnknown: ++m_counters->unknown; break;
    case ActionState::RequiresReview: ++m_counters->review; break;
    default: break;
    }
}

void Executor::sweepIfDue()
{
    qint64 due = m_nextSweepMs.load();
    const qint64 now = steadyMs();
    if (now < due || !m_nextSweepMs.compare_exchange_strong(due, now + m_config.recoverySweep.count()))
        return;
    const auto recovered = m_ledger.recoverExpiredLeases();
    if (!recovered.ok()) {
        qCWarning(lcExecutor) << "recovery sweep failed:" << recovered.error().toString();
    } else if (recovered.value() > 0) {
        m_counters->recovered += recovered.value();
        qCInfo(lcExecutor) << "recovery sweep:" << recovered.value() << "actions with expired leases";
        wake(); // they may be due for reconciliation at once
    }
    // Approval expiry: recorded while the action waits (a paused one too), so the queue shows it.
    const auto expired = m_ledger.expireDueApprovals();
    if (!expired.ok())
        qCWarning(lcExecutor) << "approval expiry sweep failed:" << expired.error().toString();
    else if (expired.value() > 0)
        qCInfo(lcExecutor) << "approval expiry sweep:" << expired.value() << "approvals expired unsent";
}

void Executor::workerLoop(int index)
{
    const QString workerId = m_workerIds.at(index);
    Mailbox &mailbox = *m_mailboxes.at(size_t(index));
    struct Ready
    {
        ExecutionStore::Claim claim;
        qint64 receivedAtMs = 0;
    };
    std::deque<Ready> ready; // committed claims: their attempt rows exist, so they are sent
    int outstanding = 0;                  // claim requests the committer has not answered yet
    bool nothingToClaim = false;
    int claimsSinceReconcile = 0;
    quint64 requestSerial = 0;

    auto collect = [&](bool block) {
        std::unique_lock lock(mailbox.mutex);
        if (block)
            mailbox.delivered.wait(lock, [&] { return !mailbox.answers.empty(); });
        while (!mailbox.answers.empty()) {
            std::optional<ExecutionStore::Claim> answer = std::move(mailbox.answers.front());
            mailbox.answers.pop_front();
            --outstanding;
            if (answer)
                ready.push_back({std::move(*answer), steadyMs()});
            else
                nothingToClaim = true;
        }
    };
    auto requestClaim = [&] {
        {
            std::lock_guard lock(m_mutex);
            requestSerial = m_wakeSerial;
        }
        ++outstanding;
        m_committer->requestClaim(index);
    };

    for (;;) {
        collect(false);
        if (ready.empty()) {
            if (outstanding > 0) {
                m_committer->starving(+1);
                collect(true);
                m_committer->starving(-1);
                continue;
            }
            if (m_stopping)
                break;
            if (nothingToClaim || claimsSinceReconcile >= ClaimsBetweenReconcileRounds) {
                // Reconcile when idle, and now and then between claims so a flood of new work
                // cannot starve the actions whose outcome is unknown.
                sweepIfDue();
                claimsSinceReconcile = 0;
                const Reconciler::StepResult step = m_reconciler.reconcileNextDue(workerId);
                const bool worked = step.step != Reconciler::Step::NothingDue && step.step != Reconciler::Step::Busy
                    && step.step != Reconciler::Step::Failed;
                if (worked)
                    ++m_counters->reconcileRounds;
                if (nothingToClaim && !worked) {
                    std::unique_lock lock(m_mutex);
                    m_wakeup.wait_for(lock, m_config.idlePoll,
                                      [&] { return m_stopping.load() || m_wakeSerial != requestSerial; });
                }
                nothingToClaim = false;
                if (m_stopping)
                    continue;
            }
            requestClaim();
            continue;
        }
        Ready current = std::move(ready.front());
        ready.pop_front();
        // A claim that waited long behind a slow action (429s, timeouts) may have lost its lease
        // to recovery: renewed before sending, or not sent at all.
        if (steadyMs() - current.receivedAtMs > m_config.leaseDuration.count() / 3) {
            const auto renewed = m_ledger.renewLease(current.claim.record.id, workerId, m_config.leaseDuration);
            if (!renewed.ok()) {
                qCWarning(lcExecutor) << current.claim.record.id << "not sent by" << workerId
                                      << "— its lease was lost while it waited:" << renewed.error().toString();
                continue;
            }
        }
        if (m_aborting) {
            // Stopping out of grace: claims not yet sent are not sent any more. Their attempt rows
            // exist, so they are recorded as unknown (the reconciler looks them up) rather than
            // left EXECUTING until their leases expire.
            ExecutionStore::AttemptResult unsent;
            unsent.outcome = Attempt::Outcome::Unknown;
            unsent.errorExcerpt = QStringLiteral("not sent: the executor stopped before sending it");
            const QString actionId = current.claim.record.id;
            m_committer->finish({actionId, current.claim.attempt.seq, unsent, Trigger::OutcomeUnknown,
                                 QStringLiteral("executor stopping: attempt committed but never sent; recorded as"
                                                " unknown for the reconciler"),
                                 workerId},
                                [this](const LedgerResult<ExecutionStore::FinishedAttempt> &finished) {
                                    if (finished.ok()) {
                                        count(finished->record.state);
                                        notify(finished->record);
                                    }
                                });
            continue;
        }
        ++m_counters->claimed;
        ++claimsSinceReconcile;
        // Claims ahead: the next ones are committed while this one is sent.
        while (!m_stopping && outstanding + int(ready.size()) < ClaimsAhead
               && claimsSinceReconcile + outstanding + int(ready.size()) < ClaimsBetweenReconcileRounds)
            requestClaim();
        execute(current.claim, workerId);
    }
}

QString Executor::whyNotResend(const ActionRecord &record, const QDateTime &firstStart, const ProviderClock &clock) const
{
    const KeyWindow::Judgement judged =
        KeyWindow(firstStart, m_config.keyWindow, m_config.keyWindowMargin).judge(m_ledger.currentTime(), clock);
    if (!judged.open)
        return judged.why;
    const auto inHand = m_reader.lookups(record.id);
    if (!inHand.ok())
        return QStringLiteral("the evidence in hand cannot be read (%1)").arg(inHand.error().message());
    if (const EvidenceFinding finding = judgeEvidence(record, sightingsOf(inHand.value())); finding.refundShown())
        return QStringLiteral("evidence in hand: ") + finding.reason;
    return {};
}

void Executor::execute(const ExecutionStore::Claim &claim, const QString &workerId)
{
    ActionRecord record = claim.record;
    Attempt attempt = claim.attempt;
    const QDateTime firstStart = claim.attempt.startedAt; // a claim begins attempt 1
    notify(record);
    const ProviderRequest request = record.providerRequest();
    const Backoff backoff(m_config.backoffBase, m_config.backoffMax);
    for (int busy = 0;; ++busy) {
        if (m_hooks.attemptCommitted)
            m_hooks.attemptCommitted(record, attempt);
        // The attempt row is committed (claim / beginRetryAttempt): only now may it leave.
        const RefundOutcome outcome = m_provider.createRefund(request, attempt.idempotencyKey);
        ++m_counters->sent;
        if (m_hooks.answered)
            m_hooks.answered(record, attempt, outcome);

        AttemptPolicy::Decision decision = AttemptPolicy::decide(record, outcome, ActionState::Executing);
        bool resend = decision.next == AttemptPolicy::Next::WaitAndRetry;
        // Before any resend (issue 33): the key window on both clocks — the 429/409 carries the
        // provider's Date — and the evidence already in hand (a webhook may have shown the refund).
        const QString notAgain = resend ? whyNotResend(record, firstStart, outcome.providerClock) : QString();
        if (!notAgain.isEmpty()) {
            resend = false;
            decision.trigger = Trigger::OutcomeUnknown;
            decision.reason = QStringLiteral("%1 — not sent again: %2; handed over to the reconciler")
                                  .arg(decision.reason, notAgain);
        }
        if (resend && busy >= m_config.maxBusyRetries) {
            resend = false;
            decision.trigger = Trigger::OutcomeUnknown;
            decision.reason = QStringLiteral("%1 — %2 answers like this in a row: handed over to the reconciler%3")
                                  .arg(decision.reason)
                                  .arg(busy + 1)
                                  .arg(outcome.outcome == Attempt::Outcome::KeyInUse
                                           ? QStringLiteral(" (a same-key request may be in flight)")
                                           : QString());
        }
        ExecutionStore::FinishRequest finish{record.id, attempt.seq, AttemptPolicy::attemptResult(outcome),
                                          decision.trigger, decision.reason, workerId};

        if (!resend) {
            // Settled (or unknown): recorded by the committer while this worker sends the next one.
            const QString reason = decision.reason;
            const QString actionId = record.id;
            const int seq = attempt.seq;
            const QString outcomeName = toWire(outcome.outcome);
            m_committer->finish(std::move(finish), [this, reason, actionId, seq, outcomeName, workerId](
                                                       const LedgerResult<ExecutionStore::FinishedAttempt> &finished) {
                if (!finished.ok()) {
                    // LeaseLost: recovery (or another process) owns the action now and records it
                    // as unknown; the reconciler will find what this request did.
                    qCWarning(lcExecutor) << actionId << "attempt" << seq << "could not be recorded by" << workerId
                                          << "- outcome" << outcomeName << ":" << finished.error().toString();
                    return;
                }
                count(finished->record.state);
                notify(finished->record);
                qCInfo(lcExecutor) << actionId << "->" << toWire(finished->record.state) << reason;
            });
            return;
        }

        // 429 / 409: keep the lease, wait, and send again with the same key. Recorded at once:
        // the retry's attempt row needs this one finished.
        const ms wait = std::min(backoff.delay(busy + 1, ms(outcome.retryAfterMs)), m_config.leaseDuration / 2);
        finish.reason += QStringLiteral(" (in %1 ms)").arg(wait.count());
        const auto finished = m_ledger.finishAttempt(finish.actionId, finish.seq, finish.result, finish.trigger,
                                                     finish.reason, workerId);
        if (!finished.ok()) {
            qCWarning(lcExecutor) << record.id << "attempt" << attempt.seq << "could not be recorded by" << workerId << ":"
                                  << finished.error().toString();
            return;
        }
        if (!pause(wait)) {
            const auto handed = m_ledger.transition(record.id, Trigger::OutcomeUnknown, workerId,
                                                    QStringLiteral("executor stopping while waiting to resend after"
                                                                   " 429/409: handed over to the reconciler"));
            if (handed.ok()) {
                count(handed->state);
                notify(handed.value());
            }
            return;
        }
        const auto renewed = m_ledger.renewLease(record.id, workerId, m_config.leaseDuration);
        if (!renewed.ok()) {
            qCWarning(lcExecutor) << record.id << "lease lost by" << workerId << ":" << renewed.error().toString();
            return;
        }
        const auto retry = m_ledger.beginRetryAttempt(record.id, workerId);
        if (!retry.ok()) {
            qCWarning(lcExecutor) << record.id << "cannot be resent by" << workerId << ":" << retry.error().toString();
            return; // the lease expires; recovery makes it CONFIRMATION_UNKNOWN
        }
        attempt = retry.value();
        ++m_counters->busyRetries;
    }
}

} // namespace cs
