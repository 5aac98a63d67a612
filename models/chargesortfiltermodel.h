#pragma once

#include <QSortFilterProxyModel>

namespace cs {

// Sorts the charge view's tables (ChargeActionModel, ChargeRefundModel) by the value behind each
// column (SortRole: amounts as numbers, times as instants), ties kept in the source's order
// (oldest first), and can hide REJECTED actions ("Hide rejected": they hold nothing of the
// charge). Sorting is off until a view asks (sort(), or a header click).
class ChargeSortFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    static constexpr int SortRole = Qt::UserRole + 20;

    explicit ChargeSortFilterModel(QObject *parent = nullptr);

    void setHideRejected(bool hide);
    bool hidesRejected() const { return m_hideRejected; }

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    bool m_hideRejected = false;
};

} // namespace cs
