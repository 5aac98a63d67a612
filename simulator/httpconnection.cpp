#include "simulator/httpconnection.h"

#include "simulator/httpexchange.h"
#include "simulator/paysimlog.h"

#include <QTimer>

#ifdef Q_OS_UNIX
#include <sys/socket.h>
#endif

namespace cs::paysim {

namespace {

constexpr int LingerMs = 2000;

} // namespace

HttpConnection::HttpConnection(QTcpSocket *socket, Handler handler, QObject *parent, DateSource date)
    : QObject(parent)
    , m_socket(socket)
    , m_handler(std::move(handler))
    , m_date(std::move(date))
{
    socket->setParent(this);
    connect(socket, &QTcpSocket::readyRead, this, &HttpConnection::onReadyRead);
    connect(socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    connect(socket, &QTcpSocket::bytesWritten, this, [this] {
        if (m_shutdownPending && m_socket && m_socket->bytesToWrite() == 0)
            shutdownWrite();
    });
    connect(socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (error != QAbstractSocket::RemoteHostClosedError)
            qCDebug(lcPaysim) << "connection error" << error;
    });
    if (socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(this, &HttpConnection::onReadyRead, Qt::QueuedConnection);
}

HttpConnection::~HttpConnection() = default;

bool HttpConnection::isOpen() const
{
    return m_socket && m_state != State::Closing && m_state != State::Closed
        && m_socket->state() == QAbstractSocket::ConnectedState;
}

void HttpConnection::onReadyRead()
{
    if (!m_socket)
        return;
    const QByteArray data = m_socket->readAll();
    if (m_state == State::Closing || m_state == State::Closed)
        return; // draining a connection we are closing
    m_buffer += data;
    if (m_state == State::AwaitingAnswer) {
        // A client that floods a held connection is not one we serve.
        if (m_buffer.size() > MaxHeadBytes + MaxBodyBytes)
            resetConnection();
        return;
    }
    processBuffer();
}

void HttpConnection::onDisconnected()
{
    if (m_state == State::Closed)
        return;
    m_state = State::Closed;
    emit closed();
    deleteLater();
}

void HttpConnection::processBuffer()
{
    m_processQueued = false;
    while (m_state == State::ReadingHead || m_state == State::ReadingBody) {
        if (m_state == State::ReadingHead) {
            HttpRequestParser::Step step = HttpRequestParser::takeHead(&m_buffer);
            if (std::holds_alternative<HttpRequestParser::NeedMore>(step))
                return;
            if (const auto *refused = std::get_if<HttpRequestParser::Refusal>(&step)) {
                refuse(refused->status, refused->message);
                return;
            }
            startBody(std::get<HttpRequestParser::Head>(std::move(step)));
            m_state = State::ReadingBody;
        }
        if (m_buffer.size() < m_bodyLength)
            return;
        m_current.body = m_buffer.left(m_bodyLength);
        m_buffer.remove(0, m_bodyLength);
        dispatch();
    }
}

void HttpConnection::startBody(HttpRequestParser::Head head)
{
    m_current = std::move(head.request);
    m_current.peer = m_socket->peerAddress();
    m_bodyLength = head.bodyLength;
    if (m_bodyLength > m_buffer.size() && m_current.header("Expect").toLower() == QByteArrayLiteral("100-continue"))
        m_socket->write(QByteArrayLiteral("HTTP/1.1 100 Continue\r\n\r\n"));
}

void HttpConnection::dispatch()
{
    m_state = State::AwaitingAnswer;
    auto exchange = std::make_shared<HttpExchange>(std::move(m_current), this);
    m_current = HttpRequest();
    if (m_handler)
        m_handler(exchange);
    else
        exchange->respond(HttpResponse::plainError(503, QStringLiteral("No handler installed.")));
}

void HttpConnection::respond(const HttpResponse &response, bool keepAlive)
{
    if (!m_socket || m_state != State::AwaitingAnswer)
        return;
    m_socket->write(response.serialize(keepAlive, m_date ? m_date() : QDateTime()));
    if (!keepAlive) {
        m_state = State::Closing;
        m_socket->disconnectFromHost();
        return;
    }
    m_state = State::ReadingHead;
    if (!m_buffer.isEmpty() && !m_processQueued) {
        // Continue with buffered bytes from the event loop, never from inside a handler.
        m_processQueued = true;
        QMetaObject::invokeMethod(this, &HttpConnection::processBuffer, Qt::QueuedConnection);
    }
}

void HttpConnection::dropWithoutAnswer()
{
    if (!m_socket || m_state == State::Closed)
        return;
    m_state = State::Closing;
    m_socket->disconnectFromHost();
}

void HttpConnection::resetConnection()
{
    if (!m_socket || m_state == State::Closed)
        return;
    m_state = State::Closing;
#ifdef Q_OS_UNIX
    const qintptr fd = m_socket->socketDescriptor();
    if (fd >= 0) {
        // Linger on, timeout zero: close() then sends RST instead of FIN.
        struct linger lin;
        lin.l_onoff = 1;
        lin.l_linger = 0;
        ::setsockopt(static_cast<int>(fd), SOL_SOCKET, SO_LINGER, &lin, sizeof lin);
    }
#endif
    m_socket->abort();
    onDisconnected(); // abort() does not always report a disconnection
}

void HttpConnection::abort()
{
    if (m_socket && m_state != State::Closed)
        m_socket->abort();
    onDisconnected();
}

void HttpConnection::refuse(int status, const QString &message)
{
    qCDebug(lcPaysim) << "refusing request:" << status << message;
    m_state = State::AwaitingAnswer;
    m_socket->write(HttpResponse::plainError(status, message).serialize(false, m_date ? m_date() : QDateTime()));
    lingeringClose();
}

void HttpConnection::lingeringClose()
{
    // Closing a socket with unread input makes the kernel send RST, which can destroy the answer
    // before the client reads it. So: finish writing, half-close, drain, then close.
    m_state = State::Closing;
    m_buffer.clear();
    if (m_socket->bytesToWrite() == 0)
        shutdownWrite();
    else
        m_shutdownPending = true;
    QPointer<QTcpSocket> socket = m_socket;
    QTimer::singleShot(LingerMs, this, [socket] {
        if (socket)
            socket->abort();
    });
}

void HttpConnection::shutdownWrite()
{
    m_shutdownPending = false;
#ifdef Q_OS_UNIX
    const qintptr fd = m_socket ? m_socket->socketDescriptor() : -1;
    if (fd >= 0) {
        ::shutdown(static_cast<int>(fd), SHUT_WR);
        return;
    }
#endif
    if (m_socket)
        m_socket->disconnectFromHost();
}

} // namespace cs::paysim
