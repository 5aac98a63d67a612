#include "models/reconciliationtablemodel.h"
#include "models/displayformat.h"

namespace cs {

ReconciliationTableModel::ReconciliationTableModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({
        tr("#"), tr("Time"), tr("Decided by"), tr("Outcome"), tr("Evidence"), tr("Note")
    });
    Q_ASSERT(columnCount() == ColumnCount);
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

} // namespace cs
