#include "ui/queueview.h"
#include "ui/flowlayout.h"
#include "models/actionqueuemodel.h"
#include "ui/queueitemdelegate.h"
#include "ui/statepalette.h"

#include <QAction>
#include <QButtonGroup>
#include <algorithm>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QToolButton>
#include <QTableView>
#include <QStyle>
#include <QVBoxLayout>

namespace cs {

QueueView::QueueView(ActionQueueModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);

    // Quick filters with counts.
    // A flow: in a longer language, or with "Two refunds" shown, the filters take a second line
    // rather than widening the window past the screen.
    auto *filterRow = new FlowLayout(4, 4);
    m_filters = new QButtonGroup(this);
    m_filters->setExclusive(true);
    const struct { Filter filter; const char *key; const char *name; const char *shortcut; } filters[] = {
        { Filter::Queue, "Queue", QT_TR_NOOP("Queue"), "Ctrl+1" },
        { Filter::Pending, "Pending", QT_TR_NOOP("Pending"), "Ctrl+2" },
        { Filter::Unknown, "Unknown", QT_TR_NOOP("Unknown"), "Ctrl+3" },
        { Filter::Review, "Review", QT_TR_NOOP("Review"), "Ctrl+4" },
        { Filter::All, "All", QT_TR_NOOP("All"), "Ctrl+5" },
        // Issue 18: not a state (they stay COMPLETED) but work for a supervisor, so a filter of its own.
        { Filter::RefundFailed, "RefundFailed", QT_TR_NOOP("Refund failed"), "Ctrl+6" },
        // Issue 33: money may have gone out twice; they keep their state, a supervisor looks.
        { Filter::TwoRefunds, "TwoRefunds", QT_TR_NOOP("Two refunds"), "Ctrl+7" },
    };
    for (const auto &f : filters) {
        auto *button = new QToolButton(this);
        button->setCheckable(true);
        button->setAutoRaise(false);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        button->setMinimumHeight(28);
        button->setObjectName(QStringLiteral("filter") + QString::fromLatin1(f.key));
        button->setProperty("filterLabel", tr(f.name));
        button->setText(tr(f.name));
        button->setAccessibleName(tr("Show %1").arg(tr(f.name)));
        m_filters->addButton(button, int(f.filter));
        m_filterButtons.insert(f.filter, button);
        filterRow->addWidget(button);
        // The key is an action's, not the button's: QAbstractButton::setText() replaces a button's
        // shortcut with its text's mnemonic, and the counts rewrite the text. It leaves the
        // keyboard in the table, where the arrows move through what the filter shows.
        auto *key = new QAction(this);
        key->setObjectName(QStringLiteral("filter%1Shortcut").arg(QString::fromLatin1(f.key)));
        key->setShortcut(QKeySequence(QString::fromLatin1(f.shortcut)));
        key->setShortcutContext(Qt::WindowShortcut);
        connect(key, &QAction::triggered, this, [this, filter = f.filter] {
            apply(filter, searchText());
            focusTable();
        });
        addAction(key);
    }
    m_filterButtons.value(Filter::Queue)->setToolTip(tr("Pending, confirmation unknown and requires review (Ctrl+1)"));
    m_filterButtons.value(Filter::Pending)->setToolTip(tr("Awaiting approval, or approved and queued (Ctrl+2)"));
    m_filterButtons.value(Filter::Unknown)->setToolTip(tr("Confirmation unknown: a request may have reached the provider (Ctrl+3)"));
    m_filterButtons.value(Filter::Review)->setToolTip(tr("Requires review: a supervisor must decide with evidence (Ctrl+4)"));
    m_filterButtons.value(Filter::All)->setToolTip(tr("Every action in every state (Ctrl+5)"));
    m_filterButtons.value(Filter::RefundFailed)
        ->setToolTip(tr("Refunds the provider accepted that then failed or were canceled: the customer has not been "
                        "refunded. They stay COMPLETED; a supervisor decides whether to propose them again (Ctrl+6)"));
    m_filterButtons.value(Filter::TwoRefunds)
        ->setToolTip(tr("Actions the provider holds two refunds for (or a refund that contradicts them): money may have "
                        "gone out twice. They keep their state; a supervisor checks and closes each with a note (Ctrl+7)"));
    layout->addLayout(filterRow);

    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("searchEdit"));
    m_search->setPlaceholderText(tr("Search order, charge, action id, agent  (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_search->setAccessibleName(tr("Search the queue"));
    m_search->installEventFilter(this);
    layout->addWidget(m_search);

    // A table, not a tree: QTreeView asks for more rows on every layout of its root, which would
    // page through the whole queue; QTableView asks only when the last row comes into view.
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("queueTable"));
    m_table->setAccessibleName(tr("Action queue"));
    m_table->setModel(m_model);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    // The backend sorts (ActionQuery::sort): a header click asks for the list in that order
    // instead of sorting the loaded rows (onSortIndicatorChanged).
    m_table->setSortingEnabled(false);
    // Several rows for a bulk decision (Shift/Ctrl with the mouse or the arrows, Ctrl+Space,
    // Ctrl+A); the current row is the one the detail pane shows.
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->setTabKeyNavigation(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 12);
    m_table->setItemDelegate(new QueueItemDelegate(ActionQueueModel::StateColumn,
                                                   { ActionQueueModel::AmountColumn, ActionQueueModel::TargetColumn,
                                                     ActionQueueModel::IdColumn },
                                                   m_table));
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionsClickable(true);
    header->setSortIndicatorShown(true);
    showSortIndicator();
    connect(header, &QHeaderView::sortIndicatorChanged, this, &QueueView::onSortIndicatorChanged);
    header->setSectionsMovable(true);
    header->setStretchLastSection(true);
    header->setHighlightSections(false);
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    // Visual order: what a reviewer scans first; the long identifiers to the right.
    const int widths[ActionQueueModel::ColumnCount] = { 206, 104, 220, 92, 112, 50, 70, 88, 240 };
    // Never narrower than its title ("Letztes Ereignis"), with room for the sort arrow.
    const int titleRoom = 2 * style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header)
        + style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header) + 12;
    for (int c = 0; c < ActionQueueModel::ColumnCount; ++c) {
        const QString title = m_model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        m_table->setColumnWidth(c, std::max(widths[c], header->fontMetrics().horizontalAdvance(title) + titleRoom));
    }
    const int order[] = { ActionQueueModel::StateColumn, ActionQueueModel::AmountColumn, ActionQueueModel::OrderColumn,
                          ActionQueueModel::AgentColumn, ActionQueueModel::AgeColumn, ActionQueueModel::AttemptsColumn,
                          ActionQueueModel::LastEventColumn, ActionQueueModel::TargetColumn, ActionQueueModel::IdColumn };
    for (int visual = 0; visual < ActionQueueModel::ColumnCount; ++visual)
        header->moveSection(header->visualIndex(order[visual]), visual);
    layout->addWidget(m_table, 1);

    auto *statusRow = new QHBoxLayout;
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("queueStatusLabel"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_retry = new QPushButton(tr("Retry"), this);
    m_retry->setObjectName(QStringLiteral("queueRetryButton"));
    m_retry->setVisible(false);
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(m_retry);
    layout->addLayout(statusRow);

    m_searchTimer.setSingleShot(true);
    m_searchTimer.setInterval(300);
    connect(&m_searchTimer, &QTimer::timeout, this, [this] { apply(m_filter, searchText()); });
    connect(m_search, &QLineEdit::textEdited, this, &QueueView::startSearchTimer);
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        m_searchTimer.stop();
        apply(m_filter, searchText());
        focusTable();
    });
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString &text) {
        if (text.isEmpty() && !m_searchTimer.isActive())
            startSearchTimer(); // the clear button
    });
    connect(m_filters, &QButtonGroup::idClicked, this, [this](int id) { apply(Filter(id), searchText()); });
    connect(m_retry, &QPushButton::clicked, m_model, &ActionQueueModel::retry);

    connect(m_model, &ActionQueueModel::countsChanged, this, &QueueView::updateCounts);
    connect(m_model, &ActionQueueModel::loadingChanged, this, &QueueView::updateStatus);
    connect(m_model, &ActionQueueModel::loadFailed, this, &QueueView::updateStatus);
    connect(m_model, &ActionQueueModel::pageLoaded, this, [this] {
        updateStatus();
        restoreSelection();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &QueueView::onCurrentChanged);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &QueueView::selectionChanged);

    // New rows above the visible ones must not push what the reviewer looks at out of view:
    // the scroll position moves down by the rows inserted above the top one. Several inserts
    // may come before the view lays itself out again, so the shift accumulates.
    connect(m_model, &QAbstractItemModel::rowsAboutToBeInserted, this, [this](const QModelIndex &, int first, int) {
        const int top = m_table->rowAt(0);
        m_insertAboveTop = top >= 0 && first <= top
            && (m_scrollTarget >= 0 || m_table->verticalScrollBar()->value() > 0);
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) {
        if (!m_insertAboveTop)
            return;
        m_insertAboveTop = false;
        const int rowHeight = m_table->verticalHeader()->defaultSectionSize();
        const int shift = (last - first + 1) * rowHeight;
        QScrollBar *bar = m_table->verticalScrollBar();
        const bool scheduled = m_scrollTarget >= 0;
        m_scrollTarget = (scheduled ? m_scrollTarget : bar->value()) + shift;
        if (!scheduled) {
            QTimer::singleShot(0, this, [this, bar] {
                bar->setValue(m_scrollTarget);
                m_scrollTarget = -1;
            });
        }
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { updateStatus(); });

    m_filterButtons.value(Filter::Queue)->setChecked(true);
    updateCounts();
    updateStatus();
}

