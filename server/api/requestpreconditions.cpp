#include "server/api/requestpreconditions.h"

#include "server/api/strictjson.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>

#include <algorithm>

namespace cs {

namespace {

Problem invalidParameter(const QString &field, const QString &message)
{
    return Problem(QStringLiteral("invalid_parameter"), QStringLiteral("%1 %2").arg(field, message))
        .withErrors({FieldError{field, message}});
}

// 413 first: nothing about a body that is too large is looked at.
std::optional<Problem> tooLarge(const QByteArray &body, qsizetype maxBodyBytes)
{
    if (body.size() <= maxBodyBytes)
        return std::nullopt;
    return Problem(QStringLiteral("payload_too_large"),
                   QStringLiteral("the body is %1 bytes; at most %2 are accepted").arg(body.size()).arg(maxBodyBytes));
}

// 415, then 400 malformed_json / duplicate_member. The body is read by StrictJson; where
// QJsonDocument finds the same fault its wording is kept ("unterminated object at offset 1").
std::variant<QJsonObject, Problem> jsonObject(const HeaderList &headers, const QByteArray &body)
{
    const std::optional<QByteArray> contentType = RequestPreconditions::header(headers, "Content-Type");
    if ((contentType || !body.isEmpty()) && !RequestPreconditions::isJsonMediaType(contentType.value_or(QByteArray()))) {
        return Problem(QStringLiteral("unsupported_media_type"),
                       QStringLiteral("the body must be application/json, not \"%1\"")
                           .arg(QString::fromLatin1(contentType.value_or(QByteArray()))));
    }
    if (body.isEmpty())
        return Problem(QStringLiteral("malformed_json"), QStringLiteral("a JSON object body is required"));
    auto parsed = StrictJson::parse(body);
    if (const auto *error = std::get_if<StrictJson::Error>(&parsed)) {
        if (error->kind == StrictJson::Error::Kind::DuplicateMember) {
            return Problem(QStringLiteral("duplicate_member"), error->message)
                .withErrors({FieldError{error->path, QStringLiteral("is given more than once")}});
        }
        QJsonParseError qtError;
        QJsonDocument::fromJson(body, &qtError);
        if (qtError.error != QJsonParseError::NoError) {
            return Problem(QStringLiteral("malformed_json"), QStringLiteral("the body is not JSON: %1 at offset %2")
                                                                 .arg(qtError.errorString())
                                                                 .arg(qtError.offset));
        }
        return Problem(QStringLiteral("malformed_json"),
                       QStringLiteral("the body is not JSON: %1 at offset %2").arg(error->message).arg(error->offset));
    }
    const QJsonValue &value = std::get<QJsonValue>(parsed);
    if (!value.isObject())
        return Problem(QStringLiteral("malformed_json"), QStringLiteral("the body is not a JSON object"));
    return value.toObject();
}

// A header the API reads is given at most once: with two Authorization (or If-Match, ...) lines,
// two readers of one request could act on two different values.
std::optional<Problem> repeated(const HeaderList &headers, const char *name)
{
    const auto count = std::count_if(headers.cbegin(), headers.cend(),
                                     [name](const auto &h) { return h.first.compare(name, Qt::CaseInsensitive) == 0; });
    if (count < 2)
        return std::nullopt;
    return invalidParameter(QString::fromLatin1(name), QStringLiteral("must be sent at most once"));
}

std::optional<Problem> repeatedHeader(const HeaderList &headers)
{
    for (const char *name : {"Authorization", "Content-Type", "If-Match", "Idempotency-Key", "Last-Event-ID"}) {
        if (auto refused = repeated(headers, name))
            return refused;
    }
    return std::nullopt;
}

} // namespace

std::optional<QByteArray> RequestPreconditions::header(const HeaderList &headers, const QByteArray &name)
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return std::nullopt;
}

