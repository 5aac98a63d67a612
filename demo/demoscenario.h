#pragma once

#include "demo/async.h"
#include "demo/demohttp.h"
#include "demo/paysimadmin.h"
#include "demo/scenario.h"
#include "models/actionstate.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>

namespace cs::demo {

class DemoStack;

// An action as GET /api/v1/actions/{id} returned it, with its state parsed once.
struct ActionSnapshot {
    QJsonObject json;
    std::optional<ActionState> state; // empty when the answer had no (known) state
    QString stateName() const { return json.value(QLatin1String("state")).toString(); }
    bool is(ActionState s) const { return state == s; }
    bool isOneOf(const QList<ActionState> &states) const { return state && states.contains(*state); }
};

// What the scenarios share: a scripted agent, approver and supervisor talking to the
// backend's API, and paysim's admin API for faults and ground truth, each call a coroutine
// (demo/async.h) that narrates what it did. A scenario derives from it, keeps its own typed
// state as members and lists its steps with step(). Calls that fail record why (fail()) and
// return an empty/false result, so a step ends with `co_return false`.
// Coroutine parameters are taken by value on purpose (async.h). Not thread-safe.
class DemoScenario : public Scenario
{
public:
    // Plays against stack (running) as catalogue scenario scenarioId; scenarios inherit it.
    DemoScenario(DemoStack *stack, int scenarioId);
    ~DemoScenario() override;
    void cleanup(std::function<void()> done) final;
    bool setExercise(Exercise *exercise, const QString &scenarioTitle) override;

protected:

    // A member coroutine as one of steps(): step([this] { return firstStep(); }).
    static Step step(std::function<Async<bool>()> start);
    // Scenario-specific tidying (a second backend, a restart) before the faults are cleared;
    // calls done when finished.
    virtual void tearDown(std::function<void()> done) { done(); }

    // ---- JSON and text ----
    static QString money(qint64 minor); // "$89.00"
    static QString str(const QJsonObject &o, const char *key);
    static qint64 num(const QJsonObject &o, const char *key);
    static QJsonArray arr(const QJsonObject &o, const char *key);
    // A fault rule on POST /v1/refunds (docs/PAYSIM.md), plus extra fields.
    static QJsonObject rule(const QString &fault, int nth, int times, const QJsonObject &extra = QJsonObject());
    static const QList<ActionState> &finalStates(); // COMPLETED, REJECTED, REQUIRES_REVIEW
    static QStringList attemptKeys(const QJsonObject &detail);
    static QString providerObject(const QJsonObject &detail); // the newest provider object named
    // "demo-<scenario>-<what>-<n><charge's last 6>": unique per run, readable in the console.
    QString reference(const QString &what, const QString &charge);
    void narrateAttempts(const QJsonObject &detail);

    // ---- waiting ----
    CallbackAwaiter<bool> pause(int msecs);
    // Polls GET /actions/{id} until its state is one of `states` (bounded); empty on timeout
    // (with fail()) or cancel.
    Async<std::optional<ActionSnapshot>> waitForState(QString id, QList<ActionState> states, int timeoutMs, int pollMs = 100);
    // waitForState() for a final state (COMPLETED, REJECTED, REQUIRES_REVIEW), then the action's
    // attempts and lookups narrated, then `cure` (if given) as a Cure line: %1 is the state, %2
    // (if it is there) the review reason.
    Async<std::optional<ActionSnapshot>> waitForOutcome(QString id, int timeoutMs, QString cure = QString());
    // Polls until the provider's ground truth holds a refund for the action (bounded).
    Async<bool> waitForProviderRefund(QString actionId, int timeoutMs);

