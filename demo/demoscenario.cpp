#include "demo/demoscenario.h"

#include "demo/demostack.h"
#include "demo/exercise.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QUrlQuery>

namespace cs::demo {

namespace {
// Numbers every reference the demo mints in this process, so that a scenario played twice in one
// console session never reuses a client reference.
int g_referenceCounter = 0;
} // namespace

DemoScenario::DemoScenario(DemoStack *stack, int scenarioId)
    : m_stack(stack)
    , m_scenarioId(scenarioId)
{
    m_paysim.setBaseUrl(stack->paysimUrl());
    m_agent = stack->userFor(QStringLiteral("agent"));
    m_approver = stack->userFor(QStringLiteral("approver"));
    m_approver2 = stack->usersFor(QStringLiteral("approver")).value(1, m_approver);
    m_supervisor = stack->userFor(QStringLiteral("supervisor"));
}

DemoScenario::~DemoScenario() = default;

void DemoScenario::cleanup(std::function<void()> done)
{
    tearDown([this, done] {
        // Leave no scenario fault behind (a failed or cancelled run may stop mid-way).
        if (!m_stack || !m_stack->paysimUrl().isValid()) {
            done();
            return;
        }
        m_paysim.clearFaults([done](const HttpReply &) { done(); });
    });
}

bool DemoScenario::setExercise(Exercise *exercise, const QString &scenarioTitle)
{
    m_exercise = exercise;
    m_scenarioTitle = scenarioTitle;
    return true;
}

Scenario::Step DemoScenario::step(std::function<Async<bool>()> start)
{
    return [start = std::move(start)](Done done) { start().then(std::move(done)); };
}

// ---- JSON and text ------------------------------------------------------------------------------

QString DemoScenario::money(qint64 minor)
{
    return QStringLiteral("$%1.%2").arg(minor / 100).arg(minor % 100, 2, 10, QLatin1Char('0'));
}

QString DemoScenario::str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

qint64 DemoScenario::num(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toInteger();
}

QJsonArray DemoScenario::arr(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toArray();
}

QJsonObject DemoScenario::rule(const QString &fault, int nth, int times, const QJsonObject &extra)
{
    QJsonObject r{{QStringLiteral("method"), QStringLiteral("POST")},
                  {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                  {QStringLiteral("nth"), nth},
                  {QStringLiteral("times"), times},
                  {QStringLiteral("fault"), fault}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        r.insert(it.key(), it.value());
    return r;
}

const QList<ActionState> &DemoScenario::finalStates()
{
    static const QList<ActionState> states{ActionState::Completed, ActionState::Rejected, ActionState::RequiresReview};
    return states;
}

QStringList DemoScenario::attemptKeys(const QJsonObject &detail)
{
    QStringList keys;
    for (const QJsonValue &value : arr(detail, "attempts")) {
        const QString key = str(value.toObject(), "idempotency_key");
        if (!keys.contains(key))
            keys.append(key);
    }
    return keys;
}

QString DemoScenario::providerObject(const QJsonObject &detail)
{
    QString id;
    for (const char *list : {"attempts", "lookups"}) {
        for (const QJsonValue &value : arr(detail, list)) {
            const QString object = str(value.toObject(), "provider_object_id");
            if (!object.isEmpty())
                id = object;
        }
    }
    return id;
}

QString DemoScenario::reference(const QString &what, const QString &charge)
{
    return QStringLiteral("demo-%1-%2-%3").arg(m_scenarioId).arg(what).arg(++g_referenceCounter) + charge.right(6);
}

void DemoScenario::narrateAttempts(const QJsonObject &detail)
{
    for (const QJsonValue &value : arr(detail, "attempts")) {
        const QJsonObject a = value.toObject();
        const QString outcome = str(a, "outcome");
        say(outcome == QLatin1String("unknown") ? NarrationKind::Problem : NarrationKind::Observation,
            QStringLiteral("Attempt %1 with key %2: %3 (HTTP %4%5%6)")
                .arg(num(a, "seq"))
                .arg(str(a, "idempotency_key"), outcome)
                .arg(num(a, "http_status"))
                .arg(str(a, "error_code").isEmpty() ? QString() : QStringLiteral(", ") + str(a, "error_code"))
                .arg(a.value(QLatin1String("replayed")).toBool() ? QStringLiteral(", replayed by the provider") : QString()));
    }
    for (const QJsonValue &value : arr(detail, "lookups")) {
        const QJsonObject l = value.toObject();
        say(NarrationKind::Observation, QStringLiteral("Lookup %1 by %2 (%3): %4 %5")
                                            .arg(num(l, "seq"))
                                            .arg(str(l, "asked_by"), str(l, "method"), str(l, "result"), str(l, "provider_object_id")));
    }
}

// ---- waiting ------------------------------------------------------------------------------------

CallbackAwaiter<bool> DemoScenario::pause(int msecs)
{
    return awaitCallback<bool>([this, msecs](std::function<void(bool)> resume) {
        m_http.after(msecs, [resume = std::move(resume)] { resume(true); });
    });
}

Async<std::optional<ActionSnapshot>> DemoScenario::waitForState(QString id, QList<ActionState> states, int timeoutMs, int pollMs)
{
    QElapsedTimer timer;
    timer.start();
    ActionSnapshot last;
    while (!isCancelled()) {
        last = co_await action(id);
        if (last.isOneOf(states))
            co_return last;
        if (timer.elapsed() > timeoutMs)
            break;
        co_await pause(pollMs);
    }
    QStringList names;
    for (const ActionState state : std::as_const(states))
        names.append(toWire(state));
    fail(QStringLiteral("%1 did not reach %2 within %3 s (it is %4)")
             .arg(id, names.join(QLatin1Char('/')))
             .arg(timeoutMs / 1000)
             .arg(last.stateName()));
    co_return std::nullopt;
}

Async<std::optional<ActionSnapshot>> DemoScenario::waitForOutcome(QString id, int timeoutMs, QString cure)
{
    const std::optional<ActionSnapshot> detail = co_await waitForState(id, finalStates(), timeoutMs);
    if (!detail)
        co_return detail;
    narrateAttempts(detail->json);
    if (cure.contains(QLatin1String("%2")))
        say(NarrationKind::Cure, cure.arg(detail->stateName(), str(detail->json, "review_reason")));
    else if (!cure.isEmpty())
        say(NarrationKind::Cure, cure.arg(detail->stateName()));
    co_return detail;
}

Async<bool> DemoScenario::waitForProviderRefund(QString actionId, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!isCancelled()) {
        const QJsonArray refunds = co_await refundsForAction(actionId);
        if (!refunds.isEmpty())
            co_return true;
        if (timer.elapsed() > timeoutMs)
            break;
        co_await pause(50);
    }
    co_return fail(QStringLiteral("timed out waiting for the provider to commit"));
}

// ---- the backend's API --------------------------------------------------------------------------

Async<HttpReply> DemoScenario::api(QString user, Verb verb, QString path, QJsonObject body, qint64 ifMatch)
{
    const QByteArray method = verb == Verb::Get ? QByteArray("GET") : QByteArray("POST");
    const QUrl url(m_stack->backendUrl().toString() + QStringLiteral("/api/v1") + path);
    DemoHttp::Headers headers{{"Authorization", "Bearer " + m_stack->tokens().value(user).toUtf8()}};
    QByteArray payload;
    if (verb != Verb::Get) {
        headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
        payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
    }
    if (ifMatch >= 0)
        headers.append(qMakePair(QByteArray("If-Match"), QByteArray('"' + QByteArray::number(ifMatch) + '"')));
    co_return co_await awaitCallback<HttpReply>([&](std::function<void(HttpReply)> resume) {
        m_http.request(method, url, headers, payload, [resume = std::move(resume)](const HttpReply &r) { resume(r); });
    });
}

Async<ActionSnapshot> DemoScenario::action(QString id)
{
    const HttpReply r = co_await api(m_supervisor, Verb::Get, QStringLiteral("/actions/") + id);
    ActionSnapshot snapshot;
    snapshot.json = r.json();
    snapshot.state = stateFromWire(snapshot.stateName());
    co_return snapshot;
}

Async<HttpReply> DemoScenario::propose(QString charge, qint64 amount, QString reference)
{
    const QJsonObject proposal{
        {QStringLiteral("kind"), QStringLiteral("refund")},
        {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), charge}}},
        {QStringLiteral("amount"), QJsonValue(amount)},
        {QStringLiteral("currency"), QStringLiteral("usd")},
        {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
        {QStringLiteral("client_reference"), reference},
        {QStringLiteral("business_reference"), reference},
    };
    co_return co_await api(m_agent, Verb::Post, QStringLiteral("/actions"), proposal);
}

