#include "demo/webhookrelay.h"

#include <QHostAddress>
#include <QLoggingCategory>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <memory>

Q_DECLARE_LOGGING_CATEGORY(lcDemo)

namespace cs::demo {

namespace {

constexpr qsizetype MaxHead = 16 * 1024;
constexpr qsizetype MaxBody = 1024 * 1024;
constexpr int ReadTimeoutMs = 10000;
constexpr int BackendTimeoutMs = 10000;

const char *reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 502: return "Bad Gateway";
    default: return "Status";
    }
}

// The value of header `name` in a request head (lines after the request line), any case.
QByteArray headerValue(const QList<QByteArray> &lines, const QByteArray &name)
{
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines.at(i).indexOf(':');
        if (colon > 0 && lines.at(i).left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
            return lines.at(i).mid(colon + 1).trimmed();
    }
    return QByteArray();
}

} // namespace

WebhookRelay::WebhookRelay(QObject *parent)
    : QObject(parent)
    , m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_server->nextPendingConnection()) {
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
            // A delivery that never completes its request is answered and closed, not kept.
            QPointer<QTcpSocket> guarded(socket);
            QTimer::singleShot(ReadTimeoutMs, this, [this, guarded] {
                if (guarded && guarded->property("cs_relay_answered").isNull())
                    answer(guarded, 408, R"({"error":"request not complete in time"})");
            });
        }
    });
}

WebhookRelay::~WebhookRelay() = default;

bool WebhookRelay::listen(QString *error)
{
    if (m_server->isListening())
        return true;
    if (!m_server->listen(QHostAddress::LocalHost, 0)) {
        if (error)
            *error = QStringLiteral("the webhook relay cannot listen on 127.0.0.1: ") + m_server->errorString();
        return false;
    }
    return true;
}

QUrl WebhookRelay::url() const
{
    return m_server->isListening() ? QUrl(QStringLiteral("http://127.0.0.1:%1/webhooks").arg(m_server->serverPort())) : QUrl();
}

void WebhookRelay::onReadyRead(QTcpSocket *socket)
{
    if (!socket->property("cs_relay_answered").isNull())
        return;
    QByteArray buffer = socket->property("cs_relay_buffer").toByteArray() + socket->readAll();
    socket->setProperty("cs_relay_buffer", buffer);
    const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
    if (headEnd < 0) {
        if (buffer.size() > MaxHead)
            answer(socket, 400, R"({"error":"request head too large"})");
        return;
    }
    const QList<QByteArray> lines = buffer.left(headEnd).split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    bool lengthOk = false;
    const qint64 length = headerValue(lines, "Content-Length").toLongLong(&lengthOk);
    if (requestLine.size() != 3 || requestLine.at(0) != "POST") {
        answer(socket, 405, R"({"error":"POST only"})");
        return;
    }
    if (!lengthOk || length < 0) {
        answer(socket, 400, R"({"error":"Content-Length required"})");
        return;
    }
    if (length > MaxBody) {
        answer(socket, 413, R"({"error":"body too large"})");
        return;
    }
    if (buffer.size() - (headEnd + 4) < length)
        return; // the rest of the body is still on its way
    const QByteArray body = buffer.mid(headEnd + 4, length);
    socket->setProperty("cs_relay_answered", true);

    if (!m_forwarding) {
        ++m_dropped;
        answer(socket, 200, R"({"forwarded":false})");
        return;
    }
    if (!m_target.isValid()) {
        // On, but no backend to hand it to yet: paysim delivers it again later.
        answer(socket, 503, R"({"error":"no backend to forward to yet"})");
        return;
    }
    ++m_forwarded;
    DemoHttp::Headers headers;
    for (const QByteArray &name : {QByteArray("Content-Type"), QByteArray("Stripe-Signature")}) {
        const QByteArray value = headerValue(lines, name);
        if (!value.isEmpty())
            headers.append(qMakePair(name, value));
    }
    const QUrl to(m_target.toString() + QStringLiteral("/api/v1/webhooks/provider"));
    QPointer<QTcpSocket> guarded(socket);
    m_http.request("POST", to, headers, body, [this, guarded](const HttpReply &reply) {
        if (reply.status == 0)
            qCWarning(lcDemo) << "webhook relay: the backend did not answer:" << reply.error;
        emit delivered(reply.status, reply.body);
        if (guarded) {
            // No answer from the backend is a failed delivery to paysim, which retries it.
            answer(guarded, reply.status == 0 ? 502 : reply.status,
                   reply.status == 0 ? QByteArray(R"({"error":"the backend did not answer"})") : reply.body);
        }
    }, BackendTimeoutMs);
}

void WebhookRelay::answer(QTcpSocket *socket, int status, const QByteArray &body)
{
    socket->setProperty("cs_relay_answered", true);
    socket->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
                  + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
                  + "\r\nConnection: close\r\n\r\n" + body);
    socket->disconnectFromHost();
}

} // namespace cs::demo
