#include "models/approvaltablemodel.h"
#include "models/displayformat.h"

namespace cs {

ApprovalTableModel::ApprovalTableModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({
        tr("Version"), tr("Time"), tr("Decided by"), tr("Decision"), tr("Note"),
        tr("Key minted"), tr("Signed fingerprint")
    });
    Q_ASSERT(columnCount() == ColumnCount);
}

QVariant ApprovalTableModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const Approval &a = m_records.at(index.row());
    if (role == ApprovalRole)
        return QVariant::fromValue(a);
    if (role == Qt::TextAlignmentRole)
        return index.column() == VersionColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                               : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (index.column() == FingerprintColumn)
            return a.approvedFingerprint;
        if (index.column() == NoteColumn || index.column() == DecisionColumn)
            return a.decision == Approval::Decision::Rejected ? display::rejectionText(a.rejectionReason, a.note) : a.note;
        if (index.column() == DecidedAtColumn)
            return display::isoTime(a.decidedAt);
        return QVariant();
    }
    if (role != Qt::DisplayRole)
        return QVariant();
    switch (index.column()) {
    case VersionColumn:
        return a.version;
    case DecidedAtColumn:
        return display::time(a.decidedAt);
    case DecidedByColumn:
        return display::decider(a.decidedBy, a.ruleId, a.policyVersion);
    case DecisionColumn:
        if (a.decision == Approval::Decision::Approved)
            return a.expiredAt.isValid() ? tr("approved, expired unsent") : tr("approved");
        // The rejection's reason in the reject dialog's words (issue 19); none for older rejections.
        return a.rejectionReason.isEmpty() ? tr("rejected") : tr("rejected: %1").arg(display::rejectionReason(a.rejectionReason));
    case NoteColumn:
        return a.note;
    case KeyColumn:
        return a.idempotencyKey;
    case FingerprintColumn:
        return display::shortHash(a.approvedFingerprint);
    default:
        return QVariant();
    }
}

} // namespace cs
