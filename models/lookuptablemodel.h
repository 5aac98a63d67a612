#pragma once

#include "models/providerlookup.h"
#include "models/recordtablemodel.h"

#include <QMetaType>

Q_DECLARE_METATYPE(cs::ProviderLookup)

namespace cs {

// The provider lookups of one action: every question asked of the provider and its answer.
// Also the list a reviewer picks reconciliation evidence from.
class LookupTableModel : public RecordTableModel<ProviderLookup>
{
    Q_OBJECT

public:
    enum Column {
        SeqColumn,
        AtColumn,
        MethodColumn,
        AskedByColumn,
        ResultColumn,
        ProviderObjectColumn,
        StatusColumn,
        AmountColumn,
        HttpStatusColumn,
        ColumnCount
    };
    Q_ENUM(Column)
    enum Role { LookupRole = Qt::UserRole + 1, ResultRole, SeqRole };

    explicit LookupTableModel(QObject *parent = nullptr);

    static QString methodName(ProviderLookup::Method method);
    static QString resultName(ProviderLookup::Result result);
    // One line a human can read: "#2 FOUND re_… succeeded 40.00 USD (list by metadata, ana)".
    static QString describe(const ProviderLookup &lookup);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace cs
