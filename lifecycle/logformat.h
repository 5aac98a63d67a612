#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QStringView>
#include <QtGlobal>

#include <functional>
#include <optional>

namespace cs {

// --log-format of countersignd serve and paysim (docs/OPERATIONS.md, "Logs"): how log lines reach
// standard error.
//
// text (the default): Qt's own message handler, untouched (QT_MESSAGE_PATTERN applies).
// json: one JSON object per line, UTF-8, for log shippers:
//
//   {"time":"2026-12-01T09:30:00.123Z","level":"info","category":"countersign.executor",
//    "message":"\"act_…\" -> COMPLETED …","action":"act_…","pid":4242}
//
// `time` is RFC 3339 UTC with milliseconds; `level` debug, info, warning, critical or fatal;
// `category` the Qt logging category ("default" for an uncategorised qDebug, the program's name
// for what its main() says); `action` only when the line is about one action; `pid` a number.
// The message is escaped here, not trusted: quotes, backslashes and control characters are
// escaped, a lone UTF-16 surrogate becomes U+FFFD, so no text, however hostile, breaks a line or
// the JSON. Lines are written whole (one write(2) each, under a mutex): threads do not interleave.
//
// How a line names its action: its message BEGINS with the action id ("act_" and 24 characters
// of a-z2-7, bare or in the double quotes QDebug puts around a QString). Every log statement in
// server/ about one action streams the id first (`qCInfo(lcExecutor) << record.id << "->" …`).
// Why the text and not a thread-local "current action" set around each piece of work: `action`
// is then derived from the very words a reader of the text format sees, so the two cannot
// disagree, and nothing has to be carried across threads — the executor logs a finished attempt
// on its committer thread, in a callback far from the worker that sent it, where a scope would be
// silently missing (or, worse, another action's). Why only the first word: the rest of a message
// may quote text from outside (a provider's answer, a reason, a user name) that could spell an
// id; the first word is always our own code's. A line about several actions (a group commit, a
// recovery sweep) begins with none and has no `action`. The pattern mirrors Ids::looksLikeActionId
// (server/ledger/ids.h, which this QtCore-only room may not include); tst_logformat checks that a
// freshly minted id is recognised.
class LogFormat
{
public:
    enum class Style { Text, Json };

    // "text" or "json"; nullopt for anything else.
    static std::optional<Style> parse(QStringView name);

    // Installs style's handler for the whole process (Text: Qt's default handler again) and
    // returns the handler it replaced. `sink` receives every line with its newline, instead of
    // standard error (tests). Call it from main() before threads log.
    static QtMessageHandler install(Style style, std::function<void(const QByteArray &)> sink = {});
    static Style installed();

    // One line of the json style, newline included.
    static QByteArray jsonLine(QtMsgType type, const char *category, QStringView message, const QDateTime &time,
                               qint64 pid);
    // The action a message is about (see above), or an empty string.
    static QString actionOf(QStringView message);

    // What a program's main() says on standard error outside the logging categories ("countersignd:
    // --listen expects host:port"): "program: line" in the text style, as it always was; in the
    // json style an object of category `program` at `level`, so that every line stays JSON.
    static void say(QtMsgType level, const QString &program, const QString &line);
};

} // namespace cs
