#include "models/chargerefundmodel.h"
#include "models/displayformat.h"

namespace cs {

ChargeRefundModel::ChargeRefundModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({ tr("Refund"), tr("Amount"), tr("Status"), tr("Created"), tr("Made by") });
    Q_ASSERT(columnCount() == ColumnCount);
}

void ChargeRefundModel::setOverview(const ChargeOverview &overview)
{
    const QString currency = overview.snapshot ? overview.snapshot->currency : QString();
    const bool currencyChanged = currency != m_currency;
    const int kept = qMin(rowCount(), overview.snapshot ? int(overview.snapshot->refunds.size()) : 0);
    m_currency = currency;
    setRecords(overview.snapshot ? overview.snapshot->refunds : QList<ChargeSnapshot::Refund>());
    if (currencyChanged && kept > 0)
        emit dataChanged(index(0, AmountColumn), index(kept - 1, AmountColumn));
}

QString ChargeRefundModel::madeByText(const ChargeSnapshot::Refund &refund)
{
    return refund.actionId.isEmpty() ? tr("made outside Countersign") : refund.actionId;
}

QVariant ChargeRefundModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const ChargeSnapshot::Refund &r = m_records.at(index.row());
    const int column = index.column();
    switch (role) {
    case MadeOutsideRole:
        return r.actionId.isEmpty();
    case ActionIdRole:
        return r.actionId;
    case CountsRole:
        return r.counts();
    case SortRole:
        switch (column) {
        case IdColumn:
            return r.id;
        case AmountColumn:
            return r.amount;
        case StatusColumn:
            return r.status;
        case CreatedColumn:
            return r.created.toMSecsSinceEpoch();
        case MadeByColumn:
            return r.actionId; // "" (outside) first
        default:
            return QVariant();
        }
    case Qt::TextAlignmentRole:
        return column == AmountColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (r.actionId.isEmpty())
            return tr("No Countersign action made this refund (no countersign_action_id in its metadata): someone refunded "
                      "at the provider directly, e.g. in its dashboard.");
        if (column == CreatedColumn)
            return display::isoTime(r.created);
        return tr("Made by Countersign's action %1").arg(r.actionId);
    case Qt::DisplayRole:
        switch (column) {
        case IdColumn:
            return r.id;
        case AmountColumn:
            return display::money(r.amount, m_currency);
        case StatusColumn:
            return r.status;
        case CreatedColumn:
            return r.created.isValid() ? display::time(r.created) : QString();
        case MadeByColumn:
            return madeByText(r);
        default:
            return QVariant();
        }
    default:
        return QVariant();
    }
}

} // namespace cs
