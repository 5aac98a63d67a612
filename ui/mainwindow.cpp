#include "ui/mainwindow.h"
#include "client/apiclient.h"
#include "client/apipagesource.h"
#include "client/eventstreamclient.h"
#include "client/tokenstore.h"
#include "models/actionqueuemodel.h"
#include "models/lookuppurpose.h"
#include "ui/actiondetailpane.h"
#include "ui/attentioncontroller.h"
#include "ui/bulkdecisioncontroller.h"
#include "ui/chargecontroller.h"
#include "ui/connectiondialog.h"
#include "ui/consolesettings.h"
#include "ui/decisioncontroller.h"
#include "ui/executioncontroller.h"
#include "ui/exportcontroller.h"
#include "ui/offlinebanner.h"
#include "ui/queueview.h"
#include "ui/statepalette.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSplitter>
#include <QScreen>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

// Outside any namespace, as Q_INIT_RESOURCE requires.
static void initCountersignResources()
{
    Q_INIT_RESOURCE(countersign);
}

namespace cs {

namespace {

QString permissionKey(const QString &kind)
{
    return kind; // the dialog kinds are the Permissions keys
}


} // namespace

MainWindow::MainWindow(ApiClient *client, EventStreamClient *events, ConsoleSettings *settings, QWidget *parent)
    : QMainWindow(parent)
    , m_client(client)
    , m_events(events)
    , m_settings(settings)
    , m_source(new ApiPageSource(client, this))
    , m_model(new ActionQueueModel(m_source, this))
{
    initCountersignResources();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Countersign"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/countersign.svg")));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_banner = new OfflineBanner(central);
    layout->addWidget(m_banner);

    m_splitter = new QSplitter(Qt::Horizontal, central);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_splitter->setChildrenCollapsible(false);
    auto *queueBox = new QWidget(m_splitter);
    auto *queueLayout = new QVBoxLayout(queueBox);
    queueLayout->setContentsMargins(10, 8, 4, 6);
    m_queue = new QueueView(m_model, queueBox);
    queueLayout->addWidget(m_queue);
    m_pane = new ActionDetailPane(m_splitter);
    m_splitter->addWidget(queueBox);
    m_splitter->addWidget(m_pane);
    m_splitter->setStretchFactor(0, 5);
    m_splitter->setStretchFactor(1, 6);
    layout->addWidget(m_splitter, 1);
    setCentralWidget(central);

    m_backendLabel = new QLabel(this);
    m_backendLabel->setObjectName(QStringLiteral("statusBackend"));
    m_userLabel = new QLabel(this);
    m_userLabel->setObjectName(QStringLiteral("statusUser"));
    m_liveLabel = new QLabel(this);
    m_liveLabel->setObjectName(QStringLiteral("statusLive"));
    // The stop switch's indicator first: while execution is paused it is what matters most.
    m_execution = new ExecutionController(m_client, this, this);
    statusBar()->addPermanentWidget(m_execution->indicator());
    connect(m_execution, &ExecutionController::statusMessage, statusBar(), &QStatusBar::showMessage);
    statusBar()->addPermanentWidget(m_backendLabel);
    statusBar()->addPermanentWidget(m_userLabel);
    statusBar()->addPermanentWidget(m_liveLabel);

    // File → Export: the queue's query and the shown action, read when the user asks.
    m_export = new ExportController(m_client, m_source, m_settings, this, this);
    m_export->setQueryProvider([this] { return m_model->query(); });
    m_export->setActionProvider([this] { return m_currentId; });
    connect(m_export, &ExportController::statusMessage, statusBar(), &QStatusBar::showMessage);

    // The charge view (issue 17): the selected action's charge in a window of its own, opened by
    // Action → Show charge or the detail pane's link; double-click on one of its actions selects it.
    m_charges = new ChargeController(m_client, this, this);
    m_showChargeAction = new QAction(tr("Show &charge\u2026"), this);
    m_showChargeAction->setObjectName(QStringLiteral("showChargeAction"));
    m_showChargeAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+G")));
    m_showChargeAction->setShortcutContext(Qt::WindowShortcut);
    m_showChargeAction->setStatusTip(tr("Everything on the selected action's charge: its actions, the provider's refunds, its budget"));
    m_showChargeAction->setEnabled(false);
    addAction(m_showChargeAction);
    const auto updateShowCharge = [this] {
        const bool agent = m_role == QLatin1String("agent");
        m_showChargeAction->setEnabled(m_pane->hasDetail() && !agent);
        m_showChargeAction->setToolTip(agent ? tr("Agents may not read a charge's view: it lists every requester's actions")
                                             : m_showChargeAction->statusTip());
    };
    connect(m_showChargeAction, &QAction::triggered, this, [this] {
        if (m_pane->hasDetail())
            m_charges->open(m_pane->detail().record.targetId);
    });
    connect(m_pane, &ActionDetailPane::chargeRequested, m_charges, &ChargeController::open);
    connect(m_charges, &ChargeController::actionActivated, this, [this](const QString &id) {
        selectAction(id);
        raise();
        activateWindow();
    });
    connect(m_charges, &ChargeController::statusMessage, statusBar(), &QStatusBar::showMessage);
    connect(m_events, &EventStreamClient::actionChanged, m_charges, &ChargeController::onActionChanged);
    connect(this, &MainWindow::identityKnown, this, [this, updateShowCharge](const QString &, const QString &role) {
        m_charges->setRole(role);
        updateShowCharge();
    });
    connect(this, &MainWindow::detailShown, this, updateShowCharge);

    m_decisions = new DecisionController(m_client, m_pane, this, this);
    buildActions();
    buildBulkDecisions();
    m_attention = new AttentionController(this, m_client, m_events, m_settings);
    buildMenus();

    m_detailReload.setSingleShot(true);
    m_detailReload.setInterval(150);
    connect(&m_detailReload, &QTimer::timeout, this, [this] {
        if (!m_currentId.isEmpty())
            loadDetail(m_currentId);
    });
    m_relativeTimes.setInterval(15000);
    connect(&m_relativeTimes, &QTimer::timeout, m_model, &ActionQueueModel::refreshRelativeTimes);
    m_relativeTimes.start();

    // One selection: the queue's current row is the action shown, and the one the single-action
    // commands act on while it is the only row selected (QueueView::target()).
    connect(m_queue, &QueueView::currentActionChanged, this, [this](const QString &id) {
        if (id == m_currentId)
            return;
        m_currentId = id;
        if (id.isEmpty()) {
            if (m_detailCall && !m_detailCall->isFinished())
                m_detailCall->abandon();
            m_pane->showMessage(tr("No action in this view."));
            updateDecisionActions();
            emit detailShown(QString());
            return;
        }
        loadDetail(id);
        updateDecisionActions();
    });
    connect(m_queue, &QueueView::targetChanged, this, &MainWindow::updateDecisionActions);
    connect(m_queue, &QueueView::filterChanged, this, [this](QueueView::Filter filter, const QString &search) {
        m_settings->queueFilter = QueueView::filterName(filter);
        m_settings->queueSearch = search;
    });
    connect(m_model, &ActionQueueModel::pageLoaded, this, [this] {
        if (!m_firstPageShown) {
            m_firstPageShown = true;
            // The keyboard starts in the queue, on the row shown (the queue selected it).
            if (!m_queue->searchEdit()->hasFocus())
                m_queue->focusTable();
            emit firstPageShown();
        }
    });
    connect(m_pane, &ActionDetailPane::relatedActionActivated, this, &MainWindow::selectAction);
    connectDecisions();
    connect(m_banner, &OfflineBanner::retryRequested, m_client, &ApiClient::probeNow);

    connect(m_client, &ApiClient::connectionStateChanged, this, &MainWindow::onConnectionState);
    connect(m_client, &ApiClient::unauthorized, this, [this] {
        statusBar()->showMessage(tr("The backend does not accept the token (401). Check the connection profile."), 10000);
    });
    connect(m_events, &EventStreamClient::actionChanged, this, &MainWindow::onActionChanged);
    connect(m_events, &EventStreamClient::resyncRequired, this, [this] {
        m_model->reload();
        m_detailReload.start();
        m_execution->reload();
    });
    connect(m_events, &EventStreamClient::executionChanged, m_execution, &ExecutionController::reload);
    connect(m_events, &EventStreamClient::stateChanged, this, &MainWindow::onEventStreamState);
    // The stream's heartbeat (every 2 s) is how an idle console learns the backend is gone or hung.
    connect(m_events, &EventStreamClient::lost, m_client, &ApiClient::markUnreachable);

    restoreLayout();
    updateDecisionActions();
    updateBulkActions();
    updateStatusBar();
}

