#include "ui/queueview.h"
#include "ui/flowlayout.h"
#include "models/actionqueuemodel.h"
#include "ui/queueitemdelegate.h"
#include "ui/statepalette.h"

#include <QAction>
#include <QButtonGroup>
#include <QCursor>
#include <algorithm>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
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
    m_filterButtons.value(Filter::Queue)
        ->setToolTip(tr("What awaits a decision: pending approval, confirmation unknown and requires review (Ctrl+1)"));
    m_filterButtons.value(Filter::Pending)
        ->setToolTip(tr("Awaiting approval (approved ones waiting for the executor are under All) (Ctrl+2)"));
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
    m_search->setPlaceholderText(tr("Search order, charge, amount, agent, action id  (Ctrl+F)"));
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
    // New rows out of view: announced here, never by moving what the person reads.
    m_newButton = new QToolButton(this);
    m_newButton->setObjectName(QStringLiteral("queueNewButton"));
    m_newButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_newButton->setVisible(false);
    connect(m_newButton, &QToolButton::clicked, this, &QueueView::showUnseen);
    statusRow->addWidget(m_status, 1);
    statusRow->addWidget(m_newButton);
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
        updateUnseen();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &QueueView::onCurrentChanged);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updatePins();
        emit selectionChanged();
        emit targetChanged();
    });

    // What the person reads holds still: every change of the rows keeps the anchor row (under the
    // pointer, else the current row in view, else the top row) where it was on the screen.
    connect(m_model, &QAbstractItemModel::rowsAboutToBeInserted, this, &QueueView::holdAnchor);
    connect(m_model, &QAbstractItemModel::rowsAboutToBeRemoved, this, &QueueView::holdAnchor);
    connect(m_model, &QAbstractItemModel::rowsAboutToBeMoved, this, &QueueView::holdAnchor);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &QueueView::restoreAnchor);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &QueueView::restoreAnchor);
    connect(m_model, &QAbstractItemModel::rowsMoved, this, &QueueView::restoreAnchor);
    connect(m_model, &ActionQueueModel::arrived, this, &QueueView::onArrived);
    connect(m_table->verticalScrollBar(), &QScrollBar::valueChanged, this, &QueueView::updateUnseen);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_anchor.reset();
        m_unseen.clear();
        m_beyond.clear();
        updateUnseen();
        updateStatus();
    });
    m_table->installEventFilter(this);

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

QString QueueView::searchParameter(const QString &text, const QLocale &locale)
{
    const QString typed = text.trimmed();
    static const QRegularExpression digits(QStringLiteral("^[0-9]+$"));
    const QString point = locale.decimalPoint();
    const QString group = locale.groupSeparator();
    const qsizetype at = typed.lastIndexOf(point);
    QString whole = at >= 0 ? typed.left(at) : typed;
    const QString fraction = at >= 0 ? typed.mid(at + point.size()) : QString();
    if (at >= 0 && (fraction.isEmpty() || fraction.size() > 4 || !digits.match(fraction).hasMatch()))
        return typed;
    if (!group.isEmpty() && whole.contains(group)) {
        // Grouped as the locale groups: 1 to 3 digits, then groups of three.
        const QStringList parts = whole.split(group);
        if (parts.first().isEmpty() || parts.first().size() > 3)
            return typed;
        for (qsizetype i = 1; i < parts.size(); ++i) {
            if (parts.at(i).size() != 3)
                return typed;
        }
        whole = parts.join(QString());
    }
    if (whole.size() > 15 || !digits.match(whole).hasMatch())
        return typed;
    return fraction.isEmpty() ? whole : whole + QLatin1Char('.') + fraction;
}

ActionQuery QueueView::queryFor(Filter filter, const QString &search, const QLocale &locale)
{
    ActionQuery query;
    switch (filter) {
    case Filter::Queue:
        query = ActionQuery::queue();
        query.awaitingDecision = true; // to do: an approved action has left it
        break;
    case Filter::Pending:
        query.states = { ActionState::Pending };
        query.awaitingDecision = true;
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
    query.search = searchParameter(search, locale);
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

QString QueueView::currentActionId() const
{
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() ? current.data(ActionQueueModel::ActionIdRole).toString() : QString();
}

QString QueueView::target() const
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return QString();
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.size() != 1 || rows.first().row() != current.row())
        return QString();
    return current.data(ActionQueueModel::ActionIdRole).toString();
}

void QueueView::selectRow(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    const QModelIndex index = m_model->index(row, 0);
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index);
}

