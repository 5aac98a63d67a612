#pragma once

#include "attempt.h"
#include "recordtablemodel.h"

#include <QMetaType>

Q_DECLARE_METATYPE(cs::Attempt)

namespace cs {

// The attempt history of one action: every request sent (or about to be sent) to the provider.
class AttemptTableModel : public RecordTableModel<Attempt>
{
    Q_OBJECT

public:
    enum Column {
        SeqColumn,
        StartedColumn,
        KeyColumn,
        FingerprintColumn,
        OutcomeColumn,
        HttpStatusColumn,
        LatencyColumn,
        ReplayedColumn,
        ProviderObjectColumn,
        ErrorColumn,
        ColumnCount
    };
    Q_ENUM(Column)
    enum Role { AttemptRole = Qt::UserRole + 1, OutcomeRole };

    using RecordTableModel::RecordTableModel;

    static QString outcomeName(Attempt::Outcome outcome);

    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

} // namespace cs
