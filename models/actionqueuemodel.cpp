#include "models/actionqueuemodel.h"
#include "models/columntitles.h"
#include "models/displayformat.h"

#include <algorithm>

namespace cs {

ActionQueueModel::ActionQueueModel(ActionPageSource *source, QObject *parent)
    : QAbstractTableModel(parent)
    , m_source(source)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
    Q_ASSERT(source);
    connect(source, &ActionPageSource::pageReady, this, &ActionQueueModel::onPageReady);
    connect(source, &ActionPageSource::pageFailed, this, &ActionQueueModel::onPageFailed);
    connect(source, &ActionPageSource::summaryReady, this, &ActionQueueModel::onSummaryReady);
    connect(source, &ActionPageSource::summaryFailed, this, &ActionQueueModel::onSummaryFailed);
    // Counts follow live changes, but a burst of events asks for them once.
    m_countsTimer.setSingleShot(true);
    m_countsTimer.setInterval(400);
    connect(&m_countsTimer, &QTimer::timeout, this, [this] {
        if (!m_source || m_countsTicket != 0)
            return;
        m_countsTicket = m_source->requestPage(m_query, QString(), 1);
    });
}

std::optional<ActionQuery::SortKey> ActionQueueModel::sortKeyForColumn(int column)
{
    switch (column) {
    case AmountColumn:
        return ActionQuery::SortKey::Amount;
    case AgeColumn:
        return ActionQuery::SortKey::CreatedAt;
    case AttemptsColumn:
        return ActionQuery::SortKey::AttemptCount;
    case LastEventColumn:
        return ActionQuery::SortKey::LastEventAt;
    default:
        return std::nullopt;
    }
}

int ActionQueueModel::columnForSortKey(ActionQuery::SortKey key)
{
    switch (key) {
    case ActionQuery::SortKey::CreatedAt:
        return AgeColumn;
    case ActionQuery::SortKey::Amount:
        return AmountColumn;
    case ActionQuery::SortKey::AttemptCount:
        return AttemptsColumn;
    case ActionQuery::SortKey::LastEventAt:
        return LastEventColumn;
    }
    return AgeColumn;
}

void ActionQueueModel::setQuery(const ActionQuery &query)
{
    beginResetModel();
    m_query = query;
    m_rows.clear();
    m_rowById.clear();
    m_left.clear();
    m_cursor.clear();
    m_hasMore = true;
    m_lastError.clear();
    m_reloading = false;
    m_staged.clear();
    // Ask before the reset is announced, so that a view (or a model tester) reacting to the
    // reset with fetchMore() finds the first page already on its way.
    m_pageTicket = m_source ? m_source->requestPage(m_query, m_cursor, m_pageSize) : 0;
    endResetModel();
    emit loadingChanged(isLoading());
}

void ActionQueueModel::reload()
{
    if (m_rows.isEmpty() || !m_source) {
        setQuery(m_query);
        return;
    }
    m_reloading = true;
    m_reloadDepth = std::max(int(m_rows.size()), m_pageSize);
    m_staged.clear();
    m_stagedCursor.clear();
    m_lastError.clear();
    m_pageTicket = m_source->requestPage(m_query, QString(), std::min(m_reloadDepth, 200));
    emit loadingChanged(true);
}

void ActionQueueModel::retry()
{
    if (isLoading())
        return;
    m_lastError.clear();
    if (m_reloading) {
        reload(); // the reload failed half-way: read it again from the top
        return;
    }
    if (m_rows.isEmpty() && m_cursor.isEmpty())
        m_hasMore = true;
    if (m_hasMore)
        requestPage();
}

void ActionQueueModel::setPageSize(int rows)
{
    m_pageSize = qBound(1, rows, 200);
}

int ActionQueueModel::rowOf(const QString &actionId) const
{
    return m_rowById.value(actionId, -1);
}

void ActionQueueModel::requestPage()
{
    if (!m_source)
        return;
    m_pageTicket = m_source->requestPage(m_query, m_cursor, m_pageSize);
    emit loadingChanged(true);
}

