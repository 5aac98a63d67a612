#include "simulator/apierror.h"

namespace cs::paysim {

QJsonObject ApiError::toJson() const
{
    QJsonObject e{{QStringLiteral("type"), type}, {QStringLiteral("message"), message}};
    if (!code.isEmpty()) {
        e.insert(QStringLiteral("code"), code);
        QString slug = code;
        slug.replace(u'_', u'-');
        e.insert(QStringLiteral("doc_url"), QString(QStringLiteral("https://stripe.com/docs/error-codes/") + slug));
    }
    if (!param.isEmpty())
        e.insert(QStringLiteral("param"), param);
    if (!declineCode.isEmpty())
        e.insert(QStringLiteral("decline_code"), declineCode);
    return QJsonObject{{QStringLiteral("error"), e}};
}

ApiError ApiError::invalidRequest(const QString &message, const QString &code, const QString &param)
{
    ApiError e;
    e.message = message;
    e.code = code;
    e.param = param;
    return e;
}

ApiError ApiError::unknownParameter(const QString &param)
{
    return invalidRequest(QStringLiteral("Received unknown parameter: %1").arg(param),
                          QStringLiteral("parameter_unknown"), param);
}

ApiError ApiError::missingParameter(const QString &param)
{
    return invalidRequest(QStringLiteral("Missing required param: %1.").arg(param),
                          QStringLiteral("parameter_missing"), param);
}

ApiError ApiError::invalidInteger(const QString &param, const QString &value)
{
    return invalidRequest(QStringLiteral("Invalid positive integer: '%1' for %2.").arg(value, param),
                          QStringLiteral("parameter_invalid_integer"), param);
}

ApiError ApiError::resourceMissing(const QString &kind, const QString &id, const QString &param)
{
    ApiError e = invalidRequest(QStringLiteral("No such %1: '%2'").arg(kind, id), QStringLiteral("resource_missing"), param);
    e.status = 404;
    return e;
}

ApiError ApiError::idempotencyParams(const QString &key)
{
    ApiError e;
    e.type = QStringLiteral("idempotency_error");
    e.message = QStringLiteral("Keys for idempotent requests can only be used with the same parameters they were "
                               "first used with. Try using a key other than '%1' if you meant to execute a "
                               "different request.")
                    .arg(key);
    return e;
}

ApiError ApiError::idempotencyEndpoint(const QString &key, const QString &firstPath, const QString &thisPath)
{
    ApiError e;
    e.type = QStringLiteral("idempotency_error");
    e.message = QStringLiteral("Keys for idempotent requests can only be used for the same endpoint they were first "
                               "used for ('%1' vs '%2'). Try using a key other than '%3' if you meant to execute "
                               "a different request.")
                    .arg(firstPath, thisPath, key);
    return e;
}

ApiError ApiError::idempotencyKeyInUse(const QString &key)
{
    ApiError e;
    e.status = 409;
    e.code = QStringLiteral("idempotency_key_in_use");
    e.message = QStringLiteral("There is currently another in-progress request using this Idempotent Key (that "
                               "probably means you submitted twice, and the other request is still going "
                               "through): %1. Please try again later.")
                    .arg(key);
    return e;
}

ApiError ApiError::internal()
{
    ApiError e;
    e.status = 500;
    e.type = QStringLiteral("api_error");
    e.message = QStringLiteral("An unknown error occurred (simulated by paysim).");
    return e;
}

ApiError ApiError::outage()
{
    ApiError e;
    e.status = 503;
    e.type = QStringLiteral("api_error");
    e.message = QStringLiteral("The service is temporarily unavailable (simulated outage). Please retry.");
    return e;
}

ApiError ApiError::rateLimited()
{
    ApiError e;
    e.status = 429;
    e.code = QStringLiteral("rate_limit");
    e.message = QStringLiteral("Too many requests hit the API too quickly. We recommend an exponential backoff of "
                               "your requests.");
    return e;
}

ApiError ApiError::unauthorized(const QString &message)
{
    ApiError e;
    e.status = 401;
    e.message = message;
    return e;
}

} // namespace cs::paysim
