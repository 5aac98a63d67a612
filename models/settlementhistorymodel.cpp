#include "models/settlementhistorymodel.h"
#include "models/displayformat.h"

namespace cs {

SettlementHistoryModel::SettlementHistoryModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({ tr("#"), tr("Time"), tr("Refund status"), tr("Failure reason"), tr("Learned from"), tr("Evidence") });
    Q_ASSERT(columnCount() == ColumnCount);
}

QString SettlementHistoryModel::sourceName(const QString &source)
{
    if (source == QLatin1String("attempt"))
        return tr("the attempt's answer");
    if (source == QLatin1String("lookup"))
        return tr("a look-up");
    if (source == QLatin1String("webhook"))
        return tr("a webhook event");
    if (source == QLatin1String("reconciliation"))
        return tr("a reconciliation");
    if (source == QLatin1String("schedule"))
        return tr("a scheduled check");
    return source;
}

QVariant SettlementHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const SettlementChange &c = m_records.at(index.row());
    switch (role) {
    case ChangeRole:
        return QVariant::fromValue(c);
    case ToStatusRole:
        return c.toStatus;
    case Qt::ToolTipRole:
        if (index.column() == AtColumn)
            return display::isoTime(c.at);
        if (index.column() == FailureReasonColumn || index.column() == EvidenceColumn)
            return data(index, Qt::DisplayRole);
        return QVariant();
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeqColumn:
            return c.seq;
        case AtColumn:
            return display::time(c.at);
        case ChangeColumn:
            // The first row is the status the action completed with: there is no "from".
            return c.fromStatus.isEmpty() ? c.toStatus : tr("%1 \u2192 %2").arg(c.fromStatus, c.toStatus);
        case FailureReasonColumn:
            return c.failureReason;
        case SourceColumn:
            return sourceName(c.source);
        case EvidenceColumn:
            return c.evidence;
        default:
            return QVariant();
        }
    default:
        return QVariant();
    }
}

} // namespace cs
