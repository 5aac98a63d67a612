#pragma once

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace cs {

// Side by side: the stored payload of an action and a payload that conflicted with it (a changed
// resubmission under the same client_reference), one row per field, nested objects flattened
// ("target.charge"), with the changed fields flagged. Fields present on one side only count as
// changed.
class PayloadDiffModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { FieldColumn, StoredColumn, ConflictingColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role { ChangedRole = Qt::UserRole + 1 };

    struct Row
    {
        QString field;
        QString stored;      // "" and storedPresent false when absent
        QString conflicting;
        bool storedPresent = false;
        bool conflictingPresent = false;
        bool changed = false;
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setPayloads(const QJsonObject &stored, const QJsonObject &conflicting);
    const QList<Row> &rows() const { return m_rows; }
    int changedCount() const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<Row> m_rows;
};

} // namespace cs
