#include "server/api/connectionguard.h"

#include "server/api/apilog.h"
#include "server/api/problem.h"

#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <deque>

namespace cs {

namespace {

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
    }
}

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool hasToken(QByteArrayView list, QByteArrayView token)
{
    for (const QByteArrayView part : QByteArray(list.toByteArray()).split(',')) {
        if (part.trimmed().compare(token, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

using Refusal = RequestHead::Refusal;

Refusal malformed(const QString &detail)
{
    return Refusal{QStringLiteral("malformed_request"), detail};
}

// The descriptor limit less a reserve for the ledger, logs and the listener itself.
int descriptorBudget(int wanted)
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return wanted;
    constexpr rlim_t reserve = 32;
    const rlim_t budget = limit.rlim_cur > 2 * reserve ? limit.rlim_cur - reserve : limit.rlim_cur / 2;
    return int(std::min<rlim_t>(rlim_t(wanted), std::max<rlim_t>(budget, 1)));
}

QString addressKey(const QHostAddress &address)
{
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4); // ::ffff:a.b.c.d and a.b.c.d count together
    return isV4 ? QHostAddress(v4).toString() : address.toString();
}

} // namespace

QByteArray httpAnswer(const ApiResponse &response, bool close)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(response.status) + ' ' + reasonPhrase(response.status) + "\r\n";
    out += "Content-Type: " + response.contentType + "\r\n";
    out += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n";
    out += "Cache-Control: no-store\r\n";
    for (const auto &header : response.headers)
        out += header.first + ": " + header.second + "\r\n";
    if (close)
        out += "Connection: close\r\n";
    out += "\r\n";
    out += response.body;
    return out;
}

std::variant<RequestHead, RequestHead::Refusal> RequestHead::parse(QByteArrayView head, qint64 maxBodyBytes)
{
    if (!head.endsWith("\r\n\r\n"))
        return malformed(QStringLiteral("the request head does not end with an empty line"));
    const QByteArrayView text = head.first(head.size() - 4);
    QList<QByteArrayView> lines;
    qsizetype start = 0;
    while (start <= text.size()) {
        const qsizetype end = text.indexOf("\r\n", start);
        const QByteArrayView line = end < 0 ? text.sliced(start) : text.sliced(start, end - start);
        if (line.contains('\n') || line.contains('\r'))
            return malformed(QStringLiteral("a line of the request head does not end with CRLF"));
        lines.append(line);
        if (end < 0)
            break;
        start = end + 2;
    }

    // Request line: method SP request-target SP HTTP-version, single spaces.
    const QList<QByteArray> parts = lines.first().toByteArray().split(' ');
    if (parts.size() != 3 || parts[0].isEmpty() || parts[1].isEmpty()
        || !std::all_of(parts[0].cbegin(), parts[0].cend(), isTokenChar))
        return malformed(QStringLiteral("the request line is not \"METHOD target HTTP/1.1\""));
    const QByteArray &version = parts[2];
    const bool http10 = version == "HTTP/1.0";
    if (!http10 && version != "HTTP/1.1") {
        if (version.startsWith("HTTP/"))
            return Refusal{QStringLiteral("http_version_not_supported"),
                           QStringLiteral("%1 is not supported; use HTTP/1.1").arg(QString::fromLatin1(version.left(16)))};
        return malformed(QStringLiteral("the request line is not \"METHOD target HTTP/1.1\""));
    }

    RequestHead result;
    bool haveLength = false;
    bool transferEncoding = false;
    bool keepAlive = false;
    bool close = false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArrayView line = lines[i];
        if (line.isEmpty() || line.front() == ' ' || line.front() == '\t')
            return malformed(QStringLiteral("obsolete line folding is not accepted"));
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return malformed(QStringLiteral("a header field has no name"));
        const QByteArrayView name = line.first(colon);
        if (!std::all_of(name.begin(), name.end(), isTokenChar))
            return malformed(QStringLiteral("a header field name is not a token (no space before the colon)"));
        const QByteArrayView value = line.sliced(colon + 1).trimmed();
        if (name.compare("Content-Length", Qt::CaseInsensitive) == 0) {
            if (haveLength)
                return malformed(QStringLiteral("Content-Length is given more than once"));
            haveLength = true;
            if (value.isEmpty() || value.size() > 18 || !std::all_of(value.begin(), value.end(), [](char c) {
                    return c >= '0' && c <= '9';
                }))
                return malformed(QStringLiteral("Content-Length is not a decimal number"));
            result.contentLength = value.toLongLong();
        } else if (name.compare("Transfer-Encoding", Qt::CaseInsensitive) == 0) {
            transferEncoding = true; // refused below, once every Content-Length was seen
        } else if (name.compare("Connection", Qt::CaseInsensitive) == 0) {
            close = close || hasToken(value, "close");
            keepAlive = keepAlive || hasToken(value, "keep-alive");
        }
    }
    if (transferEncoding) {
        if (haveLength)
            return malformed(QStringLiteral("Content-Length and Transfer-Encoding together are ambiguous"));
        return Refusal{QStringLiteral("length_required"),
                       QStringLiteral("Transfer-Encoding is not accepted; send the body with a Content-Length")};
    }
    if (result.contentLength > maxBodyBytes)
        return Refusal{QStringLiteral("payload_too_large"), QStringLiteral("Content-Length is %1 bytes; at most %2 are accepted")
                                                                .arg(result.contentLength)
                                                                .arg(maxBodyBytes)};
    result.closeAfter = close || (http10 && !keepAlive);
    return result;
}

