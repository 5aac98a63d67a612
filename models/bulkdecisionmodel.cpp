#include "models/bulkdecisionmodel.h"
#include "models/displayformat.h"

#include <QStringList>

namespace cs {

BulkDecisionModel::BulkDecisionModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void BulkDecisionModel::setActions(const QStringList &actionIds)
{
    beginResetModel();
    m_rows.clear();
    for (const QString &id : actionIds) {
        Row row;
        row.record.id = id;
        m_rows.append(row);
    }
    endResetModel();
}

int BulkDecisionModel::rowOf(const QString &actionId) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).record.id == actionId)
            return i;
    }
    return -1;
}

void BulkDecisionModel::setRecord(int index, const ActionRecord &record)
{
    Q_ASSERT(index >= 0 && index < m_rows.size() && record.id == m_rows.at(index).record.id);
    m_rows[index].record = record;
    emit dataChanged(this->index(index, 0), this->index(index, ColumnCount - 1));
}

void BulkDecisionModel::setContext(int index, const QStringList &warnings, const QString &reasons)
{
    Q_ASSERT(index >= 0 && index < m_rows.size());
    Row &row = m_rows[index];
    if (row.warnings != warnings)
        row.ticked = false;
    row.warnings = warnings;
    row.reasons = reasons;
    emit dataChanged(this->index(index, 0), this->index(index, ColumnCount - 1));
}

void BulkDecisionModel::setTicksNeeded(bool needed)
{
    m_ticksNeeded = needed;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

void BulkDecisionModel::setTicksLocked(bool locked)
{
    m_ticksLocked = locked;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, WarningsColumn), index(int(m_rows.size()) - 1, WarningsColumn));
}

void BulkDecisionModel::setTicked(int index, bool ticked)
{
    Q_ASSERT(index >= 0 && index < m_rows.size());
    if (m_rows.at(index).ticked == ticked)
        return;
    m_rows[index].ticked = ticked;
    emit dataChanged(this->index(index, 0), this->index(index, ColumnCount - 1));
}

bool BulkDecisionModel::tickable(int index) const
{
    // A row that is skipped (or not read yet) is never sent: nothing to tick.
    const Row &row = m_rows.at(index);
    return m_ticksNeeded && !row.warnings.isEmpty() && row.status != Status::Skipped && row.status != Status::Checking;
}

bool BulkDecisionModel::isHeld(int index) const
{
    const Row &row = m_rows.at(index);
    return m_ticksNeeded && row.status == Status::Ready && !row.warnings.isEmpty() && !row.ticked;
}

int BulkDecisionModel::sendable() const
{
    int n = 0;
    for (int i = 0; i < m_rows.size(); ++i)
        n += m_rows.at(i).status == Status::Ready && !isHeld(i) ? 1 : 0;
    return n;
}

void BulkDecisionModel::setStatus(int index, Status status, const QString &message)
{
    Q_ASSERT(index >= 0 && index < m_rows.size());
    m_rows[index].status = status;
    m_rows[index].message = message;
    emit dataChanged(this->index(index, 0), this->index(index, ColumnCount - 1));
    emit statusChanged(index, status);
}

int BulkDecisionModel::count(Status status) const
{
    int n = 0;
    for (const Row &row : m_rows)
        n += row.status == status ? 1 : 0;
    return n;
}

QMap<QString, qint64> BulkDecisionModel::totals() const
{
    QMap<QString, qint64> totals;
    for (int i = 0; i < m_rows.size(); ++i) {
        const Row &row = m_rows.at(i);
        if (row.status != Status::Skipped && row.status != Status::Checking && !isHeld(i) && !row.record.currency.isEmpty())
            totals[row.record.currency] += row.record.amount;
    }
    return totals;
}

QString BulkDecisionModel::totalsText() const
{
    const QMap<QString, qint64> sums = totals();
    if (sums.isEmpty())
        return tr("nothing");
    QStringList parts;
    for (auto it = sums.cbegin(); it != sums.cend(); ++it)
        parts << display::money(it.value(), it.key());
    return parts.join(QStringLiteral(" + "));
}