// Shift with a jump: the selection grows from the current row to `row`, which becomes current.
void QueueView::extendTo(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    QItemSelectionModel *selection = m_table->selectionModel();
    const QModelIndex from = m_table->currentIndex().isValid() ? m_table->currentIndex() : m_model->index(0, 0);
    const QModelIndex to = m_model->index(row, 0);
    selection->select(QItemSelection(from, to), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    selection->setCurrentIndex(to, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    m_table->scrollTo(to);
}

bool QueueView::selectAction(const QString &actionId)
{
    if (actionId.isEmpty())
        return false;
    const int row = m_model->rowOf(actionId);
    if (row >= 0) {
        m_revealId.clear();
        selectRow(row);
        return true;
    }
    // Not loaded: its row is asked for; once the answer is applied it is selected if the list
    // shows it (the model inserted it), else the list changes to one that does.
    m_revealId = actionId;
    m_model->refreshAction(actionId);
    auto *once = new QObject(this);
    connect(m_model, &ActionQueueModel::summaryAnswered, once, [this, once, actionId](const QString &id, bool found) {
        if (id != actionId)
            return;
        once->deleteLater();
        if (m_revealId != actionId)
            return; // another selection meanwhile
        if (const int row = m_model->rowOf(actionId); row >= 0) {
            m_revealId.clear();
            selectRow(row);
        } else if (!found) {
            m_revealId.clear();
            m_status->setText(tr("That action does not exist or you may not see it."));
        } else {
            // Not in this list (another state, or a page further on): All, searched by its id;
            // restoreSelection() selects it when the page arrives.
            apply(Filter::All, actionId);
        }
    });
    return false;
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

QString QueueView::advanceFrom(const QString &actionId, const QString &user)
{
    const int from = m_model->rowOf(actionId);
    if (from < 0)
        return QString();
    const auto waits = [&](int row) {
        const QString id = m_model->index(row, 0).data(ActionQueueModel::ActionIdRole).toString();
        return id != actionId && !m_model->hasLeft(id) && ActionQueueModel::awaitsDecision(m_model->summary(row), user);
    };
    int next = -1;
    for (int row = from + 1; row < m_model->rowCount() && next < 0; ++row) {
        if (waits(row))
            next = row;
    }
    for (int row = from - 1; row >= 0 && next < 0; --row) {
        if (waits(row))
            next = row;
    }
    if (next < 0)
        return QString();
    selectRow(next);
    return currentActionId();
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
        selectRow(0);
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
    // Jumps select, as the arrows do: Home/End (a table's would only change the column) and
    // Ctrl+Home/End (a table's move the current row without the selection, so the row shown
    // would not be the row highlighted). With Shift they extend the selection.
    if (watched == m_table && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if ((key->key() == Qt::Key_Home || key->key() == Qt::Key_End) && m_model->rowCount() > 0
            && !(key->modifiers() & ~(Qt::ControlModifier | Qt::ShiftModifier | Qt::KeypadModifier))) {
            const int row = key->key() == Qt::Key_Home ? 0 : m_model->rowCount() - 1;
            if (key->modifiers() & Qt::ShiftModifier)
                extendTo(row);
            else
                selectRow(row);
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
    // Approved actions waiting for the executor are no one's to decide: not counted as to do.
    label(Filter::Queue, counts.queueTotal() - counts.queued());
    label(Filter::Pending, counts.count(ActionState::Pending) - counts.queued());
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
    updatePins();
    emit targetChanged();
    const QString id = currentActionId();
    if (id.isEmpty() && m_model->rowCount() == 0 && (m_model->isLoading() || !m_revealId.isEmpty()))
        return; // a reset emptied the table: what was held is restored when the rows are back
    if (!m_revealId.isEmpty() && id != m_revealId && !id.isEmpty())
        m_revealId.clear(); // the person moved on
    if (id == m_heldId && !id.isEmpty())
        return;
    m_heldId = id;
    emit currentActionChanged(id);
}

// After a page or a reset: the action held stays current when its row is here; else (a filter
// that does not show it) the first row becomes current, so that the detail never shows an action
// the list does not highlight. An empty list has no current row and says so.
void QueueView::restoreSelection()
{
    const QString wanted = !m_revealId.isEmpty() ? m_revealId : m_heldId;
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && current.data(ActionQueueModel::ActionIdRole).toString() == wanted && !wanted.isEmpty())
        return;
    if (const int row = wanted.isEmpty() ? -1 : m_model->rowOf(wanted); row >= 0) {
        m_revealId.clear();
        selectRow(row);
        return;
    }
    if (current.isValid())
        return; // the person is on a row already
    if (!m_revealId.isEmpty() && (m_model->isLoading() || m_model->hasMore()))
        return; // still on its way
    m_revealId.clear();
    if (m_model->rowCount() > 0) {
        selectRow(0);
        return;
    }
    if (!m_model->isLoading() && !m_heldId.isEmpty()) {
        m_heldId.clear();
        emit currentActionChanged(QString());
    }
}

void QueueView::updatePins()
{
    QSet<QString> pins;
    for (const QString &id : selectedActionIds())
        pins.insert(id);
    if (const QString current = currentActionId(); !current.isEmpty())
        pins.insert(current);
    m_model->setPinned(pins);
}

QueueView::Anchor QueueView::anchor() const
{
    QWidget *viewport = m_table->viewport();
    int row = -1;
    const QPoint pointer = viewport->mapFromGlobal(QCursor::pos());
    if (viewport->underMouse() && viewport->rect().contains(pointer))
        row = m_table->rowAt(pointer.y());
    if (row < 0) {
        const QModelIndex current = m_table->currentIndex();
        if (current.isValid()) {
            const int y = m_table->rowViewportPosition(current.row());
            if (y >= 0 && y < viewport->height())
                row = current.row();
        }
    }
    if (row < 0)
        row = m_table->rowAt(0);
    if (row < 0)
        return {};
    return { m_model->index(row, 0).data(ActionQueueModel::ActionIdRole).toString(), m_table->rowViewportPosition(row) };
}

void QueueView::holdAnchor()
{
    if (!m_anchor)
        m_anchor = anchor();
}

void QueueView::restoreAnchor()
{
    if (!m_anchor)
        return;
    const Anchor held = *m_anchor;
    m_anchor.reset();
    const int row = held.actionId.isEmpty() ? -1 : m_model->rowOf(held.actionId);
    if (row < 0)
        return;
    // The scroll range follows the rows only at the next layout: lay out now, so that the position
    // is set before anything (a click) can land on a row that moved.
    m_table->doItemsLayout();
    const int shift = m_table->rowViewportPosition(row) - held.y;
    if (shift != 0) {
        QScrollBar *bar = m_table->verticalScrollBar();
        bar->setValue(bar->value() + shift);
    }
}

void QueueView::onArrived(const QString &actionId, bool loaded)
{
    m_unseen.insert(actionId);
    if (!loaded)
        m_beyond.insert(actionId);
    updateUnseen();
}

// Arrivals that have been in view are seen; those that left the list are forgotten.
void QueueView::updateUnseen()
{
    if (!m_unseen.isEmpty()) {
        const int height = m_table->viewport()->height();
        const bool shown = isVisible();
        for (auto it = m_unseen.begin(); it != m_unseen.end();) {
            const int row = m_model->rowOf(*it);
            if (row >= 0)
                m_beyond.remove(*it);
            const int y = row >= 0 ? m_table->rowViewportPosition(row) : -1;
            const bool inView = shown && row >= 0 && y >= 0 && y + m_table->rowHeight(row) <= height;
            if (inView || (row < 0 && !m_beyond.contains(*it))) {
                m_beyond.remove(*it);
                it = m_unseen.erase(it);
            } else {
                ++it;
            }
        }
    }
    const int n = int(m_unseen.size());
    m_newButton->setVisible(n > 0);
    if (n == 0)
        return;
    // Where the nearest of them is: above the rows in view, or below.
    bool above = false;
    for (const QString &id : std::as_const(m_unseen)) {
        const int row = m_model->rowOf(id);
        if (row >= 0 && m_table->rowViewportPosition(row) < 0)
            above = true;
    }
    m_newButton->setText((above ? QStringLiteral("\u2191 ") : QStringLiteral("\u2193 ")) + tr("%n new", nullptr, n));
    m_newButton->setToolTip(tr("%n action(s) arrived out of view; click to show them", nullptr, n));
    m_newButton->setAccessibleName(tr("%n new action(s) out of view", nullptr, n));
}

// Scrolls to the first arrival not yet in view (in the list's order); when none is loaded yet,
// to the end, where the next page brings them.
void QueueView::showUnseen()
{
    int first = -1;
    for (const QString &id : std::as_const(m_unseen)) {
        const int row = m_model->rowOf(id);
        if (row >= 0 && (first < 0 || row < first))
            first = row;
    }
    if (first >= 0)
        m_table->scrollTo(m_model->index(first, 0), QAbstractItemView::PositionAtCenter);
    else
        m_table->scrollToBottom();
    updateUnseen();
}

} // namespace cs
