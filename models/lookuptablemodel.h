#pragma once

#include "models/lookupsummary.h"
#include "models/providerlookup.h"
#include "models/recordtablemodel.h"

#include <QMetaType>

Q_DECLARE_METATYPE(cs::ProviderLookup)

namespace cs {

// The provider lookups of one action: every question asked of the provider and its answer, in
// the order of orderLookups() — the deciding ones (FOUND, NOT_FOUND) first, newest first, then the
// failed ones with repeated failures of one kind folded into one row. Also the list a reviewer
// picks reconciliation evidence from: a folded row is not selectable (it is never evidence).
// setLookups() keeps each row's identity (LookupEntry::key), so a live refresh inserts, moves and
// removes rows instead of resetting the view: the selection follows its look-up.
class LookupTableModel : public RecordTableModel<LookupEntry>
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
    enum Role {
        LookupRole = Qt::UserRole + 1, // the ProviderLookup; for a folded row, the newest it folds
        ResultRole,                    // int(ProviderLookup::Result)
        SeqRole,                       // the look-up's seq; 0 for a folded row
        FoldCountRole,                 // how many look-ups the row stands for: 1, or more when folded
    };

    explicit LookupTableModel(QObject *parent = nullptr);

    void setLookups(const QList<ProviderLookup> &lookups);
    // The row of the look-up with this seq (not folded), or -1.
    int rowOfSeq(int seq) const;

    static QString methodName(ProviderLookup::Method method);
    static QString resultName(ProviderLookup::Result result);
    // One line a human can read: "#2 FOUND re_… succeeded 40.00 USD (list by metadata, ana)".
    static QString describe(const ProviderLookup &lookup);
    // A folded row's words: "12 look-ups failed (HTTP 503)".
    static QString describeFold(const LookupEntry &entry);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

private:
    using RecordTableModel<LookupEntry>::setRecords; // rows are keyed: setLookups
    QVariant foldData(const LookupEntry &entry, int column, int role) const;
    void moveKeptInto(const QList<LookupEntry> &next);
};

} // namespace cs
