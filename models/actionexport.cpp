#include "models/actionexport.h"
#include "models/money.h"
#include "models/wirenames.h"

#include <QSaveFile>

namespace cs {

namespace {

constexpr wire::Name<ExportFormat> FormatNames[] = {
    {ExportFormat::Csv, QLatin1String("csv")},
    {ExportFormat::Json, QLatin1String("json")},
};

// The characters a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
bool startsLikeFormula(const QString &value)
{
    if (value.isEmpty())
        return false;
    switch (value.front().unicode()) {
    case u'=':
    case u'+':
    case u'-':
    case u'@':
    case u'\t':
    case u'\r':
        return true;
    default:
        return false;
    }
}

QString timeOrEmpty(const QDateTime &time)
{
    return time.isValid() ? toWireTime(time) : QString();
}

QByteArray jsonTimeOrNull(const QDateTime &time)
{
    return time.isValid() ? jsonString(toWireTime(time)) : QByteArrayLiteral("null");
}

} // namespace

QString toWire(ExportFormat format)
{
    return wire::nameOf(FormatNames, format);
}

std::optional<ExportFormat> exportFormatFromWire(QStringView wire)
{
    return wire::valueOf(FormatNames, wire);
}

namespace csv {

QString field(const QString &value)
{
    QString text = startsLikeFormula(value) ? QLatin1Char('\'') + value : value;
    const bool quote = text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"'))
        || text.contains(QLatin1Char('\r')) || text.contains(QLatin1Char('\n'));
    if (!quote)
        return text;
    text.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + text + QLatin1Char('"');
}

QByteArray record(const QStringList &fields)
{
    QString line;
    for (qsizetype i = 0; i < fields.size(); ++i) {
        if (i > 0)
            line += QLatin1Char(',');
        line += field(fields.at(i));
    }
    line += QLatin1String("\r\n");
    return line.toUtf8();
}

} // namespace csv

QByteArray jsonString(const QString &value)
{
    QString out;
    out.reserve(value.size() + 2);
    out += QLatin1Char('"');
    for (const QChar c : value) {
        switch (c.unicode()) {
        case u'"':
            out += QLatin1String("\\\"");
            break;
        case u'\\':
            out += QLatin1String("\\\\");
            break;
        case u'\b':
            out += QLatin1String("\\b");
            break;
        case u'\f':
            out += QLatin1String("\\f");
            break;
        case u'\n':
            out += QLatin1String("\\n");
            break;
        case u'\r':
            out += QLatin1String("\\r");
            break;
        case u'\t':
            out += QLatin1String("\\t");
            break;
        default:
            if (c.unicode() < 0x20)
                out += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            else
                out += c;
        }
    }
    out += QLatin1Char('"');
    return out.toUtf8();
}

QString formattedAmount(qint64 minorUnits, const QString &currency)
{
    const std::optional<Money> money = Money::fromMinorUnits(minorUnits, currency);
    return money ? money->decimalString() : QString();
}

// ---- the actions file ------------------------------------------------------------------------

const QStringList &ActionExportWriter::columns()
{
    static const QStringList names = {
        QStringLiteral("id"),
        QStringLiteral("state"),
        QStringLiteral("state_version"),
        QStringLiteral("created_at"),
        QStringLiteral("updated_at"),
        QStringLiteral("requested_by"),
        QStringLiteral("target_type"),
        QStringLiteral("target_id"),
        QStringLiteral("business_reference"),
        QStringLiteral("amount_minor"),
        QStringLiteral("amount"),
        QStringLiteral("currency"),
        QStringLiteral("attempt_count"),
        QStringLiteral("last_event_at"),
        QStringLiteral("review_reason"),
        QStringLiteral("possible_duplicates"),
    };
    return names;
}

QStringList ActionExportWriter::values(const ActionSummary &row)
{
    const ActionRecord &r = row.record;
    return {
        r.id,
        toWire(r.state),
        QString::number(r.stateVersion),
        timeOrEmpty(r.createdAt),
        timeOrEmpty(r.updatedAt),
        r.requestedBy,
        toWire(r.targetType),
        r.targetId,
        r.businessReference,
        QString::number(r.amount),
        formattedAmount(r.amount, r.currency),
        r.currency,
        QString::number(row.attemptCount),
        timeOrEmpty(row.lastEventAt),
        r.reviewReason,
        QString::number(row.possibleDuplicates),
    };
}

QByteArray ActionExportWriter::jsonRow(const ActionSummary &row) const
{
    const ActionRecord &r = row.record;
    const QString amount = formattedAmount(r.amount, r.currency);
    // Members in columns() order, so that a reader of either file sees the same sequence.
    const QByteArray members[] = {
        jsonString(r.id),
        jsonString(toWire(r.state)),
        QByteArray::number(r.stateVersion),
        jsonTimeOrNull(r.createdAt),
        jsonTimeOrNull(r.updatedAt),
        jsonString(r.requestedBy),
        jsonString(toWire(r.targetType)),
        jsonString(r.targetId),
        jsonString(r.businessReference),
        QByteArray::number(r.amount),
        amount.isEmpty() ? QByteArrayLiteral("null") : jsonString(amount),
        jsonString(r.currency),
        QByteArray::number(row.attemptCount),
        jsonTimeOrNull(row.lastEventAt),
        jsonString(r.reviewReason),
        QByteArray::number(row.possibleDuplicates),
    };
    static_assert(std::size(members) == 16, "one member per column");
    QByteArray out = "{";
    const QStringList &names = columns();
    for (qsizetype i = 0; i < names.size(); ++i) {
        if (i > 0)
            out += ',';
        out += '"' + names.at(i).toLatin1() + "\":" + members[i];
    }
    out += '}';
    return out;
}

QByteArray ActionExportWriter::begin()
{
    m_first = true;
    return m_format == ExportFormat::Csv ? csv::record(columns()) : QByteArrayLiteral("[");
}

QByteArray ActionExportWriter::rows(const QList<ActionSummary> &rows)
{
    QByteArray out;
    for (const ActionSummary &row : rows) {
        if (m_format == ExportFormat::Csv) {
            out += csv::record(values(row));
        } else {
            out += m_first ? "\n" : ",\n";
            out += jsonRow(row);
        }
        m_first = false;
    }
    return out;
}

QByteArray ActionExportWriter::end()
{
    return m_format == ExportFormat::Csv ? QByteArray() : QByteArrayLiteral("\n]\n");
}

bool writeFileAtomically(const QString &path, const QByteArray &bytes, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    return true;
}

} // namespace cs
