#include "server/exportcommand.h"
#include "server/ledger/ledger.h"
#include "server/ledger/ledgerconnections.h"
#include "server/ledger/ledgerfiles.h"
#include "server/ledgerexport.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSaveFile>
#include <QTextStream>

#include <algorithm>
#include <cstdio>

namespace cs {

namespace {

Q_LOGGING_CATEGORY(lcExport, "countersign.export", QtWarningMsg)

const QString Usage = QStringLiteral(
    "countersignd export actions --db FILE|URI [--state S]... [--search TEXT] [--since DATE] [--until DATE]"
    " --format csv|json --to FILE|-\n"
    "       countersignd export history ACTION_ID --db FILE|URI --format csv|json --to FILE|-");

int fail(const QString &message, int code)
{
    QTextStream(stderr) << "countersignd export: " << message << Qt::endl;
    return code;
}

int usage(const QString &message)
{
    return fail(message + QStringLiteral("\nusage: ") + Usage, 2);
}

// --state values: names of states (any case) or "queue", each value possibly a comma-separated list.
bool parseStates(const QStringList &values, QList<ActionState> *states, QString *error)
{
    for (const QString &value : values) {
        for (const QString &name : value.split(u',')) {
            QList<ActionState> named;
            if (name.compare(u"queue", Qt::CaseInsensitive) == 0)
                named = {ActionState::Pending, ActionState::ConfirmationUnknown, ActionState::RequiresReview};
            else if (const auto state = stateFromWire(name.trimmed().toUpper()))
                named = {*state};
            if (named.isEmpty()) {
                *error = QStringLiteral("--state \"%1\" is not a state (PENDING, EXECUTING, CONFIRMATION_UNKNOWN,"
                                        " COMPLETED, REJECTED, REQUIRES_REVIEW) or queue")
                             .arg(name);
                return false;
            }
            for (ActionState state : std::as_const(named)) {
                if (!states->contains(state))
                    states->append(state);
            }
        }
    }
    return true;
}

// A date (2026-11-01: that day from 00:00 UTC) or an ISO 8601 time with Z or an offset.
bool parseTime(const QString &option, const QString &text, QDateTime *time, QString *error)
{
    QDateTime parsed;
    if (text.size() == 10) {
        const QDate date = QDate::fromString(text, Qt::ISODate);
        if (date.isValid())
            parsed = QDateTime(date, QTime(0, 0), Qt::UTC);
    } else {
        parsed = QDateTime::fromString(text, Qt::ISODateWithMs);
        if (parsed.isValid() && parsed.timeSpec() == Qt::LocalTime)
            parsed = QDateTime(); // no offset: whose midnight would it be?
    }
    if (!parsed.isValid()) {
        *error = QStringLiteral("--%1 \"%2\" is neither a date (2026-11-01, from 00:00 UTC) nor a time with Z or an"
                                " offset (2026-11-01T09:30:00+01:00)")
                     .arg(option, text);
        return false;
    }
    *time = parsed.toUTC();
    return true;
}

} // namespace

int ExportCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Usage
        + QStringLiteral("\n\nWrites the actions of a filter (newest first, every page) or one action's history as CSV"
                         " (RFC 4180, UTF-8, CRLF) or JSON, in the columns of the console's File → Export"
                         " (docs/EXPORT.md). Money: amount_minor (integer minor units) and amount (formatted with the"
                         " currency's decimals). FILE is written to a temporary file and renamed when complete: a"
                         " failure leaves no file. - writes to standard output."));
    const QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Shows this help."));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("The ledger: a SQLite file, or a PostgreSQL database as a libpq URI"
                                               " postgresql://USER@HOST:PORT/DBNAME (no password in it)."),
                                QStringLiteral("FILE|URI"));
    const QCommandLineOption passwordFile(
        QStringLiteral("db-password-file"),
        QStringLiteral("PostgreSQL: a file whose first line is the password; without it libpq's own sources."),
        QStringLiteral("FILE"));
    const QCommandLineOption state(QStringLiteral("state"),
                                   QStringLiteral("Only actions in this state (repeat or separate with commas;"
                                                  " queue: PENDING, CONFIRMATION_UNKNOWN, REQUIRES_REVIEW)."),
                                   QStringLiteral("S"));
    const QCommandLineOption search(QStringLiteral("search"),
                                    QStringLiteral("Only actions whose id, target, business reference, requester or"
                                                   " client reference contains TEXT (case-insensitive), as the"
                                                   " console's search."),
                                    QStringLiteral("TEXT"));
    const QCommandLineOption since(QStringLiteral("since"),
                                   QStringLiteral("Only actions created at or after DATE (2026-11-01: 00:00 UTC; or a"
                                                  " time with Z or an offset)."),
                                   QStringLiteral("DATE"));
    const QCommandLineOption until(QStringLiteral("until"),
                                   QStringLiteral("Only actions created before DATE (the same forms)."),
                                   QStringLiteral("DATE"));
    const QCommandLineOption format(QStringLiteral("format"), QStringLiteral("csv or json."),
                                    QStringLiteral("csv|json"));
    const QCommandLineOption to(QStringLiteral("to"),
                                QStringLiteral("The file to write (replaced once complete), or - for standard output."),
                                QStringLiteral("FILE|-"));
    parser.addOptions({help, db, passwordFile, state, search, since, until, format, to});
    parser.addPositionalArgument(QStringLiteral("what"), QStringLiteral("actions, or history ACTION_ID."));

    QStringList rest = arguments.mid(2);
    rest.prepend(QStringLiteral("countersignd export"));
    if (!parser.parse(rest))
        return usage(parser.errorText());
    if (parser.isSet(help)) {
        // Qt's first line names the binary's path and "[options] what": the usage above says more.
        QTextStream(stdout) << "usage: " << parser.helpText().section(QLatin1Char('\n'), 1);
        return 0;
    }

    const QStringList positional = parser.positionalArguments();
    const QString what = positional.value(0);
    const bool history = what == u"history";
    if (what != u"actions" && !history)
        return usage(what.isEmpty() ? QStringLiteral("say what to export: actions or history ACTION_ID")
                                    : QStringLiteral("\"%1\" is not something to export (actions, history)").arg(what));
    if (history && positional.size() != 2)
        return usage(QStringLiteral("history takes one ACTION_ID"));
    if (!history && positional.size() != 1)
        return usage(QStringLiteral("actions takes no further argument (\"%1\")").arg(positional.value(1)));
    if (history) {
        for (const QCommandLineOption *filter : {&state, &search, &since, &until}) {
            if (parser.isSet(*filter))
                return usage(QStringLiteral("--%1 filters actions; a history is one action's").arg(filter->names().constFirst()));
        }
    }
    if (!parser.isSet(db))
        return usage(QStringLiteral("--db FILE|URI is required"));
    if (!parser.isSet(format))
        return usage(QStringLiteral("--format csv|json is required"));
    const std::optional<ExportFormat> exportFormat = exportFormatFromWire(parser.value(format));
    if (!exportFormat)
        return usage(QStringLiteral("--format \"%1\" is neither csv nor json").arg(parser.value(format)));
    if (!parser.isSet(to) || parser.value(to).isEmpty())
        return usage(QStringLiteral("--to FILE|- is required (- writes to standard output)"));

    LedgerExport::ActionsQuery query;
    QString error;
    if (!parseStates(parser.values(state), &query.states, &error))
        return usage(error);
    if (parser.isSet(search)) {
        query.text = parser.value(search).trimmed();
        if (query.text.isEmpty() || query.text.size() > 200)
            return usage(QStringLiteral("--search must be 1 to 200 characters"));
        if (std::any_of(query.text.cbegin(), query.text.cend(), [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; }))
            return usage(QStringLiteral("--search must not contain control characters (U+0000 to U+001F, U+007F)"));
    }
    if (parser.isSet(since) && !parseTime(QStringLiteral("since"), parser.value(since), &query.since, &error))
        return usage(error);
    if (parser.isSet(until) && !parseTime(QStringLiteral("until"), parser.value(until), &query.until, &error))
        return usage(error);
    if (query.since.isValid() && query.until.isValid() && query.since >= query.until)
        return usage(QStringLiteral("--since must come before --until"));

    const QString location = parser.value(db);
    const QString target = parser.value(to);
    const bool toStdout = target == u"-";
    if (!LedgerLocation::isUri(location)) {
        if (!QFileInfo(location).isFile())
            return fail(QStringLiteral("no ledger at %1 (a SQLite file, or a postgresql:// URI)").arg(location), 1);
    }
    if (!toStdout) {
        if (const LedgerError refused = LedgerFiles::refuseTarget(target, location, LedgerFiles::Replacing::Nothing);
            !refused.ok())
            return usage(QStringLiteral("--to: ") + refused.message());
    }

    Ledger ledger;
    Ledger::Options options;
    options.recoverExpiredLeasesOnOpen = false; // exporting must not write
    options.passwordFile = parser.value(passwordFile);
    const LedgerError opened = ledger.open(location, options);
    if (!opened.ok())
        return fail(QStringLiteral("cannot open the ledger: ") + opened.toString(), 1);

    QFile standardOutput;
    QSaveFile file(target);
    QIODevice *out = &file;
    if (toStdout) {
        if (!standardOutput.open(stdout, QIODevice::WriteOnly))
            return fail(QStringLiteral("cannot write to standard output: ") + standardOutput.errorString(), 1);
        out = &standardOutput;
    } else if (!file.open(QIODevice::WriteOnly)) {
        return fail(QStringLiteral("cannot write %1: %2").arg(target, file.errorString()), 1);
    }
    const QString lost = toStdout ? QStringLiteral("; what reached standard output is incomplete")
                                  : QStringLiteral("; no file was written");

    qint64 rows = 0;
    qint64 bytes = 0;
    QString noun;
    if (history) {
        const QString actionId = positional.at(1);
        const LedgerResult<ActionHistory> read = LedgerExport::history(ledger.reader(), actionId);
        if (!read.ok()) {
            file.cancelWriting();
            if (read.code() == LedgerError::Code::NotFound)
                return fail(QStringLiteral("no action %1 in the ledger").arg(actionId), 1);
            return fail(read.error().toString(), 1);
        }
        const QByteArray written = HistoryExport::write(*read, *exportFormat);
        if (out->write(written) != written.size()) {
            file.cancelWriting();
            return fail(QStringLiteral("cannot write %1: %2").arg(target, out->errorString()) + lost, 1);
        }
        rows = read->attempts.size() + read->lookups.size() + read->approvals.size() + read->reconciliations.size()
            + read->audit.size();
        bytes = written.size();
        noun = QStringLiteral("the history of %1 (%2 entries)").arg(actionId).arg(rows);
    } else {
        const std::optional<LedgerExport::Written> written =
            LedgerExport::writeActions(ledger.reader(), query, *exportFormat, out, &error);
        if (!written) {
            file.cancelWriting();
            return fail(error + lost, 1);
        }
        rows = written->rows;
        bytes = written->bytes;
        noun = QStringLiteral("%1 actions").arg(rows);
    }
    if (toStdout) {
        standardOutput.flush();
        return 0;
    }
    if (!file.commit())
        return fail(QStringLiteral("cannot write %1: %2").arg(target, file.errorString()) + lost, 1);
    qCInfo(lcExport).noquote() << "exported" << noun << "to" << target;
    QTextStream(stdout) << "exported " << noun << ", " << bytes << " bytes, to " << target << Qt::endl;
    return 0;
}

} // namespace cs
