#pragma once

#include "demo/demohttp.h"
#include "demo/paysimadmin.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QRandomGenerator>
#include <QString>
#include <QStringList>

#include <functional>

namespace cs::demo {

class DemoStack;
template <typename T> class Async;           // demo/async.h (moc cannot read <coroutine>)
template <typename T> class CallbackAwaiter;
struct AgentStory; // one kind of customer story an agent writes (agenttraffic.cpp)

// How AgentTraffic paces and mixes its proposals (AgentTraffic::Options).
struct AgentTrafficOptions {
    int minIntervalMs = 4000; // between two proposals, drawn in [min, max]
    int maxIntervalMs = 10000;
    int pendingLimit = 40;
    quint64 seed = 1;
    // Out of 100 proposals (the rest are plain ones); an outage is drawn on its own, per
    // proposal, while none is on.
    int lostAnswerPercent = 10;
    int changedPercent = 8;
    int outagePercent = 5;
    int outageMinMs = 20000;
    int outageMaxMs = 45000;
    int resendAfterMs = 1500; // how long the agent waits for the lost answer before it resends
};

// Background work for the demo's queue: the demo's agent users (refund-bot, returns-bot,
// subscriptions-bot) propose refunds at a gentle pace, each on an order of its own that paysim
// charges for it (realistic totals in usd, eur or gbp, card, age; a disputed card now and then),
// with the reason, business reference, justification, ticket link and facts an agent would send.
// The mix, drawn from `seed`: mostly plain proposals that wait for approval; now and then a
// proposal whose answer the agent loses and resends under the same client_reference (the backend
// answers 200 with the same action); now and then a changed resubmission of an earlier, still
// pending proposal under its reference (409 payload_mismatch: the action goes to REQUIRES_REVIEW);
// now and then an outage window at paysim (fault rules: the first refund sent commits but its
// answer is lost, then 503s for sends and look-ups), so that what a person approves meanwhile
// lands in CONFIRMATION_UNKNOWN. It never approves, rejects, looks up or reconciles: that is the
// trainee's work.
//
// Asynchronous on the caller's event loop: one proposal at a time, timers between them, no nested
// event loop. Bounded: while `pendingLimit` actions are PENDING (read as the auditor) it proposes
// nothing. stop() ends the pace at once, removes its own fault rules (never anyone else's) and
// reports when nothing of it is in flight any more.
// Limits: not thread-safe (GUI/main thread). If it is destroyed while a request is in flight, that
// request's coroutine frame is never freed (demo/async.h), and an outage's rules stay at paysim
// (the demo stops paysim with it).
class AgentTraffic : public QObject
{
    Q_OBJECT

public:
    enum class Kind {
        Proposed,    // a plain proposal, 201 PENDING
        Resent,      // the answer was lost; the same proposal again: 200, the same action
        Changed,     // a changed resubmission under an earlier reference: 409, REQUIRES_REVIEW
        OutageBegan, // paysim's fault rules are in place
        OutageEnded, // and removed again
        QueueFull,   // pendingLimit actions are PENDING: nothing proposed until some are decided
        Error,       // an answer that should not have come (counted in errorCount())
    };
    Q_ENUM(Kind)

    using Options = AgentTrafficOptions;

    // One proposal as the agent made it and what the backend answered.
    struct Proposal {
        Kind kind = Kind::Proposed;
        QString agent;
        QString reference;     // client_reference
        QString actionId;      // the action the answer named
        int status = 0;        // the HTTP status the agent saw (Resent: the resend's)
        QString lostActionId;  // Resent: the action the lost answer named (the agent never saw it)
        qint64 amount = 0;     // minor units of currency (Changed: the changed amount)
        QString currency;
    };

    // The options are checked: intervals >= 0 and min <= max, percents 0..100 with lost + changed
    // <= 100, pendingLimit >= 1, outage durations > 0 and min <= max; otherwise start() refuses
    // with errorString().
    explicit AgentTraffic(DemoStack *stack, Options options = Options(), QObject *parent = nullptr);
    ~AgentTraffic() override;