bool RequestPreconditions::isJsonMediaType(const QByteArray &contentType)
{
    const QList<QByteArray> parts = contentType.split(';');
    if (parts.isEmpty() || parts.constFirst().trimmed().toLower() != "application/json")
        return false;
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const QByteArray parameter = parts.at(i).trimmed();
        if (parameter.isEmpty())
            continue;
        const qsizetype equals = parameter.indexOf('=');
        if (equals <= 0 || parameter.left(equals).trimmed().toLower() != "charset")
            return false;
        QByteArray value = parameter.mid(equals + 1).trimmed().toLower();
        if (value.size() >= 2 && value.startsWith('"') && value.endsWith('"'))
            value = value.mid(1, value.size() - 2);
        if (value != "utf-8" && value != "utf8")
            return false;
    }
    return true;
}

std::variant<RequestPreconditions::Passed, Problem> RequestPreconditions::check(const Needs &needs,
                                                                               const HeaderList &headers,
                                                                               const QByteArray &body,
                                                                               qsizetype maxBodyBytes)
{
    Passed passed;
    if (auto refused = repeatedHeader(headers))
        return *refused;
    switch (needs.body) {
    case Body::None:
        break;
    case Body::Raw:
        if (auto refused = tooLarge(body, maxBodyBytes))
            return *refused;
        if (!isJsonMediaType(header(headers, "Content-Type").value_or(QByteArray())))
            return Problem(QStringLiteral("unsupported_media_type"), QStringLiteral("a webhook body must be application/json"));
        break;
    case Body::Json:
    case Body::OptionalJson: {
        if (auto refused = tooLarge(body, maxBodyBytes))
            return *refused;
        if (body.isEmpty() && needs.body == Body::OptionalJson)
            break;
        auto parsed = jsonObject(headers, body);
        if (auto *refused = std::get_if<Problem>(&parsed))
            return *refused;
        passed.json = std::get<QJsonObject>(parsed);
        break;
    }
    }

    if (const auto ifMatch = header(headers, "If-Match"); needs.ifMatch && ifMatch) {
        const QString raw = QString::fromLatin1(ifMatch->trimmed());
        if (raw != u"*") {
            static const QRegularExpression etag(QStringLiteral("\\A(?:W/)?\"([0-9]{1,18})\"\\z"));
            const QRegularExpressionMatch match = etag.match(raw);
            if (!match.hasMatch())
                return invalidParameter(QStringLiteral("If-Match"), QStringLiteral("must be one entity tag of digits such as \"7\""));
            passed.ifMatch = match.captured(1).toLongLong();
            passed.ifMatchText = match.captured(1);
        }
    }
    if (const auto key = header(headers, "Idempotency-Key"); needs.idempotencyKey && key) {
        static const QRegularExpression printable(QStringLiteral("\\A[\\x21-\\x7E]{1,255}\\z"));
        const QString text = QString::fromLatin1(*key);
        if (!printable.match(text).hasMatch())
            return invalidParameter(QStringLiteral("Idempotency-Key"), QStringLiteral("must be 1 to 255 printable ASCII characters"));
        passed.idempotencyKey = text;
    }
    return passed;
}

std::variant<QByteArray, Problem> RequestPreconditions::authorization(const HeaderList &headers)
{
    if (auto refused = repeated(headers, "Authorization"))
        return *refused;
    return header(headers, "Authorization").value_or(QByteArray());
}

std::optional<Problem> RequestPreconditions::requireIfMatch(const Needs &needs, const Passed &passed)
{
    if (!needs.ifMatch || passed.ifMatch >= 0)
        return std::nullopt;
    return Problem(QStringLiteral("if_match_required"),
                   QStringLiteral("send If-Match with the action's state_version, e.g. If-Match: \"1\""));
}

std::variant<std::optional<qint64>, Problem> RequestPreconditions::lastEventId(const HeaderList &headers)
{
    const std::optional<QByteArray> raw = header(headers, "Last-Event-ID");
    if (!raw)
        return std::optional<qint64>();
    static const QRegularExpression digits(QStringLiteral("\\A[0-9]{1,18}\\z"));
    const QString value = QString::fromLatin1(raw->trimmed());
    if (!digits.match(value).hasMatch())
        return Problem(QStringLiteral("invalid_parameter"), QStringLiteral("Last-Event-ID must be an event id"))
            .withErrors({FieldError{QStringLiteral("Last-Event-ID"), QStringLiteral("must be 1 to 18 digits")}});
    return std::optional<qint64>(value.toLongLong());
}

} // namespace cs