MainWindow::~MainWindow() = default;

void MainWindow::connectDecisions()
{
    connect(m_decisions, &DecisionController::statusMessage, statusBar(), &QStatusBar::showMessage);
    connect(m_decisions, &DecisionController::decisionApplied, this, [this](const QString &kind, const QString &id) {
        onDecisionApplied(kind, id, false);
        emit decisionApplied(kind, id);
    });
    connect(m_decisions, &DecisionController::queueRowOutdated, m_model, &ActionQueueModel::refreshAction);
    connect(m_decisions, &DecisionController::detailOutdated, this, [this](const QString &id) {
        if (id == m_currentId)
            loadDetail(id);
    });
    connect(m_decisions, &DecisionController::outcomeUnknown, &m_detailReload, qOverload<>(&QTimer::start));
    connect(m_decisions, &DecisionController::detailRead, this, [this](const ActionDetail &detail) {
        if (detail.record.id == m_currentId)
            showDetail(detail);
    });
    connect(m_decisions, &DecisionController::resending, this, [this](int pending) {
        if (m_banner->isVisible())
            m_banner->setPendingDecisions(pending);
    });
}

void MainWindow::buildActions()
{
    const struct
    {
        const char *kind;
        const char *objectName;
        const char *text;
        const char *iconText;
        const char *icon;
        const char *shortcut;
        const char *help;
        void (DecisionController::*slot)();
    } decisions[] = {
        { "approve", "approveAction", QT_TR_NOOP("&Approve\u2026"), QT_TR_NOOP("Approve"), "approve", "Ctrl+Shift+A",
          QT_TR_NOOP("Approve the selected action: mints its key; nothing is sent until the executor claims it"),
          &DecisionController::openApprove },
        { "reject", "rejectAction", QT_TR_NOOP("&Reject\u2026"), QT_TR_NOOP("Reject"), "reject", "Ctrl+Shift+R",
          QT_TR_NOOP("Reject the selected action with a reason: nothing is ever sent"), &DecisionController::openReject },
        { "lookup", "lookupAction", QT_TR_NOOP("&Look up at provider\u2026"), QT_TR_NOOP("Look up"), "lookup", "Ctrl+Shift+L",
          QT_TR_NOOP("Ask the provider now what happened to this action"), &DecisionController::openLookup },
        { "reconcile", "reconcileAction", QT_TR_NOOP("Re&concile\u2026"), QT_TR_NOOP("Reconcile"), "reconcile", "Ctrl+Shift+C",
          QT_TR_NOOP("Confirm what happened at the provider, with a lookup as evidence"), &DecisionController::openReconcile },
        { "follow_up", "followUpAction", QT_TR_NOOP("&Follow-up\u2026"), QT_TR_NOOP("Follow-up"), "followup", "Ctrl+Shift+F",
          QT_TR_NOOP("Propose a new action for the remainder the provider evidence shows is still owed"),
          &DecisionController::openFollowUp },
        // Issue 18: not in the pane's row of buttons but in the banner over a failed refund.
        { "close_settlement", "closeSettlementAction", QT_TR_NOOP("Close failed refund &without re-sending\u2026"),
          QT_TR_NOOP("Close failed refund"), "reconcile", "Ctrl+Shift+X",
          QT_TR_NOOP("Close the review of a refund that failed after it was accepted, with a note: nothing is re-sent"),
          &DecisionController::openCloseSettlement },
        // Issue 33: in the banner over an action the provider contradicts (two refunds for it).
        { "close_discrepancy", "closeDiscrepancyAction", QT_TR_NOOP("Close &discrepancy…"),
          QT_TR_NOOP("Close discrepancy"), "reconcile", "Ctrl+Shift+D",
          QT_TR_NOOP("Close the discrepancy of an action the provider holds two refunds for, with a note: nothing is sent or undone"),
          &DecisionController::openCloseDiscrepancy },
    };
    QList<QPair<QAction *, QString>> paneActions;
    for (const auto &d : decisions) {
        auto *action = new QAction(QIcon(QStringLiteral(":/icons/%1.svg").arg(QLatin1String(d.icon))), tr(d.text), this);
        action->setObjectName(QString::fromLatin1(d.objectName));
        action->setIconText(tr(d.iconText));
        action->setShortcut(QKeySequence(QString::fromLatin1(d.shortcut)));
        action->setShortcutContext(Qt::WindowShortcut);
        action->setStatusTip(tr(d.help));
        action->setProperty("help", tr(d.help));
        connect(action, &QAction::triggered, m_decisions, d.slot);
        addAction(action);
        m_decisionActions.insert(QString::fromLatin1(d.kind), action);
        if (qstrcmp(d.kind, "close_settlement") != 0 && qstrcmp(d.kind, "close_discrepancy") != 0)
            paneActions.append({ action, QString::fromLatin1(d.kind) });
    }
    m_pane->setDecisionActions(paneActions);
    m_pane->setSettlementActions(m_decisionActions.value(QStringLiteral("follow_up")),
                                 m_decisionActions.value(QStringLiteral("close_settlement")));
    m_pane->setDiscrepancyAction(m_decisionActions.value(QStringLiteral("close_discrepancy")));

    m_refreshAction = new QAction(QIcon(QStringLiteral(":/icons/refresh.svg")), tr("&Refresh"), this);
    m_refreshAction->setObjectName(QStringLiteral("refreshAction"));
    m_refreshAction->setShortcut(QKeySequence::Refresh);
    connect(m_refreshAction, &QAction::triggered, this, &MainWindow::refresh);
    m_findAction = new QAction(QIcon(QStringLiteral(":/icons/search.svg")), tr("&Find\u2026"), this);
    m_findAction->setObjectName(QStringLiteral("findAction"));
    m_findAction->setShortcut(QKeySequence::Find);
    connect(m_findAction, &QAction::triggered, m_queue, &QueueView::focusSearch);
    m_connectionAction = new QAction(QIcon(QStringLiteral(":/icons/connection.svg")), tr("&Connection profile\u2026"), this);
    m_connectionAction->setObjectName(QStringLiteral("connectionAction"));
    m_connectionAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+P")));
    connect(m_connectionAction, &QAction::triggered, this, &MainWindow::editConnection);
    addActions({ m_refreshAction, m_findAction, m_connectionAction });
}

