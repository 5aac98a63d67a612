#include "reconciliationtablemodel.h"
#include "displayformat.h"

namespace cs {

int ReconciliationTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReconciliationTableModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const Reconciliation &r = m_records.at(index.row());
    if (role == ReconciliationRole)
        return QVariant::fromValue(r);
    if (role == Qt::ToolTipRole && index.column() == NoteColumn)
        return r.note;
    if (role != Qt::DisplayRole)
        return QVariant();
    switch (index.column()) {
    case SeqColumn:
        return r.seq;
    case DecidedAtColumn:
        return display::time(r.decidedAt);
    case DecidedByColumn:
        return r.decidedBy;
    case OutcomeColumn:
        return r.outcome == Reconciliation::Outcome::Committed ? tr("committed") : tr("not committed");
    case EvidenceColumn:
        return tr("lookup #%1").arg(r.evidenceLookupSeq);
    case NoteColumn:
        return r.note;
    default:
        return QVariant();
    }
}

QVariant ReconciliationTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QVariant();
    switch (section) {
    case SeqColumn:
        return tr("#");
    case DecidedAtColumn:
        return tr("Time");
    case DecidedByColumn:
        return tr("Decided by");
    case OutcomeColumn:
        return tr("Outcome");
    case EvidenceColumn:
        return tr("Evidence");
    case NoteColumn:
        return tr("Note");
    default:
        return QVariant();
    }
}

} // namespace cs
