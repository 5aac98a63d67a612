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

    struct StringRule
    {
        bool required = false;
        qsizetype minLength = 0;
        qsizetype maxLength = 255;
        bool nonBlank = false;       // must contain a non-space character
        QStringList oneOf;           // empty: any
        QString pattern;             // regular expression the whole value must match; empty: any
        QString patternDescription;  // for the message
    };
    // Absent: nothing (or an error when required).
    std::optional<QString> string(const QString &member, const StringRule &rule);

    // A JSON number with an integral value within [min, max].
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