// Approve or reject several selected actions at once: the BulkDecisionController does the work.
void MainWindow::buildBulkDecisions()
{
    m_bulk = new BulkDecisionController(m_client, &m_decisions->drafts(), this, this);
    const auto make = [this](const char *kind, const char *objectName, const QString &text, const char *shortcut,
                             const QString &help) {
        auto *action = new QAction(text, this);
        action->setObjectName(QString::fromLatin1(objectName));
        action->setShortcut(QKeySequence(QString::fromLatin1(shortcut)));
        action->setShortcutContext(Qt::WindowShortcut);
        action->setStatusTip(help);
        action->setEnabled(false);
        connect(action, &QAction::triggered, this, [this, kind = QString::fromLatin1(kind)] {
            m_bulk->open(kind, m_queue->selectedActionIds());
        });
        addAction(action);
        return action;
    };
    m_bulkApproveAction = make("approve", "approveSelectedAction", tr("Approve &selected\u2026"), "Ctrl+Alt+A",
                               tr("Approve every selected PENDING action, each with its own approval and key"));
    m_bulkRejectAction = make("reject", "rejectSelectedAction", tr("Reject s&elected\u2026"), "Ctrl+Alt+R",
                              tr("Reject every selected PENDING action with one reason and note"));
    connect(m_queue, &QueueView::selectionChanged, this, &MainWindow::updateBulkActions);
    connect(m_client, &ApiClient::connectionStateChanged, this, &MainWindow::updateBulkActions);
    connect(m_bulk, &BulkDecisionController::statusMessage, statusBar(), &QStatusBar::showMessage);
    connect(m_bulk, &BulkDecisionController::decisionApplied, this, [this](const QString &kind, const QString &id) {
        onDecisionApplied(kind, id, true);
        emit decisionApplied(kind, id);
    });
    connect(m_bulk, &BulkDecisionController::queueRowOutdated, m_model, &ActionQueueModel::refreshAction);
    connect(m_bulk, &BulkDecisionController::detailOutdated, this, [this](const QString &id) {
        if (id == m_currentId)
            m_detailReload.start();
    });
}

