// Scenario 8, "Two agents, one charge" (issue 14): two agents each propose 60% of one $99.00
// charge under their own references. The first fits; the second is refused at the proposal with
// 422 exceeds_refundable and the charge's budget (captured − refunded at the provider − what
// Countersign holds); the first is approved and sent; the provider holds one refund.
#include "demo/demoscenario.h"
#include "demo/demostack.h"
#include "demo/scenarios/scenarios.h"

namespace cs::demo {

class TwoAgentsScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        return {step([this] { return firstAgent(); }), step([this] { return secondAgent(); }),
                step([this] { return approveFirst(); }), step([this] { return judge(); })};
    }

private:
    struct State {
        QString charge;
        QString first;          // the first agent's action
        int secondStatus = 0;   // what the second proposal was answered
        QString secondCode;
    } m;

    static constexpr qint64 Charge = 9900;
    static constexpr qint64 Share = 5940; // 60%

    QString otherAgent() const
    {
        const QStringList agents = m_stack->usersFor(QStringLiteral("agent"));
        return agents.value(1, m_agent);
    }

    Async<bool> firstAgent()
    {
        const bool cleared = co_await setFaults({});
        if (!cleared)
            co_return false;
        m.charge = co_await newCharge(Charge);
        if (m.charge.isEmpty())
            co_return false;
        say(NarrationKind::Step, QStringLiteral("A customer paid %1 (%2). Two agents handle the same complaint without "
                                                "knowing of each other.")
                                     .arg(money(Charge), m.charge));
        m.first = co_await proposeOk(m.charge, Share, reference(QStringLiteral("order"), m.charge));
        co_return !m.first.isEmpty();
    }

    Async<bool> secondAgent()
    {
        const QString other = otherAgent();
        const QJsonObject proposal{
            {QStringLiteral("kind"), QStringLiteral("refund")},
            {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), m.charge}}},
            {QStringLiteral("amount"), QJsonValue(Share)},
            {QStringLiteral("currency"), QStringLiteral("usd")},
            {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
            {QStringLiteral("client_reference"), reference(QStringLiteral("ticket"), m.charge)},
            {QStringLiteral("business_reference"), reference(QStringLiteral("ticket"), m.charge)},
        };
        const HttpReply r = co_await api(other, Verb::Post, QStringLiteral("/actions"), proposal);
        const QJsonObject body = r.json();
        m.secondStatus = r.status;
        m.secondCode = str(body, "code");
        if (r.status != 422 || m.secondCode != QLatin1String("exceeds_refundable")) {
            say(NarrationKind::Problem, QStringLiteral("Agent %1 proposes another %2 on %3 → HTTP %4 %5: both would be "
                                                       "in the queue, together %6 of a %7 charge.")
                                            .arg(other, money(Share), m.charge)
                                            .arg(r.status)
                                            .arg(m.secondCode, money(2 * Share), money(Charge)));
            co_return true; // the verdict says it failed
        }
        say(NarrationKind::Cure,
            QStringLiteral("Agent %1 proposes another %2 on %3 under its own reference → HTTP 422 exceeds_refundable; "
                           "nothing was written.")
                .arg(other, money(Share), m.charge));
        say(NarrationKind::Observation,
            QStringLiteral("The charge's budget is what may still be refunded: captured %1 − refunded at the provider %2 "
                           "− what Countersign already holds %3 (%4, PENDING) = %5 left; %6 was asked. Countersign read "
                           "the charge from the provider when each proposal came in, and counts every open proposal, "
                           "approved or not, so that two agents cannot both spend the same money.")
                .arg(money(num(body, "captured")), money(num(body, "refunded")), money(num(body, "reserved")), m.first,
                     money(num(body, "available")), money(num(body, "requested"))));
        co_return true;
    }

    Async<bool> approveFirst()
    {
        const ActionSnapshot detail = co_await action(m.first);
        const QJsonObject charge = detail.json.value(QLatin1String("charge")).toObject();
        const QJsonObject budget = charge.value(QLatin1String("budget")).toObject();
        say(NarrationKind::Observation,
            QStringLiteral("The approver opens %1: the charge as the provider showed it at the proposal (captured %2, "
                           "read %3) and %4 still available without counting this action's %5, which %6.")
                .arg(m.first, money(num(budget, "captured")), str(budget, "read_at"), money(num(budget, "available")),
                     money(num(budget, "requested")),
                     budget.value(QLatin1String("fits")).toBool() ? QStringLiteral("fits") : QStringLiteral("does NOT fit")));
        for (const QJsonValue &w : charge.value(QLatin1String("warnings")).toArray())
            say(NarrationKind::Observation, QStringLiteral("Warning (%1): %2").arg(str(w.toObject(), "code"), str(w.toObject(), "text")));
        co_return co_await decideApproval(
            m.first, true,
            QStringLiteral("The first agent's refund fits the charge's budget (the second agent's was refused at the "
                           "proposal because both would not fit): approve it."));
    }

    Async<bool> judge()
    {
        const std::optional<ActionSnapshot> done = co_await waitForOutcome(m.first, 20000);
        if (!done)
            co_return false;
        const CheckResult checked = co_await check(m.first, ActionState::Completed, 1);
        const QJsonArray refunds = co_await refundsForCharge(m.charge);
        const bool refused = m.secondStatus == 422 && m.secondCode == QLatin1String("exceeds_refundable");
        setVerdict(checked.ok && refused && refunds.size() == 1,
                   checked.line + QStringLiteral(" | second agent: HTTP %1 %2 | the provider holds %3 refund(s) of %4")
                                      .arg(m.secondStatus)
                                      .arg(m.secondCode)
                                      .arg(refunds.size())
                                      .arg(m.charge));
        co_return true;
    }
};

std::unique_ptr<Scenario> makeTwoAgentsScenario(DemoStack *stack)
{
    return std::make_unique<TwoAgentsScenario>(stack, 8);
}

} // namespace cs::demo
