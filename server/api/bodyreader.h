#pragma once

#include "server/api/problem.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace cs {

// Strict reader of one JSON request body (docs/API.md, "Limits and validation"): collects EVERY
// offending member as a FieldError with its JSON path, refuses unknown members, and never coerces
// a type ("4000" is not an integer, 40.5 is not an integer, null is not a string).
class BodyReader
{
public:
    BodyReader(const QJsonObject &json, QList<FieldError> *errors, QString prefix = QString());

    // Every member not in `known` is refused ("is not a known member").
    void refuseUnknown(const QStringList &known);

    // Which characters a text member may hold (docs/API.md, "Limits and validation"). Every
    // text must be valid Unicode (StrictJson keeps invalid text recognisable) and never holds
    // U+2028/U+2029 or a bidirectional embedding, override or isolate (U+202A..U+202E,
    // U+2066..U+2069).
    enum class Text {
        SingleLine, // references, ids, enums: no control (Cc) and no format (Cf) character at all
        MultiLine,  // notes and reasons: \n and \t, but no other control character (C0, DEL, C1)
    };

    struct StringRule
    {
        Text text = Text::SingleLine;
        bool required = false;
        qsizetype minLength = 0;
        qsizetype maxLength = 255;
        bool nonBlank = false;       // must contain a non-space character
        QStringList oneOf;           // empty: any
        QString pattern;             // regular expression the whole value must match; empty: any
        QString patternDescription;  // for the message
    };
    // Nothing when `text` may be stored under `rule`, else why not ("must not contain U+0007 ...").
    static std::optional<QString> textProblem(const QString &text, Text rule);

    // Absent: nothing (or an error when required).
    std::optional<QString> string(const QString &member, const StringRule &rule);

    // A JSON integer literal within [min, max]: not "4000", 40.5, 1e2, 100.0 or 1e309.
    std::optional<qint64> integer(const QString &member, qint64 min, qint64 max, bool required);

    // Absent or null: nothing (or an error when required).
    std::optional<QJsonObject> object(const QString &member, bool required);

    bool present(const QString &member) const;
    bool isNull(const QString &member) const;
    void fail(const QString &member, const QString &message);

private:
    QString path(const QString &member) const;

    QJsonObject m_json;
    QList<FieldError> *m_errors;
    QString m_prefix;
};

} // namespace cs
