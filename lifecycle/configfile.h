#pragma once

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

class QCommandLineOption;

namespace cs {

// A service's config file (countersignd serve --config /etc/countersign/countersignd.conf,
// docs/OPERATIONS.md): what would otherwise be a long list of flags, one `key = value` a line.
//
//   # a comment: only at the start of a line (a value may contain '#')
//   listen = 127.0.0.1:8470
//   db = /var/lib/countersign/ledger.db
//   mcp-allow-origin = https://agents.example.com
//   # a flag without a value: true or false
//   no-executor = true
//   # quotes keep spaces; \" and \\ inside
//   provider-account = "Acme EU"
//
// Keys are the long flag names without "--". The file is strict: an unknown key (with the
// nearest known one suggested), a key given twice unless its flag repeats, a line that is not
// `key = value`, a bad boolean, an unterminated quote or invalid UTF-8 stops the start with
// FILE:LINE named. Flags given on the command line override the file: such a key's lines are
// ignored as a whole (for a repeatable flag, the command line's list replaces the file's). The
// file may not be writable by group or others (it decides where refunds go). Pure QtCore.
class ConfigFile
{
public:
    struct Entry
    {
        QString key;
        QString value;
        int line = 0;
    };

    // Reads path against options (the flags a key may name); repeatable: the flags that may be
    // given more than once. Empty and error set when the file is refused.
    static std::optional<ConfigFile> read(const QString &path, const QList<QCommandLineOption> &options,
                                          const QSet<QString> &repeatable, QString *error);
    // The same, from text (tests); path only names the source in messages.
    static std::optional<ConfigFile> parse(const QString &path, const QByteArray &text,
                                           const QList<QCommandLineOption> &options, const QSet<QString> &repeatable,
                                           QString *error);

    // arguments[0] (the program), then the file's entries as flags — except those whose flag the
    // rest of arguments sets — then the rest of arguments: ready for QCommandLineParser::process.
    // `skip` arguments after the program are kept in front (a subcommand such as "serve").
    QStringList merged(const QStringList &arguments, int skip, const QList<QCommandLineOption> &options) const;

    // "FILE:LINE" of the entry that set flag `name` in the last merged(), or empty when the
    // command line (or nothing) set it.
    QString origin(const QString &name) const { return m_origins.value(name); }
    // A message about a flag ("--mcp-poll-ms expects 50 to 60000") prefixed with the file and line
    // that gave it, when it came from the file.
    QString explain(const QString &message) const;

    const QList<Entry> &entries() const { return m_entries; }
    const QString &path() const { return m_path; }

private:
    QString m_path;
    QList<Entry> m_entries;
    QHash<QString, bool> m_takesValue; // key → whether its flag takes a value
    mutable QHash<QString, QString> m_origins;
};

} // namespace cs
