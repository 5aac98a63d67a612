#include "client/apierror.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

namespace cs {

bool ApiError::isTransient() const
{
    if (responseLost())
        return true;
    if (kind != Kind::Http)
        return false;
    if (httpStatus == 503 || httpStatus == 502 || httpStatus == 504)
        return true;
    return httpStatus == 409 && code == QLatin1String("idempotency_key_in_flight");
}

qint64 ApiError::currentStateVersion() const
{
    const QJsonValue v = problem.value(QLatin1String("current_state_version"));
    return v.isDouble() ? v.toInteger(-1) : -1;
}

QString ApiError::currentState() const
{
    return problem.value(QLatin1String("current_state")).toString();
}

QList<QPair<QString, QString>> ApiError::fieldErrors() const
{
    QList<QPair<QString, QString>> out;
    const QJsonArray errors = problem.value(QLatin1String("errors")).toArray();
    for (const QJsonValue &e : errors) {
        const QJsonObject o = e.toObject();
        out.append({ o.value(QLatin1String("field")).toString(), o.value(QLatin1String("message")).toString() });
    }
    return out;
}

QString ApiError::userText() const
{
    switch (kind) {
    case Kind::None:
        return QString();
    case Kind::Transport:
        // A refused TLS certificate is not silence: nothing was sent (client/tlstrust.h).
        if (message.startsWith(QLatin1String("certificate not trusted")))
            return QCoreApplication::translate("cs::ApiError", "The backend was refused: %1.").arg(message);
        return QCoreApplication::translate("cs::ApiError", "The backend did not answer (%1).").arg(message);
    case Kind::Timeout:
        return QCoreApplication::translate("cs::ApiError", "The backend did not answer within %1.").arg(message);
    case Kind::Protocol:
        return QCoreApplication::translate("cs::ApiError", "The backend's answer could not be read: %1").arg(message);
    case Kind::Cancelled:
        return QCoreApplication::translate("cs::ApiError", "Cancelled.");
    case Kind::Http:
        break;
    }
    // The ledger's storage refuses (issue 34): said in words, not as a code; the backend's reason
    // (its disk is full, its file read-only, ...) in brackets as it gave it.
    const QString ledger = problem.value(QLatin1String("ledger")).toString();
    const QString reason = detail.section(QLatin1Char('('), 1).section(QLatin1Char(')'), 0, 0);
    if (ledger == u"cannot_write")
        return QCoreApplication::translate("cs::ApiError",
                                           "The ledger cannot write (%1). Nothing was written; try again once an operator"
                                           " has made room or fixed its storage.")
            .arg(reason.isEmpty() ? detail : reason);
    if (ledger == u"damaged")
        return QCoreApplication::translate("cs::ApiError",
                                           "The ledger is damaged (%1). Nothing was written; an operator must check and"
                                           " restore it.")
            .arg(reason.isEmpty() ? detail : reason);
    QString text = title.isEmpty() ? QCoreApplication::translate("cs::ApiError", "Error") : title;
    text += QStringLiteral(" (%1").arg(httpStatus);
    if (!code.isEmpty())
        text += QStringLiteral(", ") + code;
    text += QLatin1Char(')');
    if (!detail.isEmpty())
        text += QStringLiteral(": ") + detail;
    for (const auto &[field, what] : fieldErrors())
        text += QStringLiteral("\n\u2022 ") + field + QStringLiteral(": ") + what;
    return text;
}

ApiError ApiError::fromHttp(int status, const QByteArray &body, int retryAfterSeconds)
{
    ApiError error;
    error.kind = Kind::Http;
    error.httpStatus = status;
    error.retryAfterSeconds = retryAfterSeconds;
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    if (doc.isObject()) {
        error.problem = doc.object();
        error.code = error.problem.value(QLatin1String("code")).toString();
        error.title = error.problem.value(QLatin1String("title")).toString();
        error.detail = error.problem.value(QLatin1String("detail")).toString();
    } else if (!body.isEmpty()) {
        error.detail = QString::fromUtf8(body.left(300));
    }
    return error;
}

ApiError ApiError::transport(const QString &message)
{
    ApiError error;
    error.kind = Kind::Transport;
    error.message = message;
    return error;
}

ApiError ApiError::timeout(int milliseconds)
{
    ApiError error;
    error.kind = Kind::Timeout;
    error.message = QCoreApplication::translate("cs::ApiError", "%1 ms").arg(milliseconds);
    return error;
}

ApiError ApiError::protocol(const QString &message)
{
    ApiError error;
    error.kind = Kind::Protocol;
    error.message = message;
    return error;
}

ApiError ApiError::cancelled()
{
    ApiError error;
    error.kind = Kind::Cancelled;
    return error;
}

} // namespace cs
