#include "ui/attentioncontroller.h"
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actiondetail.h"
#include "models/actionqueuemodel.h"
#include "ui/consolesettings.h"
#include "ui/mainwindow.h"
#include "ui/queueview.h"
#include "ui/trayindicator.h"
#include "ui/uilog.h"

#include <QAction>
#include <QActionGroup>
#include <QLabel>
#include <QMenu>
#include <QStatusBar>
#include <QToolButton>

namespace cs {

namespace {

QueueView::Filter filterFor(AttentionNotifier::Kind kind)
{
    switch (kind) {
    case AttentionNotifier::Kind::Review:
        return QueueView::Filter::Review;
    case AttentionNotifier::Kind::Unknown:
        return QueueView::Filter::Unknown;
    case AttentionNotifier::Kind::Settlement:
        return QueueView::Filter::RefundFailed;
    case AttentionNotifier::Kind::Approval:
        break;
    }
    return QueueView::Filter::Pending;
}

QString intervalText(int seconds)
{
    return seconds < 60 ? AttentionController::tr("%n second(s)", nullptr, seconds)
                        : AttentionController::tr("%n minute(s)", nullptr, seconds / 60);
}

} // namespace

AttentionController::AttentionController(MainWindow *window, ApiClient *client, EventStreamClient *events,
                                         ConsoleSettings *settings)
    : QObject(window)
    , m_window(window)
    , m_client(client)
    , m_settings(settings)
{
    ActionQueueModel *model = window->queueModel();

    m_noticesAction = new QAction(tr("Desktop &notifications"), this);
    m_noticesAction->setObjectName(QStringLiteral("noticesAction"));
    m_noticesAction->setCheckable(true);
    m_noticesAction->setStatusTip(
        tr("Tell me on the desktop when an action starts waiting for me (the title and the tray count it either way)"));
    m_noticesAction->setChecked(m_settings->notificationsEnabled);
    m_notifier.setNoticesEnabled(m_noticesAction->isChecked());
    connect(m_noticesAction, &QAction::toggled, this, [this](bool on) {
        m_settings->notificationsEnabled = on;
        m_notifier.setNoticesEnabled(on);
    });

    m_intervalGroup = new QActionGroup(this);
    QList<int> choices = intervalChoices();
    int interval = m_settings->notificationInterval;
    if (!m_notifier.setIntervalSeconds(interval)) {
        qCWarning(lcUi) << "setting" << m_settings->notificationInterval.key() << "=" << interval
                        << "is not 0 to" << AttentionNotifier::MaxIntervalSeconds << "seconds; using"
                        << AttentionNotifier::DefaultIntervalSeconds;
        interval = AttentionNotifier::DefaultIntervalSeconds;
        m_notifier.setIntervalSeconds(interval);
    }
    if (!choices.contains(interval)) { // a value written by hand stays choosable
        choices.append(interval);
        std::sort(choices.begin(), choices.end());
    }
    for (const int seconds : std::as_const(choices)) {
        QAction *choice = m_intervalGroup->addAction(intervalText(seconds));
        choice->setObjectName(QStringLiteral("noticeInterval%1Action").arg(seconds));
        choice->setCheckable(true);
        choice->setChecked(seconds == interval);
        choice->setData(seconds);
        connect(choice, &QAction::triggered, this, [this, seconds] { setInterval(seconds); });
    }

    m_showWaitingAction = new QAction(this);
    m_showWaitingAction->setObjectName(QStringLiteral("showWaitingAction"));
    m_showWaitingAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+N")));
    m_showWaitingAction->setShortcutContext(Qt::WindowShortcut);
    connect(m_showWaitingAction, &QAction::triggered, this, &AttentionController::openWaiting);
    window->addAction(m_showWaitingAction);
    m_statusButton = new QToolButton(window);
    m_statusButton->setObjectName(QStringLiteral("attentionIndicator"));
    m_statusButton->setDefaultAction(m_showWaitingAction);
    m_statusButton->setAutoRaise(true);
    m_statusButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_statusButton->setStyleSheet(QStringLiteral("QToolButton { color: #b3261e; font-weight: 600; padding: 0 6px; }"));
    window->statusBar()->insertPermanentWidget(0, m_statusButton);
    m_noticeLabel = new QLabel(window);
    m_noticeLabel->setObjectName(QStringLiteral("noticeLabel"));
    m_noticeLabel->setTextFormat(Qt::PlainText);
    m_noticeLabel->setStyleSheet(QStringLiteral("QLabel { padding: 0 6px; }"));
    m_noticeLabel->hide();
    window->statusBar()->insertPermanentWidget(0, m_noticeLabel);
    m_noticeHide.setSingleShot(true);
    m_noticeHide.setInterval(NoticeShownMs);
    connect(&m_noticeHide, &QTimer::timeout, m_noticeLabel, &QWidget::hide);

    m_tray = new TrayIndicator(m_noticesAction, this);
    connect(m_tray, &TrayIndicator::showRequested, this, &AttentionController::raiseWindow);
    connect(m_tray, &TrayIndicator::noticeClicked, this, &AttentionController::openLastNotice);
    connect(m_tray, &TrayIndicator::quitRequested, window, &QWidget::close);

    m_notifier.setRowLookup([model](const QString &id) -> std::optional<ActionSummary> {
        const int row = model->rowOf(id);
        if (row < 0)
            return std::nullopt;
        return model->summary(row);
    });
    connect(window, &MainWindow::identityKnown, this, [this](const QString &, const QString &role) {
        m_notifier.setRole(role);
        updateShownCounts(); // the backend may be another one
    });
    connect(model, &ActionQueueModel::countsChanged, &m_notifier, &AttentionNotifier::setCounts);
    connect(model, &ActionQueueModel::pageLoaded, this, [this, model] {
        QList<ActionSummary> rows;
        rows.reserve(model->rowCount());
        for (int row = 0; row < model->rowCount(); ++row)
            rows.append(model->summary(row));
        m_notifier.noteKnown(rows);
    });
    connect(events, &EventStreamClient::actionChanged, &m_notifier, &AttentionNotifier::noteChange);
    connect(events, &EventStreamClient::resyncRequired, &m_notifier, &AttentionNotifier::noteResync);
    connect(&m_notifier, &AttentionNotifier::countsChanged, this, &AttentionController::updateShownCounts);
    connect(&m_notifier, &AttentionNotifier::noticeReady, this, &AttentionController::showNotice);
    connect(&m_notifier, &AttentionNotifier::settlementToCheck, this, &AttentionController::checkSettlement);

    updateShownCounts();
}

AttentionController::~AttentionController() = default;

QList<QAction *> AttentionController::intervalActions() const
{
    return m_intervalGroup->actions();
}

void AttentionController::addSettingsTo(QMenu *menu)
{
    menu->addAction(m_noticesAction);
    QMenu *interval = menu->addMenu(tr("Notify at &most every"));
    interval->setObjectName(QStringLiteral("noticeIntervalMenu"));
    interval->addActions(m_intervalGroup->actions());
}

QString AttentionController::windowTitle() const
{
    return AttentionNotifier::windowTitle(m_notifier.counts(), m_client->baseUrl().toDisplayString());
}

void AttentionController::updateShownCounts()
{
    if (!m_window)
        return;
    const AttentionNotifier::Counts counts = m_notifier.counts();
    const QString waiting = AttentionNotifier::countsText(counts);
    m_window->setWindowTitle(windowTitle());
    m_showWaitingAction->setText(waiting);
    m_showWaitingAction->setToolTip(tr("Show what waits for you (%1)").arg(m_showWaitingAction->shortcut().toString(QKeySequence::NativeText)));
    m_statusButton->setAccessibleName(tr("Waiting for you: %1").arg(waiting));
    m_statusButton->setVisible(counts.total() > 0);
    m_tray->setAttention(counts.total(), waiting.isEmpty() ? tr("Countersign: nothing waits for you")
                                                           : tr("Countersign: %1").arg(waiting));
}

void AttentionController::showNotice(const AttentionNotifier::Notice &notice)
{
    m_lastNotice = notice;
    const bool onDesktop = m_tray->showNotice(notice.title, notice.text);
    // A field of its own rather than showMessage(): a notice must not wipe out what a decision or
    // the stop switch just said there.
    m_noticeLabel->setText(m_noticeLabel->fontMetrics().elidedText(notice.text, Qt::ElideRight, 480));
    m_noticeLabel->setToolTip(notice.text);
    m_noticeLabel->setAccessibleName(notice.text);
    m_noticeLabel->show();
    m_noticeHide.start();
    emit noticeShown(notice, onDesktop);
}

void AttentionController::checkSettlement(const QString &actionId)
{
    // Asynchronous like every read; a failed read only loses the notice: the count still comes
    // with the list counts, and the queue's filter lists the item.
    ApiCall *call = m_client->action(actionId);
    connect(call, &ApiCall::finished, this, [this, actionId](ApiCall *c) {
        const ApiResponse &response = c->response();
        if (!response.ok()) {
            qCDebug(lcUi) << "attention: could not read" << actionId << "for its settlement:" << response.error.userText();
            return;
        }
        QString error;
        const std::optional<ActionDetail> detail = ActionDetail::fromJson(response.object(), &error);
        if (!detail) {
            qCWarning(lcUi) << "attention: the backend's answer for" << actionId << "could not be read:" << error;
            return;
        }
        if (detail->settlement)
            m_notifier.noteSettlement(detail->record, *detail->settlement);
    });
}

void AttentionController::raiseWindow()
{
    if (!m_window)
        return;
    if (m_window->isMinimized())
        m_window->showNormal();
    m_window->show();
    m_window->raise();
    m_window->activateWindow();
}

void AttentionController::openLastNotice()
{
    if (!m_window)
        return;
    raiseWindow();
    QueueView *queue = m_window->queueView();
    const std::optional<AttentionNotifier::Kind> kind = m_lastNotice.kind;
    const QString id = m_lastNotice.actionId;
    if (!kind)
        return openWaiting();
    const QueueView::Filter wanted = filterFor(*kind);
    // The queue's own filter holds the three waiting states, not COMPLETED actions.
    const bool shown = queue->filter() == wanted || queue->filter() == QueueView::Filter::All
        || (queue->filter() == QueueView::Filter::Queue && *kind != AttentionNotifier::Kind::Settlement);
    if (id.isEmpty()) {
        if (queue->filter() != wanted)
            queue->apply(wanted, QString());
        return;
    }
    if (shown && m_window->queueModel()->rowOf(id) >= 0) {
        m_window->selectAction(id);
        return;
    }
    // Its row arrives with the first page of a filter that shows it.
    disconnect(m_selectWhenLoaded);
    m_selectWhenLoaded = connect(m_window->queueModel(), &ActionQueueModel::pageLoaded, this, [this, id] {
        disconnect(m_selectWhenLoaded);
        if (m_window)
            m_window->selectAction(id);
    });
    queue->apply(wanted, QString());
}

void AttentionController::openWaiting()
{
    if (!m_window)
        return;
    raiseWindow();
    const AttentionNotifier::Counts counts = m_notifier.counts();
    std::optional<AttentionNotifier::Kind> only;
    int kinds = 0;
    for (const auto kind : { AttentionNotifier::Kind::Review, AttentionNotifier::Kind::Unknown,
                             AttentionNotifier::Kind::Settlement, AttentionNotifier::Kind::Approval }) {
        if (counts.of(kind) > 0) {
            only = kind;
            ++kinds;
        }
    }
    const QueueView::Filter filter = kinds == 1 ? filterFor(*only) : QueueView::Filter::Queue;
    QueueView *queue = m_window->queueView();
    if (queue->filter() != filter || !queue->searchText().isEmpty())
        queue->apply(filter, QString());
    queue->focusTable();
}

void AttentionController::setInterval(int seconds)
{
    if (!m_notifier.setIntervalSeconds(seconds))
        return;
    m_settings->notificationInterval = seconds;
}

} // namespace cs
