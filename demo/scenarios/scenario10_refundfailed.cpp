// Scenario 10, "The refund that failed on Thursday" (issue 18): a $120.00 refund is approved on
// Monday; the provider accepts it `pending`, so the action is COMPLETED while the money is still on
// its way. On Thursday (paysim's clock, three days on) the refund fails — the card was reported lost
// or stolen — and refund.failed arrives as a signed webhook: the settlement turns failed, the
// supervisor's "Refund failed" queue counts it, and the action stays COMPLETED. Nothing resends
// it: the agent's retry answers the same action, a close without a note is refused. The supervisor
// proposes the follow-up (the failed refund moved nothing, so it is the whole $120.00) with its own
// approval and key; a second approver approves; it settles succeeded on Friday. The provider holds
// one refund per action: the failed one and the follow-up's.
#include "demo/demoscenario.h"
#include "demo/demostack.h"
#include "demo/exercise.h"
#include "demo/scenarios/scenarios.h"
#include "demo/webhookrelay.h"

#include <QElapsedTimer>

namespace cs::demo {

class RefundFailedScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        return {step([this] { return monday(); }),          step([this] { return completedPending(); }),
                step([this] { return thursday(); }),        step([this] { return noSilentResend(); }),
                step([this] { return decide(); }),          step([this] { return friday(); }),
                step([this] { return judge(); })};
    }

protected:
    void tearDown(std::function<void()> done) override
    {
        // Scenarios 1–9 are written for a backend without webhooks (demo/webhookrelay.h).
        if (m_stack && m_stack->webhooks())
            m_stack->webhooks()->setForwarding(false);
        done();
    }

