#pragma once

#include "models/actiondetail.h"
#include "models/actionsummary.h"
#include "models/recordtablemodel.h"

namespace cs {

// One action related to the one shown: the action it adjusts, a follow-up adjusting it, or a
// possible duplicate (issue 14: the same charge or business reference; `sentence` says so).
struct RelatedAction
{
    enum class Relation { Parent, FollowUp, PossibleDuplicate };
    Relation relation = Relation::FollowUp;
    ActionSummary summary;
    QString sentence; // a possible duplicate's, as the backend wrote it; empty otherwise
    friend bool operator==(const RelatedAction &, const RelatedAction &) = default;
};

// The related actions of one action: its parent (for a follow-up), its follow-ups, then its
// possible duplicates (their sentence is the row's tooltip).
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