// One tracked socket. A child of the socket, so it lives exactly as long as the socket does.
struct ConnectionGuard::Connection : QObject
{
    enum class Phase { Head, Body, Streaming, Refused };

    explicit Connection(QTcpSocket *s) : QObject(s), socket(s), timer(new QTimer(this))
    {
        timer->setSingleShot(true);
    }

    QTcpSocket *socket;
    QTimer *timer;
    QString address;
    Phase phase = Phase::Head;
    QByteArray head;          // of the request being read, up to maxHeadBytes + 1
    qint64 bodyLeft = 0;      // of its Content-Length
    bool closeAfter = false;  // of the request being read
    qsizetype scanned = 0;    // bytes past Qt's read position that the guard has framed already
    qsizetype availableBeforeQt = 0;
    bool qtAttached = false;  // afterQt is connected (Qt HttpServer took the socket)
    bool noMoreRequests = false; // a request said close: bytes after it are not requests
    bool takenOver = false;   // Qt HttpServer no longer reads this socket
    int requests = 0;         // framed on this connection
    std::deque<bool> unanswered; // closeAfter of each request handed to Qt, oldest first
    std::optional<ApiResponse> refusal; // waits for the unanswered requests
    qint64 discarded = 0;
};

ConnectionGuard::ConnectionGuard(QObject *httpServer, Limits limits, QObject *parent)
    : QObject(parent), m_http(httpServer), m_limits(limits), m_maxConnections(descriptorBudget(limits.maxConnections))
{
    if (m_maxConnections < m_limits.maxConnections)
        qCWarning(lcApi) << "at most" << m_maxConnections << "connections: the descriptor limit is too low for"
                         << m_limits.maxConnections;
}

ConnectionGuard::~ConnectionGuard() = default;

void ConnectionGuard::watch(QTcpServer *server)
{
    connect(server, &QTcpServer::pendingConnectionAvailable, this, &ConnectionGuard::handedOver);
    // Qt pauses accepting on a resource error (EMFILE, ENFILE) and never resumes by itself.
    QPointer<QTcpServer> guarded = server;
    connect(server, &QTcpServer::acceptError, this, [this, guarded](QAbstractSocket::SocketError error) {
        if (!guarded)
            return;
        qCWarning(lcApi) << "accept failed:" << error << guarded->errorString() << "- pausing for"
                         << m_limits.acceptBackoff.count() << "ms";
        guarded->pauseAccepting();
        QTimer::singleShot(m_limits.acceptBackoff, guarded, [guarded] {
            if (guarded && guarded->isListening())
                guarded->resumeAccepting();
        });
    });
}

bool ConnectionGuard::admits(const QHostAddress &peer) const
{
    return m_connections.size() < m_maxConnections && m_perAddress.value(addressKey(peer)) < m_limits.maxConnectionsPerAddress;
}

ConnectionGuard::Connection *ConnectionGuard::find(QTcpSocket *socket) const
{
    return m_connections.value(socket, nullptr);
}

