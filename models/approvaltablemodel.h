#pragma once

#include "models/approval.h"
#include "models/recordtablemodel.h"

#include <QMetaType>

Q_DECLARE_METATYPE(cs::Approval)

namespace cs {

// The human decisions on one action (approvals and rejections), by version.
class ApprovalTableModel : public RecordTableModel<Approval>
{
    Q_OBJECT

public:
    enum Column { VersionColumn, DecidedAtColumn, DecidedByColumn, DecisionColumn, NoteColumn,
                  KeyColumn, FingerprintColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role { ApprovalRole = Qt::UserRole + 1 };

    explicit ApprovalTableModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace cs
