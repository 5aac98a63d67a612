#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QMenu;

namespace cs::demo {
class DemoStack;
class ScenarioRunner;
} // namespace cs::demo

namespace cs {

class ApiClient;
class EventStreamClient;
class FaultInjectionPanel;
class GroundTruthView;
class MainWindow;
class NarrationPanel;
class RoleSwitcher;

// Demo and training mode in the console: given a started DemoStack, adds the Demo menu (sign in as
// each role, the panels), the Scenarios menu (each scenario continuously or step by step, Next
// step F8, Cancel), and the docks: narration, fault injection, ground truth. Signs in as the
// approver. Exists only in demo mode; the stack outlives it.
class DemoController : public QObject
{
    Q_OBJECT

public:
    DemoController(demo::DemoStack *stack, MainWindow *window, ApiClient *client, EventStreamClient *events,
                   QObject *parent = nullptr);
    ~DemoController() override;

    // Signs in as the approver and starts the console.
    void start();
    void play(int scenarioId, bool stepByStep);

    demo::ScenarioRunner *runner() const { return m_runner; }
    NarrationPanel *narration() const { return m_narration; }
    FaultInjectionPanel *faults() const { return m_faults; }
    GroundTruthView *groundTruth() const { return m_truth; }
    RoleSwitcher *roles() const { return m_roles; }

signals:
    void scenarioFinished(bool asExpected, const QString &verdictLine);

private:
    void buildMenus();

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
};

} // namespace cs