// The bulk commands act on the selected rows, listed in their dialog; never while the backend does
// not answer (what is shown may be out of date).
void MainWindow::updateBulkActions()
{
    const int selected = int(m_queue->selectedActionIds().size());
    const bool offline = m_client->connectionState() == ApiClient::ConnectionState::Offline;
    for (QAction *action : { m_bulkApproveAction, m_bulkRejectAction }) {
        action->setEnabled(selected > 0 && !offline);
        if (offline)
            action->setToolTip(tr("%1 is not available: the backend does not answer, so what is shown may be out of date")
                                   .arg(action->text().remove(QLatin1Char('&')).remove(QStringLiteral("\u2026"))));
        else if (selected == 0)
            action->setToolTip(tr("Select one or more actions in the queue first"));
        else
            action->setToolTip(tr("%1 (%n selected)", nullptr, selected).arg(action->statusTip()));
    }
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_connectionAction);
    file->addAction(m_refreshAction);
    file->addSeparator();
    file->addActions({ m_export->exportActionsAction(), m_export->exportHistoryAction() });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setObjectName(QStringLiteral("quitAction"));

    QMenu *action = menuBar()->addMenu(tr("&Action"));
    for (const char *kind : { "approve", "reject", "lookup", "reconcile", "follow_up", "close_settlement",
                              "close_discrepancy" })
        action->addAction(m_decisionActions.value(QString::fromLatin1(kind)));
    action->addSeparator();
    action->addActions({ m_bulkApproveAction, m_bulkRejectAction });
    action->addSeparator();
    action->addAction(m_showChargeAction);

    QMenu *execution = menuBar()->addMenu(tr("E&xecution"));
    execution->setObjectName(QStringLiteral("executionMenu"));
    execution->setToolTipsVisible(true); // a disabled item says why
    execution->addActions({ m_execution->pauseAction(), m_execution->resumeAction() });

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_findAction);
    QAction *focusQueue = view->addAction(tr("Go to the &queue"), QKeySequence(QStringLiteral("Ctrl+0")), m_queue,
                                          &QueueView::focusTable);
    focusQueue->setObjectName(QStringLiteral("focusQueueAction"));
    QAction *nextTab = view->addAction(tr("&Next detail tab"), QKeySequence(QStringLiteral("Ctrl+Tab")), this, [this] {
        QTabWidget *tabs = m_pane->tabs();
        int i = tabs->currentIndex();
        for (int step = 0; step < tabs->count(); ++step) {
            i = (i + 1) % tabs->count();
            if (tabs->isTabVisible(i))
                break;
        }
        tabs->setCurrentIndex(i);
    });
    nextTab->setObjectName(QStringLiteral("nextTabAction"));

    QMenu *settingsMenu = menuBar()->addMenu(tr("&Settings"));
    settingsMenu->setObjectName(QStringLiteral("settingsMenu"));
    m_attention->addSettingsTo(settingsMenu);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, [this] {
        QString text = QStringLiteral("<table>");
        const auto row = [&text](const QString &keys, const QString &what) {
            text += QStringLiteral("<tr><td><code>%1</code>&nbsp;&nbsp;</td><td>%2</td></tr>").arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
        };
        for (QAction *a : std::as_const(m_decisionActions))
            row(a->shortcut().toString(QKeySequence::NativeText), a->iconText());
        // Key names as the keyboard labels them ("Strg" on a German one), like QKeySequence's NativeText.
        row(tr("Shift+\u2191 \u2193, Ctrl+Space"), tr("Select several actions in the queue"));
        row(m_bulkApproveAction->shortcut().toString(QKeySequence::NativeText), tr("Approve the selected actions"));
        row(m_bulkRejectAction->shortcut().toString(QKeySequence::NativeText), tr("Reject the selected actions"));
        row(m_showChargeAction->shortcut().toString(QKeySequence::NativeText), tr("Show the selected action's charge"));
        row(tr("Ctrl+F"), tr("Search the queue"));
        row(tr("Ctrl+1 \u2026 Ctrl+6"), tr("Queue, Pending, Unknown, Review, All, Refund failed"));
        row(tr("\u2191 \u2193"), tr("Move through the queue"));
        row(tr("Ctrl+0"), tr("Go to the queue"));
        row(tr("Ctrl+Tab"), tr("Next detail tab"));
        row(tr("Ctrl+Enter"), tr("Confirm a dialog"));
        row(tr("F5"), tr("Refresh"));
        text += QStringLiteral("</table>");
        QMessageBox::information(this, tr("Keyboard shortcuts"), text);
    });
    help->addAction(tr("&About Countersign"), this, [this] {
        QMessageBox::about(this, tr("About Countersign"),
                           tr("<b>Countersign %1</b><p>Sign-off and review console for payment actions taken by AI "
                              "agents. A timeout proves that a response was lost, not that the provider did nothing.</p>")
                               .arg(QStringLiteral(COUNTERSIGN_VERSION)));
    });

    QToolBar *toolbar = addToolBar(tr("Decisions"));
    toolbar->setObjectName(QStringLiteral("decisionToolBar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->setIconSize(QSize(18, 18));
    toolbar->addAction(m_refreshAction);
    toolbar->addSeparator();
    for (const char *kind : { "approve", "reject", "lookup", "reconcile", "follow_up" })
        toolbar->addAction(m_decisionActions.value(QString::fromLatin1(kind)));
    toolbar->addSeparator();
    toolbar->addAction(m_connectionAction);
    toolbar->setVisible(false); // the detail pane carries the decision buttons; the menu the rest
}

void MainWindow::setVisible(bool visible)
{
    // Never sized by anyone (no saved geometry, no --window-size): 1440×900 where the screen has
    // room for it and a window frame; on a smaller screen (1366×768) maximized, so that the window
    // manager fits the frame too and nothing lies off the screen.
    if (visible && !testAttribute(Qt::WA_Resized) && !isVisible()) {
        if (const QScreen *s = screen()) {
            const QRect available = s->availableGeometry();
            const QSize wanted(1440, 900);
            if (available.width() >= wanted.width() + 16 && available.height() >= wanted.height() + 48) {
                setGeometry(QStyle::alignedRect(layoutDirection(), Qt::AlignCenter, wanted, available));
            } else {
                resize(available.size() - QSize(16, 48)); // the size it returns to when unmaximized
                setWindowState(windowState() | Qt::WindowMaximized);
            }
        }
    }
    QMainWindow::setVisible(visible);
}

void MainWindow::restoreLayout()
{
    const QByteArray geometry = m_settings->windowGeometry;
    if (!geometry.isEmpty())
        restoreGeometry(geometry);
    // Else the first show sizes the window to the screen it opens on (setVisible).
    const QByteArray state = m_settings->windowState;
    if (!state.isEmpty())
        restoreState(state);
    const QByteArray splitter = m_settings->splitterState;
    if (!splitter.isEmpty())
        m_splitter->restoreState(splitter);
    else
        m_splitter->setSizes({ 700, 740 });
    m_pane->restoreSplitterState(m_settings->detailSplitterState);
    m_queue->restoreHeaderState(m_settings->queueHeaderState);
}

void MainWindow::saveLayout()
{
    m_settings->windowGeometry = saveGeometry();
    m_settings->windowState = saveState();
    m_settings->splitterState = m_splitter->saveState();
    m_settings->detailSplitterState = m_pane->splitterState();
    m_settings->queueHeaderState = m_queue->headerState();
    m_settings->detailTab = m_pane->tabs()->currentIndex();
    m_settings->sync();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_decisions->pendingDecisions() > 0) {
        const auto answer = QMessageBox::question(
            this, tr("Decisions not confirmed yet"),
            tr("%n decision(s) have not been confirmed by the backend yet. Quitting stops resending them; whether "
               "the backend received them is then unknown until you look again. Quit anyway?",
               nullptr, m_decisions->pendingDecisions()));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
    }
    saveLayout();
    QMainWindow::closeEvent(event);
}

