#include "models/audittablemodel.h"
#include "models/displayformat.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QStringList>

namespace cs {

AuditTableModel::AuditTableModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({
        tr("Seq"), tr("Time"), tr("Actor"), tr("Event"), tr("Reason"), tr("Change")
    });
    Q_ASSERT(columnCount() == ColumnCount);
}

QString AuditTableModel::describeChange(const AuditEvent &event)
{
    QStringList keys = event.after.keys();
    for (const QString &key : event.before.keys()) {
        if (!keys.contains(key))
            keys.append(key);
    }
    QStringList parts;
    for (const QString &key : std::as_const(keys)) {
        const QJsonValue before = event.before.value(key);
        const QJsonValue after = event.after.value(key);
        if (before == after)
            continue;
        if (before.isUndefined())
            parts.append(key + QStringLiteral(": ") + display::jsonValue(after));
        else
            parts.append(key + QStringLiteral(": ") + display::jsonValue(before) + QStringLiteral(" \u2192 ") + display::jsonValue(after));
    }
    return parts.join(QStringLiteral(", "));
}

QVariant AuditTableModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const AuditEvent &e = m_records.at(index.row());
    if (role == AuditRole)
        return QVariant::fromValue(e);
    if (role == Qt::ToolTipRole) {
        if (index.column() == SeqColumn)
            return tr("hash %1\nprevious %2").arg(e.hash, e.prevHash);
        if (index.column() == ChangeColumn || index.column() == ReasonColumn)
            return index.column() == ChangeColumn ? describeChange(e) : e.reason;
        if (index.column() == AtColumn)
            return display::isoTime(e.at);
        return QVariant();
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == SeqColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                           : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return QVariant();
    switch (index.column()) {
    case SeqColumn:
        return e.seq;
    case AtColumn:
        return display::time(e.at);
    case ActorColumn:
        return e.actor;
    case EventColumn:
        return e.event;
    case ReasonColumn:
        return e.reason;
    case ChangeColumn:
        return describeChange(e);
    default:
        return QVariant();
    }
}

} // namespace cs
