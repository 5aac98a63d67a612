// Scenario 3, "Provider says the key was reused": paysim answers idempotency_error; execution
// stops in REQUIRES_REVIEW and no new key is minted; the supervisor finds nothing and rejects.
#include "demo/demoscenario.h"
#include "demo/scenarios/scenarios.h"

namespace cs::demo {

class KeyReusedScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        const QJsonArray faults{rule(QStringLiteral("idempotency_error"), 1, 1)};
        return {proposalStep(5000, faults, 2500, &m.action), step([this] { return showStop(); }), step([this] { return review(); }),
                step([this] { return judge(); })};
    }

private:
    struct State {
        QString action;
    } m;

    Async<bool> showStop()
    {
        const std::optional<ActionSnapshot> detail = co_await waitForOutcome(
            m.action, 15000,
            QStringLiteral("The provider says the key was reused with other parameters: execution stops at %1 (%2). "
                           "Countersign does not mint a new key — that is exactly how a double refund happens."));
        if (!detail)
            co_return false;
        // Give the executor and reconciler time to misbehave, then show they did not.
        co_await pause(1500);
        const ActionSnapshot later = co_await action(m.action);
        const QJsonArray refunds = co_await refundsForAction(m.action);
        say(NarrationKind::Observation, QStringLiteral("1.5 s later: %1 attempt(s), %2 key(s); provider holds %3 refund(s) for the action.")
                                            .arg(arr(later.json, "attempts").size())
                                            .arg(attemptKeys(later.json).size())
                                            .arg(refunds.size()));
        co_return true;
    }

    Async<bool> review()
    {
        const ActionSnapshot current = co_await action(m.action);
        if (!current.is(ActionState::RequiresReview))
            co_return true;
        co_return co_await decideReconciliation(m.action, QStringLiteral("NOT_FOUND"), QStringLiteral("the lookup should find nothing, it says "),
                                            QStringLiteral("not_committed"), QStringLiteral("the provider created nothing under this key"));
    }

    Async<bool> judge()
    {
        const CheckResult checked = co_await check(m.action, ActionState::Rejected, 0);
        const ActionSnapshot detail = co_await action(m.action);
        const QJsonArray attempts = arr(detail.json, "attempts");
        setVerdict(checked.ok && attempts.size() == 1 && attemptKeys(detail.json).size() == 1
                       && str(attempts.first().toObject(), "outcome") == QLatin1String("idempotency_mismatch"),
                   checked.line + QStringLiteral("; %1 attempt(s), no new key").arg(attempts.size()));
        co_return true;
    }
};

std::unique_ptr<Scenario> makeKeyReusedScenario(DemoStack *stack)
{
    return std::make_unique<KeyReusedScenario>(stack, 3);
}

} // namespace cs::demo