void MainWindow::start()
{
    m_firstPageShown = false;
    updateStatusBar();
    loadIdentity();
    const int tab = m_settings->detailTab;
    if (tab >= 0 && tab < m_pane->tabs()->count())
        m_pane->tabs()->setCurrentIndex(tab);
    m_queue->apply(QueueView::filterFromName(m_settings->queueFilter), m_settings->queueSearch);
    m_execution->reload();
    m_events->start();
}

void MainWindow::loadIdentity()
{
    ApiCall *call = m_client->me();
    connect(call, &ApiCall::finished, this, [this](ApiCall *c) {
        const ApiResponse &response = c->response();
        if (!response.ok()) {
            m_userLabel->setText(tr("not signed in"));
            m_userLabel->setToolTip(response.error.userText());
            return;
        }
        m_user = response.object().value(QLatin1String("user")).toString();
        m_role = response.object().value(QLatin1String("role")).toString();
        // Drafts belong to this backend and user: read theirs (adopting any made meanwhile).
        m_decisions->drafts().open(DraftStore::fileFor(DraftStore::directoryFor(*m_settings->store()), m_client->baseUrl(), m_user));
        m_execution->setRole(m_role);
        updateStatusBar();
        emit identityKnown(m_user, m_role);
    });
}

void MainWindow::refresh()
{
    m_model->reload();
    if (!m_currentId.isEmpty())
        loadDetail(m_currentId);
    if (m_client->connectionState() == ApiClient::ConnectionState::Offline)
        m_client->probeNow();
}