Async<QString> DemoScenario::proposeOk(QString charge, qint64 amount, QString reference)
{
    const HttpReply r = co_await propose(charge, amount, reference);
    const QString id = str(r.json(), "id");
    if (r.status != 201 || id.isEmpty()) {
        fail(QStringLiteral("the proposal was refused: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
        co_return QString();
    }
    say(NarrationKind::Step, QStringLiteral("Agent %1 proposes a refund of %2 on %3 (reference %4) → %5 PENDING")
                                 .arg(m_agent, money(amount), charge, reference, id));
    focus(id);
    co_return id;
}

Async<bool> DemoScenario::approve(QString id, QString who)
{
    const ActionSnapshot current = co_await action(id);
    const qint64 currentVersion = num(current.json, "state_version");
    const QJsonObject body{{QStringLiteral("note"), QStringLiteral("demo: checked the order")}};
    const HttpReply r = co_await api(who, Verb::Post, QStringLiteral("/actions/%1/approvals").arg(id), body, currentVersion);
    if (r.status != 200)
        co_return fail(QStringLiteral("approval of %1 failed: HTTP %2 %3").arg(id).arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
    const QJsonObject approval = r.json().value(QLatin1String("approval")).toObject();
    say(NarrationKind::Step, QStringLiteral("Approver %1 approves %2 (four-eyes: not the proposer); Countersign mints key %3")
                                 .arg(who, id, str(approval, "idempotency_key")));
    co_return true;
}

Async<DemoScenario::LookupResult> DemoScenario::lookup(QString id)
{
    const ActionSnapshot current = co_await action(id);
    const qint64 currentVersion = num(current.json, "state_version");
    const HttpReply r = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/lookups").arg(id), QJsonObject(),
                                     currentVersion);
    if (r.status != 200) {
        fail(QStringLiteral("lookup failed: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
        co_return LookupResult();
    }
    const QJsonObject l = r.json().value(QLatin1String("lookup")).toObject();
    LookupResult result{int(num(l, "seq")), str(l, "result")};
    say(NarrationKind::Observation,
        QStringLiteral("Supervisor %1 looks up %2 at the provider: %3 %4 %5")
            .arg(m_supervisor, id, result.result, str(l, "provider_object_id"),
                 l.contains(QLatin1String("amount")) && num(l, "amount") > 0 ? money(num(l, "amount")) : QString()));
    co_return result;
}

Async<bool> DemoScenario::reconcile(QString id, QString outcome, int evidenceSeq, QString note)
{
    const ActionSnapshot current = co_await action(id);
    const qint64 currentVersion = num(current.json, "state_version");
    const QJsonObject body{{QStringLiteral("outcome"), outcome},
                           {QStringLiteral("evidence_lookup_seq"), evidenceSeq},
                           {QStringLiteral("note"), note}};
    const HttpReply r = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/reconciliations").arg(id), body, currentVersion);
    if (r.status != 200)
        co_return fail(QStringLiteral("reconciliation failed: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
    const QJsonObject after = r.json().value(QLatin1String("action")).toObject();
    say(NarrationKind::Cure, QStringLiteral("Supervisor %1 reconciles %2 as %3 with lookup %4 as evidence → %5")
                                 .arg(m_supervisor, id, outcome)
                                 .arg(evidenceSeq)
                                 .arg(str(after, "state")));
    co_return true;
}

Async<bool> DemoScenario::reviewWithLookup(QString id, QString expectedResult, QString expectation, QString outcome, QString note)
{
    const LookupResult found = co_await lookup(id);
    if (found.seq == 0)
        co_return false;
    if (found.result != expectedResult)
        co_return fail(expectation + found.result);
    co_return co_await reconcile(id, outcome, found.seq, note);
}

Async<DemoScenario::CheckResult> DemoScenario::check(QString id, ActionState expectedState, int expectedRefunds)
{
    const ActionSnapshot detail = co_await action(id);
    const QJsonArray refunds = co_await refundsForAction(id);
    CheckResult result;
    result.ok = detail.is(expectedState) && refunds.size() == expectedRefunds;
    qint64 total = 0;
    for (const QJsonValue &value : refunds) {
        result.ok = result.ok && num(value.toObject(), "amount") == num(detail.json, "amount");
        total += num(value.toObject(), "amount");
    }
    const QString object = providerObject(detail.json);
    if (expectedRefunds == 1 && !refunds.isEmpty())
        result.ok = result.ok && str(refunds.first().toObject(), "id") == object;
    result.line = QStringLiteral("ledger %1 %2 %3 %4 %5; provider holds %6 refund(s) for the action%7")
                      .arg(id, detail.stateName(), object.isEmpty() ? QStringLiteral("-") : object)
                      .arg(num(detail.json, "amount"))
                      .arg(str(detail.json, "currency"))
                      .arg(refunds.size())
                      .arg(refunds.isEmpty() ? QString() : QStringLiteral(" (%1 usd)").arg(total));
    co_return result;
}

Async<DemoScenario::Proposal> DemoScenario::proposeWithFaults(qint64 chargeAmount, QJsonArray faults, qint64 amount, bool approved)
{
    Proposal p;
    p.charge = co_await newCharge(chargeAmount);
    if (p.charge.isEmpty())
        co_return p;
    const bool faultsSet = co_await setFaults(faults);
    if (!faultsSet)
        co_return p;
    p.reference = reference(QStringLiteral("order"), p.charge);
    p.action = co_await proposeOk(p.charge, amount, p.reference);
    if (p.action.isEmpty())
        co_return p;
    p.ok = true;
    if (approved)
        p.ok = co_await decideApproval(p.action, true,
                                       QStringLiteral("A proposal of a refund within the charge's budget, with its reasons: "
                                                      "approving it is safe, whatever fault the provider has in store — "
                                                      "Countersign sends it under one key and reconciles a lost answer."));
    co_return p;
}

Scenario::Step DemoScenario::proposalStep(qint64 chargeAmount, QJsonArray faults, qint64 amount, QString *action)
{
    return step([=, this] { return proposeInto(chargeAmount, faults, amount, action); });
}

Async<bool> DemoScenario::proposeInto(qint64 chargeAmount, QJsonArray faults, qint64 amount, QString *action)
{
    const Proposal p = co_await proposeWithFaults(chargeAmount, faults, amount);
    *action = p.action;
    co_return p.ok;
}

Async<bool> DemoScenario::judgeOneRefundAfterUnknown(QString id)
{
    const CheckResult checked = co_await check(id, ActionState::Completed, 1);
    const ActionSnapshot detail = co_await action(id);
    const QJsonArray attempts = arr(detail.json, "attempts");
    setVerdict(checked.ok && !attempts.isEmpty() && str(attempts.first().toObject(), "outcome") == QLatin1String("unknown"),
               checked.line);
    co_return true;
}

// ---- the human decisions -------------------------------------------------------------------------

void DemoScenario::judged(const QString &task, const QString &id, bool right, const QString &decided,
                          const QString &expected, const QString &explanation)
{
    if (m_exercise && m_exercise->sheet)
        m_exercise->sheet->append(ExerciseDecision{m_scenarioId, m_scenarioTitle, task, id, right, decided, expected, explanation});
    if (right)
        say(NarrationKind::Cure, QStringLiteral("Right: %1. %2").arg(decided, explanation));
    else
        say(NarrationKind::Problem, QStringLiteral("Not right: %1 — the right decision was to %2. %3").arg(decided, expected, explanation));
}

Async<HttpReply> DemoScenario::reject(QString id, QString who)
{
    const ActionSnapshot current = co_await action(id);
    const QJsonObject body{{QStringLiteral("reason"), QStringLiteral("other")},
                           {QStringLiteral("note"), QStringLiteral("exercise: rejected")}};
    co_return co_await api(who, Verb::Post, QStringLiteral("/actions/%1/rejections").arg(id), body,
                           num(current.json, "state_version"));
}

Async<bool> DemoScenario::decideApproval(QString id, bool approveIsRight, QString why)
{
    if (!m_exercise)
        co_return co_await approve(id, m_approver);
    focus(id);
    say(NarrationKind::Task, QStringLiteral("Your turn, approver: approve or reject %1 in the queue (Action → Approve, or "
                                            "Reject). The scenario waits for your decision.")
                                 .arg(id));
    if (m_exercise->answers != Exercise::Answers::Person) {
        // The scripted trainee's classic mistake at an approval is approving what should be
        // rejected (a follow-up of the wrong amount), not rejecting a sound refund.
        const bool approveNow = m_exercise->answers == Exercise::Answers::ScriptedWrong || approveIsRight;
        if (approveNow) {
            if (!co_await approve(id, m_approver))
                co_return false;
        } else {
            const HttpReply r = co_await reject(id, m_approver);
            if (r.status != 200)
                co_return fail(QStringLiteral("the scripted trainee's rejection failed: HTTP %1 %2")
                                   .arg(r.status)
                                   .arg(QString::fromUtf8(r.body.left(300))));
        }
    }
    // Decided once the action has left PENDING or carries a decision of its current version.
    QString decision;
    QString by;
    while (!isCancelled()) {
        const ActionSnapshot now = co_await action(id);
        const QJsonArray approvals = arr(now.json, "approvals");
        if (!approvals.isEmpty()) {
            const QJsonObject last = approvals.last().toObject();
            if (num(last, "version") == num(now.json, "approval_version") || now.is(ActionState::Rejected)) {
                decision = str(last, "decision");
                by = str(last, "decided_by");
            }
        }
        if (decision.isEmpty() && now.is(ActionState::Rejected))
            decision = QStringLiteral("rejected");
        if (!decision.isEmpty())
            break;
        co_await pause(m_exercise->pollMs);
    }
    if (decision.isEmpty())
        co_return false; // cancelled
    const bool approved = decision == u"approved";
    judged(QStringLiteral("approve"), id, approved == approveIsRight,
           QStringLiteral("%1 %2%3").arg(approved ? QStringLiteral("approved") : QStringLiteral("rejected"), id,
                                          by.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(by)),
           approveIsRight ? QStringLiteral("approve it") : QStringLiteral("reject it"), why);
    if (!approved)
        co_return fail(QStringLiteral("%1 was rejected: the exercise ends here (see the score sheet)").arg(id));
    co_return true;
}

Async<bool> DemoScenario::decideReconciliation(QString id, QString expectedResult, QString expectation, QString outcome,
                                               QString note)
{
    if (!m_exercise)
        co_return co_await reviewWithLookup(id, expectedResult, expectation, outcome, note);
    const ActionSnapshot before = co_await action(id);
    focus(id);
    say(NarrationKind::Task,
        QStringLiteral("Your turn, supervisor: %1 is in REQUIRES_REVIEW (%2). Look it up at the provider (Action → Look up "
                       "now), then reconcile it (Action → Reconcile) with the lookup that proves what happened. The "
                       "scenario waits for your reconciliation.")
            .arg(id, str(before.json, "review_reason")));
    if (m_exercise->answers != Exercise::Answers::Person) {
        const LookupResult found = co_await lookup(id);
        if (found.seq == 0)
            co_return false;
        const bool sayCommitted = (found.result == u"FOUND") == (m_exercise->answers == Exercise::Answers::ScriptedRight);
        const QString scripted = sayCommitted ? QStringLiteral("committed") : QStringLiteral("not_committed");
        const ActionSnapshot current = co_await action(id);
        const QJsonObject body{{QStringLiteral("outcome"), scripted},
                               {QStringLiteral("evidence_lookup_seq"), found.seq},
                               {QStringLiteral("note"), QStringLiteral("exercise: scripted trainee")}};
        const HttpReply r = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/reconciliations").arg(id), body,
                                         num(current.json, "state_version"));
        if (r.status != 200) {
            // What a person sees in the reconcile dialog: Countersign refuses what the evidence does
            // not support. Judged as the trainee's decision; then, as a person would after the
            // refusal, the reconciliation the lookup supports, so the exercise goes on.
            const QJsonArray truth = co_await refundsForAction(id);
            judged(QStringLiteral("reconcile"), id, false,
                   QStringLiteral("tried to reconcile %1 as %2 with lookup %3 (%4); Countersign refused it: %5")
                       .arg(id, scripted)
                       .arg(found.seq)
                       .arg(found.result, str(r.json(), "detail")),
                   QStringLiteral("reconcile it as %1").arg(truth.isEmpty() ? QStringLiteral("not_committed") : QStringLiteral("committed")),
                   truth.isEmpty() ? QStringLiteral("The provider holds no refund for it: nothing was sent that committed.")
                                   : QStringLiteral("The provider holds %1 for it: the refund was made.").arg(str(truth.first().toObject(), "id")));
            const ActionSnapshot again = co_await action(id);
            const QJsonObject supported{{QStringLiteral("outcome"), found.result == u"FOUND" ? QStringLiteral("committed")
                                                                                             : QStringLiteral("not_committed")},
                                        {QStringLiteral("evidence_lookup_seq"), found.seq},
                                        {QStringLiteral("note"), QStringLiteral("exercise: after the refusal")}};
            const HttpReply second = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/reconciliations").arg(id),
                                                  supported, num(again.json, "state_version"));
            if (second.status != 200)
                co_return fail(QStringLiteral("the reconciliation of %1 failed: HTTP %2 %3")
                                   .arg(id)
                                   .arg(second.status)
                                   .arg(QString::fromUtf8(second.body.left(300))));
            co_return true;
        }
    }
    QJsonObject reconciliation;
    ActionSnapshot after;
    while (!isCancelled()) {
        after = co_await action(id);
        const QJsonArray reconciliations = arr(after.json, "reconciliations");
        if (!reconciliations.isEmpty()) {
            reconciliation = reconciliations.last().toObject();
            break;
        }
        co_await pause(m_exercise->pollMs);
    }
    if (reconciliation.isEmpty())
        co_return false; // cancelled
    const QString recorded = str(reconciliation, "outcome");
    const int evidenceSeq = int(num(reconciliation, "evidence_lookup_seq"));
    QJsonObject evidence;
    for (const QJsonValue &l : arr(after.json, "lookups")) {
        if (num(l.toObject(), "seq") == evidenceSeq)
            evidence = l.toObject();
    }
    const QJsonArray truth = co_await refundsForAction(id);
    const QString right = truth.isEmpty() ? QStringLiteral("not_committed") : QStringLiteral("committed");
    const QString fact = truth.isEmpty()
        ? QStringLiteral("The provider's ground truth holds no refund for %1: nothing that was sent committed, so the customer "
                         "has not been refunded and a new approval may send it.").arg(id)
        : QStringLiteral("The provider's ground truth holds %1 (%2) for %3: the refund was made, so sending it again "
                         "would refund the customer twice.")
              .arg(str(truth.first().toObject(), "id"), money(num(truth.first().toObject(), "amount")), id);
    judged(QStringLiteral("reconcile"), id, recorded == right,
           QStringLiteral("reconciled %1 as %2 with lookup %3 (%4)")
               .arg(id, recorded)
               .arg(evidenceSeq)
               .arg(QStringList{str(evidence, "result"), str(evidence, "provider_object_id")}.join(QLatin1Char(' ')).trimmed()),
           QStringLiteral("reconcile it as %1").arg(right), fact);
    co_return true;
}

Async<QString> DemoScenario::decideFollowUp(QString parent, qint64 desiredTotal, qint64 expectedAmount, QString note)
{
    const ActionSnapshot before = co_await action(parent);
    const qint64 committed = desiredTotal - expectedAmount;
    if (!m_exercise || m_exercise->answers != Exercise::Answers::Person) {
        if (m_exercise) {
            focus(parent);
            say(NarrationKind::Task, QStringLiteral("Your turn, supervisor: the customer is owed %1 in total. Propose the "
                                                    "follow-up of %2 (Action → Follow up).")
                                         .arg(money(desiredTotal), parent));
        }
        // The classic mistake: "$45 more" instead of "$45 in all".
        const qint64 total = m_exercise && m_exercise->answers == Exercise::Answers::ScriptedWrong ? desiredTotal + committed
                                                                                                   : desiredTotal;
        const QJsonObject body{{QStringLiteral("desired_total_amount"), total}, {QStringLiteral("note"), note}};
        const HttpReply r = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/follow-ups").arg(parent), body,
                                         num(before.json, "state_version"));
        const QString followUp = str(r.json(), "id");
        if (r.status != 201 || followUp.isEmpty()) {
            fail(QStringLiteral("follow-up refused: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
            co_return QString();
        }
        if (!m_exercise) {
            say(NarrationKind::Cure,
                QStringLiteral("Supervisor %1 proposes a follow-up for the difference: %2 → %3 %4, which needs its own approval and key.")
                    .arg(m_supervisor, followUp, money(num(r.json(), "amount")), str(r.json(), "state")));
            focus(followUp);
            co_return followUp;
        }
    } else {
        focus(parent);
        say(NarrationKind::Task, QStringLiteral("Your turn, supervisor: the customer is owed %1 in total. Propose the "
                                                "follow-up of %2 (Action → Follow up). The scenario waits for it.")
                                     .arg(money(desiredTotal), parent));
    }
    QJsonObject followUp;
    while (!isCancelled()) {
        const ActionSnapshot now = co_await action(parent);
        const QJsonArray followUps = now.json.value(QLatin1String("related")).toObject().value(QLatin1String("follow_ups")).toArray();
        if (!followUps.isEmpty()) {
            followUp = followUps.last().toObject();
            break;
        }
        co_await pause(m_exercise->pollMs);
    }
    if (followUp.isEmpty())
        co_return QString(); // cancelled
    const QString id = str(followUp, "id");
    const qint64 amount = num(followUp, "amount");
    focus(id);
    judged(QStringLiteral("follow_up"), id, amount == expectedAmount,
           QStringLiteral("proposed follow-up %1 of %2").arg(id, money(amount)),
           QStringLiteral("propose %1, the difference").arg(money(expectedAmount)),
           QStringLiteral("The customer is owed %1 in all and %2 already reached them (the provider holds that refund): a "
                          "follow-up is desired − committed = %3.%4")
               .arg(money(desiredTotal), money(committed), money(expectedAmount),
                    amount == expectedAmount
                        ? QString()
                        : QStringLiteral(" %1 more would refund %2 in all.").arg(money(amount), money(committed + amount))));
    co_return id;
}

// ---- paysim -------------------------------------------------------------------------------------

Async<HttpReply> DemoScenario::admin(std::function<void(PaysimAdminClient::Done)> call)
{
    co_return co_await awaitCallback<HttpReply>([&call](std::function<void(HttpReply)> resume) {
        call([resume = std::move(resume)](const HttpReply &r) { resume(r); });
    });
}

Async<bool> DemoScenario::setFaults(QJsonArray rules)
{
    const HttpReply cleared = co_await admin([this](PaysimAdminClient::Done done) { m_paysim.clearFaults(std::move(done)); });
    if (cleared.status != 200)
        co_return fail(QStringLiteral("paysim did not clear its fault rules"));
    if (rules.isEmpty())
        co_return true;
    const HttpReply r = co_await admin([this, &rules](PaysimAdminClient::Done done) { m_paysim.addFaults(rules, std::move(done)); });
    if (r.status != 200)
        co_return fail(QStringLiteral("paysim refused the fault rules: ") + QString::fromUtf8(r.body));
    for (const QJsonValue &value : std::as_const(rules)) {
        const QJsonObject o = value.toObject();
        say(NarrationKind::Step, QStringLiteral("Fault injected at paysim: %1 on POST /v1/refunds (request #%2, %3)")
                                     .arg(str(o, "fault"))
                                     .arg(num(o, "nth"))
                                     .arg(num(o, "times") == 0 ? QStringLiteral("every time from then on")
                                                               : QStringLiteral("%1 time(s)").arg(num(o, "times"))));
    }
    co_return true;
}

Async<QString> DemoScenario::newCharge(qint64 amount)
{
    const HttpReply r = co_await admin([this, amount](PaysimAdminClient::Done done) { m_paysim.createCharges({amount}, std::move(done)); });
    const QJsonArray data = PaysimAdminClient::dataOf(r);
    const QString id = data.isEmpty() ? QString() : str(data.at(0).toObject(), "id");
    if (id.isEmpty())
        fail(QStringLiteral("paysim created no charge: ") + QString::fromUtf8(r.body));
    co_return id;
}

Async<QJsonArray> DemoScenario::groundTruth()
{
    const HttpReply r = co_await admin([this](PaysimAdminClient::Done done) { m_paysim.refunds(std::move(done)); });
    co_return PaysimAdminClient::dataOf(r);
}

Async<QJsonArray> DemoScenario::refundsForAction(QString actionId)
{
    QJsonArray out;
    const QJsonArray all = co_await groundTruth();
    for (const QJsonValue &value : all) {
        if (value.toObject().value(QLatin1String("metadata")).toObject().value(QLatin1String("countersign_action_id")).toString() == actionId)
            out.append(value);
    }
    co_return out;
}

Async<QJsonArray> DemoScenario::refundsForCharge(QString charge)
{
    QJsonArray out;
    const QJsonArray all = co_await groundTruth();
    for (const QJsonValue &value : all) {
        if (str(value.toObject(), "charge") == charge)
            out.append(value);
    }
    co_return out;
}

Async<HttpReply> DemoScenario::naiveRefund(QString charge, qint64 amount)
{
    QUrlQuery form;
    form.addQueryItem(QStringLiteral("charge"), charge);
    form.addQueryItem(QStringLiteral("amount"), QString::number(amount));
    const QByteArray body = form.toString(QUrl::FullyEncoded).toUtf8();
    const QUrl base = m_stack->paysimUrl();
    const QByteArray request = "POST /v1/refunds HTTP/1.1\r\nHost: " + base.host().toUtf8() + ':' + QByteArray::number(base.port())
                               + "\r\nAuthorization: Bearer " + m_stack->providerKey().toUtf8()
                               + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                               + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    co_return co_await awaitCallback<HttpReply>([&](std::function<void(HttpReply)> resume) {
        m_http.requestOnce(base.host(), quint16(base.port()), request, [resume = std::move(resume)](const HttpReply &r) { resume(r); });
    });
}

} // namespace cs::demo