    Options options() const { return m_options; }
    QString errorString() const { return m_error; }

    // Proposes `atOnce` plain proposals one right after the other (the demo console opens on a
    // queue of work waiting for approval), then one every [min, max] ms, mixed. False (errorString()) with bad options or a stack
    // that is not running. Starting a running traffic does nothing.
    bool start(int atOnce = 0);
    // Stops proposing and ends an outage (its rules are deleted at paysim). `stopped` is called once
    // nothing of the traffic is in flight any more: at once, inside this call, when nothing is;
    // else from the event loop. Also emits stopped() then.
    void stop(std::function<void()> stopped = nullptr);
    bool isRunning() const { return m_running; }
    bool isBusy() const { return m_busy || m_outageDeletes > 0; }
    bool outageActive() const { return !m_outageRules.isEmpty(); }

    QList<Proposal> proposals() const { return m_proposals; }
    int errorCount() const { return m_errors; }
    int outageCount() const { return m_outages; } // outages begun since construction

signals:
    // `text` is one line in English for logs and countersign-demo's output; actionId may be empty.
    void happened(cs::demo::AgentTraffic::Kind kind, const QString &text, const QString &actionId);
    // An outage began for durationMs (OutageBegan is emitted too).
    void outageStarted(int durationMs);
    void outageStopped();
    void queueFull(int pending);
    void runningChanged(bool running);
    void stopped();

private:
    struct Order {
        const AgentStory *story = nullptr;
        QString agent;
        qint64 total = 0;  // the charge
        qint64 amount = 0; // the refund
        QString currency;
        int number = 0;    // the order number
        int ticket = 0;    // the ticket, return or case number
    };

    void scheduleNext(int delayMs);
    void runTick();
    void finishStopIfIdle();
    void report(Kind kind, const QString &text, const QString &actionId = QString());
    void error(const QString &text);
    int draw(int low, int high); // uniform in [low, high]

    Async<bool> tick();
    Async<int> pendingCount(); // -1: the backend did not answer
    Async<bool> proposePlain(bool loseTheAnswer);
    Async<bool> resubmitChanged();
    Async<bool> beginOutage();
    void endOutage();
    enum class Verb { Get, Post };
    Async<HttpReply> api(QString user, Verb verb, QString path, QJsonObject body = QJsonObject());
    Async<HttpReply> admin(std::function<void(PaysimAdminClient::Done)> call);
    CallbackAwaiter<bool> pause(int msecs);

    Order makeOrder();
    static QJsonObject proposalBody(const Order &order);
    static QString money(qint64 minor, const QString &currency);

    QPointer<DemoStack> m_stack;
    Options m_options;
    DemoHttp m_http;
    PaysimAdminClient m_paysim;
    QRandomGenerator m_random;
    QString m_error;
    QString m_auditor; // reads the queue's counts
    QStringList m_agents;

    bool m_running = false;
    bool m_busy = false;       // a tick is in flight
    bool m_stopping = false;   // stop() was called; its callbacks wait until nothing is in flight
    bool m_queueFull = false;  // reported once per full queue
    int m_burst = 0;           // proposals still to make at once
    bool m_opening = false;    // the tick in flight is one of them: a plain proposal
    int m_timer = 0;           // generation of the pending tick timer; a stale timer does nothing
    int m_outage = 0;          // generation of the outage; its end timer checks it
    int m_outageDeletes = 0;   // fault-rule deletions in flight
    int m_nextOrder = 0;
    int m_nextTicket = 0;
    int m_errors = 0;
    int m_outages = 0;
    QStringList m_outageRules; // ids of our fault rules at paysim
    QList<Proposal> m_proposals;
    struct Sent {
        QString agent;
        QJsonObject body;
        QString actionId;
        qint64 total = 0; // the charge
    };
    QList<Sent> m_changeable; // plain proposals not resubmitted yet, oldest first
    QList<std::function<void()>> m_stopCallbacks;
};

} // namespace cs::demo
