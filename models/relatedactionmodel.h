#pragma once

#include "models/actiondetail.h"
#include "models/actionsummary.h"
#include "models/recordtablemodel.h"

namespace cs {

// One action related to the one shown: the action it adjusts, or a follow-up adjusting it.
struct RelatedAction
{
    enum class Relation { Parent, FollowUp };
    Relation relation = Relation::FollowUp;
    ActionSummary summary;
    friend bool operator==(const RelatedAction &, const RelatedAction &) = default;
};

// The related actions of one action: its parent (for a follow-up), then its follow-ups.
class RelatedActionModel : public RecordTableModel<RelatedAction>
{
    Q_OBJECT

public:
    enum Column { RelationColumn, IdColumn, StateColumn, AmountColumn, CreatedColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role { ActionRole = Qt::UserRole + 1, ActionIdRole, StateRole };

    explicit RelatedActionModel(QObject *parent = nullptr);

    void setDetail(const ActionDetail &detail);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace cs