QString QueueView::filterName(Filter filter)
{
    switch (filter) {
    case Filter::Queue:
        return QStringLiteral("queue");
    case Filter::Pending:
        return QStringLiteral("pending");
    case Filter::Unknown:
        return QStringLiteral("unknown");
    case Filter::Review:
        return QStringLiteral("review");
    case Filter::All:
        return QStringLiteral("all");
    case Filter::RefundFailed:
        return QStringLiteral("refund_failed");
    case Filter::TwoRefunds:
        return QStringLiteral("two_refunds");
    }
    return QStringLiteral("queue");
}

QueueView::Filter QueueView::filterFromName(const QString &name)
{
    for (Filter f : { Filter::Queue, Filter::Pending, Filter::Unknown, Filter::Review, Filter::All, Filter::RefundFailed,
                      Filter::TwoRefunds }) {
        if (filterName(f) == name)
            return f;
    }
    return Filter::Queue;
}

ActionQuery QueueView::queryFor(Filter filter, const QString &search)
{
    ActionQuery query;
    switch (filter) {
    case Filter::Queue:
        query = ActionQuery::queue();
        break;
    case Filter::Pending:
        query.states = { ActionState::Pending };
        break;
    case Filter::Unknown:
        query.states = { ActionState::ConfirmationUnknown };
        break;
    case Filter::Review:
        query.states = { ActionState::RequiresReview };
        break;
    case Filter::All:
        break;
    case Filter::RefundFailed:
        query.settlementReview = true; // every one is COMPLETED: no state filter needed
        break;
    case Filter::TwoRefunds:
        query.discrepancyOpen = true; // COMPLETED or REJECTED: no state filter needed
        break;
    }
    query.search = search.trimmed();
    return query;
}

