#include "models/factstablemodel.h"

namespace cs {

FactsTableModel::FactsTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void FactsTableModel::setFacts(const QMap<QString, QString> &facts)
{
    beginResetModel();
    m_facts.clear();
    for (auto it = facts.cbegin(); it != facts.cend(); ++it)
        m_facts.append({ it.key(), it.value() });
    endResetModel();
}

int FactsTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_facts.size());
}

int FactsTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FactsTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const auto &[key, value] = m_facts.at(index.row());
    switch (role) {
    case KeyRole:
        return key;
    case Qt::ToolTipRole:
        return index.column() == FactColumn ? key : value;
    case Qt::DisplayRole:
        return index.column() == FactColumn ? QString(key).replace(u'_', u' ') : value;
    default:
        return QVariant();
    }
}

QVariant FactsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QVariant();
    if (section == FactColumn)
        return tr("Fact");
    if (section == ValueColumn)
        return tr("Value");
    return QVariant();
}

} // namespace cs
