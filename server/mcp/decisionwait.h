#pragma once

#include "server/mcp/mcpbackend.h"
#include "server/mcp/mcptools.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <functional>
#include <optional>

namespace cs {

class ActionChangeFeed;

// One wait_for_decision call: when its action is read, when progress is told, when it ends.
//
// - With an ActionChangeFeed (/mcp on countersignd): the action is read when the wait starts,
//   each time a commit may have changed it (a wake of the feed, which it subscribes to before its
//   first read, so no commit falls between the two), and once at the deadline — never on a timer.
//   Wakes that arrive while a read runs are served by one more read after it. Every poll
//   interval it tells progress from the last answer without reading; only a read that failed (no
//   answer, 5xx) is tried again then.
// - Without one (countersign-mcp: RestBackend over HTTP, which sees no commits): the action is
//   read every poll interval, progress told after each read.
//
// Each answer goes to the judge: an outcome ends the wait, nothing keeps it waiting. A
// cancellation (the context's flag) is noticed at the next answer or poll interval; the wait then
// ends with Outcome::cancelled. `done` is called exactly once, never from inside start(); the
// object deletes itself after it. Reads are counted in countersign_mcp_wait_reads_total{cause}.
// Not thread-safe: lives on its backend's thread.
class DecisionWait : public QObject
{
    Q_OBJECT
public:
    // What an answer means: the wait's outcome, or nothing to keep waiting. At the deadline
    // (`atDeadline`) it must give an outcome.
    using Judge = std::function<std::optional<McpTools::Outcome>(const McpBackend::Reply &reply, double waitedSeconds,
                                                                 bool atDeadline)>;
    // The progress message for the last answer.
    using Describe = std::function<QString(const McpBackend::Reply &reply)>;

    struct Setup
    {
        McpBackend *backend = nullptr;
        ActionChangeFeed *changes = nullptr; // null: poll
        QString actionId;
        int timeoutSeconds = 0;
        McpTools::Context context;
        Judge judge;
        Describe describe;
        McpTools::Done done;
    };

    explicit DecisionWait(Setup setup, QObject *parent = nullptr);
    ~DecisionWait() override;

    void start();

private:
    enum class Cause { Start, Change, Poll, Retry, Deadline };

    void read(Cause cause);
    void answered(const McpBackend::Reply &reply);
    void tick();
    void deadline();
    void tellProgress();
    bool endIfCancelled();
    void finish(const McpTools::Outcome &outcome);
    void unsubscribe();
    double waitedSeconds() const { return double(m_clock.elapsed()) / 1000.0; }

    Setup m_setup;
    QPointer<ActionChangeFeed> m_changes;
    quint64 m_subscription = 0;
    QElapsedTimer m_clock;
    QTimer m_tick;
    QTimer m_deadline;
    std::optional<McpBackend::Reply> m_last; // the last answer that did not end the wait
    double m_lastProgress = -1;              // the last progress value sent (seconds waited)
    bool m_reading = false;
    bool m_readAgain = false;   // woken while reading
    bool m_deadlineReached = false;
    bool m_finished = false;
};

} // namespace cs
