#include "models/chargeactionmodel.h"
#include "models/displayformat.h"

namespace cs {

ChargeActionModel::ChargeActionModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({ tr("Action"), tr("State"), tr("Amount"), tr("Requested by"), tr("Proposed"), tr("In the budget") });
    Q_ASSERT(columnCount() == ColumnCount);
}

void ChargeActionModel::setOverview(const ChargeOverview &overview)
{
    QHash<QString, bool> reserved;
    for (const ChargeBudget::Reservation &r : overview.budget.reservations)
        reserved.insert(r.actionId, r.approved);
    const bool budgetChanged = reserved != m_reserved || overview.budget.known != m_known;
    m_reserved = reserved;
    m_known = overview.budget.known;
    // Rows that stay the same may still change their budget column: announced after the rows.
    const int kept = qMin(rowCount(), int(overview.actions.size()));
    setRecords(overview.actions);
    if (budgetChanged && kept > 0)
        emit dataChanged(index(0, BudgetColumn), index(kept - 1, BudgetColumn));
}

ChargeActionModel::Budget ChargeActionModel::budgetOf(const ActionSummary &action) const
{
    if (const auto it = m_reserved.constFind(action.id()); it != m_reserved.cend())
        return *it ? Budget::ReservedApproved : Budget::Reserved;
    if (action.record.state == ActionState::Rejected)
        return Budget::NotCounted;
    if (!m_known)
        return Budget::Unknown;
    // Not held by Countersign and not rejected: the provider's read already counts its refund.
    return action.record.state == ActionState::Completed ? Budget::RefundedAtProvider : Budget::NotCounted;
}

QString ChargeActionModel::budgetText(Budget budget)
{
    switch (budget) {
    case Budget::Reserved:
        return tr("reserved");
    case Budget::ReservedApproved:
        return tr("reserved, approved");
    case Budget::RefundedAtProvider:
        return tr("refunded at the provider");
    case Budget::NotCounted:
        return tr("not counted");
    case Budget::Unknown:
        return tr("budget not known");
    }
    return QString();
}

QVariant ChargeActionModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const ActionSummary &a = m_records.at(index.row());
    const ActionRecord &r = a.record;
    const int column = index.column();
    switch (role) {
    case ActionRole:
        return QVariant::fromValue(a);
    case ActionIdRole:
        return r.id;
    case StateRole:
        return int(r.state);
    case QuorumRole:
        return ActionQueueModel::quorumText(a);
    case SortRole:
        switch (column) {
        case IdColumn:
            return r.id;
        case StateColumn:
            return int(r.state);
        case AmountColumn:
            return a.scaledAmount();
        case RequestedByColumn:
            return r.requestedBy;
        case CreatedColumn:
            return r.createdAt.toMSecsSinceEpoch();
        case BudgetColumn:
            return int(budgetOf(a));
        default:
            return QVariant();
        }
    case Qt::TextAlignmentRole:
        return column == AmountColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == CreatedColumn)
            return display::isoTime(r.createdAt);
        if (column == StateColumn && !r.reviewReason.isEmpty())
            return r.reviewReason;
        return tr("Double-click (or Enter) to select it in the queue");
    case Qt::DisplayRole:
        switch (column) {
        case IdColumn:
            return r.id;
        case StateColumn:
            return display::stateName(r.state);
        case AmountColumn:
            return display::money(r.amount, r.currency);
        case RequestedByColumn:
            return r.requestedBy;
        case CreatedColumn:
            return display::time(r.createdAt);
        case BudgetColumn:
            return budgetText(budgetOf(a));
        default:
            return QVariant();
        }
    default:
        return QVariant();
    }
}

} // namespace cs
