#pragma once

#include <QList>
#include <QString>

#include <functional>

namespace cs::demo {

// How a narrated line reads in the console and in countersign-demo's output.
struct Exercise; // demo/exercise.h

// Task: in exercise mode, what the trainee must do now (the scenario waits for it).
enum class NarrationKind { Step, Observation, Problem, Cure, Verdict, Task };

// One scenario as ScenarioRunner plays it: a list of asynchronous steps, its outcome (why a step
// failed, the verdict of the last one) and a cleanup. A step starts its work and returns; it
// calls `done(ok)` exactly once, later, from the event loop. Steps run one at a time, in order.
// A step should look at isCancelled() where it waits (polling), and end early when it is set.
// Not thread-safe; owned by the runner for the length of one run.
class Scenario
{
public:
    using Done = std::function<void(bool ok)>;
    using Step = std::function<void(Done done)>;

    Scenario() = default;
    virtual ~Scenario();
    Scenario(const Scenario &) = delete;
    Scenario &operator=(const Scenario &) = delete;

    // Called once, before the first step.
    virtual QList<Step> steps() = 0;
    // Called once after the last step, a failed step or a cancel; calls done when it is tidy.
    virtual void cleanup(std::function<void()> done);
    // Exercise mode (demo/exercise.h): set before the first step; the scenario waits for the
    // trainee where a person decides and judges it into exercise->sheet. Returns false when this
    // scenario cannot be played as an exercise (the default).
    virtual bool setExercise(Exercise *exercise, const QString &scenarioTitle);

    // A step records why it failed, then calls done(false). Returns false for `return fail(...)`.
    bool fail(const QString &reason);
    QString failReason() const { return m_failReason; }
    // "VERDICT PASS: …" / "VERDICT FAIL: …": the scenario's judgement, set by its last step.
    void setVerdict(bool pass, const QString &text);
    bool hasVerdict() const { return !m_verdictText.isEmpty(); }
    bool verdictPass() const { return m_verdictPass; }
    QString verdictText() const { return m_verdictText; }

    void cancel() { m_cancelled = true; }
    bool isCancelled() const { return m_cancelled; }

    // Where narration and "select this action" go (the runner's signals).
    std::function<void(const QString &text, NarrationKind kind)> onNarration;
    std::function<void(const QString &actionId)> onFocus;

protected:
    void say(NarrationKind kind, const QString &text);
    void focus(const QString &actionId);

private:
    QString m_failReason;
    QString m_verdictText;
    bool m_verdictPass = false;
    bool m_cancelled = false;
};

} // namespace cs::demo