void ConnectionGuard::adopt(QTcpSocket *socket)
{
    auto *c = new Connection(socket);
    c->address = addressKey(socket->peerAddress());
    m_connections.insert(socket, c);
    ++m_perAddress[c->address];
    // Room for one request whole (Qt keeps it in its read transaction) and a little more.
    socket->setReadBufferSize(m_limits.maxHeadBytes + m_limits.maxBodyBytes + 16 * 1024);
    connect(socket, &QIODevice::readyRead, c, [this, c] { beforeQt(*c); });
    connect(socket, &QAbstractSocket::disconnected, this, [this, socket] { forget(socket); });
    connect(socket, &QObject::destroyed, this, [this, socket] { forget(socket); });
    connect(c->timer, &QTimer::timeout, c, [this, c] { timedOut(*c); });
    rearm(*c);
}

void ConnectionGuard::turnAway(QTcpSocket *socket)
{
    socket->setParent(this);
    connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
    QTimer::singleShot(m_limits.lingerTimeout, socket, [socket] { socket->abort(); socket->deleteLater(); });
    const Problem problem = Problem(QStringLiteral("too_many_connections"),
                                    QStringLiteral("too many connections are open; try again shortly"))
                                .withHeader("Retry-After", "1");
    socket->write(httpAnswer(problem.toResponse(QString()), true));
    socket->disconnectFromHost();
}

void ConnectionGuard::forget(QTcpSocket *socket)
{
    Connection *c = m_connections.take(socket);
    if (!c)
        return;
    c->timer->stop();
    if (--m_perAddress[c->address] <= 0)
        m_perAddress.remove(c->address);
}

void ConnectionGuard::handedOver()
{
    for (Connection *c : std::as_const(m_connections)) {
        if (c->qtAttached)
            continue;
        if (const auto *ssl = qobject_cast<QSslSocket *>(c->socket); ssl && !ssl->isEncrypted())
            continue; // QSslServer hands it over when its handshake is done
        c->qtAttached = true;
        connect(c->socket, &QIODevice::readyRead, c, [this, c] { afterQt(*c); });
    }
}

// Runs before Qt HttpServer's readyRead slot: frames the bytes Qt has not read, up to the end of
// one request (Qt handles one request per readyRead and signals again for the rest).
void ConnectionGuard::beforeQt(Connection &c)
{
    QTcpSocket *socket = c.socket;
    if (c.takenOver || c.phase == Connection::Phase::Streaming) {
        discard(c);
        return;
    }
    if (c.noMoreRequests && c.phase == Connection::Phase::Head) {
        takeOver(c);
        return;
    }
    const QByteArray data = socket->peek(socket->bytesAvailable());
    qsizetype i = std::min(c.scanned, data.size());
    while (i < data.size()) {
        if (c.phase == Connection::Phase::Body) {
            const qint64 n = std::min<qint64>(c.bodyLeft, data.size() - i);
            i += n;
            c.bodyLeft -= n;
            if (c.bodyLeft == 0) {
                completeRequest(c, c.closeAfter);
                break;
            }
            continue;
        }
        if (c.head.isEmpty()) {
            while (i < data.size() && (data[i] == '\r' || data[i] == '\n'))
                ++i; // Qt skips line ends between requests too
            if (i == data.size())
                break;
            if (!c.unanswered.empty() || c.requests > 0)
                c.timer->start(m_limits.headTimeout); // the idle wait ends: this head must arrive in time
        }
        const qsizetype before = c.head.size();
        const qsizetype room = qsizetype(m_limits.maxHeadBytes) + 1 - before;
        c.head += data.mid(i, std::max<qsizetype>(0, room));
        const qsizetype end = c.head.indexOf("\r\n\r\n", std::max<qsizetype>(0, before - 3));
        // A bare LF in the head is refused as soon as it is seen: Qt's parser would take it as a
        // line end and frame the request differently from the guard. Only the head: what follows
        // its blank line is the body (a pretty-printed JSON body has line breaks of its own).
        const qsizetype headBytes = end >= 0 ? end + 4 : c.head.size();
        for (qsizetype k = std::max<qsizetype>(0, before); k < headBytes; ++k) {
            if (c.head[k] == '\n' && (k == 0 || c.head[k - 1] != '\r')) {
                refuse(c, QStringLiteral("malformed_request"), QStringLiteral("a line of the request head ends with a bare LF"));
                return;
            }
        }
        if (end < 0 || end + 4 > m_limits.maxHeadBytes) {
            if (c.head.size() > m_limits.maxHeadBytes || (end >= 0 && end + 4 > m_limits.maxHeadBytes)) {
                refuse(c, QStringLiteral("header_too_large"),
                       QStringLiteral("the request head is over %1 bytes").arg(m_limits.maxHeadBytes));
                return;
            }
            i = data.size();
            break;
        }
        c.head.truncate(end + 4);
        i += c.head.size() - before;
        const auto parsed = RequestHead::parse(c.head, m_limits.maxBodyBytes);
        if (const auto *refused = std::get_if<RequestHead::Refusal>(&parsed)) {
            refuse(c, refused->code, refused->detail);
            return;
        }
        const RequestHead &head = std::get<RequestHead>(parsed);
        c.head.clear();
        if (head.contentLength > 0) {
            c.phase = Connection::Phase::Body;
            c.bodyLeft = head.contentLength;
            c.closeAfter = head.closeAfter;
            c.timer->start(m_limits.headTimeout); // and the body, from the end of the head
            continue;
        }
        completeRequest(c, head.closeAfter);
        break;
    }
    c.scanned = i;
    c.availableBeforeQt = data.size();
}

