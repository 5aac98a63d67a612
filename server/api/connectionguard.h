#pragma once

#include "server/api/apiresponse.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QSslServer>
#include <QTcpServer>

#include <chrono>
#include <optional>
#include <variant>

class QTcpSocket;
class QTimer;

namespace cs {

// The bytes of one HTTP/1.1 answer: status line, Content-Type, Content-Length, Cache-Control,
// the response's headers, `Connection: close` when close is set, then the body.
QByteArray httpAnswer(const ApiResponse &response, bool close);

// What the guard needs from one request head (request line and header fields, up to and including
// the blank line), or the problem it is refused with. Strict: CRLF line endings only, a request
// line of three parts with HTTP/1.0 or HTTP/1.1, token header names with no space before the colon,
// no obsolete line folding, at most one Content-Length and only digits in it, no Transfer-Encoding.
// Every refusal closes the connection.
struct RequestHead
{
    qint64 contentLength = 0;
    bool closeAfter = false; // Connection: close, or HTTP/1.0 without Connection: keep-alive

    struct Refusal
    {
        QString code;   // a Problem code: malformed_request, length_required, payload_too_large,
        QString detail; // http_version_not_supported
    };
    static std::variant<RequestHead, Refusal> parse(QByteArrayView head, qint64 maxBodyBytes);
};

// Bounds every connection of countersignd before Qt HttpServer 6.4 reads from it.
//
// Qt HttpServer 6.4 (QAbstractHttpServerPrivate::handleReadyRead) starts a read transaction on
// the socket and keeps every byte of a request buffered until the request is complete, with no
// limit and no timeout. The guard's slot is connected to each socket's readyRead before Qt's, so
// it runs first and peek()s at the bytes Qt has not read yet; it frames each request itself (head
// up to the blank line, then Content-Length bytes) and refuses at once, with an
// application/problem+json answer and a close, a head over maxHeadBytes (431), a Content-Length
// over maxBodyBytes (413, from the header, before the body is read), a head or body that does not
// arrive within headTimeout (408), ambiguous framing (400, 411) and unknown versions (505). A
// refused connection is taken from Qt (its readyRead slot disconnected), half-closed after the
// answer, and what the client still sends is discarded for a short linger, then it is closed. Idle
// keep-alive connections are closed after idleTimeout; event streams are exempt (markStreaming).
// Connections are capped in all and per client address; over the cap a connection is answered
// 503 (plain HTTP) or closed (TLS) at once. When accept fails for want of descriptors the listener
// pauses and resumes on a timer. Each socket's read buffer is bounded, so Qt never holds more than
// one request's worth.
//
// Requests must be answered in order through answering()/answered() (ApiServer::write); a refusal
// that arrives behind requests still being answered is written after their answers.
//
// Not thread-safe: one thread with an event loop, the HTTP server's.
class ConnectionGuard : public QObject
{
public:
    struct Limits
    {
        qint64 maxHeadBytes = 16 * 1024;
        qint64 maxBodyBytes = 65536;
        std::chrono::milliseconds headTimeout = std::chrono::seconds(10);
        std::chrono::milliseconds idleTimeout = std::chrono::seconds(60);
        int maxConnections = 256;
        int maxConnectionsPerAddress = 32;
        std::chrono::milliseconds lingerTimeout = std::chrono::milliseconds(500);
        std::chrono::milliseconds acceptBackoff = std::chrono::milliseconds(250);
    };

    // httpServer: the QAbstractHttpServer whose readyRead connections are cut on refused sockets.
    ConnectionGuard(QObject *httpServer, Limits limits, QObject *parent = nullptr);
    ~ConnectionGuard() override;

    const Limits &limits() const { return m_limits; }
    // maxConnections as applied: at most the descriptor limit less a reserve for the ledger.
    int effectiveMaxConnections() const { return m_maxConnections; }
    int connectionCount() const { return int(m_connections.size()); }

    // Watches server's accept errors (descriptor exhaustion: pause, resume on a timer) and, after
    // Qt HttpServer took each socket, tracks what Qt read. Call after QAbstractHttpServer::bind.
    void watch(QTcpServer *server);

    // For a server's incomingConnection: whether a connection from peer may be opened now.
    bool admits(const QHostAddress &peer) const;
    // Tracks socket (called before Qt HttpServer connects to it).
    void adopt(QTcpSocket *socket);
    // Answers 503 and closes (plain HTTP only); the guard owns and deletes socket.
    void turnAway(QTcpSocket *socket);

    // Before an answer to the oldest unanswered request is written: whether it must close the
    // connection (Connection: close, HTTP/1.0, or nothing more may be read on it).
    bool answering(QTcpSocket *socket) const;
    // After it was written: closes, writes a refusal that waited for it, or re-arms the idle timer.
    void answered(QTcpSocket *socket, bool closed);
    // The request on socket became a long-lived event stream: no idle timeout, further bytes from
    // the client are discarded. It still counts against the caps.
    void markStreaming(QTcpSocket *socket);

private:
    struct Connection;

    Connection *find(QTcpSocket *socket) const;
    void beforeQt(Connection &c);
    void afterQt(Connection &c);
    void handedOver();
    void completeRequest(Connection &c, bool closeAfter);
    void refuse(Connection &c, const QString &code, const QString &detail);
    void takeOver(Connection &c);
    void discard(Connection &c);
    void linger(Connection &c, const ApiResponse &answer);
    void rearm(Connection &c);
    void timedOut(Connection &c);
    void forget(QTcpSocket *socket);

    QObject *m_http;
    Limits m_limits;
    int m_maxConnections;
    QHash<QTcpSocket *, Connection *> m_connections;
    QHash<QString, int> m_perAddress;
};

// The listeners: QTcpServer and QSslServer whose new sockets the guard sees first.
class GuardedTcpServer : public QTcpServer
{
public:
    GuardedTcpServer(ConnectionGuard *guard, QObject *parent = nullptr);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    QPointer<ConnectionGuard> m_guard;
};

class GuardedSslServer : public QSslServer
{
public:
    GuardedSslServer(ConnectionGuard *guard, QObject *parent = nullptr);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    QPointer<ConnectionGuard> m_guard;
};

} // namespace cs
