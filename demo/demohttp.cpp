#include "demo/demohttp.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

#include <memory>

namespace cs::demo {

QJsonObject HttpReply::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QByteArray HttpReply::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return QByteArray();
}

DemoHttp::DemoHttp(QObject *parent)
    : QObject(parent)
    , m_nam(new QNetworkAccessManager(this))
{
}

DemoHttp::~DemoHttp() = default;

namespace {

QNetworkRequest makeRequest(const QByteArray &verb, const QUrl &url, const DemoHttp::Headers &headers,
                            const QByteArray &body, int timeoutMs)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    if (!body.isEmpty() || verb == "POST")
        request.setHeader(QNetworkRequest::ContentLengthHeader, body.size());
    request.setTransferTimeout(timeoutMs);
    return request;
}

} // namespace

void DemoHttp::request(const QByteArray &verb, const QUrl &url, const Headers &headers, const QByteArray &body, Done done,
                       int timeoutMs)
{
    QNetworkReply *reply = m_nam->sendCustomRequest(makeRequest(verb, url, headers, body, timeoutMs), verb, body);
    connect(reply, &QNetworkReply::finished, this, [reply, done = std::move(done)] {
        reply->deleteLater();
        HttpReply result;
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
        result.etag = reply->rawHeader("ETag");
        result.headers = reply->rawHeaderPairs();
        if (reply->error() != QNetworkReply::NoError)
            result.error = reply->errorString();
        done(result);
    });
}

std::function<void()> DemoHttp::requestThenHangUp(const QByteArray &verb, const QUrl &url, const Headers &headers,
                                                  const QByteArray &body)
{
    QPointer<QNetworkReply> reply = m_nam->sendCustomRequest(makeRequest(verb, url, headers, body, 60000), verb, body);
    // Whatever comes back stays unread; the reply is freed when it ends or is aborted.
    connect(reply, &QNetworkReply::finished, reply, &QObject::deleteLater);
    return [reply] {
        if (reply && reply->isRunning())
            reply->abort();
    };
}

void DemoHttp::requestOnce(const QString &host, quint16 port, const QByteArray &rawRequest, Done done, int timeoutMs)
{
    auto *socket = new QTcpSocket(this);
    auto received = std::make_shared<QByteArray>();
    auto answered = std::make_shared<bool>(false);
    const auto finish = [socket, received, answered, done = std::move(done)] {
        if (*answered)
            return;
        *answered = true;
        *received += socket->readAll();
        socket->deleteLater();
        HttpReply reply;
        const qsizetype headEnd = received->indexOf("\r\n\r\n");
        if (received->startsWith("HTTP/1.") && headEnd > 0) {
            reply.status = received->mid(9, 3).toInt();
            reply.body = received->mid(headEnd + 4);
        } else {
            reply.error = QStringLiteral("connection closed without an answer");
        }
        done(reply);
    };
    connect(socket, &QTcpSocket::connected, socket, [socket, rawRequest] { socket->write(rawRequest); });
    connect(socket, &QTcpSocket::readyRead, socket, [socket, received] { *received += socket->readAll(); });
    // Queued: the answer is handed over from the event loop, not from inside the socket's signal.
    connect(socket, &QTcpSocket::disconnected, socket, finish, Qt::QueuedConnection);
    connect(socket, &QTcpSocket::errorOccurred, socket, finish, Qt::QueuedConnection);
    QTimer::singleShot(timeoutMs, socket, finish);
    socket->connectToHost(host, port);
}

void DemoHttp::after(int msecs, std::function<void()> done)
{
    QTimer::singleShot(qMax(0, msecs), this, std::move(done));
}

} // namespace cs::demo
