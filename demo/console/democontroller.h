#pragma once

#include "demo/exercise.h"
#include <QObject>
#include <QPointer>

class QAction;
class QMenu;

namespace cs::demo {
class AgentTraffic;
class DemoStack;
class ScenarioRunner;
} // namespace cs::demo

namespace cs {

class ApiClient;
class ConsoleSettings;
class EventStreamClient;
class FaultInjectionPanel;
class GroundTruthView;
class MainWindow;
class NarrationPanel;
class RoleSwitcher;

// Demo and training mode in the console: given a started DemoStack, adds the Demo menu (sign in as
// each role, the panels, Agent traffic), the Scenarios menu (each scenario continuously or step by
// step, Next step F8, Cancel), and the docks: narration, fault injection, ground truth. Signs in as
// the approver. Exists only in demo mode; the stack outlives it.
//
// The agent traffic (demo/agenttraffic.h) keeps the queue alive: once signed in, a few proposals
// at once, then one every few seconds. Demo → Agent traffic turns it on and off; the choice is kept
// in `settings` ("demo/agentTraffic", on by default; not kept without settings). While a scenario
// plays the traffic is stopped — the scenario starts once nothing of the traffic is in flight and
// its outage, if any, is over at paysim, so the narration speaks of the scenario's actions and
// faults alone — and it resumes at its normal pace when the scenario ends or is cancelled.
class DemoController : public QObject
{
    Q_OBJECT

public:
    DemoController(demo::DemoStack *stack, MainWindow *window, ApiClient *client, EventStreamClient *events,
                   ConsoleSettings *settings = nullptr, QObject *parent = nullptr);
    ~DemoController() override;

    // Signs in as the approver and starts the console; the agent traffic starts once signed in
    // (when it is on).
    void start();
    // Plays a scenario: cancels a running one and stops the agent traffic first.
    // exercise: the scenario stops where a person decides and waits for the trainee (demo/exercise.h);
    // at its end the score sheet opens (ScoreSheetDialog).
    void play(int scenarioId, bool stepByStep, bool exercise = false);
    // The decisions judged in this console session's exercises (the dialog shows the last run's).
    const demo::ScoreSheet &scoreSheet() const { return m_sheet; }
    // Demo → Agent traffic: on or off, remembered.
    void setAgentTraffic(bool on);
    bool agentTrafficWanted() const;
    // How many proposals the traffic makes at once when the console has signed in.
    static constexpr int InitialProposals = 6;

    demo::ScenarioRunner *runner() const { return m_runner; }
    NarrationPanel *narration() const { return m_narration; }
    FaultInjectionPanel *faults() const { return m_faults; }
    GroundTruthView *groundTruth() const { return m_truth; }
    RoleSwitcher *roles() const { return m_roles; }
    demo::AgentTraffic *traffic() const { return m_traffic; }
    QAction *trafficAction() const { return m_trafficAction; }

signals:
    void scenarioFinished(bool asExpected, const QString &verdictLine);

private:
    void buildMenus();
    void connectTraffic();
    void cancelScenario();
    void startPendingScenario();
    void showScoreSheet();
    // Starts the traffic if it is wanted and nothing keeps it off (not signed in yet, a scenario).
    void resumeTraffic(int atOnce);

    demo::DemoStack *m_stack;
    QPointer<MainWindow> m_window;
    ApiClient *m_client;
    EventStreamClient *m_events;
    ApiClient *m_auditClient; // ground truth reads the ledger as the auditor, whoever is signed in
    demo::ScenarioRunner *m_runner;
    NarrationPanel *m_narration;
    FaultInjectionPanel *m_faults;
    GroundTruthView *m_truth;
    RoleSwitcher *m_roles;
    QAction *m_next = nullptr;
    QAction *m_cancel = nullptr;
    ConsoleSettings *m_settings;
    demo::AgentTraffic *m_traffic;
    QAction *m_trafficAction = nullptr;
    bool m_signedIn = false;
    bool m_selectedFirst = false; // the first proposal was shown (when nothing else was selected)
    // A scenario asked for while the traffic stops: played once it has.
    bool m_playPending = false;
    int m_pendingScenario = 0;
    bool m_pendingStepByStep = false;
    bool m_pendingExercise = false;
    demo::ScoreSheet m_sheet;          // every decision of this session's exercises
    demo::Exercise m_exercise;         // the person at the console decides
    int m_sheetStart = 0;              // the running exercise's first decision in m_sheet
};

} // namespace cs
