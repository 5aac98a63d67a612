#pragma once

#include "models/actionstate.h"

#include <QStyledItemDelegate>

namespace cs {

// Paints the queue's cells: the state as a coloured chip (colours from StatePalette, readable in
// light and dark palettes), identifiers and amounts in a monospace font so that keys, charges
// and decimal points line up; a possible duplicate (issue 14) a "dup" marker after its chip, and a
// COMPLETED action whose refund is still settling or failed afterwards (issue 18) a marker too.
class QueueItemDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    // Which columns show a state chip and which use the monospace font.
    QueueItemDelegate(int stateColumn, QList<int> monospaceColumns, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // The marker painted after the state chip of a possible duplicate (issue 14): "dup", or
    // "dup N" for N others; empty for a row without any.
    static QString duplicateMarker(const QModelIndex &index);
    // "1 of 2" for a PENDING row under dual control (ActionQueueModel::QuorumRole), else "".
    static QString quorumMarker(const QModelIndex &index);
    struct Marker
    {
        QString text;                            // empty: no marker
        ActionState tone = ActionState::Pending; // whose StatePalette colours it is drawn in
    };
    // Issue 18, for a COMPLETED row: "settling" (pending or requires_action, amber), "refund
    // failed" / "refund canceled" (review colours while its review item is open, grey once
    // decided); nothing for a refund that succeeded or any other state.
    static Marker settlementMarker(const QModelIndex &index);

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    int m_stateColumn;
    QList<int> m_monospaceColumns;
};

} // namespace cs
