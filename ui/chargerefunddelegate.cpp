#include "ui/chargerefunddelegate.h"
#include "models/chargerefundmodel.h"
#include "ui/statepalette.h"


namespace cs {

void ChargeRefundDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    const int column = index.column();
    if (column == ChargeRefundModel::IdColumn || column == ChargeRefundModel::AmountColumn) {
        QFont mono = StatePalette::monospaceFont();
        mono.setPointSizeF(option->font.pointSizeF());
        option->font = mono;
    }
    if (!index.data(ChargeRefundModel::MadeOutsideRole).toBool())
        return;
    // The item's own background: drawn over the alternate row colour, under the selection.
    option->backgroundBrush = StatePalette::warningFill(option->palette);
    option->palette.setColor(QPalette::Text, StatePalette::warningText(option->palette));
    if (column == ChargeRefundModel::MadeByColumn)
        option->font.setBold(true);
}

} // namespace cs
