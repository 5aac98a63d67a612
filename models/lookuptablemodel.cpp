#include "models/lookuptablemodel.h"
#include "models/displayformat.h"

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

QVariant LookupTableModel::data(const QModelIndex &index, int role) const
{
    if (!isValidIndex(index))
        return QVariant();
    const ProviderLookup &l = m_records.at(index.row());
    const int column = index.column();
    switch (role) {
    case LookupRole:
        return QVariant::fromValue(l);
    case ResultRole:
        return int(l.result);
    case SeqRole:
        return l.seq;
    case Qt::TextAlignmentRole:
        if (column == SeqColumn || column == AmountColumn || column == HttpStatusColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == AtColumn)
            return display::isoTime(l.at);
        return l.excerpt.isEmpty() ? QVariant() : QVariant(l.excerpt);
    case Qt::DisplayRole:
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
