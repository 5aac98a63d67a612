#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QPair>
#include <QString>

namespace cs::paysim {

// One parsed HTTP/1.x request. Header names keep the client's spelling; look-ups ignore case.
struct HttpRequest
{
    QByteArray method;
    QByteArray target;  // request-target as sent: path plus optional "?query"
    QByteArray version; // "HTTP/1.1" or "HTTP/1.0"
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    QHostAddress peer;

    // Path without the query, percent-decoded.
    QString path() const;
    // Raw query string (without '?'), still form-encoded.
    QByteArray query() const;
    // First header with this name (case-insensitive), or a null QByteArray.
    QByteArray header(QByteArrayView name) const;
    bool hasHeader(QByteArrayView name) const;
    // Whether the client wants the connection kept open after the answer.
    bool keepAlive() const;
};

} // namespace cs::paysim
