#pragma once

#include "models/actionsummary.h"

#include <QByteArray>
#include <QJsonValue>
#include <QMetaType>
#include <QList>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace cs {

// The two file formats of an export (docs/EXPORT.md). The console (File → Export) and
// `countersignd export` write them through the classes here, so the same actions give the same
// bytes whichever of the two wrote them.
enum class ExportFormat { Csv, Json };
QString toWire(ExportFormat format); // "csv", "json": also the file suffix
std::optional<ExportFormat> exportFormatFromWire(QStringView wire);

// How an export into a file ended. Only Written leaves a file.
enum class ExportOutcome { Running, Written, Cancelled, Failed };

// CSV as RFC 4180 writes it: fields separated by commas, every record (the header included)
// ended by CRLF, a field quoted when it holds a comma, a double quote, CR or LF (a quote doubled
// inside). UTF-8 without a byte-order mark. A spreadsheet would run a cell that starts with
// = + - @, TAB or CR as a formula, so such a cell is written with a leading apostrophe
// ("'=SUM(A1)"): the file stays text, whatever an agent put into a business reference.
namespace csv {
QString field(const QString &value);
QByteArray record(const QStringList &fields);
} // namespace csv

// A JSON string literal (quotes included) of `value` in UTF-8, escaped as RFC 8259 requires (the
// quote, the backslash and the control characters), without building a QJsonDocument per value.
QByteArray jsonString(const QString &value);

// Money in an export: `amount_minor`, the integer the ledger keeps, and `amount`, the same in
// major units with the currency's number of decimals ("40.00" usd, "5000" jpy, "1.250" kwd).
// Empty for a currency Money does not know (never written by the ledger, which refuses them).
QString formattedAmount(qint64 minorUnits, const QString &currency);

// The actions file: one row per action of the list, in the list's order, with the columns
// columns() names. Only what a row of the action list (GET /actions, ActionReader::list) carries,
// so the console needs no further request per action. The JSON form is an array with one object
// per line, its members in the columns' order; numbers are JSON numbers, `amount` a string (a
// JSON number would lose "40.00" to a binary float in most readers), a missing time null.
//
// Written incrementally: begin(), rows() for each page, end(); concatenated, the pieces are the
// file. Not thread-safe; one writer per file.
class ActionExportWriter
{
public:
    explicit ActionExportWriter(ExportFormat format) : m_format(format) {}

    static const QStringList &columns();
    // The row's values in columns() order, as the CSV shows them (before quoting).
    static QStringList values(const ActionSummary &row);

    ExportFormat format() const { return m_format; }
    QByteArray begin();
    QByteArray rows(const QList<ActionSummary> &rows);
    QByteArray end();

private:
    QByteArray jsonRow(const ActionSummary &row) const;

    ExportFormat m_format;
    bool m_first = true;
};

// Writes `bytes` to `path` through QSaveFile: a temporary file beside it, renamed over `path`
// only once everything is written, so a failure leaves no file (and an existing one as it was).
// False with *error set (a sentence naming the file) on failure.
bool writeFileAtomically(const QString &path, const QByteArray &bytes, QString *error);

} // namespace cs

Q_DECLARE_METATYPE(cs::ExportOutcome)
