#pragma once

#include "models/columntitles.h"

#include <QAbstractTableModel>
#include <QList>

namespace cs {

// Base of the detail pane's table models: a list of one append-mostly record type (attempts,
// lookups, approvals, ...), one row per record. setRecords() announces only what differs, so a
// live refresh that appended an attempt inserts one row instead of resetting the view (the
// selection and scroll position survive). Subclasses name their columns once, in their constructor
// (setColumnTitles, in the order of their Column enum), and define data().
template <typename Record>
class RecordTableModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;

    void setRecords(const QList<Record> &records)
    {
        const int oldCount = int(m_records.size());
        const int newCount = int(records.size());
        const int common = qMin(oldCount, newCount);
        int firstChanged = -1;
        int lastChanged = -1;
        for (int i = 0; i < common; ++i) {
            if (!(m_records.at(i) == records.at(i))) {
                if (firstChanged < 0)
                    firstChanged = i;
                lastChanged = i;
            }
        }
        if (newCount < oldCount) {
            beginRemoveRows(QModelIndex(), newCount, oldCount - 1);
            m_records.resize(newCount);
            endRemoveRows();
        }
        for (int i = firstChanged; i >= 0 && i <= lastChanged; ++i)
            m_records[i] = records.at(i);
        if (firstChanged >= 0)
            emit dataChanged(index(firstChanged, 0), index(lastChanged, columnCount() - 1));
        if (newCount > oldCount) {
            beginInsertRows(QModelIndex(), oldCount, newCount - 1);
            for (int i = oldCount; i < newCount; ++i)
                m_records.append(records.at(i));
            endInsertRows();
        }
    }

    void clear() { setRecords({}); }
    const QList<Record> &records() const { return m_records; }
    const Record &record(int row) const { return m_records.at(row); }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override
    {
        return parent.isValid() ? 0 : int(m_records.size());
    }

    int columnCount(const QModelIndex &parent = QModelIndex()) const override
    {
        return parent.isValid() ? 0 : int(m_columnTitles.size());
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override
    {
        if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
            return QVariant();
        return columnTitle(m_columnTitles, section);
    }

protected:
    // Once, in the subclass's constructor, before any view asks.
    void setColumnTitles(const QList<QString> &titles) { m_columnTitles = titles; }

    bool isValidIndex(const QModelIndex &index) const
    {
        return checkIndex(index, QAbstractItemModel::CheckIndexOption::IndexIsValid
                                     | QAbstractItemModel::CheckIndexOption::ParentIsInvalid);
    }

    QList<Record> m_records;

private:
    QList<QString> m_columnTitles;
};

} // namespace cs
