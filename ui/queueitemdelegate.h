#pragma once

#include <QStyledItemDelegate>

namespace cs {

// Paints the queue's cells: the state as a coloured chip (colours from StatePalette, readable in
// light and dark palettes), identifiers and amounts in a monospace font so that keys, charges
// and decimal points line up.
class QueueItemDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    // Which columns show a state chip and which use the monospace font.
    QueueItemDelegate(int stateColumn, QList<int> monospaceColumns, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    int m_stateColumn;
    QList<int> m_monospaceColumns;
};

} // namespace cs