    // ---- the backend's API ----
    enum class Verb { Get, Post };
    Async<HttpReply> api(QString user, Verb verb, QString path, QJsonObject body = QJsonObject(), qint64 ifMatch = -1);
    Async<ActionSnapshot> action(QString id); // read as the supervisor
    Async<HttpReply> propose(QString charge, qint64 amount, QString reference);
    Async<QString> proposeOk(QString charge, qint64 amount, QString reference); // the action id, or empty
    Async<bool> approve(QString id, QString who);
    struct LookupResult {
        int seq = 0;    // 0: the lookup failed
        QString result; // FOUND, NOT_FOUND, ERROR
    };
    Async<LookupResult> lookup(QString id); // the supervisor's "look up now"
    Async<bool> reconcile(QString id, QString outcome, int evidenceSeq, QString note);
    // The supervisor's review: a lookup that must answer expectedResult (else fail(expectation +
    // what it said)), then a reconciliation as `outcome` with that lookup as evidence.
    Async<bool> reviewWithLookup(QString id, QString expectedResult, QString expectation, QString outcome, QString note);
    // The opening most scenarios share: a fresh charge of chargeAmount, paysim's faults set to
    // `faults`, the agent's proposal of `amount` under a fresh reference, approved by the approver
    // unless approved is false. ok is false (with fail()) when any of it went wrong.
    struct Proposal {
        bool ok = false;
        QString charge;
        QString reference;
        QString action;
    };
    Async<Proposal> proposeWithFaults(qint64 chargeAmount, QJsonArray faults, qint64 amount, bool approved = true);
    // That opening as a whole step (approved), the action id kept in *action.
    Step proposalStep(qint64 chargeAmount, QJsonArray faults, qint64 amount, QString *action);
    // One action against ground truth: the expected state and number of refunds of its amount.
    struct CheckResult {
        bool ok = false;
        QString line; // "ledger act_… COMPLETED re_… 8900 usd; provider holds 1 refund(s) for the action"
    };
    Async<CheckResult> check(QString id, ActionState expectedState, int expectedRefunds);
    // The verdict of scenarios 1 and 5: COMPLETED with one refund, and the first attempt's outcome
    // was unknown (the answer was lost, not a failure).
    Async<bool> judgeOneRefundAfterUnknown(QString id);

    // ---- the human decisions (scripted, or the trainee's in an exercise: demo/exercise.h) ----
    // Outside an exercise each does what the scenario's scripted approver or supervisor does. In
    // one it narrates the task (NarrationKind::Task), focuses the action, lets a scripted trainee
    // answer (right, or the classic mistake), then waits — polling the ledger, for as long as it
    // takes, until cancelled — for the decision to be recorded, judges it against paysim's ground
    // truth into the score sheet, and narrates the judgement.
    bool inExercise() const { return m_exercise != nullptr; }
    // Approve or reject `id`; `approveIsRight` and `why` say what a careful approver does and why.
    // True when it was approved (the scenario goes on); a rejection ends the run (fail()).
    Async<bool> decideApproval(QString id, bool approveIsRight, QString why);
    // A REQUIRES_REVIEW action: outside an exercise reviewWithLookup(); in one the trainee looks it
    // up and reconciles, judged by whether paysim holds a refund for the action.
    Async<bool> decideReconciliation(QString id, QString expectedResult, QString expectation, QString outcome, QString note);
    // A follow-up of `parent` for a customer owed `desiredTotal` in all; `expectedAmount` is the
    // right remainder. Returns the follow-up's id (empty with fail()).
    Async<QString> decideFollowUp(QString parent, qint64 desiredTotal, qint64 expectedAmount, QString note);

    // ---- paysim ----
    Async<HttpReply> admin(std::function<void(PaysimAdminClient::Done)> call);
    // Clears paysim's fault rules, then installs `rules` (narrated); false with fail() if refused.
    Async<bool> setFaults(QJsonArray rules);
    Async<QString> newCharge(qint64 amount); // the charge id, or empty
    Async<QJsonArray> groundTruth();
    Async<QJsonArray> refundsForAction(QString actionId);
    Async<QJsonArray> refundsForCharge(QString charge);
    // What an agent without Countersign does: straight at the provider, no idempotency key, one
    // request per connection so that nothing below the agent resends on its behalf.
    Async<HttpReply> naiveRefund(QString charge, qint64 amount);

    QPointer<DemoStack> m_stack;
private:
    Async<bool> proposeInto(qint64 chargeAmount, QJsonArray faults, qint64 amount, QString *action);

protected:
    DemoHttp m_http;
    PaysimAdminClient m_paysim;
    int m_scenarioId = 0;
    QString m_agent, m_approver, m_approver2, m_supervisor;
    Exercise *m_exercise = nullptr;
    QString m_scenarioTitle;

    // One decision of the trainee into the score sheet (in an exercise), narrated as right or not.
    void judged(const QString &task, const QString &id, bool right, const QString &decided, const QString &expected,
                const QString &explanation);

private:
    Async<HttpReply> reject(QString id, QString who);
};

} // namespace cs::demo
