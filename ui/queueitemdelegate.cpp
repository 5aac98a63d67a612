#include "ui/queueitemdelegate.h"
#include "models/actionqueuemodel.h"
#include "ui/statepalette.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

namespace cs {

QueueItemDelegate::QueueItemDelegate(int stateColumn, QList<int> monospaceColumns, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_stateColumn(stateColumn)
    , m_monospaceColumns(std::move(monospaceColumns))
{
}

void QueueItemDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    if (m_monospaceColumns.contains(index.column())) {
        QFont mono = StatePalette::monospaceFont();
        mono.setPointSizeF(option->font.pointSizeF());
        option->font = mono;
    }
}

void QueueItemDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QVariant stateValue = index.data(ActionQueueModel::StateRole);
    if (index.column() != m_stateColumn || !stateValue.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // Background (selection, alternate rows) as the style draws it, without the text.
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const auto state = ActionState(stateValue.toInt());
    const StatePalette::Chip chip = StatePalette::stateChip(state, option.palette);
    QFont font = opt.font;
    font.setWeight(QFont::DemiBold);
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * 0.92);
    const QFontMetrics fm(font);
    const int padX = 9;
    const int height = qMin(option.rect.height() - 6, fm.height() + 6);
    // A few pixels of slack: advances are rounded, and an elided state name would be worse.
    const int width = qMin(option.rect.width() - 8, fm.horizontalAdvance(text) + 2 * padX + 4);
    const QRect pill(option.rect.left() + 4, option.rect.center().y() - height / 2 + 1, width, height);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QPainterPath path;
    path.addRoundedRect(QRectF(pill).adjusted(0.5, 0.5, -0.5, -0.5), height / 2.0, height / 2.0);
    painter->fillPath(path, chip.fill);
    painter->setPen(QPen(chip.border, 1));
    painter->drawPath(path);
    painter->setFont(font);
    painter->setPen(chip.text);
    painter->drawText(pill, Qt::AlignCenter, fm.elidedText(text, Qt::ElideRight, pill.width() - 6));
    // Issue 14: a possible duplicate gets a small "dup" marker after the chip (the tooltip says why).
    const QString marker = duplicateMarker(index);
    if (!marker.isEmpty()) {
        const QRect badge(pill.right() + 4, pill.top(), fm.horizontalAdvance(marker) + 8, pill.height());
        if (badge.right() <= option.rect.right()) {
            const StatePalette::Chip warn = StatePalette::stateChip(ActionState::RequiresReview, option.palette);
            painter->setPen(QPen(warn.border, 1));
            painter->setBrush(Qt::NoBrush);
            painter->drawRoundedRect(QRectF(badge).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
            painter->setPen(warn.text);
            painter->drawText(badge, Qt::AlignCenter, marker);
        }
    }
    painter->restore();
}

QString QueueItemDelegate::duplicateMarker(const QModelIndex &index)
{
    const int duplicates = index.data(ActionQueueModel::PossibleDuplicatesRole).toInt();
    if (duplicates <= 0)
        return QString();
    return duplicates == 1 ? tr("dup") : tr("dup %1").arg(duplicates);
}

QSize QueueItemDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setHeight(qMax(size.height(), option.fontMetrics.height() + 12));
    if (index.column() == m_stateColumn)
        size.setWidth(size.width() + 24
                      + (duplicateMarker(index).isEmpty() ? 0 : option.fontMetrics.horizontalAdvance(duplicateMarker(index)) + 12));
    return size;
}

} // namespace cs