void MainWindow::selectAction(const QString &actionId)
{
    // The queue selects it (at once, or when its row arrives); currentActionChanged shows it.
    m_queue->selectAction(actionId);
}

void MainWindow::loadDetail(const QString &actionId)
{
    if (m_detailCall && !m_detailCall->isFinished())
        m_detailCall->abandon();
    if (!m_pane->hasDetail() || m_pane->detail().record.id != actionId)
        m_pane->showMessage(tr("Loading %1\u2026").arg(actionId));
    ApiCall *call = m_client->action(actionId);
    m_detailCall = call;
    connect(call, &ApiCall::finished, this, [this, actionId](ApiCall *c) {
        if (actionId != m_currentId)
            return;
        const ApiResponse &response = c->response();
        if (response.error.kind == ApiError::Kind::Cancelled)
            return;
        if (!response.ok()) {
            if (!m_pane->hasDetail() || m_pane->detail().record.id != actionId)
                m_pane->showMessage(tr("Could not load %1: %2").arg(actionId, response.error.userText()));
            else
                statusBar()->showMessage(tr("Could not refresh %1: %2").arg(actionId, response.error.userText()), 8000);
            return;
        }
        QString error;
        const std::optional<ActionDetail> detail = ActionDetail::fromJson(response.object(), &error);
        if (!detail) {
            m_pane->showMessage(tr("The backend's answer for %1 could not be read: %2").arg(actionId, error));
            return;
        }
        showDetail(*detail);
    });
}

void MainWindow::showDetail(const ActionDetail &detail)
{
    const bool sameAction = m_pane->hasDetail() && m_pane->detail().record.id == detail.record.id;
    m_pane->setDetail(detail);
    m_model->updateSummary(detail.summary());
    updateDecisionActions();
    m_decisions->adoptShownDetail(detail, sameAction);
    emit detailShown(detail.record.id);
}

