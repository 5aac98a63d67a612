#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

namespace cs {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// One HTTP answer of the API, before it is written to a socket (or stored for an
// Idempotency-Key replay). Headers exclude Content-Type and Content-Length, which the writer adds.
struct ApiResponse
{
    int status = 200;
    QByteArray contentType = "application/json";
    QByteArray body;
    HeaderList headers;
    QString problemCode; // the problem's `code` for error answers; empty for successes

    static ApiResponse json(int status, const QJsonObject &object, const HeaderList &headers = {});

    QByteArray header(const QByteArray &name) const; // case-insensitive; empty if absent
    void setHeader(const QByteArray &name, const QByteArray &value);
};

// Quoted strong entity tag of a state_version: "7".
QByteArray etagFor(qint64 stateVersion);

} // namespace cs
