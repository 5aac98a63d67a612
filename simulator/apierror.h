#pragma once

#include <QJsonObject>
#include <QString>

namespace cs::paysim {

// Stripe's error object: {"error": {"type", "code", "message", "param", ...}} with its HTTP status.
// Types used: invalid_request_error, idempotency_error, card_error, api_error.
struct ApiError
{
    int status = 400;
    QString type = QStringLiteral("invalid_request_error");
    QString code;
    QString message;
    QString param;
    QString declineCode;

    QJsonObject toJson() const; // the whole body, {"error": {...}}

    static ApiError invalidRequest(const QString &message, const QString &code = {}, const QString &param = {});
    static ApiError unknownParameter(const QString &param);
    static ApiError missingParameter(const QString &param);
    static ApiError invalidInteger(const QString &param, const QString &value);
    static ApiError resourceMissing(const QString &kind, const QString &id, const QString &param);
    static ApiError idempotencyParams(const QString &key);
    static ApiError idempotencyEndpoint(const QString &key, const QString &firstPath, const QString &thisPath);
    static ApiError idempotencyKeyInUse(const QString &key);
    static ApiError internal(); // 500 api_error
    static ApiError outage();   // 503 api_error
    static ApiError rateLimited();
    static ApiError unauthorized(const QString &message);
};

} // namespace cs::paysim
