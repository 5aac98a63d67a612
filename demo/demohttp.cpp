#include "demohttp.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace cs::demo {

QJsonObject HttpReply::json() const
{
    return QJsonDocument::fromJson(body).object();
}

DemoHttp::DemoHttp()
    : m_nam(new QNetworkAccessManager)
{
}

DemoHttp::~DemoHttp()
{
    delete m_nam;
}

HttpReply DemoHttp::request(const QByteArray &verb, const QUrl &url, const QList<QPair<QByteArray, QByteArray>> &headers,
                            const QByteArray &body, int timeoutMs)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    if (!body.isEmpty() || verb == "POST")
        request.setHeader(QNetworkRequest::ContentLengthHeader, body.size());
    request.setTransferTimeout(timeoutMs);
    QNetworkReply *reply = m_nam->sendCustomRequest(request, verb, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!reply->isFinished())
        loop.exec();
    HttpReply result;
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.body = reply->readAll();
    result.etag = reply->rawHeader("ETag");
    if (result.status == 0)
        result.error = reply->errorString();
    reply->deleteLater();
    return result;
}

void DemoHttp::pause(int msecs)
{
    if (msecs <= 0)
        return;
    QEventLoop loop;
    QTimer::singleShot(msecs, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace cs::demo
