#pragma once

#include "models/recordtablemodel.h"
#include "models/settlement.h"

#include <QMetaType>

Q_DECLARE_METATYPE(cs::SettlementChange)

namespace cs {

// A COMPLETED action's refund status at the provider, change by change (issue 18,
// Settlement::history): when Countersign learned it, from which status to which, the provider's
// failure reason, and where it came from (an attempt's answer, a look-up, a webhook event, a
// reconciliation, a scheduled check) with the evidence to read it in. Oldest first; a live
// refresh that appends a change inserts one row. The statuses are the provider's words and stay
// as the provider wrote them; the sources are Countersign's and are translated.
class SettlementHistoryModel : public RecordTableModel<SettlementChange>
{
    Q_OBJECT

public:
    enum Column { SeqColumn, AtColumn, ChangeColumn, FailureReasonColumn, SourceColumn, EvidenceColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role {
        ChangeRole = Qt::UserRole + 1, // cs::SettlementChange
        ToStatusRole,                  // QString: the status it changed to (wire)
    };

    explicit SettlementHistoryModel(QObject *parent = nullptr);

    // "a scheduled check", "a webhook event", ... for a SettlementChange::source (or
    // Settlement::confirmedBy); the wire word itself for one this console does not know.
    static QString sourceName(const QString &source);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace cs
