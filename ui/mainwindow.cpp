#include "mainwindow.h"
#include "actiondetailpane.h"
#include "actionqueuemodel.h"
#include "apiclient.h"
#include "apipagesource.h"
#include "approvedialog.h"
#include "connectiondialog.h"
#include "consolesettings.h"
#include "displayformat.h"
#include "eventstreamclient.h"
#include "followupdialog.h"
#include "followupplan.h"
#include "lookupdialog.h"
#include "offlinebanner.h"
#include "queueview.h"
#include "reconciledialog.h"
#include "rejectdialog.h"
#include "statepalette.h"
#include "tokenstore.h"
#include "uilog.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QJsonDocument>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPixmap>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <memory>

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
    statusBar()->addPermanentWidget(m_backendLabel);
    statusBar()->addPermanentWidget(m_userLabel);
    statusBar()->addPermanentWidget(m_liveLabel);

    buildActions();
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

    connect(m_queue, &QueueView::currentActionChanged, this, [this](const QString &id) {
        if (id.isEmpty() || id == m_currentId)
            return;
        m_currentId = id;
        loadDetail(id);
    });
    connect(m_queue, &QueueView::filterChanged, this, [this](QueueView::Filter filter, const QString &search) {
        m_settings->queueFilter = QueueView::filterName(filter);
        m_settings->queueSearch = search;
    });
    connect(m_model, &ActionQueueModel::pageLoaded, this, [this] {
        if (!m_firstPageShown) {
            m_firstPageShown = true;
            if (m_currentId.isEmpty())
                m_queue->focusTable(); // selects the first row: its detail follows
            maybeTakeScreenshot();
        }
    });
    connect(m_pane, &ActionDetailPane::relatedActionActivated, this, &MainWindow::selectAction);
    connect(m_banner, &OfflineBanner::retryRequested, m_client, &ApiClient::probeNow);

    connect(m_client, &ApiClient::connectionStateChanged, this, &MainWindow::onConnectionState);
    connect(m_client, &ApiClient::unauthorized, this, [this] {
        statusBar()->showMessage(tr("The backend does not accept the token (401). Check the connection profile."), 10000);
    });
    connect(m_events, &EventStreamClient::actionChanged, this, &MainWindow::onActionChanged);
    connect(m_events, &EventStreamClient::resyncRequired, this, [this] {
        m_model->reload();
        m_detailReload.start();
    });
    connect(m_events, &EventStreamClient::stateChanged, this, &MainWindow::onEventStreamState);

    restoreLayout();
    updateDecisionActions();
    updateStatusBar();
}