// Runs after Qt HttpServer's slot: what Qt read is no longer ahead of its read position.
void ConnectionGuard::afterQt(Connection &c)
{
    if (c.takenOver)
        return;
    const qsizetype consumed = c.availableBeforeQt - c.socket->bytesAvailable();
    c.scanned = std::max<qsizetype>(0, c.scanned - std::max<qsizetype>(0, consumed));
    c.availableBeforeQt = c.socket->bytesAvailable();
    if (c.noMoreRequests && c.phase == Connection::Phase::Head)
        takeOver(c);
}

void ConnectionGuard::completeRequest(Connection &c, bool closeAfter)
{
    c.unanswered.push_back(closeAfter);
    ++c.requests;
    c.phase = Connection::Phase::Head;
    c.head.clear();
    c.closeAfter = false;
    if (closeAfter)
        c.noMoreRequests = true;
    rearm(c);
}

void ConnectionGuard::refuse(Connection &c, const QString &code, const QString &detail)
{
    qCInfo(lcApi) << "refused a request from" << c.address << code << detail;
    const ApiResponse answer = Problem(code, detail).toResponse(QString());
    takeOver(c);
    c.phase = Connection::Phase::Refused;
    c.noMoreRequests = true;
    if (!c.unanswered.empty()) {
        c.refusal = answer; // after the answers to the requests before it
        c.timer->stop();
        return;
    }
    linger(c, answer);
}

// Qt HttpServer stops reading the socket; what it buffered is dropped.
void ConnectionGuard::takeOver(Connection &c)
{
    if (!c.takenOver) {
        c.takenOver = true;
        QObject::disconnect(c.socket, &QIODevice::readyRead, m_http, nullptr);
        if (c.socket->isTransactionStarted())
            c.socket->commitTransaction();
    }
    discard(c);
}

void ConnectionGuard::discard(Connection &c)
{
    while (c.socket->bytesAvailable() > 0) {
        const qint64 n = c.socket->skip(c.socket->bytesAvailable());
        if (n <= 0)
            break;
        c.discarded += n;
    }
}

void ConnectionGuard::linger(Connection &c, const ApiResponse &answer)
{
    if (c.socket->state() != QAbstractSocket::ConnectedState)
        return;
    if (const auto *ssl = qobject_cast<QSslSocket *>(c.socket); ssl && !ssl->isEncrypted()) {
        c.socket->abort();
        return;
    }
    c.socket->write(httpAnswer(answer, true));
    c.socket->flush();
    // Half-close (plain TCP): the client reads the answer, then end of stream, while what it
    // still sends is read and dropped until the linger ends. A close with unread bytes would
    // send a reset that can destroy the answer before the client reads it.
    if (!qobject_cast<QSslSocket *>(c.socket) && c.socket->bytesToWrite() == 0)
        ::shutdown(int(c.socket->socketDescriptor()), SHUT_WR);
    c.discarded = 0;
    c.timer->start(m_limits.lingerTimeout);
}

bool ConnectionGuard::answering(QTcpSocket *socket) const
{
    const Connection *c = find(socket);
    if (!c || c->unanswered.empty())
        return false;
    return c->unanswered.front();
}

