#include "server/api/bodyreader.h"

#include "server/api/strictjson.h"

#include <QJsonValue>
#include <QRegularExpression>


namespace cs {

BodyReader::BodyReader(const QJsonObject &json, QList<FieldError> *errors, QString prefix)
    : m_json(json), m_errors(errors), m_prefix(std::move(prefix))
{
}

QString BodyReader::path(const QString &member) const
{
    return m_prefix.isEmpty() ? member : m_prefix + QLatin1Char('.') + member;
}

void BodyReader::fail(const QString &member, const QString &message)
{
    m_errors->append(FieldError{path(member), message});
}

bool BodyReader::present(const QString &member) const
{
    return m_json.contains(member);
}

bool BodyReader::isNull(const QString &member) const
{
    return m_json.value(member).isNull();
}

void BodyReader::refuseUnknown(const QStringList &known)
{
    for (auto it = m_json.constBegin(); it != m_json.constEnd(); ++it) {
        if (!known.contains(it.key()))
            fail(it.key(), QStringLiteral("is not a known member"));
    }
}

std::optional<QString> BodyReader::string(const QString &member, const StringRule &rule)
{
    if (!m_json.contains(member)) {
        if (rule.required)
            fail(member, QStringLiteral("is required"));
        return std::nullopt;
    }
    const QJsonValue value = m_json.value(member);
    if (!value.isString()) {
        fail(member, QStringLiteral("must be a string"));
        return std::nullopt;
    }
    const QString text = value.toString();
    if (const auto problem = textProblem(text, rule.text)) {
        fail(member, *problem);
        return std::nullopt;
    }
    if (text.size() < rule.minLength) {
        fail(member, rule.minLength == 1 ? QStringLiteral("must not be empty")
                                         : QStringLiteral("must be at least %1 characters").arg(rule.minLength));
        return std::nullopt;
    }
    if (text.size() > rule.maxLength) {
        fail(member, QStringLiteral("must be at most %1 characters").arg(rule.maxLength));
        return std::nullopt;
    }
    if (rule.nonBlank && text.trimmed().isEmpty()) {
        fail(member, QStringLiteral("must contain a non-space character"));
        return std::nullopt;
    }
    if (!rule.oneOf.isEmpty() && !rule.oneOf.contains(text)) {
        QStringList quoted;
        for (const QString &option : rule.oneOf)
            quoted << QLatin1Char('"') + option + QLatin1Char('"');
        fail(member, QStringLiteral("must be one of %1").arg(quoted.join(QStringLiteral(", "))));
        return std::nullopt;
    }
    if (!rule.pattern.isEmpty()) {
        const QRegularExpression re(QStringLiteral("\\A(?:%1)\\z").arg(rule.pattern));
        if (!re.match(text).hasMatch()) {
            fail(member, rule.patternDescription.isEmpty() ? QStringLiteral("is malformed") : rule.patternDescription);
            return std::nullopt;
        }
    }
    return text;
}

std::optional<qint64> BodyReader::integer(const QString &member, qint64 min, qint64 max, bool required)
{
    const QString range = QStringLiteral("must be an integer between %1 and %2").arg(min).arg(max);
    if (!m_json.contains(member)) {
        if (required)
            fail(member, QStringLiteral("is required"));
        return std::nullopt;
    }
    const QJsonValue value = m_json.value(member);
    // An integer literal only: 1e2 and 100.0 are doubles however integral their value, and a
    // literal too large for int64 (or 1e309) is one too.
    if (!StrictJson::isIntegerLiteral(value)) {
        fail(member, range);
        return std::nullopt;
    }
    const qint64 number = value.toInteger();
    if (number < min || number > max) {
        fail(member, range);
        return std::nullopt;
    }
    return number;
}

std::optional<QString> BodyReader::textProblem(const QString &text, Text rule)
{
    if (!text.isValidUtf16())
        return QStringLiteral("must be valid Unicode text (UTF-8, no lone surrogate)");
    for (auto it = text.cbegin(); it != text.cend(); ++it) {
        char32_t c = it->unicode();
        if (it->isHighSurrogate() && it + 1 != text.cend()) {
            c = QChar::surrogateToUcs4(*it, *(it + 1));
            ++it;
        }
        const QChar::Category category = QChar::category(c);
        bool refused = c == 0x2028 || c == 0x2029 || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
        if (category == QChar::Other_Control)
            refused = refused || rule == Text::SingleLine || (c != u'\n' && c != u'\t');
        if (category == QChar::Other_Format)
            refused = refused || rule == Text::SingleLine;
        if (refused) {
            const QString name = QStringLiteral("U+%1").arg(QString::number(uint(c), 16).toUpper().rightJustified(4, QLatin1Char('0')));
            return rule == Text::SingleLine
                ? QStringLiteral("must not contain %1: no control, format or line-separator characters").arg(name)
                : QStringLiteral("must not contain %1: only \\n and \\t of the control characters, and no "
                                 "line separators or bidirectional overrides").arg(name);
        }
    }
    return std::nullopt;
}

std::optional<QJsonObject> BodyReader::object(const QString &member, bool required)
{
    if (!m_json.contains(member)) {
        if (required)
            fail(member, QStringLiteral("is required"));
        return std::nullopt;
    }
    const QJsonValue value = m_json.value(member);
    if (!value.isObject()) {
        fail(member, QStringLiteral("must be an object"));
        return std::nullopt;
    }
    return value.toObject();
}

} // namespace cs
