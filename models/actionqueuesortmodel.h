#pragma once

#include <QSortFilterProxyModel>

namespace cs {

// Sorts the loaded rows of an ActionQueueModel by a column's SortRole (amounts by their value
// across currencies' exponents, age, attempts, last event), ties broken newest first. Without a
// sort column it keeps the backend's order (newest first). Filtering by state and text happens
// in the backend (ActionQuery), so a million-row ledger never has to be loaded to filter it.
class ActionQueueSortModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit ActionQueueSortModel(QObject *parent = nullptr);

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace cs
