// Scenario 7, "Key window expired": the outcome stays unknown past the provider's key window
// (shortened to 1.8 s for the demo); no blind retry; a lookup finds nothing and the supervisor
// rejects.
#include "demo/demoscenario.h"
#include "demo/demostack.h"
#include "demo/scenarios/scenarios.h"

#include <QDateTime>

namespace cs::demo {

class KeyWindowScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        const QJsonArray faults{rule(QStringLiteral("reset_connection"), 1, 1), rule(QStringLiteral("outage_503"), 2, 0)};
        return {step([this] { return shortenKeyWindow(); }), proposalStep(10000, faults, 5500, &m.action),
                step([this] { return outlastWindow(); }), step([this] { return review(); }), step([this] { return judge(); })};
    }

private:
    struct State {
        QString action;
    } m;

    // The backend goes back to the normal key window, with no fault at paysim while it restarts.
    void tearDown(std::function<void()> done) override
    {
        if (!m_stack || m_stack->extraServeArguments().isEmpty()) {
            done();
            return;
        }
        m_stack->setExtraServeArguments({});
        m_paysim.clearFaults([this, done](const HttpReply &) {
            if (m_stack)
                m_stack->restartBackend();
            done();
        });
    }

    Async<bool> shortenKeyWindow()
    {
        const bool cleared = co_await setFaults({});
        if (!cleared)
            co_return false;
        m_stack->setExtraServeArguments({QStringLiteral("--key-window-hours"), QStringLiteral("0.0005"),
                                         QStringLiteral("--key-window-margin-minutes"), QStringLiteral("0")});
        if (!m_stack->restartBackend())
            co_return fail(QStringLiteral("the backend did not restart: ") + m_stack->errorString());
        say(NarrationKind::Step, QStringLiteral("For the demo the provider's key window is shortened to 1.8 s (normally 24 h) in countersignd."));
        co_return true;
    }

    Async<bool> outlastWindow()
    {
        const std::optional<ActionSnapshot> detail = co_await waitForOutcome(
            m.action, 40000,
            QStringLiteral("The key window has passed: %1 (%2). The reconciler does not retry blindly — outside the "
                           "window the provider may have forgotten the key, and a resend could refund twice."));
        if (!detail)
            co_return false;
        const HttpReply clock = co_await admin([this](PaysimAdminClient::Done done) {
            m_paysim.advanceClock(qint64(25) * 3600 * 1000, std::move(done));
        });
        say(NarrationKind::Observation,
            QStringLiteral("paysim's clock moved 25 h forward (HTTP %1): the provider has pruned the key.").arg(clock.status));
        co_return co_await setFaults({});
    }

    Async<bool> review()
    {
        const ActionSnapshot current = co_await action(m.action);
        if (!current.is(ActionState::RequiresReview))
            co_return true;
        co_return co_await decideReconciliation(m.action, QStringLiteral("NOT_FOUND"), QStringLiteral("the lookup should find nothing, it says "),
                                            QStringLiteral("not_committed"),
                                            QStringLiteral("no refund at the provider after the key window; a new approval is needed to pay"));
    }

    Async<bool> judge()
    {
        const ActionSnapshot detail = co_await action(m.action);
        const CheckResult checked = co_await check(m.action, ActionState::Rejected, 0);
        bool ok = checked.ok && attemptKeys(detail.json).size() == 1;
        const QDateTime windowEnds = QDateTime::fromString(str(detail.json, "key_window_ends_at"), Qt::ISODateWithMs);
        int late = 0;
        const QJsonArray attempts = arr(detail.json, "attempts");
        for (const QJsonValue &value : attempts) {
            const QDateTime started = QDateTime::fromString(str(value.toObject(), "started_at"), Qt::ISODateWithMs);
            if (windowEnds.isValid() && started.isValid() && started > windowEnds)
                ++late;
        }
        ok = ok && late == 0;
        setVerdict(ok, checked.line + QStringLiteral("; %1 attempt(s) under one key, %2 after the key window (ends %3)")
                                          .arg(attempts.size())
                                          .arg(late)
                                          .arg(str(detail.json, "key_window_ends_at")));
        co_return true;
    }
};

std::unique_ptr<Scenario> makeKeyWindowScenario(DemoStack *stack)
{
    return std::make_unique<KeyWindowScenario>(stack, 7);
}

} // namespace cs::demo