private:
    struct State {
        QString charge;
        QString reference;  // the agent's client reference (order 7731)
        QString action;     // the $120.00 refund that fails on Thursday
        QString refund;     // its re_…
        QString followUp;   // the follow-up, its own approval and key
        qint64 reviewBefore = -1; // the "Refund failed" count before the scenario
        qint64 reviewOnThursday = -1;
    } m;

    static constexpr qint64 Amount = 12000;
    static constexpr qint64 Day = qint64(24) * 3600;
    static constexpr qint64 ThreeDays = 3 * Day;
    static constexpr const char *FailureReason = "lost_or_stolen_card";

    static QJsonObject settlementOf(const ActionSnapshot &a) { return a.json.value(QLatin1String("settlement")).toObject(); }

    // The supervisor's queue counts: "Refund failed" is counts.settlement_review; `listed` tells
    // whether GET /actions?settlement=review lists `id`. -1 when the list was refused.
    struct ReviewQueue {
        qint64 count = -1;
        bool listed = false;
    };
    Async<ReviewQueue> reviewQueue(QString id)
    {
        const HttpReply r = co_await api(m_supervisor, Verb::Get, QStringLiteral("/actions?settlement=review&limit=100"));
        ReviewQueue q;
        if (r.status != 200) {
            fail(QStringLiteral("GET /actions?settlement=review failed: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
            co_return q;
        }
        q.count = num(r.json().value(QLatin1String("counts")).toObject(), "settlement_review");
        for (const QJsonValue &row : arr(r.json(), "data"))
            q.listed = q.listed || str(row.toObject(), "id") == id;
        co_return q;
    }

    // Polls the action until its settlement's status is `status` (bounded); empty with fail().
    Async<std::optional<ActionSnapshot>> waitForSettlement(QString id, QString status, int timeoutMs)
    {
        QElapsedTimer timer;
        timer.start();
        ActionSnapshot last;
        while (!isCancelled()) {
            last = co_await action(id);
            if (str(settlementOf(last), "status") == status)
                co_return last;
            if (timer.elapsed() > timeoutMs)
                break;
            co_await pause(100);
        }
        fail(QStringLiteral("the settlement of %1 did not become %2 within %3 s (it is %4): did the webhook reach countersignd?")
                 .arg(id, status)
                 .arg(timeoutMs / 1000)
                 .arg(str(settlementOf(last), "status").isEmpty() ? QStringLiteral("absent") : str(settlementOf(last), "status")));
        co_return std::nullopt;
    }

    Async<bool> advanceDays(qint64 seconds, QString dayName)
    {
        const HttpReply clock = co_await admin([this, seconds](PaysimAdminClient::Done done) {
            m_paysim.advanceClock(seconds * 1000, std::move(done));
        });
        if (clock.status != 200)
            co_return fail(QStringLiteral("paysim's clock did not move: HTTP %1 %2").arg(clock.status).arg(PaysimAdminClient::errorOf(clock)));
        say(NarrationKind::Step, QStringLiteral("The trainer moves paysim's clock %1 day(s) on (POST /_sim/clock): it is %2 at the provider.")
                                     .arg(seconds / Day)
                                     .arg(dayName));
        co_return true;
    }

    Async<bool> monday()
    {
        m.charge = co_await newCharge(Amount);
        if (m.charge.isEmpty())
            co_return false;
        // The first refund sent stays pending and fails three days later; the second (the
        // follow-up) stays pending one day and succeeds.
        const QJsonObject fails{{QStringLiteral("after_seconds"), ThreeDays},
                                {QStringLiteral("to"), QStringLiteral("failed")},
                                {QStringLiteral("failure_reason"), QLatin1String(FailureReason)}};
        const QJsonObject succeeds{{QStringLiteral("after_seconds"), Day}, {QStringLiteral("to"), QStringLiteral("succeeded")}};
        const QJsonArray rules{rule(QStringLiteral("refund_settles"), 1, 1, fails), rule(QStringLiteral("refund_settles"), 2, 1, succeeds)};
        if (!co_await setFaults(rules))
            co_return false;
        if (!m_stack->webhooks())
            co_return fail(QStringLiteral("the demo stack has no webhook relay"));
        m_stack->webhooks()->setForwarding(true);
        say(NarrationKind::Step,
            QStringLiteral("paysim's webhooks now reach countersignd (signed, POST /api/v1/webhooks/provider): refund events "
                           "are evidence like a look-up. paysim will answer the first refund pending and fail it after "
                           "3 days (%1); the second stays pending for a day, then succeeds.")
                .arg(QLatin1String(FailureReason)));
        const ReviewQueue before = co_await reviewQueue(QString());
        if (before.count < 0)
            co_return false;
        m.reviewBefore = before.count;
        say(NarrationKind::Step, QStringLiteral("Monday. Order 7731: the customer returned the jacket they paid %1 for (%2); "
                                                "the support agent promises a full refund.")
                                     .arg(money(Amount), m.charge));
        m.reference = reference(QStringLiteral("order7731"), m.charge);
        m.action = co_await proposeOk(m.charge, Amount, m.reference);
        if (m.action.isEmpty())
            co_return false;
        co_return co_await decideApproval(m.action, true,
                                          QStringLiteral("A full refund of a returned order, within the charge: approve it. "
                                                         "What the provider does with it later is not the approver's call."));
    }

    Async<bool> completedPending()
    {
        const std::optional<ActionSnapshot> done = co_await waitForOutcome(m.action, 20000);
        if (!done)
            co_return false;
        if (!done->is(ActionState::Completed))
            co_return fail(QStringLiteral("%1 should be COMPLETED, it is %2").arg(m.action, done->stateName()));
        const QJsonObject s = settlementOf(*done);
        m.refund = str(s, "refund_id");
        if (str(s, "status") != u"pending")
            co_return fail(QStringLiteral("the settlement of %1 should be pending, it is %2").arg(m.action, str(s, "status")));
        say(NarrationKind::Observation,
            QStringLiteral("%1 is COMPLETED; its settlement: refund %2 %3 (confirmed by %4), a scheduled look-up at %5 if no event comes first.")
                .arg(m.action, m.refund, str(s, "status"), str(s, "confirmed_by"),
                     str(s, "next_check_at").isEmpty() ? QStringLiteral("none") : str(s, "next_check_at")));
        say(NarrationKind::Cure,
            QStringLiteral("COMPLETED means the provider accepted this refund under one key and holds it — not that the money "
                           "reached the customer. Stripe answers pending while the card network works on it, and a pending "
                           "refund can still fail or be canceled days later. So Countersign keeps following it: webhook "
                           "events first, a scheduled look-up if no event comes. The support agent tells the customer the "
                           "refund is on its way."));
        co_return true;
    }

    Async<bool> thursday()
    {
        if (!co_await advanceDays(ThreeDays, QStringLiteral("Thursday")))
            co_return false;
        const std::optional<ActionSnapshot> failed = co_await waitForSettlement(m.action, QStringLiteral("failed"), 20000);
        if (!failed)
            co_return false;
        focus(m.action);
        const QJsonObject s = settlementOf(*failed);
        for (const QJsonValue &value : arr(s, "history")) {
            const QJsonObject c = value.toObject();
            say(NarrationKind::Observation, QStringLiteral("Settlement %1: %2 → %3%4, from %5 (%6)")
                                                .arg(num(c, "seq"))
                                                .arg(str(c, "from_status").isEmpty() ? QStringLiteral("—") : str(c, "from_status"),
                                                     str(c, "to_status"),
                                                     str(c, "failure_reason").isEmpty() ? QString() : QStringLiteral(" (%1)").arg(str(c, "failure_reason")),
                                                     str(c, "source"), str(c, "evidence")));
        }
        say(NarrationKind::Problem,
            QStringLiteral("Thursday: refund.failed reached countersignd. %1 failed at the provider (%2): the card was reported "
                           "lost or stolen, so the money never reached the customer and went back to the charge. %3 is still %4 — the provider did accept it on "
                           "Monday — but its settlement is %5 and its review item is %6.")
                .arg(m.refund, str(s, "failure_reason"), m.action, failed->stateName(), str(s, "status"), str(s, "attention")));
        const ReviewQueue q = co_await reviewQueue(m.action);
        if (q.count < 0)
            co_return false;
        m.reviewOnThursday = q.count;
        if (q.count != m.reviewBefore + 1 || !q.listed)
            co_return fail(QStringLiteral("the \"Refund failed\" queue should list %1 and count %2, it counts %3 (%4)")
                               .arg(m.action)
                               .arg(m.reviewBefore + 1)
                               .arg(q.count)
                               .arg(q.listed ? QStringLiteral("listed") : QStringLiteral("not listed")));
        say(NarrationKind::Observation, QStringLiteral("The supervisor's queue: Refund failed (%1) lists %2 (GET /actions?settlement=review).")
                                            .arg(q.count)
                                            .arg(m.action));
        say(NarrationKind::Problem,
            QStringLiteral("The customer was told on Monday that the refund was done, and has nothing. Finance booked %1 "
                           "refunded. Both must learn it failed — and no one may 'just send it again': a resend under a new "
                           "key is a new refund the provider will make, with no approval and no record of why, and if the "
                           "first one had not really failed the customer would be paid twice.")
                .arg(money(Amount)));
        co_return true;
    }

    Async<bool> noSilentResend()
    {
        // The agent's own retry: the same order under the same reference is the same action.
        const HttpReply again = co_await propose(m.charge, Amount, m.reference);
        const QString sameId = str(again.json(), "id");
        if (again.status != 200 || sameId != m.action)
            co_return fail(QStringLiteral("the agent's retry under %1 should answer 200 with %2, got HTTP %3 %4")
                               .arg(m.reference, m.action)
                               .arg(again.status)
                               .arg(sameId));
        const QJsonArray truth = co_await refundsForAction(m.action);
        say(NarrationKind::Cure,
            QStringLiteral("The agent proposes order 7731 again under %1: HTTP 200, the same action %2 (%3), nothing sent — "
                           "the provider still holds %4 refund(s) for it.")
                .arg(m.reference, m.action, str(again.json(), "state"))
                .arg(truth.size()));
        if (truth.size() != 1)
            co_return fail(QStringLiteral("the provider should hold 1 refund for %1, it holds %2").arg(m.action).arg(truth.size()));
        if (inExercise())
            co_return true; // the trainee is the supervisor now
        const ActionSnapshot current = co_await action(m.action);
        const QJsonObject noNote;
        const HttpReply close = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/settlement/close").arg(m.action),
                                             noNote, num(current.json, "state_version"));
        if (close.status < 400 || close.status >= 500)
            co_return fail(QStringLiteral("closing the review item without a note should be refused, got HTTP %1").arg(close.status));
        say(NarrationKind::Cure,
            QStringLiteral("Closing the review item without a note is refused (HTTP %1 %2): whoever closes it says why — "
                           "e.g. the customer was paid another way.")
                .arg(close.status)
                .arg(str(close.json(), "code")));
        co_return true;
    }

    Async<bool> decide()
    {
        focus(m.action);
        if (m_exercise)
            say(NarrationKind::Task,
                QStringLiteral("Your turn, supervisor: %1's refund failed after it was COMPLETED (queue filter Refund failed). "
                               "The customer is owed %2 and was paid nothing else. Decide its review item: propose the "
                               "follow-up (Action → Follow up), or close it with a note. The scenario waits for your decision.")
                    .arg(m.action, money(Amount)));
        if (!m_exercise || m_exercise->answers == Exercise::Answers::ScriptedRight) {
            const ActionSnapshot current = co_await action(m.action);
            const QJsonObject body{{QStringLiteral("desired_total_amount"), Amount},
                                   {QStringLiteral("note"), QStringLiteral("refund %1 failed (%2); the customer is owed %3")
                                                                .arg(m.refund, QLatin1String(FailureReason), money(Amount))}};
            const HttpReply r = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/follow-ups").arg(m.action), body,
                                             num(current.json, "state_version"));
            if (r.status != 201)
                co_return fail(QStringLiteral("follow-up refused: HTTP %1 %2").arg(r.status).arg(QString::fromUtf8(r.body.left(300))));
            if (!m_exercise) {
                m.followUp = str(r.json(), "id");
                say(NarrationKind::Cure,
                    QStringLiteral("Supervisor %1 proposes the follow-up: %2 of %3 — the failed refund moved no money, so the "
                                   "remainder is the whole amount. A new operation: it needs its own approval and gets its "
                                   "own key; %4's review item is marked followed up.")
                        .arg(m_supervisor, m.followUp, money(num(r.json(), "amount")), m.action));
                focus(m.followUp);
                co_return co_await approve(m.followUp, m_approver2);
            }
        } else if (m_exercise->answers == Exercise::Answers::ScriptedWrong) {
            // The classic mistake: "it is COMPLETED, the customer was told" — closed; first without a note.
            const ActionSnapshot current = co_await action(m.action);
            const QJsonObject noNote;
            const HttpReply bare = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/settlement/close").arg(m.action),
                                                noNote, num(current.json, "state_version"));
            say(NarrationKind::Observation, QStringLiteral("The trainee closes the review item without a note: HTTP %1 %2")
                                                .arg(bare.status)
                                                .arg(str(bare.json(), "code")));
            const QJsonObject noted{{QStringLiteral("note"), QStringLiteral("completed; the customer was told it is refunded")}};
            const HttpReply closed = co_await api(m_supervisor, Verb::Post, QStringLiteral("/actions/%1/settlement/close").arg(m.action),
                                                  noted, num(current.json, "state_version"));
            if (closed.status != 200)
                co_return fail(QStringLiteral("the scripted trainee's close failed: HTTP %1 %2")
                                   .arg(closed.status)
                                   .arg(QString::fromUtf8(closed.body.left(300))));
        }
        co_return co_await judgeDecision();
    }

    // Exercise: waits until the review item is decided, then judges it against the ground truth.
    Async<bool> judgeDecision()
    {
        QJsonObject s;
        while (!isCancelled()) {
            const ActionSnapshot now = co_await action(m.action);
            s = settlementOf(now);
            if (str(s, "attention") != u"open")
                break;
            co_await pause(m_exercise->pollMs);
        }
        if (isCancelled())
            co_return false;
        const QJsonArray truth = co_await refundsForAction(m.action);
        const QJsonObject failed = truth.isEmpty() ? QJsonObject() : truth.first().toObject();
        const QString fact = QStringLiteral("The provider holds one refund for %1, %2, and it is %3 (%4): nothing reached the "
                                            "customer, who is owed %5 in all.")
                                 .arg(m.action, str(failed, "id"), str(failed, "status"), str(failed, "failure_reason"), money(Amount));
        if (str(s, "attention") == u"followed_up") {
            m.followUp = str(s, "follow_up_id");
            const ActionSnapshot followUp = co_await action(m.followUp);
            const qint64 amount = num(followUp.json, "amount");
            focus(m.followUp);
            judged(QStringLiteral("follow_up"), m.followUp, amount == Amount,
                   QStringLiteral("proposed follow-up %1 of %2").arg(m.followUp, money(amount)),
                   QStringLiteral("propose the follow-up of %1, the whole amount").arg(money(Amount)),
                   fact + QStringLiteral(" The failed refund counts 0, so the follow-up is the whole amount, under its own approval and key."));
            co_return co_await decideApproval(m.followUp, amount == Amount,
                                              amount == Amount
                                                  ? QStringLiteral("The follow-up pays what the customer was promised, once, with its own key: approve it.")
                                                  : QStringLiteral("The follow-up is not the %1 the customer is owed: reject it.").arg(money(Amount)));
        }
        judged(QStringLiteral("settlement"), m.action, false,
               QStringLiteral("closed %1's review item (\"%2\")").arg(m.action, str(s, "resolution_note")),
               QStringLiteral("propose the follow-up of %1").arg(money(Amount)),
               fact + QStringLiteral(" Closing is right only when the customer was paid another way; here they were told the "
                                     "refund was done and will never get it."));
        co_return fail(QStringLiteral("%1's review item was closed: the customer is not paid, the exercise ends here (see the score sheet)")
                           .arg(m.action));
    }

    Async<bool> friday()
    {
        const std::optional<ActionSnapshot> done = co_await waitForOutcome(m.followUp, 20000);
        if (!done)
            co_return false;
        if (!done->is(ActionState::Completed))
            co_return fail(QStringLiteral("the follow-up %1 should be COMPLETED, it is %2").arg(m.followUp, done->stateName()));
        say(NarrationKind::Observation, QStringLiteral("The follow-up %1 is COMPLETED under its own key %2; its refund %3 is %4.")
                                            .arg(m.followUp, str(done->json, "idempotency_key"), str(settlementOf(*done), "refund_id"),
                                                 str(settlementOf(*done), "status")));
        if (!co_await advanceDays(Day, QStringLiteral("Friday")))
            co_return false;
        const std::optional<ActionSnapshot> settled = co_await waitForSettlement(m.followUp, QStringLiteral("succeeded"), 20000);
        if (!settled)
            co_return false;
        say(NarrationKind::Cure, QStringLiteral("Friday: refund.updated — %1 succeeded (%2). Now the money reached the customer; "
                                                "support can say so, and finance sees one refund that failed and one that "
                                                "succeeded for order 7731.")
                                     .arg(str(settlementOf(*settled), "refund_id"), str(settlementOf(*settled), "confirmed_by")));
        co_return true;
    }

    Async<bool> judge()
    {
        // The console ends on the refund that failed: its settlement, history and follow-up.
        focus(m.action);
        const CheckResult parentChecked = co_await check(m.action, ActionState::Completed, 1);
        const CheckResult followChecked = co_await check(m.followUp, ActionState::Completed, 1);
        const QJsonArray parentTruth = co_await refundsForAction(m.action);
        const QJsonArray followTruth = co_await refundsForAction(m.followUp);
        const ActionSnapshot parent = co_await action(m.action);
        const ActionSnapshot followUp = co_await action(m.followUp);
        const ReviewQueue after = co_await reviewQueue(m.action);
        const QJsonObject ps = settlementOf(parent);
        const QJsonObject fs = settlementOf(followUp);
        const QJsonObject failedRefund = parentTruth.isEmpty() ? QJsonObject() : parentTruth.first().toObject();
        const QJsonObject paidRefund = followTruth.isEmpty() ? QJsonObject() : followTruth.first().toObject();
        const bool oracle = str(failedRefund, "status") == u"failed" && str(failedRefund, "failure_reason") == QLatin1String(FailureReason)
            && str(paidRefund, "status") == u"succeeded" && num(paidRefund, "amount") == Amount;
        const bool settlement = str(ps, "status") == u"failed" && str(ps, "failure_reason") == QLatin1String(FailureReason)
            && str(ps, "confirmed_by") == u"webhook" && str(ps, "attention") == u"followed_up" && str(ps, "follow_up_id") == m.followUp
            && str(fs, "status") == u"succeeded";
        const QString parentKey = str(parent.json, "idempotency_key");
        const bool keysDiffer = !parentKey.isEmpty() && parentKey != str(followUp.json, "idempotency_key");
        const bool queue = after.count == m.reviewBefore && !after.listed && m.reviewOnThursday == m.reviewBefore + 1;
        setVerdict(parentChecked.ok && followChecked.ok && oracle && settlement && keysDiffer && queue,
                   parentChecked.line + QStringLiteral(" (%1 %2)").arg(str(failedRefund, "status"), str(failedRefund, "failure_reason"))
                       + QStringLiteral(" | follow-up: ") + followChecked.line + QStringLiteral(" (%1)").arg(str(paidRefund, "status"))
                       + QStringLiteral(" | settlement %1 by %2, review %3 | Refund failed %4 → %5 → %6")
                             .arg(str(ps, "status"), str(ps, "confirmed_by"), str(ps, "attention"))
                             .arg(m.reviewBefore)
                             .arg(m.reviewOnThursday)
                             .arg(after.count)
                       + (keysDiffer ? QStringLiteral(" | separate keys") : QStringLiteral(" | SAME KEY")));
        co_return true;
    }
};

std::unique_ptr<Scenario> makeRefundFailedScenario(DemoStack *stack)
{
    return std::make_unique<RefundFailedScenario>(stack, 10);
}

} // namespace cs::demo
