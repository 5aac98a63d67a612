#include "models/payloaddiffmodel.h"
#include "models/columntitles.h"
#include "models/displayformat.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>

namespace cs {

namespace {

void flatten(const QJsonObject &object, const QString &prefix, QMap<QString, QJsonValue> *out)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString name = prefix.isEmpty() ? it.key() : prefix + QLatin1Char('.') + it.key();
        if (it.value().isObject() && !it.value().toObject().isEmpty())
            flatten(it.value().toObject(), name, out);
        else
            out->insert(name, it.value());
    }
}

// Fields in the order a reviewer reads a refund; others after them, alphabetically.
int rank(const QString &field)
{
    static const QStringList order{
        QStringLiteral("kind"), QStringLiteral("target.charge"), QStringLiteral("target.payment_intent"),
        QStringLiteral("amount"), QStringLiteral("currency"), QStringLiteral("reason"),
        QStringLiteral("business_reference"), QStringLiteral("parent_id"),
    };
    const qsizetype i = order.indexOf(field);
    return i < 0 ? int(order.size()) : int(i);
}

QString amountText(const QMap<QString, QJsonValue> &fields)
{
    const QJsonValue amount = fields.value(QStringLiteral("amount"));
    const QString currency = fields.value(QStringLiteral("currency")).toString();
    if (!amount.isDouble() || currency.isEmpty())
        return display::jsonValue(amount);
    const qint64 minor = amount.toInteger();
    return QStringLiteral("%1  (%2)").arg(minor).arg(display::money(minor, currency));
}

} // namespace

void PayloadDiffModel::setPayloads(const QJsonObject &stored, const QJsonObject &conflicting)
{
    QMap<QString, QJsonValue> left;
    QMap<QString, QJsonValue> right;
    flatten(stored, QString(), &left);
    flatten(conflicting, QString(), &right);

    QStringList fields = left.keys();
    for (const QString &key : right.keys()) {
        if (!left.contains(key))
            fields.append(key);
    }
    std::sort(fields.begin(), fields.end(), [](const QString &a, const QString &b) {
        const int ra = rank(a);
        const int rb = rank(b);
        return ra != rb ? ra < rb : a < b;
    });

    beginResetModel();
    m_rows.clear();
    for (const QString &field : std::as_const(fields)) {
        Row row;
        row.field = field;
        row.storedPresent = left.contains(field);
        row.conflictingPresent = right.contains(field);
        const bool isAmount = field == QLatin1String("amount");
        row.stored = row.storedPresent ? (isAmount ? amountText(left) : display::jsonValue(left.value(field))) : QString();
        row.conflicting = row.conflictingPresent ? (isAmount ? amountText(right) : display::jsonValue(right.value(field))) : QString();
        row.changed = row.storedPresent != row.conflictingPresent || left.value(field) != right.value(field);
        // A field empty on both sides says nothing.
        if (!row.changed && row.stored.isEmpty() && row.conflicting.isEmpty())
            continue;
        m_rows.append(row);
    }
    endResetModel();
}

int PayloadDiffModel::changedCount() const
{
    return int(std::count_if(m_rows.cbegin(), m_rows.cend(), [](const Row &r) { return r.changed; }));
}

int PayloadDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PayloadDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PayloadDiffModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const Row &row = m_rows.at(index.row());
    if (role == ChangedRole)
        return row.changed;
    if (role == Qt::AccessibleTextRole && row.changed)
        return tr("%1 changed from %2 to %3").arg(row.field, row.stored, row.conflicting);
    if (role != Qt::DisplayRole)
        return QVariant();
    switch (index.column()) {
    case FieldColumn:
        return row.field;
    case StoredColumn:
        return row.storedPresent ? row.stored : tr("(absent)");
    case ConflictingColumn:
        return row.conflictingPresent ? row.conflicting : tr("(absent)");
    default:
        return QVariant();
    }
}

QVariant PayloadDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QVariant();
    return columnTitle({
        tr("Field"), tr("Stored (what was proposed first)"), tr("Conflicting resubmission")
    }, section);
}

} // namespace cs
