#include "lifecycle/configfile.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QFile>
#include <QRegularExpression>
#include <QStringDecoder>

#include <sys/stat.h>

#include <algorithm>

namespace cs {

namespace {

int editDistance(const QString &a, const QString &b)
{
    QList<int> previous(b.size() + 1);
    QList<int> current(b.size() + 1);
    for (qsizetype j = 0; j <= b.size(); ++j)
        previous[j] = int(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        current[0] = int(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int substitution = previous[j - 1] + (a.at(i - 1) == b.at(j - 1) ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

// The value after '=': trimmed; a "quoted" value keeps its spaces, with \" and \\ inside.
std::optional<QString> unquote(const QString &raw, QString *why)
{
    const QString value = raw.trimmed();
    if (!value.startsWith(u'"'))
        return value;
    QString out;
    for (qsizetype i = 1; i < value.size(); ++i) {
        const QChar c = value.at(i);
        if (c == u'\\') {
            if (i + 1 >= value.size() || (value.at(i + 1) != u'"' && value.at(i + 1) != u'\\')) {
                *why = QStringLiteral("only \\\" and \\\\ may follow a backslash in a quoted value");
                return std::nullopt;
            }
            out += value.at(++i);
        } else if (c == u'"') {
            if (i + 1 != value.size()) {
                *why = QStringLiteral("text after the closing quote");
                return std::nullopt;
            }
            return out;
        } else {
            out += c;
        }
    }
    *why = QStringLiteral("the quote is not closed");
    return std::nullopt;
}

} // namespace

std::optional<ConfigFile> ConfigFile::read(const QString &path, const QList<QCommandLineOption> &options,
                                           const QSet<QString> &repeatable, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot read it: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    struct stat st {};
    if (::fstat(file.handle(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH))) {
        *error = QStringLiteral("%1: group or others may write it, and it decides where refunds are sent: "
                                "chmod go-w it")
                     .arg(path);
        return std::nullopt;
    }
    const QByteArray text = file.read(1024 * 1024 + 1);
    if (text.size() > 1024 * 1024) {
        *error = QStringLiteral("%1: larger than 1 MiB").arg(path);
        return std::nullopt;
    }
    return parse(path, text, options, repeatable, error);
}

std::optional<ConfigFile> ConfigFile::parse(const QString &path, const QByteArray &text,
                                            const QList<QCommandLineOption> &options, const QSet<QString> &repeatable,
                                            QString *error)
{
    ConfigFile config;
    config.m_path = path;
    for (const QCommandLineOption &option : options) {
        for (const QString &name : option.names()) {
            if (name.size() > 1) // long names only
                config.m_takesValue.insert(name, !option.valueName().isEmpty());
        }
    }
    static const QRegularExpression keyPattern(QStringLiteral("^[a-z0-9][a-z0-9-]*$"));
    QHash<QString, int> seen;
    const QList<QByteArray> lines = text.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const int number = int(i + 1);
        const auto refuse = [&](const QString &why) {
            *error = QStringLiteral("%1:%2: %3").arg(path).arg(number).arg(why);
            return std::nullopt;
        };
        QByteArray bytes = lines.at(i);
        if (bytes.endsWith('\r'))
            bytes.chop(1);
        if (i == 0 && bytes.startsWith("\xEF\xBB\xBF"))
            bytes.remove(0, 3);
        QStringDecoder decode(QStringDecoder::Utf8);
        const QString line = decode(bytes);
        if (decode.hasError())
            return refuse(QStringLiteral("not valid UTF-8"));
        const QString trimmed = line.trimmed();
        if (trimmed.isEmpty() || trimmed.startsWith(u'#'))
            continue;
        const qsizetype equals = trimmed.indexOf(u'=');
        if (equals < 0)
            return refuse(QStringLiteral("expected key = value, got \"%1\"").arg(trimmed.left(80)));
        const QString key = trimmed.left(equals).trimmed();
        if (!keyPattern.match(key).hasMatch())
            return refuse(QStringLiteral("\"%1\" is not a key (lower-case flag names without --, e.g. listen)").arg(key.left(80)));
        if (!config.m_takesValue.contains(key)) {
            QString nearest;
            int best = 4;
            for (auto it = config.m_takesValue.cbegin(); it != config.m_takesValue.cend(); ++it) {
                const int d = editDistance(key, it.key());
                if (d < best || (d == best && !nearest.isEmpty() && it.key() < nearest)) {
                    best = d;
                    nearest = it.key();
                }
            }
            return refuse(nearest.isEmpty() ? QStringLiteral("unknown key \"%1\"").arg(key)
                                             : QStringLiteral("unknown key \"%1\" (did you mean %2?)").arg(key, nearest));
        }
        if (const auto previous = seen.constFind(key); previous != seen.constEnd() && !repeatable.contains(key))
            return refuse(QStringLiteral("%1 is given again (first on line %2); only a repeatable flag may be").arg(key).arg(*previous));
        seen.insert(key, number);
        QString why;
        const std::optional<QString> value = unquote(trimmed.mid(equals + 1), &why);
        if (!value)
            return refuse(key + u": " + why);
        if (config.m_takesValue.value(key)) {
            if (value->isEmpty())
                return refuse(QStringLiteral("%1 needs a value").arg(key));
        } else if (*value != u"true" && *value != u"false") {
            return refuse(QStringLiteral("%1 is a switch: true or false, not \"%2\"").arg(key, value->left(80)));
        }
        config.m_entries.append(Entry{key, *value, number});
    }
    return config;
}

QStringList ConfigFile::merged(const QStringList &arguments, int skip, const QList<QCommandLineOption> &options) const
{
    const QStringList front = arguments.mid(0, 1 + skip);
    const QStringList rest = arguments.mid(1 + skip);
    QCommandLineParser given;
    given.addOptions(options);
    given.addHelpOption();
    given.parse(QStringList{arguments.value(0)} + rest); // unknown flags are process()'s to report
    QStringList out = front;
    m_origins.clear();
    for (const Entry &entry : m_entries) {
        if (given.isSet(entry.key))
            continue;
        const QString where = m_path + u':' + QString::number(entry.line);
        if (!m_takesValue.value(entry.key)) {
            if (entry.value == u"true") {
                out << QString(u"--" + entry.key);
                m_origins.insert(entry.key, where);
            }
            continue;
        }
        out << QString(u"--" + entry.key) << entry.value;
        // A repeatable key's message names its first line.
        if (!m_origins.contains(entry.key))
            m_origins.insert(entry.key, where);
    }
    return out + rest;
}

QString ConfigFile::explain(const QString &message) const
{
    static const QRegularExpression flag(QStringLiteral("^--([a-z0-9-]+)"));
    const auto m = flag.match(message);
    if (!m.hasMatch())
        return message;
    const QString where = m_origins.value(m.captured(1));
    return where.isEmpty() ? message : QString(where + u": " + message);
}

} // namespace cs