void ActionQueueModel::onPageReady(quint64 ticket, const ActionPage &page)
{
    if (ticket == m_countsTicket) {
        m_countsTicket = 0;
        setCounts(page.counts);
        return;
    }
    if (ticket != m_pageTicket)
        return; // a page of an earlier query
    m_pageTicket = 0;
    m_lastError.clear();
    if (m_reloading) {
        m_staged.append(page.rows);
        m_stagedCursor = page.nextCursor;
        setCounts(page.counts);
        if (m_staged.size() < m_reloadDepth && !page.nextCursor.isEmpty()) {
            m_pageTicket = m_source->requestPage(m_query, m_stagedCursor,
                                                 std::min(int(m_reloadDepth - m_staged.size()), 200));
            return;
        }
        finishReload();
        return;
    }
    // Before the rows are announced: a view reacting to rowsInserted with fetchMore() must ask
    // for the page after this one.
    m_cursor = page.nextCursor;
    m_hasMore = !page.nextCursor.isEmpty();

    // A row may already be here: it arrived live while this page was on its way.
    QList<ActionSummary> fresh;
    fresh.reserve(page.rows.size());
    for (const ActionSummary &row : page.rows) {
        const int existing = rowOf(row.id());
        if (existing < 0)
            fresh.append(row);
        else if (row.record.stateVersion >= m_rows.at(existing).record.stateVersion)
            replaceRow(existing, row);
    }
    if (!fresh.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows(QModelIndex(), first, first + int(fresh.size()) - 1);
        for (ActionSummary &row : fresh) {
            m_rowById.insert(row.id(), int(m_rows.size()));
            m_rows.append(std::move(row));
        }
        endInsertRows();
    }
    setCounts(page.counts);
    emit loadingChanged(false);
    emit pageLoaded(int(fresh.size()), m_hasMore);
}

void ActionQueueModel::finishReload()
{
    m_reloading = false;
    m_cursor = m_stagedCursor;
    m_hasMore = !m_stagedCursor.isEmpty();
    QList<ActionSummary> fresh = std::move(m_staged);
    m_staged.clear();
    const int before = int(m_rows.size());
    mergeRows(std::move(fresh));
    emit loadingChanged(false);
    emit pageLoaded(std::max(0, int(m_rows.size()) - before), m_hasMore);
}

// The loaded rows become `fresh` (the list as the backend reads it now) by removals, moves,
// insertions and updates, never a reset: a view keeps its selection (persistent indexes follow
// the rows) and can keep what a person reads in place. A row the backend no longer lists stays
// when it is pinned (at its place in the order, marked as left); a loaded copy newer than the
// list's (a live change that overtook the read) is kept.
void ActionQueueModel::mergeRows(QList<ActionSummary> fresh)
{
    QHash<QString, int> freshIndex;
    for (int i = 0; i < fresh.size(); ++i)
        freshIndex.insert(fresh.at(i).id(), i);
    QSet<QString> keptOnlyForPin;
    for (const ActionSummary &row : std::as_const(m_rows)) {
        if (freshIndex.contains(row.id()) || !m_pinned.contains(row.id()))
            continue;
        keptOnlyForPin.insert(row.id());
        const auto at = std::find_if(fresh.cbegin(), fresh.cend(),
                                     [&](const ActionSummary &f) { return m_query.before(row, f); });
        fresh.insert(at - fresh.cbegin(), row);
        if (!m_query.matches(row))
            m_left.insert(row.id());
    }
    freshIndex.clear();
    for (int i = 0; i < fresh.size(); ++i)
        freshIndex.insert(fresh.at(i).id(), i);

    // Rows that go, from the bottom up, a run at a time.
    for (int r = int(m_rows.size()) - 1; r >= 0;) {
        if (freshIndex.contains(m_rows.at(r).id())) {
            --r;
            continue;
        }
        int first = r;
        while (first > 0 && !freshIndex.contains(m_rows.at(first - 1).id()))
            --first;
        beginRemoveRows(QModelIndex(), first, r);
        for (int k = first; k <= r; ++k)
            m_left.remove(m_rows.at(k).id());
        m_rows.remove(first, r - first + 1);
        endRemoveRows();
        r = first - 1;
    }
    rebuildIndex();
    // Then row by row in the new order: keep, move up, or insert.
    for (int i = 0; i < fresh.size(); ++i) {
        const ActionSummary &want = fresh.at(i);
        if (!keptOnlyForPin.contains(want.id()))
            m_left.remove(want.id()); // the backend lists it: it belongs here
        const int at = rowOf(want.id());
        if (at == i) {
            if (want.record.stateVersion >= m_rows.at(i).record.stateVersion)
                replaceRow(i, want);
            continue;
        }
        if (at > i) {
            beginMoveRows(QModelIndex(), at, at, QModelIndex(), i);
            m_rows.move(at, i);
            rebuildIndex();
            endMoveRows();
            if (want.record.stateVersion >= m_rows.at(i).record.stateVersion)
                replaceRow(i, want);
            continue;
        }
        beginInsertRows(QModelIndex(), i, i);
        m_rows.insert(i, want);
        rebuildIndex();
        endInsertRows();
        emit arrived(want.id(), true); // new to whoever looked at the list before
    }
}