QString BulkDecisionModel::statusName(Status status)
{
    switch (status) {
    case Status::Checking:
        return tr("Checking\u2026");
    case Status::Ready:
        return tr("Ready");
    case Status::Skipped:
        return tr("Skipped");
    case Status::Sending:
        return tr("Sending\u2026");
    case Status::Done:
        return tr("Done");
    case Status::Refused:
        return tr("Not done");
    case Status::Unknown:
        return tr("No answer");
    }
    return QString();
}

int BulkDecisionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int BulkDecisionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BulkDecisionModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const Row &row = m_rows.at(index.row());
    const ActionRecord &r = row.record;
    switch (role) {
    case ActionIdRole:
        return r.id;
    case StatusRole:
        return int(row.status);
    case Qt::TextAlignmentRole:
        return index.column() == AmountColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                              : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (index.column() == ResultColumn)
            return row.message;
        if (index.column() == ActionColumn)
            return r.id;
        if (index.column() == ReasonsColumn)
            return row.reasons;
        if (index.column() == WarningsColumn && !row.warnings.isEmpty())
            return QString(row.warnings.join(QLatin1Char('\n'))
                + (m_ticksNeeded ? QStringLiteral("\n\n") + tr("Tick it (Space) to approve it with the others despite these warnings.")
                                 : QString()));
        return QVariant();
    case Qt::CheckStateRole:
        if (index.column() == WarningsColumn && tickable(index.row()))
            return row.ticked ? Qt::Checked : Qt::Unchecked;
        return QVariant();
    case Qt::DisplayRole:
        break;
    default:
        return QVariant();
    }
    const bool known = !r.currency.isEmpty();
    switch (index.column()) {
    case ActionColumn:
        return r.id;
    case RequesterColumn:
        return r.requestedBy;
    case TargetColumn:
        return known ? r.targetId + (r.businessReference.isEmpty() ? QString() : QStringLiteral(" \u00b7 ") + r.businessReference)
                     : QString();
    case AmountColumn:
        return known ? display::money(r.amount, r.currency) : QString();
    case WarningsColumn:
        return row.warnings.isEmpty() ? (known ? tr("none") : QString()) : row.warnings.join(QLatin1Char('\n'));
    case ReasonsColumn: {
        // The start of the agent's words; the whole in the tooltip.
        constexpr int Shown = 160;
        const QString text = row.reasons.simplified();
        if (text.isEmpty())
            return known ? tr("no reasons given") : QString();
        return text.size() > Shown ? text.left(Shown).trimmed() + QStringLiteral("\u2026") : text;
    }
    case ResultColumn:
        if (isHeld(index.row()))
            return tr("Held \u2014 not ticked: it is not approved with the others");
        return row.message.isEmpty() ? statusName(row.status)
                                     : QStringLiteral("%1 \u2014 %2").arg(statusName(row.status), row.message);
    default:
        return QVariant();
    }
}

QVariant BulkDecisionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QVariant();
    switch (section) {
    case ActionColumn:
        return tr("Action");
    case RequesterColumn:
        return tr("Requested by");
    case TargetColumn:
        return tr("Target \u00b7 order");
    case AmountColumn:
        return tr("Amount");
    case WarningsColumn:
        return tr("Warnings");
    case ReasonsColumn:
        return tr("The agent's reasons");
    case ResultColumn:
        return tr("Result");
    default:
        return QVariant();
    }
}

Qt::ItemFlags BulkDecisionModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == WarningsColumn && !m_ticksLocked && tickable(index.row()))
        f |= Qt::ItemIsUserCheckable;
    return f;
}

bool BulkDecisionModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::CheckStateRole || !(flags(index) & Qt::ItemIsUserCheckable))
        return false;
    setTicked(index.row(), value.value<Qt::CheckState>() == Qt::Checked);
    return true;
}

} // namespace cs