QString QueueView::searchText() const
{
    return m_search->text().trimmed();
}

void QueueView::apply(Filter filter, const QString &search)
{
    m_filter = filter;
    if (QToolButton *button = m_filterButtons.value(filter); button && !button->isChecked())
        button->setChecked(true);
    updateTwoRefundsVisibility();
    if (m_search->text().trimmed() != search.trimmed())
        m_search->setText(search);
    m_searchTimer.stop();
    ActionQuery query = queryFor(filter, search);
    query.sort = m_sort;
    query.descending = m_descending;
    m_model->setQuery(query);
    emit filterChanged(filter, search.trimmed());
}

void QueueView::setSort(ActionQuery::SortKey key, bool descending)
{
    if (key == m_sort && descending == m_descending)
        return;
    m_sort = key;
    m_descending = descending;
    showSortIndicator();
    apply(m_filter, searchText());
}

void QueueView::showSortIndicator()
{
    // The age column's ascending order is the newest first: created_at descending.
    const bool byAge = m_sort == ActionQuery::SortKey::CreatedAt;
    const Qt::SortOrder order = (m_descending != byAge) ? Qt::DescendingOrder : Qt::AscendingOrder;
    const QSignalBlocker blocker(m_table->horizontalHeader());
    m_table->horizontalHeader()->setSortIndicator(ActionQueueModel::columnForSortKey(m_sort), order);
}

void QueueView::onSortIndicatorChanged(int column, Qt::SortOrder order)
{
    const std::optional<ActionQuery::SortKey> key = ActionQueueModel::sortKeyForColumn(column);
    if (!key) {
        showSortIndicator(); // the backend cannot sort by this column: keep the current order
        return;
    }
    const bool byAge = *key == ActionQuery::SortKey::CreatedAt;
    setSort(*key, (order == Qt::DescendingOrder) != byAge);
}

bool QueueView::selectAction(const QString &actionId)
{
    const int sourceRow = m_model->rowOf(actionId);
    if (sourceRow < 0)
        return false;
    const QModelIndex index = m_model->index(sourceRow, 0);
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index);
    return true;
}

QStringList QueueView::selectedActionIds() const
{
    QList<int> rows;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        rows.append(index.row());
    std::sort(rows.begin(), rows.end());
    QStringList ids;
    for (int row : std::as_const(rows))
        ids.append(m_model->index(row, 0).data(ActionQueueModel::ActionIdRole).toString());
    return ids;
}