void MainWindow::updateDecisionActions()
{
    const bool shown = m_pane->hasDetail() && m_pane->detail().record.id == m_currentId && !m_currentId.isEmpty();
    // The action shown is the one acted on only while it is the one row selected.
    const bool targeted = shown && m_queue->target() == m_currentId;
    const int selected = int(m_queue->selectedActionIds().size());
    const bool offline = m_client->connectionState() == ApiClient::ConnectionState::Offline;
    for (auto it = m_decisionActions.begin(); it != m_decisionActions.end(); ++it) {
        QAction *action = it.value();
        const QString help = action->property("help").toString();
        const QString shortcut = action->shortcut().toString(QKeySequence::NativeText);
        if (!targeted) {
            action->setEnabled(false);
            if (selected > 1)
                action->setToolTip(tr("%1 acts on one action: %n actions are selected (Approve selected or Reject "
                                      "selected decides them together)", nullptr, selected)
                                       .arg(action->iconText()));
            else if (shown)
                action->setToolTip(tr("%1 \u2014 the action shown is not selected: press Space to select it")
                                       .arg(action->iconText()));
            else
                action->setToolTip(tr("%1 \u2014 select an action first").arg(action->iconText()));
            continue;
        }
        // What is shown may be out of date: no new decision until the backend answers.
        if (offline) {
            action->setEnabled(false);
            action->setToolTip(tr("%1 is not available: the backend does not answer, so what is shown may be out of date")
                                   .arg(action->iconText()));
            continue;
        }
        const PermissionEntry *entry = m_pane->detail().permissions.entry(permissionKey(it.key()));
        const bool allowed = entry && entry->allowed;
        // Issue 18: on a COMPLETED action Look up asks about its refund's settlement; say so.
        const QString purpose = it.key() == QLatin1String("lookup") ? LookupPurpose::help(m_pane->detail()) : QString();
        action->setEnabled(allowed);
        action->setToolTip(allowed ? QStringLiteral("%1 (%2)").arg(purpose.isEmpty() ? help : purpose, shortcut)
                                   : tr("%1 is not available: %2").arg(action->iconText(), entry ? entry->reason : QString()));
    }
}

// A decision leaves the to-do views at once (its row is read again: once the backend's row says it
// is decided, the model lets it go) and the selection moves on to the next action that awaits a
// decision — after a bulk decision, once every selected row has been decided. A look-up or a
// follow-up decides nothing: the selection stays.
void MainWindow::onDecisionApplied(const QString &kind, const QString &actionId, bool bulk)
{
    static const QStringList deciding = { QStringLiteral("approve"), QStringLiteral("reject"),
                                          QStringLiteral("reconcile"), QStringLiteral("close_settlement"),
                                          QStringLiteral("close_discrepancy") };
    if (!deciding.contains(kind))
        return;
    if (bulk) {
        const QStringList selected = m_queue->selectedActionIds();
        if (!selected.contains(actionId))
            return;
        m_bulkDecided.insert(actionId);
        for (const QString &id : selected) {
            if (!m_bulkDecided.contains(id))
                return;
        }
        m_bulkDecided.clear();
        m_queue->advanceFrom(selected.last(), m_user);
    } else if (actionId == m_queue->currentActionId()) {
        m_queue->advanceFrom(actionId, m_user);
    }
    m_model->refreshAction(actionId);
}

void MainWindow::onActionChanged(const ActionChange &change)
{
    m_model->applyChange(change);
    if (change.actionId == m_currentId)
        m_detailReload.start();
}

void MainWindow::onConnectionState()
{
    const ApiClient::ConnectionState state = m_client->connectionState();
    if (state == ApiClient::ConnectionState::Offline) {
        m_banner->showOffline(m_client->baseUrl().toDisplayString(), m_decisions->pendingDecisions(),
                              m_client->lastTransportError());
        m_execution->setOffline(true);
    } else if (state == ApiClient::ConnectionState::Online && m_banner->isVisible()) {
        m_banner->hideBanner();
        statusBar()->showMessage(tr("The backend answers again."), 5000);
        // Everything shown is read again: the queue, the action in view, what is in force.
        if (m_model->hasFailed())
            m_model->retry();
        else
            m_model->reload();
        if (!m_currentId.isEmpty())
            m_detailReload.start();
        m_execution->setOffline(false);
        if (m_events->state() != EventStreamClient::State::Live)
            m_events->reconnectNow();
        if (m_user.isEmpty())
            loadIdentity();
    }
    updateDecisionActions();
    updateStatusBar();
}

