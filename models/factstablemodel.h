#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>

namespace cs {

// The agent's facts about a proposal (ActionRecord::facts, issue 19) as a two-column table: the
// fact's key and its value, in key order. Read-only; setFacts() resets it. Keys are shown with
// '_' as spaces ("customer said"); the key as the agent wrote it is the tooltip and KeyRole.
class FactsTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { FactColumn, ValueColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role { KeyRole = Qt::UserRole + 1 };

    explicit FactsTableModel(QObject *parent = nullptr);

    void setFacts(const QMap<QString, QString> &facts);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<QPair<QString, QString>> m_facts;
};

} // namespace cs
