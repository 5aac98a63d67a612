#pragma once

#include "models/auditevent.h"
#include "models/recordtablemodel.h"

#include <QMetaType>

Q_DECLARE_METATYPE(cs::AuditEvent)

namespace cs {

// The audit trail of one action: every change, who made it, why, and what changed.
class AuditTableModel : public RecordTableModel<AuditEvent>
{
    Q_OBJECT

public:
    enum Column { SeqColumn, AtColumn, ActorColumn, EventColumn, ReasonColumn, ChangeColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role { AuditRole = Qt::UserRole + 1 };

    explicit AuditTableModel(QObject *parent = nullptr);

    // "state: PENDING → EXECUTING, state_version: 2 → 3" from before/after.
    static QString describeChange(const AuditEvent &event);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace cs
