#include "demo/console/democontroller.h"

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "demo/console/faultinjectionpanel.h"
#include "demo/console/groundtruthview.h"
#include "demo/console/narrationpanel.h"
#include "demo/console/roleswitcher.h"
#include "demo/demostack.h"
#include "demo/scenariorunner.h"
#include "ui/mainwindow.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>

namespace cs {

namespace {

NarrationPanel::Kind kindOf(demo::ScenarioRunner::NarrationKind kind)
{
    switch (kind) {
    case demo::ScenarioRunner::NarrationKind::Step:
        return NarrationPanel::Kind::Step;
    case demo::ScenarioRunner::NarrationKind::Observation:
        return NarrationPanel::Kind::Observation;
    case demo::ScenarioRunner::NarrationKind::Problem:
        return NarrationPanel::Kind::Problem;
    case demo::ScenarioRunner::NarrationKind::Cure:
        return NarrationPanel::Kind::Cure;
    case demo::ScenarioRunner::NarrationKind::Verdict:
        return NarrationPanel::Kind::Verdict;
    }
    return NarrationPanel::Kind::Step;
}

} // namespace

DemoController::DemoController(demo::DemoStack *stack, MainWindow *window, ApiClient *client, EventStreamClient *events,
                               QObject *parent)
    : QObject(parent)
    , m_stack(stack)
    , m_window(window)
    , m_client(client)
    , m_events(events)
    , m_auditClient(new ApiClient(this))
    , m_runner(new demo::ScenarioRunner(stack, this))
    , m_narration(new NarrationPanel(window))
    , m_faults(new FaultInjectionPanel(window))
    , m_truth(new GroundTruthView(m_auditClient, window))
    , m_roles(new RoleSwitcher(window, stack->roles(), stack->tokens(), this))
{
    m_auditClient->setBaseUrl(stack->backendUrl());
    const QString auditor = stack->userFor(QStringLiteral("auditor"));
    m_auditClient->setToken(stack->tokens().value(auditor.isEmpty() ? stack->userFor(QStringLiteral("admin")) : auditor));
    window->addDockWidget(Qt::BottomDockWidgetArea, m_narration);
    window->addDockWidget(Qt::RightDockWidgetArea, m_faults);
    window->addDockWidget(Qt::RightDockWidgetArea, m_truth);
    window->tabifyDockWidget(m_faults, m_truth);
    m_faults->hide();
    m_truth->hide();
    buildMenus();

    connect(m_runner, &demo::ScenarioRunner::narration, m_narration,
            [this](const QString &text, demo::ScenarioRunner::NarrationKind kind) {
                m_narration->append(text, kindOf(kind));
                m_narration->setWaiting(false);
                m_next->setEnabled(false);
            });
    connect(m_runner, &demo::ScenarioRunner::actionFocused, m_narration, &NarrationPanel::followAction);
    connect(m_narration, &NarrationPanel::focusRequested, window, [this](const QString &id) {
        if (m_window) {
            m_window->refresh();
            m_window->selectAction(id);
        }
    });
    connect(m_runner, &demo::ScenarioRunner::waitingForNext, this, [this] {
        m_narration->setWaiting(true);
        m_next->setEnabled(true);
    });
    connect(m_runner, &demo::ScenarioRunner::finished, this, [this](bool asExpected, const QString &verdict) {
        m_narration->setRunning(false);
        m_next->setEnabled(false);
        m_cancel->setEnabled(false);
        if (m_window) {
            m_window->statusBar()->showMessage(asExpected ? tr("Scenario ended as expected.") : tr("Scenario did NOT end as expected."), 10000);
            m_window->refresh();
        }
        m_truth->refresh();
        m_faults->refresh();
        emit scenarioFinished(asExpected, verdict);
    });
    connect(m_narration, &NarrationPanel::nextRequested, m_runner, &demo::ScenarioRunner::next);
    connect(m_narration, &NarrationPanel::cancelRequested, m_runner, &demo::ScenarioRunner::cancel);
    connect(m_stack, &demo::DemoStack::backendRestarted, this, [this](const QUrl &url) {
        m_client->setBaseUrl(url);
        m_auditClient->setBaseUrl(url);
        m_events->stop();
        m_events->setBaseUrl(url);
        m_events->start();
    });
}

DemoController::~DemoController()
{
    if (m_runner->isRunning())
        m_runner->cancel();
}

void DemoController::start()
{
    m_faults->setPaysimUrl(m_stack->paysimUrl());
    m_truth->setPaysimUrl(m_stack->paysimUrl());
    if (!m_roles->signInAs(QStringLiteral("approver")))
        m_window->start();
}

void DemoController::play(int scenarioId, bool stepByStep)
{
    if (m_runner->isRunning())
        m_runner->cancel();
    for (const demo::ScenarioInfo &info : demo::ScenarioRunner::catalogue()) {
        if (info.id == scenarioId)
            m_narration->begin(tr("%1. %2").arg(info.id).arg(info.title), info.summary);
    }
    m_narration->setRunning(true);
    m_cancel->setEnabled(true);
    m_runner->start(scenarioId, stepByStep ? demo::ScenarioRunner::Mode::StepByStep : demo::ScenarioRunner::Mode::Continuous);
}

void DemoController::buildMenus()
{
    QMenuBar *bar = m_window->menuBar();
    QAction *before = bar->actions().isEmpty() ? nullptr : bar->actions().constLast(); // Help stays last

    auto *scenarios = new QMenu(tr("&Scenarios"), m_window);
    scenarios->setObjectName(QStringLiteral("scenariosMenu"));
    for (const demo::ScenarioInfo &info : demo::ScenarioRunner::catalogue()) {
        QMenu *sub = scenarios->addMenu(tr("&%1 %2").arg(info.id).arg(info.title));
        sub->setToolTipsVisible(true);
        sub->menuAction()->setToolTip(info.summary);
        const int id = info.id;
        QAction *cont = sub->addAction(tr("Play &continuously"), this, [this, id] { play(id, false); });
        cont->setObjectName(QStringLiteral("playScenario%1").arg(id));
        QAction *step = sub->addAction(tr("&Step by step"), this, [this, id] { play(id, true); });
        step->setObjectName(QStringLiteral("stepScenario%1").arg(id));
    }
    scenarios->setToolTipsVisible(true);
    scenarios->addSeparator();
    m_next = scenarios->addAction(tr("&Next step"), QKeySequence(Qt::Key_F8), m_runner, &demo::ScenarioRunner::next);
    m_next->setObjectName(QStringLiteral("nextStepAction"));
    m_next->setEnabled(false);
    m_cancel = scenarios->addAction(tr("&Cancel scenario"), QKeySequence(Qt::SHIFT | Qt::Key_F8), m_runner,
                                    &demo::ScenarioRunner::cancel);
    m_cancel->setObjectName(QStringLiteral("cancelScenarioAction"));
    m_cancel->setEnabled(false);
    m_window->addAction(m_next);
    m_window->addAction(m_cancel);

    auto *demoMenu = new QMenu(tr("&Demo"), m_window);
    demoMenu->setObjectName(QStringLiteral("demoMenu"));
    demoMenu->addMenu(m_roles->menu());
    demoMenu->addSeparator();
    demoMenu->addAction(m_narration->toggleViewAction());
    demoMenu->addAction(m_faults->toggleViewAction());
    demoMenu->addAction(m_truth->toggleViewAction());
    demoMenu->addSeparator();
    demoMenu->addAction(tr("&Refresh ground truth"), m_truth, &GroundTruthView::refresh);

    bar->insertMenu(before, demoMenu);
    bar->insertMenu(before, scenarios);
}

} // namespace cs
