#include "simulator/httprequest.h"

#include <QUrl>

namespace cs::paysim {

QString HttpRequest::path() const
{
    const qsizetype q = target.indexOf('?');
    const QByteArray raw = q < 0 ? target : target.left(q);
    return QUrl::fromPercentEncoding(raw);
}

QByteArray HttpRequest::query() const
{
    const qsizetype q = target.indexOf('?');
    return q < 0 ? QByteArray() : target.mid(q + 1);
}

QByteArray HttpRequest::header(QByteArrayView name) const
{
    for (const auto &h : headers) {
        if (name.compare(h.first, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

bool HttpRequest::hasHeader(QByteArrayView name) const
{
    for (const auto &h : headers) {
        if (name.compare(h.first, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

bool HttpRequest::keepAlive() const
{
    const QByteArray connection = header("Connection").toLower();
    const bool http10 = version == QByteArrayLiteral("HTTP/1.0");
    if (connection.contains("close"))
        return false;
    if (http10)
        return connection.contains("keep-alive");
    return true;
}

} // namespace cs::paysim
