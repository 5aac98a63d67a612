#include "demo/console/democontroller.h"

#include "demo/console/scoresheetdialog.h"

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "demo/console/faultinjectionpanel.h"
#include "demo/console/groundtruthview.h"
#include "demo/console/narrationpanel.h"
#include "demo/console/roleswitcher.h"
#include "demo/agenttraffic.h"
#include "demo/demostack.h"
#include "demo/scenariorunner.h"
#include "ui/consolesettings.h"
#include "ui/mainwindow.h"
#include "ui/offlinebanner.h"
#include "ui/settingvalue.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QTimer>

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
    case demo::ScenarioRunner::NarrationKind::Task:
        return NarrationPanel::Kind::Task;
    }
    return NarrationPanel::Kind::Step;
}

// Demo → Agent traffic, in the console's settings.
SettingValue<bool> trafficSetting(ConsoleSettings *settings)
{
    return SettingValue<bool>(settings->store(), QStringLiteral("demo/agentTraffic"), true);
}

} // namespace

DemoController::DemoController(demo::DemoStack *stack, MainWindow *window, ApiClient *client, EventStreamClient *events,
                               ConsoleSettings *settings, QObject *parent)
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
    , m_settings(settings)
    , m_traffic(new demo::AgentTraffic(stack, demo::AgentTraffic::Options(), this))
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
    // The narration takes room from the queue and the detail: it shows while a scenario or an
    // exercise runs (and after, with its verdict, until closed), not before.
    m_narration->hide();
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
        if (m_playPending) { // a cancelled scenario has cleaned up for the next one, which starts now
            QTimer::singleShot(0, this, &DemoController::startPendingScenario);
            emit scenarioFinished(asExpected, verdict);
            return;
        }
        m_narration->setRunning(false);
        m_next->setEnabled(false);
        m_cancel->setEnabled(false);
        if (m_window) {
            m_window->statusBar()->showMessage(asExpected ? tr("Scenario ended as expected.") : tr("Scenario did NOT end as expected."), 10000);
            m_window->refresh();
        }
        m_truth->refresh();
        m_faults->refresh();
        resumeTraffic(0); // at its normal pace: the verdict stays on screen a while
        if (m_runner->exercise())
            showScoreSheet();
        emit scenarioFinished(asExpected, verdict);
    });
    connect(m_narration, &NarrationPanel::nextRequested, m_runner, &demo::ScenarioRunner::next);
    connect(m_narration, &NarrationPanel::cancelRequested, this, &DemoController::cancelScenario);
    connectTraffic();
    // The demo's backend is a child process: when it dies or hangs, "Retry" cannot help; the
    // banner offers to restart it on the same ledger.
    window->offlineBanner()->setRestartOffer(true);
    connect(window->offlineBanner(), &OfflineBanner::restartRequested, this, [this] {
        if (!m_stack->restartBackend() && m_window)
            m_window->statusBar()->showMessage(tr("The demo's backend could not be restarted: see %1").arg(m_stack->dataDir()), 15000);
    });
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
    m_playPending = false;
    m_runner->disconnect(this); // a cancelled scenario's end must not restart the traffic
    if (m_runner->isRunning())
        m_runner->cancel();
    m_traffic->stop();
}

void DemoController::start()
{
    m_faults->setPaysimUrl(m_stack->paysimUrl());
    m_truth->setPaysimUrl(m_stack->paysimUrl());
    // Queued: a scenario asked for at sign-in (--scenario N) is played first, and the traffic
    // then waits for its end instead of filling the queue under it.
    connect(m_window, &MainWindow::identityKnown, this, [this] {
        QTimer::singleShot(0, this, [this] {
            m_signedIn = true;
            resumeTraffic(InitialProposals);
        });
    }, Qt::SingleShotConnection);
    if (!m_roles->signInAs(QStringLiteral("approver")))
        m_window->start();
}

