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

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView s)
{
    if (s.isEmpty())
        return false;
    for (char c : s) {
        if (!isTokenChar(c))
            return false;
    }
    return true;
}

} // namespace

HttpConnection::HttpConnection(QTcpSocket *socket, Handler handler, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_handler(std::move(handler))
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
            // RFC 9112 2.2: ignore empty lines before a request-line.
            while (m_buffer.startsWith("\r\n"))
                m_buffer.remove(0, 2);
            const qsizetype end = m_buffer.indexOf("\r\n\r\n");
            if (end < 0) {
                if (m_buffer.size() > MaxHeadBytes)
                    refuse(431, QStringLiteral("Request head exceeds %1 bytes.").arg(MaxHeadBytes));
                return;
            }
            if (end > MaxHeadBytes) {
                refuse(431, QStringLiteral("Request head exceeds %1 bytes.").arg(MaxHeadBytes));
                return;
            }
            const QByteArray head = m_buffer.left(end);
            m_buffer.remove(0, end + 4);
            if (!parseHead(head))
                return;
            m_state = State::ReadingBody;
        }
        if (m_buffer.size() < m_bodyLength)
            return;
        m_current.body = m_buffer.left(m_bodyLength);
        m_buffer.remove(0, m_bodyLength);
        dispatch();
    }
}

bool HttpConnection::parseHead(const QByteArray &head)
{
    m_current = HttpRequest();
    m_current.peer = m_socket->peerAddress();
    m_bodyLength = 0;

    const QList<QByteArray> lines = head.split('\n');
    QList<QByteArray> clean;
    clean.reserve(lines.size());
    for (const QByteArray &line : lines) {
        if (!line.endsWith('\r') && &line != &lines.last()) {
            refuse(400, QStringLiteral("Malformed request: lines must end with CRLF."));
            return false;
        }
        clean.append(line.endsWith('\r') ? line.chopped(1) : line);
    }

    const QList<QByteArray> parts = clean.first().split(' ');
    if (parts.size() != 3 || !isToken(parts[0]) || parts[1].isEmpty()) {
        refuse(400, QStringLiteral("Malformed request line."));
        return false;
    }
    m_current.method = parts[0];
    m_current.target = parts[1];
    m_current.version = parts[2];
    if (m_current.version != QByteArrayLiteral("HTTP/1.1") && m_current.version != QByteArrayLiteral("HTTP/1.0")) {
        if (m_current.version.startsWith("HTTP/"))
            refuse(505, QStringLiteral("Only HTTP/1.0 and HTTP/1.1 are supported."));
        else
            refuse(400, QStringLiteral("Malformed request line."));
        return false;
    }
    if (!m_current.target.startsWith('/')) {
        refuse(400, QStringLiteral("The request target must be an absolute path."));
        return false;
    }
    for (char c : std::as_const(m_current.target)) {
        if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
            refuse(400, QStringLiteral("The request target contains invalid characters."));
            return false;
        }
    }

    for (qsizetype i = 1; i < clean.size(); ++i) {
        const QByteArray &line = clean[i];
        if (line.startsWith(' ') || line.startsWith('\t')) {
            refuse(400, QStringLiteral("Folded header lines are not accepted."));
            return false;
        }
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || !isToken(QByteArrayView(line).first(colon))) {
            refuse(400, QStringLiteral("Malformed header line."));
            return false;
        }
        m_current.headers.append({line.left(colon), line.mid(colon + 1).trimmed()});
    }

    if (m_current.version == QByteArrayLiteral("HTTP/1.1") && !m_current.hasHeader("Host")) {
        refuse(400, QStringLiteral("HTTP/1.1 requests must carry a Host header."));
        return false;
    }
    if (m_current.hasHeader("Transfer-Encoding")) {
        refuse(411, QStringLiteral("Transfer-coded (chunked) request bodies are not supported; "
                                   "send the body with a Content-Length header."));
        return false;
    }

    bool haveLength = false;
    qint64 length = 0;
    for (const auto &h : std::as_const(m_current.headers)) {
        if (QByteArrayView("Content-Length").compare(h.first, Qt::CaseInsensitive) != 0)
            continue;
        const QByteArray &v = h.second;
        bool digits = !v.isEmpty() && v.size() <= 18;
        for (char c : v)
            digits = digits && c >= '0' && c <= '9';
        if (!digits) {
            refuse(400, QStringLiteral("Invalid Content-Length."));
            return false;
        }
        const qint64 n = v.toLongLong();
        if (haveLength && n != length) {
            refuse(400, QStringLiteral("Conflicting Content-Length headers."));
            return false;
        }
        haveLength = true;
        length = n;
    }
    const bool bodyMethod = m_current.method == QByteArrayLiteral("POST") || m_current.method == QByteArrayLiteral("PUT")
        || m_current.method == QByteArrayLiteral("PATCH");
    if (!haveLength && bodyMethod) {
        refuse(411, QStringLiteral("A %1 request needs a Content-Length header (send Content-Length: 0 for no body).")
                        .arg(QString::fromLatin1(m_current.method)));
        return false;
    }
    if (length > MaxBodyBytes) {
        refuse(413, QStringLiteral("Request body of %1 bytes exceeds the limit of %2 bytes.").arg(length).arg(MaxBodyBytes));
        return false;
    }
    m_bodyLength = static_cast<qsizetype>(length);
    if (m_bodyLength > m_buffer.size() && m_current.header("Expect").toLower() == QByteArrayLiteral("100-continue"))
        m_socket->write(QByteArrayLiteral("HTTP/1.1 100 Continue\r\n\r\n"));
    return true;
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
    m_socket->write(response.serialize(keepAlive));
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
    m_socket->write(HttpResponse::plainError(status, message).serialize(false));
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
