#include "models/chargesortfiltermodel.h"
#include "models/actionstate.h"
#include "models/chargeactionmodel.h"
#include "models/chargerefundmodel.h"

namespace cs {

static_assert(int(ChargeActionModel::SortRole) == ChargeSortFilterModel::SortRole);
static_assert(int(ChargeRefundModel::SortRole) == ChargeSortFilterModel::SortRole);

ChargeSortFilterModel::ChargeSortFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SortRole);
    setDynamicSortFilter(true);
}

void ChargeSortFilterModel::setHideRejected(bool hide)
{
    if (hide == m_hideRejected)
        return;
    // Qt 6.4 has no beginFilterChange(): invalidateFilter() re-reads every row.
    m_hideRejected = hide;
    invalidateFilter();
}

bool ChargeSortFilterModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant a = left.data(SortRole);
    const QVariant b = right.data(SortRole);
    const QPartialOrdering order = QVariant::compare(a, b);
    if (order == QPartialOrdering::Less)
        return true;
    if (order == QPartialOrdering::Greater)
        return false;
    return left.row() < right.row(); // equal (or not comparable): the source's order
}

bool ChargeSortFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!m_hideRejected)
        return true;
    const QVariant state = sourceModel()->index(sourceRow, 0, sourceParent).data(ChargeActionModel::StateRole);
    return !state.isValid() || ActionState(state.toInt()) != ActionState::Rejected;
}

} // namespace cs
