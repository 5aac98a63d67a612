#pragma once

#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace cs::demo {

class DemoStack;

// One of the seven training scenarios (issue "Demo and training mode").
struct ScenarioInfo {
    int id = 0;          // 1..7
    QString key;         // "retry-refunded-twice", "same-key-changed-amount", "key-reused",
                         // "two-workers", "crash-mid-flight", "outage-rate-limit", "key-window-expired"
    QString title;       // "The retry that refunded twice"
    QString summary;     // one or two sentences for the menu's tooltip and the narration header
};

// Plays a scenario with a scripted agent that talks to the backend API (and to paysim's admin API
// for faults and ground truth), narrating each step. Asynchronous on the caller's event loop.
// Step by step: each narrated step waits for next(). Continuous: steps follow each other.
class ScenarioRunner : public QObject
{
    Q_OBJECT
public:
    enum class Mode { Continuous, StepByStep };
    enum class NarrationKind { Step, Observation, Problem, Cure, Verdict };

    static QList<ScenarioInfo> catalogue();

    explicit ScenarioRunner(DemoStack *stack, QObject *parent = nullptr);
    ~ScenarioRunner() override;

    bool isRunning() const;
    void start(int scenarioId, Mode mode);
    void next();   // advance one step in StepByStep mode
    void cancel();

    // Added: the trainer-friendly pause between steps in Continuous mode (0 in headless runs).
    void setStepDelayMs(int msecs);
    int stepDelayMs() const;

signals:
    void narration(const QString &text, cs::demo::ScenarioRunner::NarrationKind kind);
    void actionFocused(const QString &actionId); // the console selects this action
    void waitingForNext();                         // StepByStep: a step is done
    // asExpected is true only when the scenario ended as it should; verdictLine compares the
    // ledger with the provider's ground truth, e.g.
    // "VERDICT PASS: ledger COMPLETED re_… 8900 usd; provider holds 1 refund for the action".
    void finished(bool asExpected, const QString &verdictLine);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace cs::demo
