#include "lifecycle/logformat.h"

#include <QCoreApplication>

#include <atomic>
#include <cerrno>
#include <mutex>

#include <unistd.h>

namespace cs {

namespace {

constexpr QStringView kActionPrefix = u"act_";
constexpr qsizetype kActionRandomLength = 24;

// Leaked on purpose: Qt may log from static destructors, after a function-local static is gone.
struct Output
{
    std::mutex mutex;
    std::function<void(const QByteArray &)> sink;
};

Output &output()
{
    static Output *const instance = new Output;
    return *instance;
}

std::atomic<LogFormat::Style> g_style{LogFormat::Style::Text};

void writeLine(const QByteArray &line)
{
    Output &out = output();
    std::lock_guard lock(out.mutex);
    if (out.sink) {
        out.sink(line);
        return;
    }
    const char *data = line.constData();
    qsizetype left = line.size();
    while (left > 0) {
        const ssize_t written = ::write(STDERR_FILENO, data, size_t(left));
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return; // nowhere left to say it
        }
        data += written;
        left -= written;
    }
}

void appendHex4(QByteArray &out, char32_t unit)
{
    static constexpr char digits[] = "0123456789abcdef";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4)
        out += digits[(unit >> shift) & 0xF];
}

void appendUtf8(QByteArray &out, char32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

// A JSON string of text. UTF-16 that is not valid (a lone surrogate) becomes U+FFFD: JSON's own
// \uD800 escape would be syntax a strict reader refuses to turn into text. Control characters,
// DEL and the two JavaScript line separators are escaped so a line shows as one line anywhere.
void appendString(QByteArray &out, QStringView text)
{
    out += '"';
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t unit = text.at(i).unicode();
        char32_t cp = unit;
        if (QChar::isHighSurrogate(unit) && i + 1 < text.size() && QChar::isLowSurrogate(text.at(i + 1).unicode()))
            cp = QChar::surrogateToUcs4(unit, text.at(++i).unicode());
        else if (QChar::isSurrogate(unit))
            cp = 0xFFFD;
        switch (cp) {
        case u'"': out += "\\\""; break;
        case u'\\': out += "\\\\"; break;
        case u'\n': out += "\\n"; break;
        case u'\r': out += "\\r"; break;
        case u'\t': out += "\\t"; break;
        case u'\b': out += "\\b"; break;
        case u'\f': out += "\\f"; break;
        default:
            if (cp < 0x20 || cp == 0x7F || cp == 0x2028 || cp == 0x2029)
                appendHex4(out, cp);
            else
                appendUtf8(out, cp);
        }
    }
    out += '"';
}

const char *levelName(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg: return "debug";
    case QtInfoMsg: return "info";
    case QtWarningMsg: return "warning";
    case QtCriticalMsg: return "critical";
    case QtFatalMsg: return "fatal";
    }
    return "warning";
}

void jsonHandler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    writeLine(LogFormat::jsonLine(type, context.category, message, QDateTime::currentDateTimeUtc(),
                                  QCoreApplication::applicationPid()));
}

} // namespace

std::optional<LogFormat::Style> LogFormat::parse(QStringView name)
{
    if (name == u"text")
        return Style::Text;
    if (name == u"json")
        return Style::Json;
    return std::nullopt;
}

QtMessageHandler LogFormat::install(Style style, std::function<void(const QByteArray &)> sink)
{
    {
        Output &out = output();
        std::lock_guard lock(out.mutex);
        out.sink = std::move(sink);
    }
    g_style = style;
    return qInstallMessageHandler(style == Style::Json ? jsonHandler : nullptr);
}

LogFormat::Style LogFormat::installed()
{
    return g_style;
}

QByteArray LogFormat::jsonLine(QtMsgType type, const char *category, QStringView message, const QDateTime &time,
                               qint64 pid)
{
    QByteArray line;
    line.reserve(message.size() + 160);
    line += "{\"time\":\"";
    line += time.toUTC().toString(Qt::ISODateWithMs).toLatin1();
    line += "\",\"level\":\"";
    line += levelName(type);
    line += "\",\"category\":";
    appendString(line, QString::fromUtf8(category && *category ? category : "default"));
    line += ",\"message\":";
    appendString(line, message);
    if (const QString action = actionOf(message); !action.isEmpty()) {
        line += ",\"action\":";
        appendString(line, action);
    }
    line += ",\"pid\":";
    line += QByteArray::number(pid);
    line += "}\n";
    return line;
}

QString LogFormat::actionOf(QStringView message)
{
    const bool quoted = message.startsWith(u'"');
    const QStringView rest = message.mid(quoted ? 1 : 0);
    const qsizetype length = kActionPrefix.size() + kActionRandomLength;
    if (rest.size() < length || !rest.startsWith(kActionPrefix))
        return {};
    for (qsizetype i = kActionPrefix.size(); i < length; ++i) {
        const QChar c = rest.at(i);
        if (!((c >= u'a' && c <= u'z') || (c >= u'2' && c <= u'7')))
            return {};
    }
    qsizetype end = length;
    if (quoted) {
        if (end >= rest.size() || rest.at(end) != u'"')
            return {};
        ++end;
    }
    // The whole first word: "act_…x" followed by more id-like text is some other token.
    if (end < rest.size() && rest.at(end) != u' ' && rest.at(end) != u':')
        return {};
    return rest.left(length).toString();
}

void LogFormat::say(QtMsgType level, const QString &program, const QString &line)
{
    if (installed() == Style::Json)
        writeLine(jsonLine(level, program.toUtf8().constData(), line, QDateTime::currentDateTimeUtc(),
                           QCoreApplication::applicationPid()));
    else
        writeLine((program + QStringLiteral(": ") + line + QLatin1Char('\n')).toUtf8());
}

} // namespace cs
