#include "models/relatedactionmodel.h"
#include "models/displayformat.h"

namespace cs {

RelatedActionModel::RelatedActionModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({
        tr("Relation"), tr("Action"), tr("State"), tr("Amount"), tr("Proposed")
    });
    Q_ASSERT(columnCount() == ColumnCount);
}

void RelatedActionModel::setDetail(const ActionDetail &detail)
{
    QList<RelatedAction> rows;
    if (detail.parent)
        rows.append({ RelatedAction::Relation::Parent, *detail.parent, QString() });
    for (const ActionSummary &followUp : detail.followUps)
        rows.append({ RelatedAction::Relation::FollowUp, followUp, QString() });
    for (const PossibleDuplicate &duplicate : detail.possibleDuplicates)
        rows.append({ RelatedAction::Relation::PossibleDuplicate, duplicate.summary, duplicate.sentence });
    setRecords(rows);
}

QVariant RelatedActionModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const RelatedAction &related = m_records.at(index.row());
    const ActionRecord &r = related.summary.record;
    switch (role) {
    case ActionRole:
        return QVariant::fromValue(related.summary);
    case ActionIdRole:
        return r.id;
    case StateRole:
        return int(r.state);
    case Qt::ToolTipRole:
        return related.sentence.isEmpty() ? QVariant() : QVariant(related.sentence);
    case Qt::TextAlignmentRole:
        return index.column() == AmountColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                              : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::DisplayRole:
        switch (index.column()) {
        case RelationColumn:
            switch (related.relation) {
            case RelatedAction::Relation::Parent:
                return tr("adjusts (parent)");
            case RelatedAction::Relation::FollowUp:
                return tr("follow-up");
            case RelatedAction::Relation::PossibleDuplicate:
                return tr("possible duplicate");
            }
            return QVariant();
        case IdColumn:
            return r.id;
        case StateColumn:
            return display::stateName(r.state);
        case AmountColumn:
            return display::money(r.amount, r.currency);
        case CreatedColumn:
            return display::time(r.createdAt);
        default:
            return QVariant();
        }
    default:
        return QVariant();
    }
}

} // namespace cs