QByteArray QueueView::headerState() const
{
    return m_table->horizontalHeader()->saveState();
}

void QueueView::restoreHeaderState(const QByteArray &state)
{
    if (state.isEmpty())
        return;
    QHeaderView *header = m_table->horizontalHeader();
    {
        const QSignalBlocker blocker(header);
        header->restoreState(state);
    }
    // The remembered order applies from the next page request on (the first one, at start).
    const std::optional<ActionQuery::SortKey> key = ActionQueueModel::sortKeyForColumn(header->sortIndicatorSection());
    if (key) {
        m_sort = *key;
        const bool byAge = *key == ActionQuery::SortKey::CreatedAt;
        m_descending = (header->sortIndicatorOrder() == Qt::DescendingOrder) != byAge;
    }
    showSortIndicator();
}

void QueueView::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

void QueueView::focusTable()
{
    m_table->setFocus(Qt::OtherFocusReason);
    if (!m_table->currentIndex().isValid() && m_model->rowCount() > 0)
        m_table->setCurrentIndex(m_model->index(0, 0));
}

bool QueueView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_search && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Down || key->key() == Qt::Key_Escape) {
            if (key->key() == Qt::Key_Escape && !m_search->text().isEmpty()) {
                m_search->clear();
                apply(m_filter, QString());
            }
            focusTable();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void QueueView::startSearchTimer()
{
    m_searchTimer.start();
}

// "Two refunds" is an exception that pages at once (issue 33): its button stands in the row while
// there is one, or while it is the filter shown, so the row of everyday filters stays as narrow as
// it was. Ctrl+7 works either way.
void QueueView::updateTwoRefundsVisibility()
{
    QToolButton *button = m_filterButtons.value(Filter::TwoRefunds);
    button->setVisible(m_model->counts().discrepancies() > 0 || m_filter == Filter::TwoRefunds);
}

void QueueView::updateCounts()
{
    const StateCounts counts = m_model->counts();
    const QLocale locale;
    const auto label = [&](Filter f, qint64 n) {
        QToolButton *button = m_filterButtons.value(f);
        const QString name = button->property("filterLabel").toString();
        button->setText(QStringLiteral("%1  %2").arg(name, locale.toString(n)));
        button->setAccessibleDescription(tr("%n action(s)", nullptr, int(qMin<qint64>(n, INT_MAX))));
    };
    label(Filter::Queue, counts.queueTotal());
    label(Filter::Pending, counts.count(ActionState::Pending));
    label(Filter::Unknown, counts.count(ActionState::ConfirmationUnknown));
    label(Filter::Review, counts.count(ActionState::RequiresReview));
    label(Filter::All, counts.total());
    label(Filter::RefundFailed, counts.settlementReview());
    label(Filter::TwoRefunds, counts.discrepancies());
    updateTwoRefundsVisibility();
    updateStatus();
}

void QueueView::updateStatus()
{
    const QLocale locale;
    const int loaded = m_model->rowCount();
    m_retry->setVisible(m_model->hasFailed());
    if (m_model->hasFailed()) {
        m_status->setText(tr("Could not load: %1").arg(m_model->lastError()));
        return;
    }
    QString text;
    if (m_model->isLoading())
        text = loaded == 0 ? tr("Loading\u2026") : tr("%1 shown \u00b7 loading more\u2026").arg(locale.toString(loaded));
    else if (loaded == 0)
        text = searchText().isEmpty() ? tr("Nothing here.") : tr("No action matches \u201c%1\u201d.").arg(searchText());
    else if (m_model->hasMore())
        text = tr("%1 shown \u00b7 scroll for more").arg(locale.toString(loaded));
    else
        text = tr("%1 shown \u00b7 all loaded").arg(locale.toString(loaded));
    m_status->setText(text);
}

void QueueView::onCurrentChanged()
{
    const QModelIndex current = m_table->currentIndex();
    const QString id = current.isValid() ? current.data(ActionQueueModel::ActionIdRole).toString() : QString();
    if (id.isEmpty() && !m_selectedId.isEmpty() && m_model->rowCount() == 0)
        return; // a reload emptied the table: keep the selection to restore it
    if (id == m_selectedId)
        return;
    m_selectedId = id;
    emit currentActionChanged(id);
}

void QueueView::restoreSelection()
{
    if (m_selectedId.isEmpty())
        return;
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && current.data(ActionQueueModel::ActionIdRole).toString() == m_selectedId)
        return;
    const int sourceRow = m_model->rowOf(m_selectedId);
    if (sourceRow < 0)
        return;
    const QModelIndex index = m_model->index(sourceRow, 0);
    const QSignalBlocker blocker(m_table->selectionModel());
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->viewport()->update();
}

} // namespace cs