void ActionQueueModel::onPageFailed(quint64 ticket, const QString &message)
{
    if (ticket == m_countsTicket) {
        m_countsTicket = 0;
        return;
    }
    if (ticket != m_pageTicket)
        return;
    m_pageTicket = 0;
    m_lastError = message.isEmpty() ? tr("The queue could not be loaded.") : message;
    emit loadingChanged(false);
    emit loadFailed(m_lastError);
}

void ActionQueueModel::setCounts(const StateCounts &counts)
{
    if (counts == m_counts)
        return;
    m_counts = counts;
    emit countsChanged(m_counts);
}

void ActionQueueModel::scheduleCountsRefresh()
{
    if (!m_countsTimer.isActive())
        m_countsTimer.start();
}

void ActionQueueModel::applyChange(const ActionChange &change)
{
    scheduleCountsRefresh();
    const int row = rowOf(change.actionId);
    if (row >= 0) {
        ActionSummary &summary = m_rows[row];
        if (change.stateVersion > summary.record.stateVersion) {
            // Show the new state at once; the full row (attempts, last event) follows.
            summary.record.state = change.state;
            summary.record.stateVersion = change.stateVersion;
            if (change.at.isValid())
                summary.lastEventAt = change.at;
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
            // A state the filter does not show: the row leaves now (the full row may still be
            // on its way), unless a person holds it.
            if (!m_query.states.isEmpty() && !m_query.states.contains(change.state))
                leaveIfOutside(change.actionId);
        }
        if (rowOf(change.actionId) >= 0 || m_pinned.contains(change.actionId))
            refreshAction(change.actionId);
        return;
    }
    // Not loaded: fetch it only if it may belong here.
    if (m_query.states.isEmpty() || m_query.states.contains(change.state)) {
        m_liveRequests.insert(change.actionId);
        refreshAction(change.actionId);
    }
}

void ActionQueueModel::refreshAction(const QString &actionId)
{
    if (!m_source || actionId.isEmpty())
        return;
    if (m_summaryInFlight.contains(actionId)) {
        m_summaryDirty.insert(actionId);
        return;
    }
    m_summaryInFlight.insert(actionId);
    m_summaryTickets.insert(m_source->requestSummary(actionId), actionId);
}

void ActionQueueModel::onSummaryReady(quint64 ticket, const ActionSummary &summary)
{
    const QString actionId = m_summaryTickets.take(ticket);
    if (actionId.isEmpty())
        return;
    m_summaryInFlight.remove(actionId);
    const bool live = m_liveRequests.remove(actionId);
    const bool wasLoaded = rowOf(actionId) >= 0;
    updateSummary(summary);
    // Its place is beyond the loaded rows: it is in the list all the same, a page further on.
    if (live && !wasLoaded && rowOf(actionId) < 0 && m_query.matches(summary))
        emit arrived(actionId, false);
    emit summaryAnswered(actionId, true);
    if (m_summaryDirty.remove(actionId))
        refreshAction(actionId);
}

void ActionQueueModel::onSummaryFailed(quint64 ticket, const QString &, bool notFound, const QString &)
{
    const QString actionId = m_summaryTickets.take(ticket);
    if (actionId.isEmpty())
        return;
    m_summaryInFlight.remove(actionId);
    m_liveRequests.remove(actionId);
    // The row keeps what it had; the next change or reload corrects it.
    emit summaryAnswered(actionId, !notFound);
    if (m_summaryDirty.remove(actionId))
        refreshAction(actionId);
}

void ActionQueueModel::updateSummary(const ActionSummary &summary)
{
    const int row = rowOf(summary.id());
    if (row >= 0) {
        if (summary.record.stateVersion < m_rows.at(row).record.stateVersion)
            return;
        replaceRow(row, summary);
        if (m_query.matches(summary))
            m_left.remove(summary.id());
        else
            leaveIfOutside(summary.id());
        return;
    }
    if (!m_query.matches(summary))
        return;
    const int position = insertPosition(summary);
    // Beyond the loaded rows it arrives with a later page.
    if (position == m_rows.size() && m_hasMore)
        return;
    beginInsertRows(QModelIndex(), position, position);
    m_rows.insert(position, summary);
    rebuildIndex();
    endInsertRows();
    emit arrived(summary.id(), true);
}

