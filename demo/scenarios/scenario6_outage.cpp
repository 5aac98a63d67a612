// Scenario 6, "Provider outage and rate limiting": two 429s and two 503s; the executor backs off
// and retries with the same key; one refund.
#include "demo/demoscenario.h"
#include "demo/scenarios/scenarios.h"

namespace cs::demo {

class OutageScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        const QJsonArray faults{rule(QStringLiteral("rate_limit_429"), 1, 2), rule(QStringLiteral("outage_503"), 3, 2)};
        return {proposalStep(10000, faults, 6600, &m.action), step([this] { return judge(); })};
    }

private:
    struct State {
        QString action;
    } m;

    Async<bool> judge()
    {
        const std::optional<ActionSnapshot> detail = co_await waitForOutcome(m.action, 40000);
        if (!detail)
            co_return false;
        const QStringList keys = attemptKeys(detail->json);
        const qsizetype attempts = arr(detail->json, "attempts").size();
        say(NarrationKind::Cure, QStringLiteral("%1 attempts, backing off between them, all with %2 key(s): %3")
                                     .arg(attempts)
                                     .arg(keys.size())
                                     .arg(keys.join(QStringLiteral(", "))));
        const CheckResult checked = co_await check(m.action, ActionState::Completed, 1);
        const QJsonArray refunds = co_await refundsForAction(m.action);
        const bool ok = checked.ok && keys.size() == 1 && attempts >= 3
                        && (refunds.isEmpty() || str(refunds.first().toObject(), "idempotency_key") == keys.value(0));
        setVerdict(ok, checked.line + QStringLiteral("; %1 attempts under %2 key").arg(attempts).arg(keys.size()));
        co_return true;
    }
};

std::unique_ptr<Scenario> makeOutageScenario(DemoStack *stack)
{
    return std::make_unique<OutageScenario>(stack, 6);
}

} // namespace cs::demo
