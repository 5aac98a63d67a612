#include "server/mcp/decisionwait.h"

#include "server/mcp/actionchangefeed.h"
#include "server/mcp/mcplog.h"

#include "server/metrics/metrics.h"

namespace cs {

namespace {

// What made wait_for_decision read an action (DecisionWait::Cause, in its order): with commits
// waking the waits, "change" and "start" dominate and "poll" stays at zero on countersignd.
metrics::Counter waitReads(QStringLiteral("countersign_mcp_wait_reads_total"),
                           QStringLiteral("Reads of an action by wait_for_decision, by cause: start, change (a commit "
                                          "named the action), poll (no commit notifications: countersign-mcp), retry "
                                          "(after a failed read), deadline"),
                           {QStringLiteral("cause")});
metrics::Gauge waitsRunning(QStringLiteral("countersign_mcp_waits"), QStringLiteral("wait_for_decision calls waiting now"));

const QStringList &causeNames()
{
    static const QStringList names = {QStringLiteral("start"), QStringLiteral("change"), QStringLiteral("poll"),
                                      QStringLiteral("retry"), QStringLiteral("deadline")};
    return names;
}

[[maybe_unused]] const bool waitMetricsDeclared = [] {
    for (const QString &cause : causeNames())
        waitReads.declare({cause});
    waitsRunning.declare({});
    return true;
}();

} // namespace

DecisionWait::DecisionWait(Setup setup, QObject *parent)
    : QObject(parent)
    , m_setup(std::move(setup))
    , m_changes(m_setup.changes)
{
    m_tick.setInterval(std::max(1, m_setup.context.pollIntervalMs));
    connect(&m_tick, &QTimer::timeout, this, &DecisionWait::tick);
    m_deadline.setSingleShot(true);
    m_deadline.setTimerType(Qt::PreciseTimer);
    connect(&m_deadline, &QTimer::timeout, this, &DecisionWait::deadline);
}

DecisionWait::~DecisionWait()
{
    unsubscribe();
    if (!m_finished && m_clock.isValid())
        waitsRunning.add({}, -1);
}

void DecisionWait::start()
{
    m_clock.start();
    waitsRunning.add({}, 1);
    if (m_changes) {
        QPointer<DecisionWait> self(this);
        m_subscription = m_changes->subscribe(m_setup.actionId, [self] {
            if (self && !self->m_finished)
                self->read(Cause::Change);
        });
    }
    m_deadline.start(m_setup.timeoutSeconds * 1000);
    m_tick.start();
    read(Cause::Start);
}

void DecisionWait::unsubscribe()
{
    if (m_changes && m_subscription)
        m_changes->unsubscribe(m_subscription);
    m_subscription = 0;
}

void DecisionWait::read(Cause cause)
{
    if (m_reading) {
        m_readAgain = true;
        return;
    }
    m_reading = true;
    waitReads.inc({causeNames().at(int(cause))});
    QPointer<DecisionWait> self(this);
    m_setup.backend->request("GET", QString(u"/actions/" + m_setup.actionId), {}, [self](const McpBackend::Reply &reply) {
        if (self && !self->m_finished)
            self->answered(reply);
    });
}

void DecisionWait::answered(const McpBackend::Reply &reply)
{
    m_reading = false;
    if (endIfCancelled())
        return;
    const bool atDeadline = m_deadlineReached || m_clock.elapsed() >= qint64(m_setup.timeoutSeconds) * 1000;
    if (const auto outcome = m_setup.judge(reply, waitedSeconds(), atDeadline)) {
        finish(*outcome);
        return;
    }
    m_last = reply;
    if (m_readAgain) {
        m_readAgain = false;
        read(Cause::Change);
        return;
    }
    tellProgress();
}

void DecisionWait::tick()
{
    if (endIfCancelled() || m_reading)
        return;
    if (!m_changes)
        read(Cause::Poll);
    else if (m_last && m_last->status != 200)
        read(Cause::Retry);
    else
        tellProgress();
}

void DecisionWait::deadline()
{
    m_deadlineReached = true;
    if (!m_reading) // a read running now is judged at the deadline when it is answered
        read(Cause::Deadline);
}

// MCP requires each progress value to be greater than the last: a read's and a tick's in the
// same millisecond are one notification.
void DecisionWait::tellProgress()
{
    const double waited = waitedSeconds();
    if (!m_setup.context.progress || !m_last || waited <= m_lastProgress)
        return;
    m_lastProgress = waited;
    m_setup.context.progress(waited, double(m_setup.timeoutSeconds), m_setup.describe(*m_last));
}

bool DecisionWait::endIfCancelled()
{
    if (!*m_setup.context.cancelled)
        return false;
    McpTools::Outcome out;
    out.cancelled = true;
    finish(out);
    return true;
}

void DecisionWait::finish(const McpTools::Outcome &outcome)
{
    if (m_finished)
        return;
    m_finished = true;
    m_tick.stop();
    m_deadline.stop();
    unsubscribe();
    waitsRunning.add({}, -1);
    qCDebug(lcMcp) << "wait for" << m_setup.actionId << "ended after" << waitedSeconds() << "s";
    const McpTools::Done done = std::move(m_setup.done);
    deleteLater();
    done(outcome);
}

} // namespace cs
