#pragma once

#include "models/chargeoverview.h"
#include "models/chargesnapshot.h"
#include "models/recordtablemodel.h"

namespace cs {

// The refunds the provider holds for one charge (the charge view, issue 17), as the shown read
// listed them (newest first): id, amount, status, when, and who made it — an action in
// Countersign (metadata[countersign_action_id]) or nobody Countersign knows: "made outside
// Countersign", which the view highlights (MadeOutsideRole). Refunds the provider's webhooks
// announced and no action matched (issue 18) are rows too, first — "not through Countersign —
// from a webhook" (FromWebhookRole) — and an event's newer status (with its failure reason)
// replaces the read's on the refund it lists: one row per refund id
// (ChargeOverview::providerRefunds). Amounts in the refund's currency.
class ChargeRefundModel : public RecordTableModel<ProviderRefund>
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
        FromWebhookRole,                     // bool: a webhook event that matched no action announced it
        SortRole = Qt::UserRole + 20,        // the column's value, for ChargeSortFilterModel
    };

    explicit ChargeRefundModel(QObject *parent = nullptr);

    // The refunds of the overview's shown read and its unmatched refund events.
    void setOverview(const ChargeOverview &overview);

    static QString madeByText(const ProviderRefund &refund);
    static QString statusText(const ProviderRefund &refund); // "failed: lost_or_stolen_card"

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace cs
