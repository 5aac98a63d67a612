#pragma once

#include <QStyledItemDelegate>

namespace cs {

// Paints the charge view's refunds (ChargeRefundModel): a refund no Countersign action made
// ("made outside Countersign") on the warning fill, its "made by" cell in bold warning text, so it
// stands out among Countersign's own; ids and amounts in the monospace font. Colours from
// StatePalette (light and dark palettes).
class ChargeRefundDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

} // namespace cs
