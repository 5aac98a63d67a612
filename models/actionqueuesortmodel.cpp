#include "actionqueuesortmodel.h"
#include "actionqueuemodel.h"

namespace cs {

ActionQueueSortModel::ActionQueueSortModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(ActionQueueModel::SortRole);
    setDynamicSortFilter(true);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

bool ActionQueueSortModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant l = left.data(sortRole());
    const QVariant r = right.data(sortRole());
    const QPartialOrdering order = QVariant::compare(l, r);
    if (order == QPartialOrdering::Less)
        return true;
    if (order == QPartialOrdering::Greater)
        return false;
    // Equal (or incomparable): keep the source order, which is newest first.
    return left.row() < right.row();
}

} // namespace cs