void DemoController::play(int scenarioId, bool stepByStep, bool exercise)
{
    m_playPending = true; // before cancel(): its finished() must not resume the traffic
    if (m_runner->isRunning())
        m_runner->cancel();
    for (const demo::ScenarioInfo &info : demo::ScenarioRunner::catalogue()) {
        if (info.id == scenarioId)
            m_narration->begin(tr("%1. %2").arg(info.id).arg(info.title), info.summary);
    }
    m_narration->setRunning(true);
    m_narration->show();
    m_cancel->setEnabled(true);
    m_pendingScenario = scenarioId;
    m_pendingStepByStep = stepByStep;
    m_pendingExercise = exercise;
    // At once when the traffic is idle; else when its last request has returned and its outage
    // rules are gone, so that nothing of it is in the scenario's way.
    m_traffic->stop([this] { startPendingScenario(); });
}

void DemoController::startPendingScenario()
{
    // Called when the traffic has stopped and when a cancelled scenario has cleaned up; the
    // scenario starts at the later of the two.
    if (!m_playPending || m_traffic->isBusy() || m_runner->isRunning())
        return;
    m_playPending = false;
    m_exercise.sheet = &m_sheet;
    m_sheetStart = m_sheet.total();
    m_runner->setExercise(m_pendingExercise ? &m_exercise : nullptr);
    m_runner->start(m_pendingScenario,
                    m_pendingStepByStep ? demo::ScenarioRunner::Mode::StepByStep : demo::ScenarioRunner::Mode::Continuous);
}

void DemoController::cancelScenario()
{
    if (m_playPending) { // still waiting for the traffic to stop: the scenario never starts
        m_playPending = false;
        m_narration->setRunning(false);
        m_cancel->setEnabled(false);
        resumeTraffic(0);
        return;
    }
    m_runner->cancel();
}

bool DemoController::agentTrafficWanted() const
{
    return m_trafficAction->isChecked();
}

void DemoController::setAgentTraffic(bool on)
{
    if (m_trafficAction->isChecked() != on) {
        m_trafficAction->setChecked(on); // comes back here through toggled()
        return;
    }
    if (m_settings)
        trafficSetting(m_settings).set(on);
    if (on)
        resumeTraffic(1);
    else
        m_traffic->stop();
}

void DemoController::resumeTraffic(int atOnce)
{
    if (!agentTrafficWanted() || !m_signedIn || m_playPending || m_runner->isRunning())
        return;
    if (!m_traffic->start(atOnce) && m_window)
        m_window->statusBar()->showMessage(tr("Agent traffic could not start: %1").arg(m_traffic->errorString()), 10000);
}

void DemoController::connectTraffic()
{
    // The console opens on an action's detail, the agent's reasons included, rather than on an
    // empty pane; once, and only when the user has selected nothing yet.
    connect(m_traffic, &demo::AgentTraffic::happened, this,
            [this](demo::AgentTraffic::Kind kind, const QString &, const QString &actionId) {
                if (m_selectedFirst || kind != demo::AgentTraffic::Kind::Proposed || !m_window)
                    return;
                m_selectedFirst = true;
                if (m_window->currentActionId().isEmpty())
                    m_window->selectAction(actionId);
            });
    connect(m_traffic, &demo::AgentTraffic::outageStarted, this, [this](int durationMs) {
        m_faults->refresh();
        if (m_window)
            m_window->statusBar()->showMessage(
                tr("Agent traffic: paysim is down for %n second(s); refunds approved now may end in CONFIRMATION_UNKNOWN.", nullptr,
                   (durationMs + 999) / 1000),
                durationMs);
    });
    connect(m_traffic, &demo::AgentTraffic::outageStopped, this, [this] {
        m_faults->refresh();
        if (m_window)
            m_window->statusBar()->showMessage(tr("Agent traffic: paysim answers again."), 8000);
    });
    connect(m_traffic, &demo::AgentTraffic::queueFull, this, [this](int pending) {
        if (m_window)
            m_window->statusBar()->showMessage(
                tr("Agent traffic waits: %n action(s) are pending; it proposes again once some are decided.", nullptr, pending), 10000);
    });
}

