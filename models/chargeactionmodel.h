#pragma once

#include "models/actionqueuemodel.h"
#include "models/actionsummary.h"
#include "models/chargeoverview.h"
#include "models/recordtablemodel.h"

#include <QHash>

namespace cs {

// The actions on one charge (the charge view, issue 17), oldest first: each with its state, its
// amount, who asked, when, and what it means for the charge's budget — reserved (approved or not),
// refunded at the provider, or not counted (rejected). setOverview() announces only what changed.
class ChargeActionModel : public RecordTableModel<ActionSummary>
{
    Q_OBJECT

public:
    enum Column { IdColumn, StateColumn, AmountColumn, RequestedByColumn, CreatedColumn, BudgetColumn, ColumnCount };
    Q_ENUM(Column)
    // The queue's role numbers where they mean the same, so the queue's delegate paints the state
    // chip and dual control's "1 of 2" here too.
    enum Role {
        ActionRole = ActionQueueModel::ActionRole,     // cs::ActionSummary
        ActionIdRole = ActionQueueModel::ActionIdRole, // QString
        StateRole = ActionQueueModel::StateRole,       // int(cs::ActionState)
        QuorumRole = ActionQueueModel::QuorumRole,     // QString: "1 of 2", else ""
        SortRole = Qt::UserRole + 20,                  // the column's value, for ChargeSortFilterModel
    };

    // What an action is in the charge's budget.
    enum class Budget { Reserved, ReservedApproved, RefundedAtProvider, NotCounted, Unknown };

    explicit ChargeActionModel(QObject *parent = nullptr);

    void setOverview(const ChargeOverview &overview);
    Budget budgetOf(const ActionSummary &action) const;
    static QString budgetText(Budget budget);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QHash<QString, bool> m_reserved; // action id -> approved
    bool m_known = false;
};

} // namespace cs
