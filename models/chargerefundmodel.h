#pragma once

#include "models/chargeoverview.h"
#include "models/chargesnapshot.h"
#include "models/recordtablemodel.h"

namespace cs {

// The refunds the provider holds for one charge (the charge view, issue 17), as the shown read
// listed them (newest first): id, amount, status, when, and who made it — an action in
// Countersign (metadata[countersign_action_id]) or nobody Countersign knows: "made outside
// Countersign", which the view highlights (MadeOutsideRole). Amounts in the charge's currency.
class ChargeRefundModel : public RecordTableModel<ChargeSnapshot::Refund>
{
    Q_OBJECT

public:
    enum Column { IdColumn, AmountColumn, StatusColumn, CreatedColumn, MadeByColumn, ColumnCount };
    Q_ENUM(Column)
    // Numbered apart from ChargeActionModel's: the proxy reads its StateRole on either model.
    enum Role {
        MadeOutsideRole = Qt::UserRole + 30, // bool: no Countersign action made it
        ActionIdRole,                        // QString: the action that made it, "" outside
        CountsRole,                          // bool: still takes money from the charge (not failed / canceled)
        SortRole = Qt::UserRole + 20,        // the column's value, for ChargeSortFilterModel
    };

    explicit ChargeRefundModel(QObject *parent = nullptr);

    // The refunds of the overview's shown read (none without a read).
    void setOverview(const ChargeOverview &overview);
    QString currency() const { return m_currency; }

    static QString madeByText(const ChargeSnapshot::Refund &refund);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QString m_currency;
};

} // namespace cs
