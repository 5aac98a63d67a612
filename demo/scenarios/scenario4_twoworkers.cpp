// Scenario 4, "Two workers, one refund": a second countersignd with its own executor on the same
// ledger file; six approved actions, each sent exactly once.
#include "demo/demoscenario.h"
#include "demo/demostack.h"
#include "demo/scenarios/scenarios.h"

#include <QSet>

namespace cs::demo {

class TwoWorkersScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        return {step([this] { return startSecondBackend(); }), step([this] { return proposeSix(); }),
                step([this] { return judge(); })};
    }

private:
    struct State {
        QStringList actions; // in proposal order
    } m;

    void tearDown(std::function<void()> done) override
    {
        if (m_stack)
            m_stack->stopSecondBackend();
        done();
    }

    Async<bool> startSecondBackend()
    {
        const bool cleared = co_await setFaults({});
        if (!cleared)
            co_return false;
        if (!m_stack->startSecondBackend())
            co_return fail(QStringLiteral("the second countersignd did not start: ") + m_stack->errorString());
        say(NarrationKind::Step, QStringLiteral("A second countersignd with its own executor (2 workers) runs on the same ledger file (%1): "
                                                "four workers in two processes compete for every approved action.")
                                     .arg(m_stack->secondBackendUrl().toString()));
        co_return true;
    }

    Async<bool> proposeSix()
    {
        for (int i = 1; i <= 6; ++i) {
            const QString charge = co_await newCharge(10000);
            const QString id = co_await proposeOk(charge, 1000 * i, reference(QStringLiteral("order"), charge));
            if (id.isEmpty())
                co_return false;
            m.actions << id;
        }
        for (const QString &id : std::as_const(m.actions)) {
            const bool approved = co_await decideApproval(
                id, true,
                QStringLiteral("An ordinary refund: however many workers and processes compete for it, Countersign's "
                               "claim lets exactly one send it."));
            if (!approved)
                co_return false;
        }
        co_return true;
    }

    Async<bool> judge()
    {
        QStringList lines;
        bool ok = true;
        QSet<QString> executors;
        for (const QString &id : std::as_const(m.actions)) {
            const std::optional<ActionSnapshot> detail = co_await waitForState(id, finalStates(), 20000);
            if (!detail)
                co_return false;
            const QJsonArray attempts = arr(detail->json, "attempts");
            for (const QJsonValue &value : attempts)
                executors.insert(str(value.toObject(), "executor"));
            const CheckResult checked = co_await check(id, ActionState::Completed, 1);
            ok = checked.ok && attempts.size() == 1 && ok;
            say(NarrationKind::Observation, checked.line + QStringLiteral(" — %1 attempt(s)").arg(attempts.size()));
            lines << checked.line;
        }
        say(NarrationKind::Cure, QStringLiteral("Executors that sent: %1. The claim is one transaction: one winner per action.")
                                     .arg(QStringList(executors.begin(), executors.end()).join(QStringLiteral(", "))));
        setVerdict(ok, QStringLiteral("%1 actions, each ledger COMPLETED with exactly one provider refund (%2)")
                           .arg(lines.size())
                           .arg(ok ? QStringLiteral("as expected") : lines.join(QStringLiteral(" | "))));
        co_return true;
    }
};

std::unique_ptr<Scenario> makeTwoWorkersScenario(DemoStack *stack)
{
    return std::make_unique<TwoWorkersScenario>(stack, 4);
}

} // namespace cs::demo
