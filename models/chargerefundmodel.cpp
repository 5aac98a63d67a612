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
    setRecords(overview.providerRefunds());
}

QString ChargeRefundModel::madeByText(const ProviderRefund &refund)
{
    if (!refund.madeOutside())
        return refund.refund.actionId;
    return refund.fromWebhook() ? tr("not through Countersign \u2014 from a webhook") : tr("made outside Countersign");
}

QString ChargeRefundModel::statusText(const ProviderRefund &refund)
{
    // The provider's words, not translated (docs/TRANSLATING.md).
    return refund.failureReason.isEmpty() ? refund.refund.status
                                          : QStringLiteral("%1: %2").arg(refund.refund.status, refund.failureReason);
}

QVariant ChargeRefundModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const ProviderRefund &p = m_records.at(index.row());
    const ChargeSnapshot::Refund &r = p.refund;
    const int column = index.column();
    switch (role) {
    case MadeOutsideRole:
        return p.madeOutside();
    case ActionIdRole:
        return r.actionId;
    case CountsRole:
        return r.counts();
    case FromWebhookRole:
        return p.fromWebhook();
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
        if (p.fromWebhook()) {
            const UnmatchedRefundEvent &newest = p.events.first();
            if (!p.inRead)
                return tr("No Countersign action made this refund: the provider's webhooks announced it (%n event(s), the newest "
                          "%1 at %2) and no read of the charge has listed it yet. It was made in the provider's dashboard "
                          "or by another system.", nullptr, int(p.events.size()))
                    .arg(newest.type, display::isoTime(newest.receivedAt));
            if (!p.readStatus.isEmpty())
                return tr("No Countersign action made this refund. The read listed it as %1; a webhook event since "
                          "(%2 at %3) says %4.")
                    .arg(p.readStatus, newest.type, display::isoTime(newest.receivedAt), statusText(p));
        }
        if (p.madeOutside())
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
            return display::money(r.amount, p.currency);
        case StatusColumn:
            return statusText(p);
        case CreatedColumn:
            return r.created.isValid() ? display::time(r.created) : QString();
        case MadeByColumn:
            return madeByText(p);
        default:
            return QVariant();
        }
    default:
        return QVariant();
    }
}

} // namespace cs