void MainWindow::onEventStreamState()
{
    // Live again (first connect or after a reconnect): what was paused meanwhile is read anew.
    if (m_events->state() == EventStreamClient::State::Live)
        m_execution->reload();
    updateStatusBar();
}

void MainWindow::updateStatusBar()
{
    m_backendLabel->setText(tr("Backend: %1").arg(m_client->baseUrl().toDisplayString()));
    m_userLabel->setText(m_user.isEmpty() ? tr("not signed in") : tr("%1 \u00b7 %2").arg(m_user, m_role));
    m_userLabel->setAccessibleName(tr("Signed in as %1, role %2").arg(m_user, m_role));
    const bool offline = m_client->connectionState() == ApiClient::ConnectionState::Offline;
    QString text;
    ActionState tone = ActionState::Completed;
    if (offline) {
        text = tr("\u25CF Offline");
        tone = ActionState::RequiresReview;
    } else {
        switch (m_events->state()) {
        case EventStreamClient::State::Live:
            text = tr("\u25CF Live");
            break;
        case EventStreamClient::State::Connecting:
            text = tr("\u25CB Connecting\u2026");
            tone = ActionState::ConfirmationUnknown;
            break;
        case EventStreamClient::State::Reconnecting:
            text = tr("\u25CB Reconnecting\u2026");
            tone = ActionState::ConfirmationUnknown;
            break;
        case EventStreamClient::State::Stopped:
            text = tr("\u25CB Not live");
            tone = ActionState::Rejected;
            break;
        }
    }
    m_liveLabel->setText(text);
    m_liveLabel->setAccessibleName(text.mid(2));
    m_liveLabel->setStyleSheet(QStringLiteral("QLabel { color: %1; font-weight: 600; padding: 0 6px; }")
                                   .arg(StatePalette::stateChip(tone, palette()).text.name()));
}

// ---- connection ----------------------------------------------------------------------------

void MainWindow::editConnection()
{
    ConnectionDialog dialog(this);
    QStringList recent = m_settings->recentBackends;
    dialog.setBackends(recent, m_client->baseUrl().toString());
    dialog.setToken(m_client->token());
    dialog.setRemember(m_settings->rememberToken);
    dialog.setStorageNote(TokenStore::keychainCompiledIn()
                              ? tr("Kept in the system keychain; if none answers, in a file only you can read.")
                              : tr("Kept in a file only you can read (this build has no keychain support)."));
    connect(&dialog, &ConnectionDialog::testRequested, &dialog, [this, &dialog](const QUrl &url, const QString &token) {
        auto *probe = new ApiClient(&dialog);
        probe->setSslConfiguration(m_client->sslConfiguration());
        probe->setBaseUrl(url);
        probe->setToken(token);
        probe->setDeadline(std::chrono::seconds(5));
        ApiCall *call = probe->me();
        QObject::connect(call, &ApiCall::finished, &dialog, [&dialog, probe](ApiCall *c) {
            const ApiResponse &r = c->response();
            if (r.ok())
                dialog.setTestResult(true, tr("Connected as %1 (%2).")
                                               .arg(r.object().value(QLatin1String("user")).toString(),
                                                    r.object().value(QLatin1String("role")).toString()));
            else
                dialog.setTestResult(false, r.error.userText());
            probe->deleteLater();
        });
    });
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QUrl url = dialog.backendUrl();
    const QString token = dialog.token();
    m_client->setBaseUrl(url);
    m_client->setToken(token);
    m_events->stop();
    m_events->setBaseUrl(url);
    m_events->setToken(token);
    m_settings->backendUrl = url.toString();
    recent.removeAll(url.toString());
    recent.prepend(url.toString());
    m_settings->recentBackends = recent.mid(0, 8);
    m_settings->rememberToken = dialog.remember();
    if (m_tokenStore) {
        if (dialog.remember())
            m_tokenStore->save(url.toString(), token);
        else
            m_tokenStore->remove(url.toString());
    }
    m_user.clear();
    m_role.clear();
    m_execution->clear();
    m_charges->clear(); // another backend or user: not this charge
    m_decisions->drafts().close(); // another backend (or user): its drafts are read once /me answers
    m_currentId.clear();
    m_pane->showMessage(tr("Select an action in the queue."));
    updateDecisionActions();
    start();
}

void MainWindow::switchToken(const QString &token)
{
    m_client->setToken(token);
    m_events->stop();
    m_events->setToken(token);
    m_user.clear();
    m_role.clear();
    m_execution->setRole(QString()); // the same backend: what is paused stays as read
    m_decisions->drafts().close(); // perhaps another user: their drafts are read once /me answers
    updateDecisionActions();
    start();
    if (!m_currentId.isEmpty())
        loadDetail(m_currentId);
}

} // namespace cs
