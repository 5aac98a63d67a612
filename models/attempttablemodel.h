#pragma once

#include "models/attempt.h"
#include "models/recordtablemodel.h"

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

    explicit AttemptTableModel(QObject *parent = nullptr);

    static QString outcomeName(Attempt::Outcome outcome);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace cs
