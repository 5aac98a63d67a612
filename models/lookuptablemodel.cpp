#include "models/lookuptablemodel.h"
#include "models/displayformat.h"

#include <QStringList>

namespace cs {

LookupTableModel::LookupTableModel(QObject *parent)
    : RecordTableModel(parent)
{
    setColumnTitles({
        tr("#"), tr("Time"), tr("Method"), tr("Asked by"), tr("Result"), tr("Provider object"),
        tr("Status"), tr("Amount"), tr("HTTP")
    });
    Q_ASSERT(columnCount() == ColumnCount);
}

QString LookupTableModel::methodName(ProviderLookup::Method method)
{
    switch (method) {
    case ProviderLookup::Method::ListByMetadata:
        return tr("list by metadata");
    case ProviderLookup::Method::RetrieveRefund:
        return tr("retrieve refund");
    case ProviderLookup::Method::Events:
        return tr("events");
    case ProviderLookup::Method::Webhook:
        return tr("webhook");
    }
    return QString();
}

QString LookupTableModel::resultName(ProviderLookup::Result result)
{
    return toWire(result); // FOUND, NOT_FOUND, ERROR: evidence words, kept verbatim
}

QString LookupTableModel::describe(const ProviderLookup &l)
{
    QString text = QStringLiteral("#%1 %2").arg(l.seq).arg(resultName(l.result));
    if (l.result == ProviderLookup::Result::Found) {
        text += QLatin1Char(' ') + l.providerObjectId + QLatin1Char(' ') + l.status + QLatin1Char(' ')
            + display::money(l.amount, l.currency);
    }
    return text + QStringLiteral(" (%1, %2, %3)").arg(methodName(l.method), l.askedBy, display::time(l.at));
}

QString LookupTableModel::describeFold(const LookupEntry &e)
{
    return e.httpStatus != 0 ? tr("%1 look-ups failed (HTTP %2)").arg(e.count).arg(e.httpStatus)
                             : tr("%1 look-ups failed (no answer)").arg(e.count);
}

void LookupTableModel::setLookups(const QList<ProviderLookup> &lookups)
{
    const QList<LookupEntry> next = orderLookups(lookups);
    const auto keyIn = [](const QList<LookupEntry> &entries, const QString &key) {
        for (qsizetype i = 0; i < entries.size(); ++i) {
            if (entries.at(i).key() == key)
                return int(i);
        }
        return -1;
    };
    // Rows that are gone, then the rest into the new order, then the new rows in their places:
    // what is left of the old rows is then a subsequence of the new ones.
    for (int row = int(m_records.size()) - 1; row >= 0; --row) {
        if (keyIn(next, m_records.at(row).key()) < 0) {
            beginRemoveRows(QModelIndex(), row, row);
            m_records.removeAt(row);
            endRemoveRows();
        }
    }
    moveKeptInto(next);
    for (int row = 0; row < int(next.size()); ++row) {
        if (row < int(m_records.size()) && m_records.at(row).key() == next.at(row).key())
            continue;
        beginInsertRows(QModelIndex(), row, row);
        m_records.insert(row, next.at(row));
        endInsertRows();
    }
    for (int row = 0; row < int(next.size()); ++row) {
        if (m_records.at(row) == next.at(row))
            continue;
        m_records[row] = next.at(row);
        emit dataChanged(index(row, 0), index(row, columnCount() - 1));
    }
}

// Reorders the present rows as `next` orders them (a layout change; persistent indexes follow).
void LookupTableModel::moveKeptInto(const QList<LookupEntry> &next)
{
    QList<LookupEntry> kept;
    QList<int> oldRowOf; // per kept row, where it was
    for (const LookupEntry &e : next) {
        for (qsizetype row = 0; row < m_records.size(); ++row) {
            if (m_records.at(row).key() == e.key()) {
                kept.append(m_records.at(row));
                oldRowOf.append(int(row));
                break;
            }
        }
    }
    bool same = true;
    for (qsizetype i = 0; i < oldRowOf.size(); ++i)
        same = same && oldRowOf.at(i) == int(i);
    if (same)
        return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    for (const QModelIndex &index : from)
        to.append(this->index(int(oldRowOf.indexOf(index.row())), index.column()));
    m_records = kept;
    changePersistentIndexList(from, to);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

int LookupTableModel::rowOfSeq(int seq) const
{
    for (qsizetype row = 0; row < m_records.size(); ++row) {
        if (!m_records.at(row).isFold() && m_records.at(row).lookup.seq == seq)
            return int(row);
    }
    return -1;
}

Qt::ItemFlags LookupTableModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !isValidIndex(index))
        return Qt::NoItemFlags;
    if (m_records.at(index.row()).isFold())
        return Qt::ItemIsEnabled | Qt::ItemNeverHasChildren;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

QVariant LookupTableModel::foldData(const LookupEntry &e, int column, int role) const
{
    switch (role) {
    case Qt::ToolTipRole: {
        QStringList lines { describeFold(e) + QLatin1Char(':') };
        for (qsizetype i = 0; i < e.seqs.size(); ++i)
            lines << QStringLiteral("#%1  %2").arg(e.seqs.at(i)).arg(display::time(e.times.value(i)));
        if (!e.lookup.excerpt.isEmpty())
            lines << QString() << tr("Newest answer: %1").arg(e.lookup.excerpt);
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::DisplayRole:
        switch (column) {
        case AtColumn:
            return display::timeSpan(e.first, e.last);
        case MethodColumn: {
            QStringList names;
            for (ProviderLookup::Method method : e.methods)
                names << methodName(method);
            return names.join(QStringLiteral(", "));
        }
        case AskedByColumn:
            return e.askedBy.join(QStringLiteral(", "));
        case ResultColumn:
            return describeFold(e);
        case HttpStatusColumn:
            return e.httpStatus == 0 ? tr("none") : QString::number(e.httpStatus);
        default:
            return QString();
        }
    default:
        return QVariant();
    }
}

QVariant LookupTableModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const LookupEntry &entry = m_records.at(index.row());
    const ProviderLookup &l = entry.lookup;
    const int column = index.column();
    switch (role) {
    case LookupRole:
        return QVariant::fromValue(l);
    case ResultRole:
        return int(l.result);
    case SeqRole:
        return entry.isFold() ? 0 : l.seq;
    case FoldCountRole:
        return entry.count;
    case Qt::TextAlignmentRole:
        if (column == SeqColumn || column == AmountColumn || column == HttpStatusColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (entry.isFold())
            return foldData(entry, column, role);
        if (column == AtColumn)
            return display::isoTime(l.at);
        return l.excerpt.isEmpty() ? QVariant() : QVariant(l.excerpt);
    case Qt::DisplayRole:
        if (entry.isFold())
            return foldData(entry, column, role);
        switch (column) {
        case SeqColumn:
            return l.seq;
        case AtColumn:
            return display::preciseTime(l.at);
        case MethodColumn:
            return methodName(l.method);
        case AskedByColumn:
            return l.askedBy;
        case ResultColumn:
            return resultName(l.result);
        case ProviderObjectColumn:
            return l.providerObjectId;
        case StatusColumn:
            return l.status;
        case AmountColumn:
            return l.result == ProviderLookup::Result::Found ? display::money(l.amount, l.currency) : QString();
        case HttpStatusColumn:
            return l.httpStatus == 0 ? tr("none") : QString::number(l.httpStatus);
        default:
            return QVariant();
        }
    default:
        return QVariant();
    }
}

} // namespace cs
