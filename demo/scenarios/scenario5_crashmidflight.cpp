// Scenario 5, "Crash mid-flight": countersignd is killed (SIGKILL) after the provider committed
// and before its answer arrived; after a restart recovery makes the action CONFIRMATION_UNKNOWN
// and the reconciler completes it with the one refund.
#include "demo/demoscenario.h"
#include "demo/demostack.h"
#include "demo/scenarios/scenarios.h"

namespace cs::demo {

class CrashMidFlightScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        const QJsonArray faults{rule(QStringLiteral("delay_after_commit"), 1, 1, {{QStringLiteral("delay_ms"), 1500}})};
        return {proposalStep(10000, faults, 7500, &m.action), step([this] { return killWhileInFlight(); }),
                step([this] { return restart(); }), step([this] { return judge(); })};
    }

private:
    struct State {
        QString action;
    } m;

    Async<bool> killWhileInFlight()
    {
        const QList<ActionState> inFlight{ActionState::Executing};
        const std::optional<ActionSnapshot> executing = co_await waitForState(m.action, inFlight, 10000, 30);
        if (!executing)
            co_return false;
        const bool committed = co_await waitForProviderRefund(m.action, 5000);
        if (!committed)
            co_return false;
        say(NarrationKind::Step, QStringLiteral("The provider has committed the refund; its answer is still on the way. Now the backend dies."));
        if (!m_stack->killBackend())
            co_return fail(QStringLiteral("could not kill the backend"));
        say(NarrationKind::Problem, QStringLiteral("countersignd killed with SIGKILL mid-flight: no drain, the attempt row is left open."));
        co_return true;
    }

    Async<bool> restart()
    {
        if (!m_stack->restartBackend())
            co_return fail(QStringLiteral("the backend did not restart: ") + m_stack->errorString());
        say(NarrationKind::Step, QStringLiteral("countersignd restarted on the same ledger file (%1).").arg(m_stack->backendUrl().toString()));
        co_return true;
    }

    Async<bool> judge()
    {
        const std::optional<ActionSnapshot> detail = co_await waitForOutcome(
            m.action, 30000,
            QStringLiteral("Recovery did not assume failure: the expired lease became CONFIRMATION_UNKNOWN, the reconciler "
                           "looked the refund up → %1."));
        if (!detail)
            co_return false;
        co_return co_await judgeOneRefundAfterUnknown(m.action);
    }
};

std::unique_ptr<Scenario> makeCrashMidFlightScenario(DemoStack *stack)
{
    return std::make_unique<CrashMidFlightScenario>(stack, 5);
}

} // namespace cs::demo
