// Scenario 6, "Provider outage and rate limiting": two 429s and two 503s; the executor backs off
// and retries with the same key; one refund.
#include "demoscenario.h"
#include "scenarios.h"

namespace cs::demo {

namespace {

class OutageScenario : public DemoScenario
{
public:
    explicit OutageScenario(DemoStack *stack) : DemoScenario(stack, 6) {}

    QList<Step> steps() override { return {step([this] { return propose(); }), step([this] { return judge(); })}; }

private:
    struct State {
        QString action;
    } m;

    Async<bool> propose()
    {
        const QJsonArray faults{rule(QStringLiteral("rate_limit_429"), 1, 2), rule(QStringLiteral("outage_503"), 3, 2)};
        const Proposal p = co_await proposeWithFaults(10000, faults, 6600);
        m.action = p.action;
        co_return p.ok;
    }

    Async<bool> judge()
    {
        const std::optional<ActionSnapshot> detail = co_await waitForState(m.action, finalStates(), 40000);
        if (!detail)
            co_return false;
        narrateAttempts(detail->json);
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

} // namespace

std::unique_ptr<Scenario> makeOutageScenario(DemoStack *stack)
{
    return std::make_unique<OutageScenario>(stack);
}

} // namespace cs::demo