void ActionQueueModel::leaveIfOutside(const QString &actionId)
{
    const int row = rowOf(actionId);
    if (row < 0)
        return;
    if (m_pinned.contains(actionId)) {
        m_left.insert(actionId);
        return;
    }
    removeRowAt(row);
}

void ActionQueueModel::removeRowAt(int row)
{
    beginRemoveRows(QModelIndex(), row, row);
    m_left.remove(m_rows.at(row).id());
    m_rows.removeAt(row);
    rebuildIndex();
    endRemoveRows();
}

void ActionQueueModel::setPinned(const QSet<QString> &actionIds)
{
    if (actionIds == m_pinned)
        return;
    m_pinned = actionIds;
    // Rows kept only for the person who held them go now.
    const QSet<QString> left = m_left;
    for (const QString &id : left) {
        if (!m_pinned.contains(id))
            leaveIfOutside(id);
    }
}

void ActionQueueModel::replaceRow(int row, const ActionSummary &summary)
{
    if (m_rows.at(row) == summary)
        return;
    m_rows[row] = summary;
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int ActionQueueModel::insertPosition(const ActionSummary &summary) const
{
    // In the query's order, the backend's. Loaded rows whose sort key changed since (attempts,
    // last event) stay where they are until the next reload, so the order of the loaded rows
    // may be loose; the first row that comes after the new one is its place.
    const auto it = std::find_if(m_rows.cbegin(), m_rows.cend(),
                                 [&](const ActionSummary &row) { return m_query.before(summary, row); });
    return int(it - m_rows.cbegin());
}

void ActionQueueModel::rebuildIndex()
{
    m_rowById.clear();
    m_rowById.reserve(m_rows.size());
    for (int i = 0; i < m_rows.size(); ++i)
        m_rowById.insert(m_rows.at(i).id(), i);
}

void ActionQueueModel::setClock(std::function<QDateTime()> clock)
{
    m_clock = std::move(clock);
    refreshRelativeTimes();
}

void ActionQueueModel::refreshRelativeTimes()
{
    if (m_rows.isEmpty())
        return;
    const int last = int(m_rows.size()) - 1;
    emit dataChanged(index(0, AgeColumn), index(last, AgeColumn), { Qt::DisplayRole });
    emit dataChanged(index(0, LastEventColumn), index(last, LastEventColumn),
                     { Qt::DisplayRole, Qt::ToolTipRole });
}

int ActionQueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ActionQueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool ActionQueueModel::canFetchMore(const QModelIndex &parent) const
{
    return !parent.isValid() && m_hasMore && !isLoading() && !hasFailed();
}

void ActionQueueModel::fetchMore(const QModelIndex &parent)
{
    if (canFetchMore(parent))
        requestPage();
}

QVariant ActionQueueModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const ActionSummary &row = m_rows.at(index.row());
    const ActionRecord &r = row.record;

    switch (role) {
    case ActionRole:
        return QVariant::fromValue(row);
    case ActionIdRole:
        return r.id;
    case StateRole:
        return int(r.state);
    case PossibleDuplicatesRole:
        return row.possibleDuplicates;
    case QuorumRole:
        return quorumText(row);
    case SettlementStatusRole:
        return row.settlementStatus;
    case SettlementReviewRole:
        return row.settlementReview;
    case Qt::TextAlignmentRole:
        if (index.column() == AmountColumn || index.column() == AttemptsColumn
            || index.column() == AgeColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        switch (index.column()) {
        case StateColumn: {
            QString tip = r.reviewReason.isEmpty() ? display::stateName(r.state)
                                                   : display::stateName(r.state) + QStringLiteral(": ") + r.reviewReason;
            if (row.approvalsRequired > 1) {
                QStringList who;
                for (const Approval::Signer &s : row.approvalsGiven)
                    who << s.approver;
                tip += QLatin1Char('\n')
                    + (who.isEmpty() ? tr("Dual control: %1 approvals, none given yet").arg(quorumText(row))
                                     : tr("Dual control: %1 approvals, by %2").arg(quorumText(row), who.join(QStringLiteral(", "))));
            }
            if (row.possibleDuplicate())
                tip += QLatin1Char('\n')
                    + tr("Possible duplicate: %n other refund(s) of this charge or order; approving needs a note",
                         nullptr, row.possibleDuplicates);
            if (const QString settlement = settlementText(row); !settlement.isEmpty())
                tip += QLatin1Char('\n') + settlement;
            if (row.queued || (r.state == ActionState::Pending && !r.idempotencyKey.isEmpty()))
                tip += QLatin1Char('\n') + tr("Approved: waiting for the executor to send it");
            return tip;
        }
        case AgeColumn:
            return tr("Proposed %1").arg(display::isoTime(r.createdAt));
        case LastEventColumn:
            return display::isoTime(row.lastEventAt);
        case AmountColumn:
            return tr("%1 minor units of %2").arg(r.amount).arg(r.currency.toUpper());
        default:
            return QVariant();
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case StateColumn:
            return display::stateName(r.state);
        case AmountColumn:
            return display::money(r.amount, r.currency);
        case TargetColumn:
            return r.targetId;
        case OrderColumn:
            return r.businessReference;
        case AgentColumn:
            return r.requestedBy;
        case AgeColumn:
            return display::age(r.createdAt.secsTo(m_clock()));
        case AttemptsColumn:
            return row.attemptCount;
        case LastEventColumn:
            return display::relative(row.lastEventAt, m_clock());
        case IdColumn:
            return r.id;
        default:
            return QVariant();
        }
    case Qt::AccessibleTextRole:
        if (index.column() == StateColumn)
            return QString(tr("%1, %2, %3").arg(display::stateName(r.state), display::money(r.amount, r.currency), r.id)
                           + (row.approvalsRequired > 1 ? tr(", %1 approvals").arg(quorumText(row)) : QString())
                           + (row.possibleDuplicate() ? tr(", possible duplicate") : QString())
                           + (row.settlementReview ? tr(", refund failed after completion") : QString()));
        return QVariant();
    default:
        return QVariant();
    }
}

bool ActionQueueModel::awaitsDecision(const ActionSummary &row, const QString &user)
{
    if (row.settlementReview || row.discrepancy)
        return true;
    switch (row.record.state) {
    case ActionState::Pending:
        if (row.queued || !row.record.idempotencyKey.isEmpty())
            return false; // approved (its key minted): the executor has it
        return std::none_of(row.approvalsGiven.cbegin(), row.approvalsGiven.cend(),
                            [&](const Approval::Signer &s) { return s.approver == user; });
    case ActionState::ConfirmationUnknown:
    case ActionState::RequiresReview:
        return true;
    default:
        return false;
    }
}

QString ActionQueueModel::quorumText(const ActionSummary &row)
{
    if (row.approvalsRequired <= 1 || row.record.state != ActionState::Pending)
        return QString();
    return tr("%1 of %2").arg(row.approvalsGiven.size()).arg(row.approvalsRequired);
}

QString ActionQueueModel::settlementText(const ActionSummary &row)
{
    if (row.record.state != ActionState::Completed || row.settlementStatus.isEmpty())
        return QString();
    const QString &status = row.settlementStatus;
    if (row.settlementReview)
        return tr("Refund %1 after it was accepted: the customer has not been refunded; a supervisor decides").arg(status);
    if (status == QLatin1String("failed") || status == QLatin1String("canceled"))
        return tr("Refund %1 after it was accepted (decided)").arg(status);
    if (status == QLatin1String("succeeded"))
        return QString();
    return tr("Refund still settling at the provider (%1)").arg(status);
}

QVariant ActionQueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QVariant();
    if (role == Qt::TextAlignmentRole) {
        if (section == AmountColumn || section == AttemptsColumn || section == AgeColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    if (role == Qt::InitialSortOrderRole && sortKeyForColumn(section)) {
        // A first click shows the youngest, the largest, the most tried, the latest first.
        return section == AgeColumn ? int(Qt::AscendingOrder) : int(Qt::DescendingOrder);
    }
    if (role == Qt::ToolTipRole) {
        return sortKeyForColumn(section) ? tr("Click to sort the whole list by this column (the backend sorts)")
                                         : tr("The list cannot be sorted by this column");
    }
    if (role != Qt::DisplayRole)
        return QVariant();
    return columnTitle({
        tr("State"), tr("Amount"), tr("Charge"), tr("Order"), tr("Agent"), tr("Age"), tr("Attempts"),
        tr("Last event"), tr("Action")
    }, section);
}

QHash<int, QByteArray> ActionQueueModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(ActionRole, "action");
    names.insert(ActionIdRole, "actionId");
    names.insert(StateRole, "state");
    names.insert(PossibleDuplicatesRole, "possibleDuplicates");
    names.insert(QuorumRole, "quorum");
    names.insert(SettlementStatusRole, "settlementStatus");
    names.insert(SettlementReviewRole, "settlementReview");
    return names;
}

} // namespace cs
