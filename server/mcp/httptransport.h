#pragma once

#include "server/api/apiserver.h"
#include "server/api/role.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <chrono>
#include <memory>
#include <optional>

class QTcpSocket;

namespace cs {

class ActionChangeFeed;
class InProcessBackend;
class McpSession;
class McpTools;

// MCP's Streamable HTTP transport at /mcp on countersignd serve (docs/AGENTS.md, revisions
// 2025-06-18 and 2025-11-25), mounted on ApiServer. In the order each request meets them:
//
// - Host (only when countersignd listens on a loopback address): exactly localhost, 127.0.0.1,
//   [::1], the address it listens on, or one of Options::allowedHosts, each with or without a
//   port, else 403 — the DNS rebinding defence the spec requires of local servers. Origin, when
//   sent: http(s) on localhost, 127.0.0.1 or [::1], or one of Options::allowedOrigins (exact),
//   else 403. Allowed cross-origin requests get CORS headers; OPTIONS is their preflight (no token).
// - The bearer token, as for /api/v1 (401 with WWW-Authenticate, 429, 503); any role may open a
//   session, each tool's REST call is then checked for the caller's role as over REST.
// - POST carries one JSON-RPC message (Content-Type application/json else 415; Accept listing
//   application/json and text/event-stream, or */*, else 406). An `initialize` request without
//   Mcp-Session-Id opens a session: its id (256 random bits) comes back in Mcp-Session-Id and is
//   bound to the token's user. Every other message needs that header (400 without it; 404 for a
//   session that does not exist, ended, or belongs to another user — indistinguishable) and, when
//   it sends MCP-Protocol-Version, the negotiated revision (400 otherwise). A notification or a
//   response is answered 202; a request with application/json, or with text/event-stream when the
//   tool sends progress notifications first (wait_for_decision with a progressToken), the stream
//   ending with the response. A JSON-RPC parse error or invalid request is answered with HTTP 400.
// - GET: 405 (this server sends no request or notification outside a response). DELETE ends the
//   session (204); requests still running in it lose their connection.
//
// Sessions are bounded: Options::maxSessionsPerUser (opening one more ends that user's least
// recently used idle session) and Options::maxSessions in all (503 then); a session unused for
// Options::idleTimeout ends. A request whose connection closes before its answer is cancelled
// (a wait stops; a proposal already in the ledger stays — asking again returns it). On drain every
// open MCP connection is closed. Not thread-safe: lives on the HTTP server's thread.
class HttpTransport : public QObject
{
    Q_OBJECT
public:
    static constexpr QStringView Path = u"/mcp";

    struct Options
    {
        QStringList allowedOrigins; // e.g. "https://agents.example.com": beside loopback origins
        QStringList allowedHosts;   // Host names accepted beside loopback ones (loopback listeners)
        int maxSessions = 1024;
        int maxSessionsPerUser = 16;
        std::chrono::milliseconds idleTimeout = std::chrono::hours(1);
        int pollIntervalMs = 1000;  // wait_for_decision (McpTools::PollIntervalMs)
        QString serverVersion = QStringLiteral(COUNTERSIGN_VERSION);
    };

    // Mounts itself on server at Path; server must outlive it.
    HttpTransport(ApiServer *server, Options options, QObject *parent = nullptr);
    ~HttpTransport() override;

    int sessionCount() const { return int(m_sessions.size()); }

    // Whether an Origin header value is a loopback origin (http or https on localhost, 127.0.0.1
    // or [::1], any port, nothing else); and a Host header value a loopback name (the same three).
    static bool isLoopbackOrigin(const QByteArray &origin);
    static bool isLoopbackHost(const QByteArray &host);
    // The Host check of a loopback listener: a loopback name, the address listened on
    // (`listenHost`, without brackets) or one of `allowedHosts`, with or without a port.
    static bool hostAllowed(const QByteArray &host, const QString &listenHost, const QStringList &allowedHosts);

private:
    struct Session;
    struct Exchange;

    void handle(const ApiServer::MountedRequest &request);
    void post(const ApiServer::MountedRequest &request, const User &user, const HeaderList &cors);
    void endSession(const QString &id, const QString &why);
    void pruneIdle();
    Session *openSession(const User &user, QString *refusal);
    void feed(Session *session, const std::shared_ptr<Exchange> &exchange, const QByteArray &message);

    std::optional<QByteArray> refusedHost(const ApiServer::MountedRequest &request) const;
    bool originAllowed(const QByteArray &origin) const;

    ApiServer *m_server;
    Options m_options;
    ActionChangeFeed *m_changes = nullptr; // wakes the sessions' waits
    QHash<QString, Session *> m_sessions;
    QTimer m_pruneTimer;
};

} // namespace cs
