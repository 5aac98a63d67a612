#pragma once

#include "models/reconciliation.h"
#include "models/recordtablemodel.h"

#include <QMetaType>

Q_DECLARE_METATYPE(cs::Reconciliation)

namespace cs {

// Supervisors' confirmations of what happened at the provider, each naming its evidence lookup.
class ReconciliationTableModel : public RecordTableModel<Reconciliation>
{
    Q_OBJECT

public:
    enum Column { SeqColumn, DecidedAtColumn, DecidedByColumn, OutcomeColumn, EvidenceColumn,
                  NoteColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role { ReconciliationRole = Qt::UserRole + 1 };

    explicit ReconciliationTableModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace cs
