#include "demo/scenariorunner.h"

#include "demo/demostack.h"
#include "demo/scenarios/scenarios.h"

#include <QLoggingCategory>
#include <QTimer>

Q_DECLARE_LOGGING_CATEGORY(lcDemo)

namespace cs::demo {

QList<ScenarioInfo> ScenarioRunner::catalogue()
{
    return scenarioCatalogue();
}

ScenarioRunner::ScenarioRunner(DemoStack *stack, QObject *parent)
    : QObject(parent)
    , m_stack(stack)
{
}

ScenarioRunner::~ScenarioRunner()
{
    // No callback may reach a half-destroyed runner: the scenario (and the replies and timers it
    // owns) goes first, while m_running says nothing is to be reported.
    m_running = false;
    m_scenario.reset();
}

void ScenarioRunner::setStepDelayMs(int msecs)
{
    m_stepDelayMs = qMax(0, msecs);
}

void ScenarioRunner::start(int scenarioId, Mode mode)
{
    if (m_running)
        return;
    m_scenarioId = scenarioId;
    if (!m_stack || !m_stack->backendUrl().isValid()) {
        begin(nullptr, mode);
        finish(false, QStringLiteral("VERDICT FAIL: the demo stack is not running"));
        return;
    }
    std::unique_ptr<Scenario> scenario = makeScenario(scenarioId, m_stack);
    if (!scenario) {
        begin(nullptr, mode);
        finish(false, QStringLiteral("VERDICT FAIL: no scenario %1").arg(scenarioId));
        return;
    }
    QString title;
    for (const ScenarioInfo &info : catalogue()) {
        if (info.id == scenarioId)
            title = info.title;
    }
    if (m_exercise && !scenario->setExercise(m_exercise, title)) {
        begin(nullptr, mode);
        finish(false, QStringLiteral("VERDICT FAIL: scenario %1 cannot be played as an exercise").arg(scenarioId));
        return;
    }
    if (!begin(std::move(scenario), mode))
        return;
    for (const ScenarioInfo &info : catalogue()) {
        if (info.id == scenarioId)
            emit narration((m_exercise ? QStringLiteral("Exercise %1 — %2: %3") : QStringLiteral("Scenario %1 — %2: %3"))
                               .arg(info.id)
                               .arg(info.title, info.summary),
                           NarrationKind::Step);
    }
    QTimer::singleShot(0, this, [this] { runNext(); });
}

void ScenarioRunner::run(std::unique_ptr<Scenario> scenario, Mode mode)
{
    if (m_running || !scenario)
        return;
    m_scenarioId = 0;
    if (!begin(std::move(scenario), mode))
        return;
    QTimer::singleShot(0, this, [this] { runNext(); });
}

bool ScenarioRunner::begin(std::unique_ptr<Scenario> scenario, Mode mode)
{
    m_scenario = std::move(scenario);
    m_steps.clear();
    m_mode = mode;
    m_index = 0;
    m_waiting = false;
    m_inStep = false;
    m_finishing = false;
    m_running = true;
    if (!m_scenario)
        return true;
    m_scenario->onNarration = [this](const QString &text, NarrationKind kind) { emit narration(text, kind); };
    m_scenario->onFocus = [this](const QString &id) { emit actionFocused(id); };
    m_steps = m_scenario->steps();
    if (m_steps.isEmpty()) {
        finish(false, QStringLiteral("VERDICT FAIL: no scenario %1").arg(m_scenarioId));
        return false;
    }
    return true;
}

void ScenarioRunner::runNext()
{
    if (!m_running || m_finishing || m_inStep || m_waiting)
        return;
    if (m_scenario->isCancelled()) {
        finish(false, QStringLiteral("VERDICT FAIL: cancelled"));
        return;
    }
    if (m_index >= m_steps.size()) {
        finishWithVerdict();
        return;
    }
    m_inStep = true;
    m_steps.at(m_index++)([this](bool ok) { stepDone(ok); });
}

void ScenarioRunner::stepDone(bool ok)
{
    m_inStep = false;
    if (!m_running || m_finishing)
        return;
    if (m_scenario->isCancelled()) {
        finish(false, QStringLiteral("VERDICT FAIL: cancelled"));
        return;
    }
    if (!ok) {
        finish(false, QStringLiteral("VERDICT FAIL: ") + m_scenario->failReason());
        return;
    }
    if (m_index >= m_steps.size()) {
        finishWithVerdict();
        return;
    }
    if (m_mode == Mode::StepByStep) {
        m_waiting = true;
        emit waitingForNext();
    } else {
        QTimer::singleShot(m_stepDelayMs, this, [this] { runNext(); });
    }
}

void ScenarioRunner::finishWithVerdict()
{
    finish(m_scenario->verdictPass(),
           m_scenario->hasVerdict() ? m_scenario->verdictText() : QStringLiteral("VERDICT FAIL: no verdict"));
}

void ScenarioRunner::finish(bool asExpected, const QString &line)
{
    if (!m_running || m_finishing)
        return;
    m_finishing = true;
    const auto report = [this, asExpected, line] {
        m_running = false;
        m_finishing = false;
        m_waiting = false;
        qCInfo(lcDemo) << "scenario" << m_scenarioId << line;
        emit narration(line, NarrationKind::Verdict);
        emit finished(asExpected, line);
    };
    if (m_scenario)
        m_scenario->cleanup(report); // leaves no fault or extra process behind, even after a failure
    else
        report();
}

void ScenarioRunner::next()
{
    if (!m_running || !m_waiting || m_finishing)
        return;
    m_waiting = false;
    QTimer::singleShot(0, this, [this] { runNext(); });
}

void ScenarioRunner::cancel()
{
    if (!m_running || m_finishing)
        return;
    if (m_scenario)
        m_scenario->cancel();
    if (!m_inStep) {
        m_waiting = false;
        finish(false, QStringLiteral("VERDICT FAIL: cancelled"));
    }
}

} // namespace cs::demo
