// Scenario 1, "The retry that refunded twice": a naive agent without Countersign refunds twice
// after a lost answer; through Countersign the same fault ends CONFIRMATION_UNKNOWN → COMPLETED
// with one refund.
#include "demo/demoscenario.h"
#include "demo/scenarios/scenarios.h"

namespace cs::demo {

class RetryTwiceScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        return {step([this] { return prepareNaive(); }), step([this] { return naiveRetries(); }),
                step([this] { return showDoubleRefund(); }), step([this] { return propose(); }),
                step([this] { return approveOnce(); }), step([this] { return awaitOutcome(); }),
                step([this] { return judge(); })};
    }

private:
    struct State {
        QString naiveCharge; // the charge the naive agent refunds twice
        QString action;
    } m;

    static constexpr qint64 Amount = 8900;

    QJsonArray lostAnswer() const { return {rule(QStringLiteral("drop_response_after_commit"), 1, 1)}; }

    Async<bool> prepareNaive()
    {
        say(NarrationKind::Step, QStringLiteral("First, what a naive agent does without Countersign: it calls the provider directly."));
        m.naiveCharge = co_await newCharge(30000);
        if (m.naiveCharge.isEmpty())
            co_return false;
        co_return co_await setFaults(lostAnswer());
    }

    Async<bool> naiveRetries()
    {
        const HttpReply first = co_await naiveRefund(m.naiveCharge, Amount);
        say(NarrationKind::Problem, QStringLiteral("Naive agent POSTs /v1/refunds %1 on %2 without an idempotency key: %3")
                                        .arg(money(Amount), m.naiveCharge,
                                             first.status == 0 ? QStringLiteral("no answer (%1) — it assumes it failed").arg(first.error)
                                                               : QStringLiteral("HTTP %1").arg(first.status)));
        const HttpReply second = co_await naiveRefund(m.naiveCharge, Amount);
        say(NarrationKind::Problem, QStringLiteral("After its timeout it simply retries: HTTP %1 %2")
                                        .arg(second.status)
                                        .arg(str(second.json(), "id")));
        co_return true;
    }

    Async<bool> showDoubleRefund()
    {
        const QJsonArray refunds = co_await refundsForCharge(m.naiveCharge);
        say(NarrationKind::Problem,
            QStringLiteral("Provider ground truth (/_sim/refunds): %1 refund(s) of %2 on %3 — the customer was refunded twice.")
                .arg(refunds.size())
                .arg(money(Amount), m.naiveCharge));
        if (refunds.size() < 2)
            co_return fail(QStringLiteral("the naive run should have refunded twice, the provider holds %1").arg(refunds.size()));
        co_return true;
    }

    Async<bool> propose()
    {
        say(NarrationKind::Step, QStringLiteral("Now the same through Countersign, with the same fault: the response to the refund is lost."));
        const Proposal p = co_await proposeWithFaults(20000, lostAnswer(), Amount, false);
        m.action = p.action;
        co_return p.ok;
    }

    Async<bool> approveOnce()
    {
        const bool approved = co_await decideApproval(
            m.action, true,
            QStringLiteral("The refund is what the customer is owed; Countersign will send it once, under one key, "
                           "and look it up if the answer is lost — approving is safe."));
        if (!approved)
            co_return false;
        say(NarrationKind::Step, QStringLiteral("The executor inside countersignd sends it once, with that key."));
        co_return true;
    }

    Async<bool> awaitOutcome()
    {
        const std::optional<ActionSnapshot> detail = co_await waitForOutcome(
            m.action, 20000,
            QStringLiteral("Countersign recorded CONFIRMATION_UNKNOWN, not failure; the reconciler looked the refund up "
                           "by its action id instead of resending blindly → %1."));
        co_return detail.has_value();
    }

    Async<bool> judge() { return judgeOneRefundAfterUnknown(m.action); }
};

std::unique_ptr<Scenario> makeRetryTwiceScenario(DemoStack *stack)
{
    return std::make_unique<RetryTwiceScenario>(stack, 1);
}

} // namespace cs::demo