void ConnectionGuard::answered(QTcpSocket *socket, bool closed)
{
    Connection *c = find(socket);
    if (!c) {
        if (closed)
            socket->disconnectFromHost();
        return;
    }
    if (!c->unanswered.empty())
        c->unanswered.pop_front();
    if (closed) {
        takeOver(*c);
        c->timer->stop();
        socket->disconnectFromHost();
        return;
    }
    if (c->unanswered.empty() && c->refusal) {
        const ApiResponse refusal = *c->refusal;
        c->refusal.reset();
        linger(*c, refusal);
        return;
    }
    rearm(*c);
}

void ConnectionGuard::markStreaming(QTcpSocket *socket)
{
    Connection *c = find(socket);
    if (!c)
        return;
    if (!c->unanswered.empty())
        c->unanswered.pop_front();
    c->phase = Connection::Phase::Streaming;
    c->timer->stop();
    takeOver(*c);
}

void ConnectionGuard::rearm(Connection &c)
{
    switch (c.phase) {
    case Connection::Phase::Streaming:
    case Connection::Phase::Refused:
        return; // no timer, or the linger timer already running
    case Connection::Phase::Body:
        return; // started at the end of the head
    case Connection::Phase::Head:
        if (!c.head.isEmpty())
            return; // the head timer runs from its first byte
        if (!c.unanswered.empty())
            c.timer->stop(); // countersignd is answering: its own deadlines apply
        else if (c.requests == 0)
            c.timer->start(m_limits.headTimeout); // a new connection sends its first head in time
        else
            c.timer->start(m_limits.idleTimeout);
        return;
    }
}

void ConnectionGuard::timedOut(Connection &c)
{
    QTcpSocket *socket = c.socket;
    switch (c.phase) {
    case Connection::Phase::Streaming:
        return;
    case Connection::Phase::Refused:
        socket->abort(); // the linger is over
        return;
    case Connection::Phase::Body:
        refuse(c, QStringLiteral("request_timeout"),
               QStringLiteral("the body did not arrive within %1 ms").arg(m_limits.headTimeout.count()));
        return;
    case Connection::Phase::Head:
        if (c.head.isEmpty() && c.requests > 0) {
            if (c.unanswered.empty()) {
                qCDebug(lcApi) << "closing an idle connection from" << c.address;
                takeOver(c);
                socket->disconnectFromHost();
            }
            return;
        }
        if (const auto *ssl = qobject_cast<QSslSocket *>(socket); ssl && !ssl->isEncrypted()) {
            socket->abort(); // no TLS session to answer in
            return;
        }
        refuse(c, QStringLiteral("request_timeout"),
               QStringLiteral("the request head did not arrive within %1 ms").arg(m_limits.headTimeout.count()));
        return;
    }
}

GuardedTcpServer::GuardedTcpServer(ConnectionGuard *guard, QObject *parent) : QTcpServer(parent), m_guard(guard) {}

void GuardedTcpServer::incomingConnection(qintptr descriptor)
{
    auto *socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    if (!m_guard) {
        addPendingConnection(socket);
        return;
    }
    if (!m_guard->admits(socket->peerAddress())) {
        m_guard->turnAway(socket);
        return;
    }
    m_guard->adopt(socket);
    addPendingConnection(socket);
}

GuardedSslServer::GuardedSslServer(ConnectionGuard *guard, QObject *parent) : QSslServer(parent), m_guard(guard)
{
    if (m_guard) {
        connect(this, &QSslServer::startedEncryptionHandshake, m_guard, [guard = m_guard](QSslSocket *socket) {
            if (guard)
                guard->adopt(socket);
        });
    }
}

void GuardedSslServer::incomingConnection(qintptr descriptor)
{
    if (m_guard) {
        sockaddr_storage storage{};
        socklen_t length = sizeof(storage);
        QHostAddress peer;
        if (getpeername(int(descriptor), reinterpret_cast<sockaddr *>(&storage), &length) == 0)
            peer = QHostAddress(reinterpret_cast<const sockaddr *>(&storage));
        if (!m_guard->admits(peer)) {
            ::close(int(descriptor)); // no TLS session yet to answer 503 in
            return;
        }
    }
    QSslServer::incomingConnection(descriptor);
}

} // namespace cs
