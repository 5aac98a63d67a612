#include "server/api/apiresponse.h"

#include <QJsonDocument>

namespace cs {

ApiResponse ApiResponse::json(int status, const QJsonObject &object, const HeaderList &headers)
{
    ApiResponse response;
    response.status = status;
    response.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    response.headers = headers;
    return response;
}

QByteArray ApiResponse::header(const QByteArray &name) const
{
    for (const auto &header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0)
            return header.second;
    }
    return QByteArray();
}

void ApiResponse::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (auto &header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0) {
            header.second = value;
            return;
        }
    }
    headers.append({name, value});
}

QByteArray etagFor(qint64 stateVersion)
{
    return '"' + QByteArray::number(stateVersion) + '"';
}

} // namespace cs