void DemoController::showScoreSheet()
{
    demo::ScoreSheet run;
    for (qsizetype i = m_sheetStart; i < m_sheet.decisions().size(); ++i)
        run.append(m_sheet.decisions().at(i));
    if (run.total() == 0 || !m_window)
        return;
    auto *dialog = new ScoreSheetDialog(run, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ScoreSheetDialog::actionActivated, m_window, [this](const QString &id) {
        if (m_window)
            m_window->selectAction(id);
    });
    dialog->open(); // not exec(): no nested event loop
}

void DemoController::buildMenus()
{
    QMenuBar *bar = m_window->menuBar();
    QAction *before = bar->actions().isEmpty() ? nullptr : bar->actions().constLast(); // Help stays last

    auto *scenarios = new QMenu(tr("Sce&narios"), m_window);
    scenarios->setObjectName(QStringLiteral("scenariosMenu"));
    for (const demo::ScenarioInfo &info : demo::ScenarioRunner::catalogue()) {
        // One mnemonic each: 1 to 9 on their digit, 10 and up on their last one ("1&0").
        QString number = QString::number(info.id);
        QMenu *sub = nullptr;
        if (info.id < 10) {
            sub = scenarios->addMenu(tr("&%1 %2").arg(info.id).arg(info.title));
        } else {
            number.insert(number.size() - 1, u'&');
            sub = scenarios->addMenu(tr("%1 %2", "a scenario's number (with its mnemonic &) and title").arg(number, info.title));
        }
        sub->setToolTipsVisible(true);
        sub->menuAction()->setToolTip(info.summary);
        const int id = info.id;
        QAction *cont = sub->addAction(tr("Play &continuously"), this, [this, id] { play(id, false); });
        cont->setObjectName(QStringLiteral("playScenario%1").arg(id));
        QAction *step = sub->addAction(tr("&Step by step"), this, [this, id] { play(id, true); });
        step->setObjectName(QStringLiteral("stepScenario%1").arg(id));
        QAction *exercise = sub->addAction(tr("&Exercise: you decide"), this, [this, id] { play(id, false, true); });
        exercise->setObjectName(QStringLiteral("exerciseScenario%1").arg(id));
        exercise->setStatusTip(tr("The scenario stops where a person must decide and waits for you to do it in the "
                                  "console; then it checks your decision against the provider's ground truth."));
    }
    scenarios->setToolTipsVisible(true);
    scenarios->addSeparator();
    m_next = scenarios->addAction(tr("&Next step"), QKeySequence(Qt::Key_F8), m_runner, &demo::ScenarioRunner::next);
    m_next->setObjectName(QStringLiteral("nextStepAction"));
    m_next->setEnabled(false);
    m_cancel = scenarios->addAction(tr("&Cancel scenario"), QKeySequence(Qt::SHIFT | Qt::Key_F8), this,
                                    &DemoController::cancelScenario);
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
    demoMenu->addSeparator();
    m_trafficAction = demoMenu->addAction(tr("Agent &traffic"));
    m_trafficAction->setObjectName(QStringLiteral("agentTrafficAction"));
    m_trafficAction->setCheckable(true);
    m_trafficAction->setChecked(m_settings ? trafficSetting(m_settings).get() : true);
    m_trafficAction->setStatusTip(tr("Scripted agents propose refunds every few seconds and never approve them; "
                                     "paused while a scenario plays."));
    m_trafficAction->setToolTip(m_trafficAction->statusTip());
    demoMenu->setToolTipsVisible(true);
    connect(m_trafficAction, &QAction::toggled, this, &DemoController::setAgentTraffic);

    bar->insertMenu(before, demoMenu);
    bar->insertMenu(before, scenarios);
}

} // namespace cs
