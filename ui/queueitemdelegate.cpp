#include "ui/queueitemdelegate.h"
#include "models/actionqueuemodel.h"
#include "ui/statepalette.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

#include <utility>

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
    // Issue 14: dual control's progress ("1 of 2") in the state's own colours, then a possible
    // duplicate's "dup" marker in the review colours, after the chip (the tooltip says more).
    int left = pill.right() + 4;
    // Issue 18: then what the refund did after COMPLETED ("settling", "refund failed").
    const Marker settlement = settlementMarker(index);
    const std::pair<QString, ActionState> markers[] = {{quorumMarker(index), state},
                                                       {duplicateMarker(index), ActionState::RequiresReview},
                                                       {settlement.text, settlement.tone}};
    for (std::size_t i = 0; i < std::size(markers); ++i) {
        const auto &[marker, colours] = markers[i];
        if (marker.isEmpty())
            continue;
        QRect badge(left, pill.top(), fm.horizontalAdvance(marker) + 8, pill.height());
        QString shown = marker;
        if (badge.right() > option.rect.right()) {
            // A narrow column: the settlement's marker (the last) keeps its start, elided; the
            // others go, as before. The tooltip says it in full.
            if (i + 1 != std::size(markers) || option.rect.right() - left < 28)
                break;
            badge.setRight(option.rect.right() - 2);
            shown = fm.elidedText(marker, Qt::ElideRight, badge.width() - 6);
        }
        const StatePalette::Chip look = StatePalette::stateChip(colours, option.palette);
        painter->setPen(QPen(look.border, 1));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(QRectF(badge).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
        painter->setPen(look.text);
        painter->drawText(badge, Qt::AlignCenter, shown);
        left = badge.right() + 4;
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

QString QueueItemDelegate::quorumMarker(const QModelIndex &index)
{
    return index.data(ActionQueueModel::QuorumRole).toString();
}

QueueItemDelegate::Marker QueueItemDelegate::settlementMarker(const QModelIndex &index)
{
    if (ActionState(index.data(ActionQueueModel::StateRole).toInt()) != ActionState::Completed)
        return {};
    const QString status = index.data(ActionQueueModel::SettlementStatusRole).toString();
    if (status.isEmpty() || status == QLatin1String("succeeded"))
        return {};
    const bool returned = status == QLatin1String("failed") || status == QLatin1String("canceled");
    if (!returned)
        return { tr("settling"), ActionState::ConfirmationUnknown };
    const QString text = status == QLatin1String("failed") ? tr("refund failed") : tr("refund canceled");
    // Open: a supervisor must decide (the review colours); decided: the quiet colours of REJECTED.
    return { text, index.data(ActionQueueModel::SettlementReviewRole).toBool() ? ActionState::RequiresReview
                                                                            : ActionState::Rejected };
}

QSize QueueItemDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setHeight(qMax(size.height(), option.fontMetrics.height() + 12));
    if (index.column() == m_stateColumn) {
        int width = size.width() + 24;
        for (const QString &marker : {quorumMarker(index), duplicateMarker(index), settlementMarker(index).text})
            width += marker.isEmpty() ? 0 : option.fontMetrics.horizontalAdvance(marker) + 12;
        size.setWidth(width);
    }
    return size;
}

} // namespace cs
