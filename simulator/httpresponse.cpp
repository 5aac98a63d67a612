#include "simulator/httpresponse.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QLocale>

namespace cs::paysim {

HttpResponse HttpResponse::json(int status, const QJsonObject &body)
{
    HttpResponse r;
    r.status = status;
    r.body = QJsonDocument(body).toJson(QJsonDocument::Indented);
    r.setHeader(QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json"));
    return r;
}

HttpResponse HttpResponse::plainError(int status, const QString &message)
{
    QJsonObject error{{QStringLiteral("type"), QStringLiteral("invalid_request_error")},
                      {QStringLiteral("message"), message}};
    return json(status, QJsonObject{{QStringLiteral("error"), error}});
}

void HttpResponse::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (auto &h : headers) {
        if (QByteArrayView(name).compare(h.first, Qt::CaseInsensitive) == 0) {
            h.second = value;
            return;
        }
    }
    headers.append({name, value});
}

QByteArray HttpResponse::header(QByteArrayView name) const
{
    for (const auto &h : headers) {
        if (name.compare(h.first, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

QByteArray HttpResponse::serialize(bool keepAlive, const QDateTime &when) const
{
    QByteArray out;
    out.reserve(256 + body.size());
    out += "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    // RFC 7231 IMF-fixdate, always in English.
    const QString date = QLocale::c().toString(when.isValid() ? when.toUTC() : QDateTime::currentDateTimeUtc(),
                                               QStringLiteral("ddd, dd MMM yyyy hh:mm:ss 'GMT'"));
    out += "Date: " + date.toLatin1() + "\r\n";
    out += "Server: paysim\r\n";
    for (const auto &h : headers)
        out += h.first + ": " + h.second + "\r\n";
    out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    out += keepAlive ? QByteArrayLiteral("Connection: keep-alive\r\n") : QByteArrayLiteral("Connection: close\r\n");
    out += "\r\n";
    out += body;
    return out;
}

QByteArray HttpResponse::reasonPhrase(int status)
{
    switch (status) {
    case 100: return QByteArrayLiteral("Continue");
    case 200: return QByteArrayLiteral("OK");
    case 201: return QByteArrayLiteral("Created");
    case 204: return QByteArrayLiteral("No Content");
    case 400: return QByteArrayLiteral("Bad Request");
    case 401: return QByteArrayLiteral("Unauthorized");
    case 402: return QByteArrayLiteral("Payment Required");
    case 403: return QByteArrayLiteral("Forbidden");
    case 404: return QByteArrayLiteral("Not Found");
    case 405: return QByteArrayLiteral("Method Not Allowed");
    case 409: return QByteArrayLiteral("Conflict");
    case 411: return QByteArrayLiteral("Length Required");
    case 413: return QByteArrayLiteral("Payload Too Large");
    case 415: return QByteArrayLiteral("Unsupported Media Type");
    case 429: return QByteArrayLiteral("Too Many Requests");
    case 431: return QByteArrayLiteral("Request Header Fields Too Large");
    case 500: return QByteArrayLiteral("Internal Server Error");
    case 501: return QByteArrayLiteral("Not Implemented");
    case 502: return QByteArrayLiteral("Bad Gateway");
    case 503: return QByteArrayLiteral("Service Unavailable");
    case 504: return QByteArrayLiteral("Gateway Timeout");
    case 505: return QByteArrayLiteral("HTTP Version Not Supported");
    default: break;
    }
    if (status >= 200 && status < 300)
        return QByteArrayLiteral("OK");
    if (status >= 400 && status < 500)
        return QByteArrayLiteral("Client Error");
    return QByteArrayLiteral("Server Error");
}

} // namespace cs::paysim