MainWindow::~MainWindow() = default;

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
        void (MainWindow::*slot)();
    } decisions[] = {
        { "approve", "approveAction", QT_TR_NOOP("&Approve\u2026"), QT_TR_NOOP("Approve"), "approve", "Ctrl+Shift+A",
          QT_TR_NOOP("Approve the selected action: mints its key; nothing is sent until the executor claims it"),
          &MainWindow::openApprove },
        { "reject", "rejectAction", QT_TR_NOOP("&Reject\u2026"), QT_TR_NOOP("Reject"), "reject", "Ctrl+Shift+R",
          QT_TR_NOOP("Reject the selected action with a reason: nothing is ever sent"), &MainWindow::openReject },
        { "lookup", "lookupAction", QT_TR_NOOP("&Look up at provider\u2026"), QT_TR_NOOP("Look up"), "lookup", "Ctrl+Shift+L",
          QT_TR_NOOP("Ask the provider now what happened to this action"), &MainWindow::openLookup },
        { "reconcile", "reconcileAction", QT_TR_NOOP("Re&concile\u2026"), QT_TR_NOOP("Reconcile"), "reconcile", "Ctrl+Shift+C",
          QT_TR_NOOP("Confirm what happened at the provider, with a lookup as evidence"), &MainWindow::openReconcile },
        { "follow_up", "followUpAction", QT_TR_NOOP("&Follow-up\u2026"), QT_TR_NOOP("Follow-up"), "followup", "Ctrl+Shift+F",
          QT_TR_NOOP("Propose a new action for the remainder the provider evidence shows is still owed"),
          &MainWindow::openFollowUp },
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
        connect(action, &QAction::triggered, this, d.slot);
        addAction(action);
        m_decisionActions.insert(QString::fromLatin1(d.kind), action);
        paneActions.append({ action, QString::fromLatin1(d.kind) });
    }
    m_pane->setDecisionActions(paneActions);

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

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_connectionAction);
    file->addAction(m_refreshAction);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setObjectName(QStringLiteral("quitAction"));

    QMenu *action = menuBar()->addMenu(tr("&Action"));
    for (const char *kind : { "approve", "reject", "lookup", "reconcile", "follow_up" })
        action->addAction(m_decisionActions.value(QString::fromLatin1(kind)));

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

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, [this] {
        QString text = QStringLiteral("<table>");
        const auto row = [&text](const QString &keys, const QString &what) {
            text += QStringLiteral("<tr><td><code>%1</code>&nbsp;&nbsp;</td><td>%2</td></tr>").arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
        };
        for (QAction *a : std::as_const(m_decisionActions))
            row(a->shortcut().toString(QKeySequence::NativeText), a->iconText());
        row(QStringLiteral("Ctrl+F"), tr("Search the queue"));
        row(QStringLiteral("Ctrl+1 \u2026 Ctrl+5"), tr("Queue, Pending, Unknown, Review, All"));
        row(QStringLiteral("\u2191 \u2193"), tr("Move through the queue"));
        row(QStringLiteral("Ctrl+0"), tr("Go to the queue"));
        row(QStringLiteral("Ctrl+Tab"), tr("Next detail tab"));
        row(QStringLiteral("Ctrl+Enter"), tr("Confirm a dialog"));
        row(QStringLiteral("F5"), tr("Refresh"));
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

void MainWindow::restoreLayout()
{
    const QByteArray geometry = m_settings->windowGeometry;
    if (!geometry.isEmpty())
        restoreGeometry(geometry);
    else
        resize(1440, 900);
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
    if (pendingDecisions() > 0) {
        const auto answer = QMessageBox::question(
            this, tr("Decisions not confirmed yet"),
            tr("%n decision(s) have not been confirmed by the backend yet. Quitting stops resending them; whether "
               "the backend received them is then unknown until you look again. Quit anyway?",
               nullptr, pendingDecisions()));
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
        m_drafts.open(DraftStore::fileFor(DraftStore::directoryFor(*m_settings->store()), m_client->baseUrl(), m_user));
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
    if (actionId.isEmpty())
        return;
    if (m_queue->selectAction(actionId))
        return; // currentActionChanged loads it
    m_currentId = actionId;
    loadDetail(actionId);
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
    const ActionDetail before = sameAction ? m_pane->detail() : ActionDetail();
    m_pane->setDetail(detail);
    m_model->updateSummary(detail.summary());
    updateDecisionActions();
    // An open dialog on this action learns what changed under it (it then sends the new
    // version as If-Match: the reviewer has been shown the change).
    if (m_dialog && m_dialog->actionId() == detail.record.id && !m_dialog->isSending()
        && detail.record.stateVersion != m_dialog->ifMatch()) {
        m_dialog->updateDetail(detail, ActionDetail::describeChanges(m_dialog->detail(), detail));
    } else if (m_dialog && m_dialog->actionId() == detail.record.id && !m_dialog->isSending() && sameAction) {
        m_dialog->updateDetail(detail, {}); // e.g. a new lookup to choose as evidence
    }
    emit detailShown(detail.record.id);
    maybeTakeScreenshot();
}

void MainWindow::updateDecisionActions()
{
    const bool has = m_pane->hasDetail() && m_pane->detail().record.id == m_currentId;
    for (auto it = m_decisionActions.begin(); it != m_decisionActions.end(); ++it) {
        QAction *action = it.value();
        const QString help = action->property("help").toString();
        const QString shortcut = action->shortcut().toString(QKeySequence::NativeText);
        if (!has) {
            action->setEnabled(false);
            action->setToolTip(tr("%1 \u2014 select an action first").arg(action->iconText()));
            continue;
        }
        const PermissionEntry *entry = m_pane->detail().permissions.entry(permissionKey(it.key()));
        const bool allowed = entry && entry->allowed;
        action->setEnabled(allowed);
        action->setToolTip(allowed ? QStringLiteral("%1 (%2)").arg(help, shortcut)
                                   : tr("%1 is not available: %2").arg(action->iconText(), entry ? entry->reason : QString()));
    }
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
        m_banner->showOffline(m_client->baseUrl().toDisplayString(), pendingDecisions());
    } else if (state == ApiClient::ConnectionState::Online && m_banner->isVisible()) {
        m_banner->hideBanner();
        statusBar()->showMessage(tr("The backend answers again."), 5000);
        if (m_model->hasFailed())
            m_model->retry();
        if (!m_currentId.isEmpty())
            m_detailReload.start();
        if (m_events->state() != EventStreamClient::State::Live)
            m_events->reconnectNow();
        if (m_user.isEmpty())
            loadIdentity();
    }
    updateStatusBar();
}

void MainWindow::onEventStreamState()
{
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

int MainWindow::pendingDecisions() const
{
    int n = 0;
    for (const QPointer<ApiCall> &call : m_inFlight) {
        if (call && !call->isFinished())
            ++n;
    }
    return n;
}

// ---- decisions -----------------------------------------------------------------------------

void MainWindow::openApprove()
{
    openDecision(QStringLiteral("approve"));
}

void MainWindow::openReject()
{
    openDecision(QStringLiteral("reject"));
}

void MainWindow::openLookup()
{
    openDecision(QStringLiteral("lookup"));
}

void MainWindow::openReconcile()
{
    openDecision(QStringLiteral("reconcile"));
}

void MainWindow::openFollowUp()
{
    openDecision(QStringLiteral("follow_up"));
}

void MainWindow::openDecision(const QString &kind)
{
    if (!m_pane->hasDetail())
        return;
    if (m_dialog) {
        m_dialog->show();
        m_dialog->raise();
        m_dialog->activateWindow();
        return;
    }
    const ActionDetail detail = m_pane->detail();
    if (const PermissionEntry *entry = detail.permissions.entry(kind); !entry || !entry->allowed) {
        statusBar()->showMessage(entry ? entry->reason : QString(), 8000);
        return;
    }
    if (kind == QLatin1String("approve"))
        showDialog(new ApproveDialog(detail, this));
    else if (kind == QLatin1String("reject"))
        showDialog(new RejectDialog(detail, this));
    else if (kind == QLatin1String("lookup"))
        showDialog(new LookupDialog(detail, this));
    else if (kind == QLatin1String("reconcile"))
        showDialog(new ReconcileDialog(detail, this));
    else if (kind == QLatin1String("follow_up")) {
        // The remainder counts earlier follow-ups by their own provider evidence: fetch them.
        auto followUps = std::make_shared<QList<ActionDetail>>();
        auto remaining = std::make_shared<int>(int(detail.followUps.size()));
        const auto open = [this, detail, followUps] {
            showDialog(new FollowUpDialog(detail, FollowUpPlan::compute(detail, *followUps), this));
        };
        if (*remaining == 0) {
            open();
            return;
        }
        for (const ActionSummary &f : detail.followUps) {
            ApiCall *call = m_client->action(f.record.id);
            connect(call, &ApiCall::finished, this, [followUps, remaining, open](ApiCall *c) {
                if (c->response().ok()) {
                    if (std::optional<ActionDetail> d = ActionDetail::fromJson(c->response().object()))
                        followUps->append(*d);
                }
                if (--*remaining == 0)
                    open();
            });
        }
    }
}

void MainWindow::showDialog(DecisionDialog *dialog)
{
    m_dialog = dialog;
    const QString draftKey = DraftStore::keyFor(dialog->kind(), dialog->actionId());
    if (m_drafts.contains(draftKey))
        dialog->restoreDraft(m_drafts.draft(draftKey).fields);
    connect(dialog, &DecisionDialog::confirmed, this, [this, dialog] { submit(dialog); });
    connect(dialog, &QDialog::finished, this, [this, dialog, draftKey, origin = m_drafts.origin()](int result) {
        // Closed without being applied: keep what was typed for next time.
        DraftStore other;
        if (DraftStore *drafts = draftsOf(origin, other); drafts && result != QDialog::Accepted)
            drafts->saveFields(draftKey, dialog->draft());
        if (m_dialog == dialog)
            m_dialog = nullptr;
        if (!m_inFlight.value(dialog))
            dialog->deleteLater();
        // else: deleted when its call finishes (the decision is still being delivered)
    });
    if (auto *reconcile = qobject_cast<ReconcileDialog *>(dialog))
        connect(reconcile, &ReconcileDialog::lookupRequested, this, [this, dialog] { runDialogLookup(dialog); });
    dialog->open();
}

void MainWindow::submit(DecisionDialog *dialog)
{
    const QString id = dialog->actionId();
    const QString kind = dialog->kind();
    const qint64 ifMatch = dialog->ifMatch();
    const QString encoded = QString::fromLatin1(QUrl::toPercentEncoding(id));
    QString path;
    QJsonObject body;
    if (auto *d = qobject_cast<ApproveDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/approvals").arg(encoded);
        body.insert(QStringLiteral("note"), d->note());
    } else if (auto *d = qobject_cast<RejectDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/rejections").arg(encoded);
        body.insert(QStringLiteral("reason"), d->reason());
    } else if (qobject_cast<LookupDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/lookups").arg(encoded);
    } else if (auto *d = qobject_cast<ReconcileDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/reconciliations").arg(encoded);
        body.insert(QStringLiteral("outcome"), d->committedChosen() ? QStringLiteral("committed") : QStringLiteral("not_committed"));
        body.insert(QStringLiteral("evidence_lookup_seq"), d->evidenceLookupSeq());
        body.insert(QStringLiteral("note"), d->note());
    } else if (auto *d = qobject_cast<FollowUpDialog *>(dialog)) {
        path = QStringLiteral("/actions/%1/follow-ups").arg(encoded);
        body.insert(QStringLiteral("desired_total_amount"), QJsonValue(d->desiredTotal().value_or(0)));
        body.insert(QStringLiteral("note"), d->note());
    } else {
        return;
    }

    // One human intent, one key: resending the very same request (after a lost answer, even
    // from a reopened dialog) reuses the key, so the backend replays its first answer.
    const QString draftKey = DraftStore::keyFor(kind, id);
    const QByteArray identity = "POST " + path.toUtf8() + '\n' + QByteArray::number(ifMatch) + '\n'
        + QJsonDocument(body).toJson(QJsonDocument::Compact);
    const QString key = m_drafts.keyForRequest(draftKey, identity, &ApiClient::mintIdempotencyKey);
    m_drafts.saveFields(draftKey, dialog->draft());

    const int deadline = kind == QLatin1String("lookup") ? qMax(25000, m_client->deadlineMs()) : 0;
    ApiCall *call = m_client->post(path, body, ifMatch, key, deadline);
    m_inFlight.insert(dialog, call);
    dialog->setSending();
    qCInfo(lcUi) << "sending" << kind << id << "If-Match" << ifMatch << "Idempotency-Key" << key;

    connect(call, &ApiCall::resending, dialog, [this, dialog, call](int sendCount, const ApiError &error) {
        dialog->setResending(sendCount, error.userText(), call->idempotencyKey());
        if (m_banner->isVisible())
            m_banner->setPendingDecisions(pendingDecisions());
    });
    connect(dialog, &DecisionDialog::stopResendingRequested, call, &ApiCall::abandon);
    connect(call, &ApiCall::finished, this,
            [this, dialog, origin = m_drafts.origin()](ApiCall *c) { onDecisionFinished(dialog, c, origin); });
}

void MainWindow::onDecisionFinished(DecisionDialog *dialog, ApiCall *call, const DraftStore::Origin &origin)
{
    m_inFlight.remove(dialog);
    const ApiResponse &response = call->response();
    const QString id = dialog->actionId();
    const QString kind = dialog->kind();
    const QString draftKey = DraftStore::keyFor(kind, id);
    const bool visible = dialog->isVisible();
    const auto done = [this, dialog, visible] {
        if (!visible && m_dialog != dialog)
            dialog->deleteLater();
    };

    if (response.error.kind == ApiError::Kind::Cancelled || response.error.responseLost()) {
        // Unknown whether it was applied: the key stays with the draft, so sending the same
        // request again replays the first answer instead of acting twice.
        dialog->setFailed(tr("Stopped waiting for the backend. Whether it received your decision is unknown; "
                             "confirm again to resend it with the same Idempotency-Key (it cannot apply twice)."));
        if (!visible)
            statusBar()->showMessage(tr("A %1 decision on %2 was not confirmed by the backend.").arg(kind, id), 15000);
        m_detailReload.start();
        done();
        return;
    }
    DraftStore other;
    DraftStore *drafts = draftsOf(origin, other);
    if (drafts)
        drafts->resolve(draftKey); // the backend answered this request: its key is spent

    if (response.ok()) {
        if (drafts)
            drafts->remove(draftKey);
        const QJsonObject body = response.object();
        const QString replayed = response.replayed ? tr(" (the backend replayed its first answer)") : QString();
        emit decisionApplied(kind, id);
        if (kind == QLatin1String("lookup")) {
            auto *lookupDialog = qobject_cast<LookupDialog *>(dialog);
            const std::optional<ProviderLookup> lookup = ProviderLookup::fromJson(body.value(QLatin1String("lookup")).toObject());
            const std::optional<ActionRecord> after = ActionRecord::fromJson(body.value(QLatin1String("action")).toObject());
            if (lookupDialog && lookup && after)
                lookupDialog->showResult(*lookup, *after);
            statusBar()->showMessage(tr("Lookup recorded for %1%2.").arg(id, replayed), 8000);
        } else if (kind == QLatin1String("follow_up")) {
            const QString newId = body.value(QLatin1String("id")).toString();
            statusBar()->showMessage(tr("Follow-up %1 proposed for %2; it needs its own approval%3.")
                                         .arg(newId, display::money(body.value(QLatin1String("amount")).toInteger(),
                                                                    body.value(QLatin1String("currency")).toString()),
                                              replayed),
                                     15000);
            dialog->accept();
            m_model->refreshAction(newId);
        } else {
            const QJsonObject approval = body.value(QLatin1String("approval")).toObject();
            QString message;
            if (kind == QLatin1String("approve"))
                message = tr("Approved %1: approval v%2, key %3. Nothing is sent until the executor claims it%4.")
                              .arg(id)
                              .arg(approval.value(QLatin1String("version")).toInt())
                              .arg(approval.value(QLatin1String("idempotency_key")).toString(), replayed);
            else if (kind == QLatin1String("reject"))
                message = tr("Rejected %1%2.").arg(id, replayed);
            else
                message = tr("Reconciled %1%2.").arg(id, replayed);
            statusBar()->showMessage(message, 15000);
            dialog->accept();
        }
        if (const QJsonObject action = body.value(QLatin1String("action")).toObject(); !action.isEmpty()) {
            if (std::optional<ActionRecord> record = ActionRecord::fromJson(action))
                m_model->refreshAction(record->id);
        }
        if (id == m_currentId)
            loadDetail(id);
        done();
        return;
    }

    const ApiError &error = response.error;
    if (error.httpStatus == 412 || error.code == QLatin1String("illegal_state")
        || error.code == QLatin1String("already_approved") || error.code == QLatin1String("already_sent")
        || error.code == QLatin1String("in_flight")) {
        // Someone else acted: reload, show what changed, let the reviewer decide again.
        dialog->setIdle();
        reloadDialogAction(dialog, error.userText());
        done();
        return;
    }
    dialog->setFailed(error.userText());
    if (!visible)
        statusBar()->showMessage(tr("%1 on %2 was refused: %3").arg(kind, id, error.userText()), 15000);
    done();
}

DraftStore *MainWindow::draftsOf(const DraftStore::Origin &origin, DraftStore &other)
{
    if (origin.session == m_drafts.origin().session
        || (!origin.fileName.isEmpty() && origin.fileName == m_drafts.fileName()))
        return &m_drafts; // the same session, or the same user's file opened again
    if (origin.fileName.isEmpty())
        return nullptr; // drafts of a session whose user was never known: forgotten with it
    other.open(origin.fileName);
    return &other;
}

void MainWindow::reloadDialogAction(DecisionDialog *dialog, const QString &why)
{
    QPointer<DecisionDialog> guard(dialog);
    ApiCall *call = m_client->action(dialog->actionId());
    connect(call, &ApiCall::finished, this, [this, guard, why](ApiCall *c) {
        if (!guard)
            return;
        const std::optional<ActionDetail> detail = c->response().ok() ? ActionDetail::fromJson(c->response().object())
                                                                       : std::nullopt;
        if (!detail) {
            guard->setFailed(why);
            return;
        }
        QStringList changes = ActionDetail::describeChanges(guard->detail(), *detail);
        if (changes.isEmpty())
            changes << why;
        guard->updateDetail(*detail, changes);
        if (detail->record.id == m_currentId)
            showDetail(*detail);
    });
}

void MainWindow::runDialogLookup(DecisionDialog *dialog)
{
    auto *reconcile = qobject_cast<ReconcileDialog *>(dialog);
    if (!reconcile)
        return;
    QPointer<ReconcileDialog> guard(reconcile);
    reconcile->setLookupRunning(true);
    ApiCall *call = m_client->lookUp(dialog->actionId(), dialog->ifMatch());
    connect(call, &ApiCall::finished, this, [this, guard](ApiCall *c) {
        if (!guard)
            return;
        guard->setLookupRunning(false);
        if (!c->response().ok() && c->response().error.httpStatus != 412) {
            guard->setFailed(c->response().error.userText());
            return;
        }
        // The new lookup (or whatever else changed) arrives with the action.
        QPointer<ReconcileDialog> inner = guard;
        ApiCall *reload = m_client->action(guard->actionId());
        connect(reload, &ApiCall::finished, this, [this, inner](ApiCall *r) {
            if (!inner || !r->response().ok())
                return;
            if (const std::optional<ActionDetail> detail = ActionDetail::fromJson(r->response().object())) {
                const bool versionChanged = detail->record.stateVersion != inner->ifMatch();
                inner->updateDetail(*detail, versionChanged ? ActionDetail::describeChanges(inner->detail(), *detail)
                                                            : QStringList());
                if (!detail->lookups.isEmpty())
                    inner->selectEvidence(detail->lookups.last().seq);
                if (detail->record.id == m_currentId)
                    showDetail(*detail);
            }
        });
    });
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
    connect(&dialog, &ConnectionDialog::testRequested, &dialog, [&dialog](const QUrl &url, const QString &token) {
        auto *probe = new ApiClient(&dialog);
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
    m_drafts.close(); // another backend (or user): its drafts are read once /me answers
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
    m_drafts.close(); // perhaps another user: their drafts are read once /me answers
    updateDecisionActions();
    start();
    if (!m_currentId.isEmpty())
        loadDetail(m_currentId);
}

// ---- screenshots ---------------------------------------------------------------------------

void MainWindow::scheduleScreenshot(const QString &path, const QString &actionId, const QString &tab)
{
    m_screenshotPath = path;
    m_screenshotAction = actionId;
    m_screenshotTab = tab;
    if (!actionId.isEmpty()) {
        connect(m_model, &ActionQueueModel::pageLoaded, this, [this] {
            if (!m_screenshotAction.isEmpty() && m_currentId != m_screenshotAction)
                selectAction(m_screenshotAction);
        });
    }
    maybeTakeScreenshot();
}

void MainWindow::maybeTakeScreenshot()
{
    if (m_screenshotPath.isEmpty() || !m_firstPageShown)
        return;
    if (!m_screenshotAction.isEmpty()) {
        if (m_currentId != m_screenshotAction) {
            selectAction(m_screenshotAction);
            return;
        }
        if (!m_pane->hasDetail() || m_pane->detail().record.id != m_screenshotAction)
            return;
    } else if (!m_pane->hasDetail()) {
        return;
    }
    static const QHash<QString, ActionDetailPane::Tab> tabs{
        { QStringLiteral("overview"), ActionDetailPane::OverviewTab },
        { QStringLiteral("evidence"), ActionDetailPane::EvidenceTab },
        { QStringLiteral("approvals"), ActionDetailPane::ApprovalsTab },
        { QStringLiteral("reconciliations"), ActionDetailPane::ReconciliationsTab },
        { QStringLiteral("audit"), ActionDetailPane::AuditTab },
        { QStringLiteral("related"), ActionDetailPane::RelatedTab },
        { QStringLiteral("diff"), ActionDetailPane::DiffTab },
    };
    if (tabs.contains(m_screenshotTab))
        m_pane->showTab(tabs.value(m_screenshotTab));
    const QString path = m_screenshotPath;
    m_screenshotPath.clear();
    // Let layouts and the last paint settle.
    QTimer::singleShot(600, this, [this, path] {
        const QPixmap picture = grab();
        const bool ok = picture.save(path);
        qCInfo(lcUi) << "screenshot" << path << (ok ? "saved" : "FAILED");
        emit screenshotSaved(path, ok);
    });
}

} // namespace cs
