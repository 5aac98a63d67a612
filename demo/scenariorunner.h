#pragma once

#include "demo/scenario.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

namespace cs::demo {

class DemoStack;

// One of the ten training scenarios (issue "Demo and training mode").
struct ScenarioInfo {
    int id = 0;          // 1..10
    QString key;         // "retry-refunded-twice", "same-key-changed-amount", "key-reused",
                         // "two-workers", "crash-mid-flight", "outage-rate-limit", "key-window-expired"
    QString title;       // "The retry that refunded twice"
    QString summary;     // one or two sentences for the menu's tooltip and the narration header
};

// Plays a scenario: runs its steps one after the other, narrating, and ends with its verdict.
// It only sequences: what a step does is the scenario's (demo/scenarios/). Each step is
// asynchronous on the caller's event loop; nothing here runs a nested event loop.
// Step by step: after each step it emits waitingForNext() and waits for next(). Continuous: the
// next step starts stepDelayMs() after the previous one ended. cancel() ends the run at once
// between steps, or as soon as the running step ends (steps that poll stop early).
// Not thread-safe: GUI/main thread.
class ScenarioRunner : public QObject
{
    Q_OBJECT
public:
    enum class Mode { Continuous, StepByStep };
    using NarrationKind = demo::NarrationKind;

    static QList<ScenarioInfo> catalogue();

    explicit ScenarioRunner(DemoStack *stack, QObject *parent = nullptr);
    ~ScenarioRunner() override;

    bool isRunning() const { return m_running; }
    // Plays catalogue scenario scenarioId against the stack given at construction.
    void start(int scenarioId, Mode mode);
    // Plays any scenario (tests); the runner owns it until the next run or its own end.
    void run(std::unique_ptr<Scenario> scenario, Mode mode);
    void next();   // advance one step in StepByStep mode
    void cancel();

    // Exercise mode for the runs that follow (demo/exercise.h): the scenario stops where a person
    // decides and waits for the trainee; null (the default) plays it with scripted decisions.
    // exercise (and its sheet) must outlive those runs.
    void setExercise(Exercise *exercise) { m_exercise = exercise; }
    Exercise *exercise() const { return m_exercise; }

    // The trainer-friendly pause between steps in Continuous mode (0 in headless runs).
    void setStepDelayMs(int msecs);
    int stepDelayMs() const { return m_stepDelayMs; }

signals:
    void narration(const QString &text, cs::demo::ScenarioRunner::NarrationKind kind);
    void actionFocused(const QString &actionId); // the console selects this action
    void waitingForNext();                         // StepByStep: a step is done
    // asExpected is true only when the scenario ended as it should; verdictLine compares the
    // ledger with the provider's ground truth, e.g.
    // "VERDICT PASS: ledger COMPLETED re_… 8900 usd; provider holds 1 refund for the action".
    void finished(bool asExpected, const QString &verdictLine);

private:
    bool begin(std::unique_ptr<Scenario> scenario, Mode mode); // false: it has already finished
    void runNext();
    void stepDone(bool ok);
    void finishWithVerdict();
    void finish(bool asExpected, const QString &line);

    QPointer<DemoStack> m_stack;
    std::unique_ptr<Scenario> m_scenario;
    QList<Scenario::Step> m_steps;
    qsizetype m_index = 0;
    Mode m_mode = Mode::Continuous;
    int m_stepDelayMs = 1200;
    Exercise *m_exercise = nullptr;
    int m_scenarioId = 0;
    bool m_running = false;
    bool m_finishing = false; // the scenario's cleanup is under way
    bool m_waiting = false;
    bool m_inStep = false;
};

} // namespace cs::demo
