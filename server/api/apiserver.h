#pragma once

#include "server/api/actionservice.h"
#include "server/api/apiresponse.h"
#include "server/api/apiroutes.h"
#include "server/api/auththrottle.h"
#include "server/api/chargeservice.h"
#include "server/api/connectionguard.h"
#include "server/api/eventstream.h"
#include "server/api/executionservice.h"
#include "server/api/webhookhandler.h"

#include <QAbstractHttpServer>
#include <QHash>
#include <QJsonObject>
#include <QHostAddress>
#include <QPointer>
#include <QSslConfiguration>
#include <QThreadPool>
#include <QTimer>
#include <QUrl>

#include <chrono>
#include <functional>
#include <memory>
#include <variant>

class QTcpServer;

namespace cs {

class Authenticator;
class Ledger;
class MetricsEndpoint;
class Readiness;
class PolicyService;
class ProviderClient;
class RequestReplayStore;
class UserStore;

// countersignd's REST API under /api/v1 (resources/openapi.yaml, docs/API.md) on Qt HttpServer.
//
// The HTTP layer lives here, in the order dispatch() runs it: draining (503), the endpoint from
// ApiRoutes' table (404 / 405), bearer authentication (401, 429 after repeated failures from one address) and the role matrix (403), the row's
// RequestPreconditions (413, 415, 400), client Idempotency-Keys (replay, 422, 409), If-Match (428);
// then the row's handler (mostly an ActionService operation). Answers are written directly to
// the socket (guarded by QPointer) so the slow ones can be answered later: provider look-ups and
// webhooks run on a thread pool, never on this thread, which handles requests one at a time.
//
// Not thread-safe: create and use it on one thread with an event loop. The ledger, the provider
// client and the webhook handler must outlive it.
class ApiServer : public QAbstractHttpServer
{
    Q_OBJECT
public:
    struct Options
    {
        ActionService::Config service;
        EventStream::Options events;
        qsizetype maxBodyBytes = 65536; // also the guard's Content-Length limit
        ConnectionGuard::Limits connections; // its maxBodyBytes is maxBodyBytes
        std::optional<QSslConfiguration> tls; // set: listen() serves HTTPS only
        int workerThreads = 4;       // look-ups and webhooks
        QString version = QStringLiteral(COUNTERSIGN_VERSION);
        std::chrono::milliseconds idempotencyRetention = std::chrono::hours(24);
        AuthThrottle::Options authThrottle; // failed authentications per client address (429)
    };

    // Serves the ledger through the pieces Ledger hands out (stores, reader, the database for
    // users and request replays); ledger must outlive the server.
    ApiServer(Ledger *ledger, ProviderClient *provider, Options options, QObject *parent = nullptr);
    ~ApiServer() override;

    // Unset: POST /webhooks/provider answers 503 `unavailable`.
    void setWebhookHandler(WebhookHandler handler);
    // The --policy file's service (must outlive the server). Unset: GET /policy shows "no
    // policy" and POST /policy/reload answers 409 no_policy_file.
    void setPolicyService(PolicyService *policy);

    // Listens on address:port (0: an ephemeral port) with a listener of its own (a QSslServer
    // when Options::tls is set) behind a ConnectionGuard, and binds it.
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    // The scheme and the address really bound: https://127.0.0.1:PORT, http://0.0.0.0:PORT.
    QUrl baseUrl() const;
    const ConnectionGuard *guard() const { return m_guard; }

    // Stops accepting connections, ends the event streams, lets running look-ups and webhooks
    // finish and answer, then emits drained(). New requests on open connections get 503.
    void drain();
    bool isDraining() const { return m_draining; }
    int pendingWork() const { return m_pending; }

    // --- the MCP endpoint (server/mcp/httptransport.h) and other paths outside /api/v1 ----------

    // One request to a mounted path, as received.
    struct MountedRequest
    {
        QByteArray method; // upper case
        QString path;
        HeaderList headers;
        QByteArray body;
        QPointer<QTcpSocket> socket;
    };
    using MountedHandler = std::function<void(const MountedRequest &)>;
    // Requests to exactly `path` go to handler, after the draining check (503) and nothing else
    // (GET /metrics is mounted by the server itself: a token of the auditor or admin role):
    // the handler authenticates (authenticate()), answers (answer()) once per request, in order,
    // or keeps the socket (keepSocket()) and writes to it itself.
    void mount(const QString &path, MountedHandler handler);
    // The bearer token of a request: its user, or the answer that refuses it (401 with
    // WWW-Authenticate, 429 after repeated failures from the socket's address, 503), as for /api/v1.
    std::variant<User, ApiResponse> authenticate(const HeaderList &headers, QTcpSocket *socket, const QString &instance) const;
    void answer(QTcpSocket *socket, const ApiResponse &response) const;
    // The request on socket is answered by a long-lived stream the caller writes (no idle timeout).
    void keepSocket(QTcpSocket *socket);

    // An /api/v1 request made inside this process for an already authenticated user (the MCP
    // tools' InProcessBackend): the same route table, role check, preconditions and handler as
    // over HTTP, without a socket. `path` is below /api/v1 and may carry a query. `done` gets the
    // answer later, on this thread — never from inside call().
    void call(const User &user, const QByteArray &method, const QString &path, const QJsonObject &body,
              std::function<void(const ApiResponse &)> done);

    UserStore *users() const { return m_users.get(); }
    ActionService *service() const { return m_service.get(); }
    const EventStream *events() const { return m_events; }
    // For in-process followers of action changes (/mcp's waits: EventStream::follow()).
    EventStream *events() { return m_events; }

signals:
    // drain() began: mounted handlers end what they hold open.
    void draining();
    void drained();

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    struct Context;

    void dispatch(Context &context);
    std::optional<ApiResponse> authorize(Context &context, const ApiRoutes::Endpoint &endpoint) const;
    bool beginReplay(Context &context);
    void runAsync(Context &context, std::function<ApiResponse()> work);
    void finish(Context &context, ApiResponse response);
    void write(QTcpSocket *socket, const ApiResponse &response) const;
    void deliver(Context &context, const ApiResponse &response) const;
    void checkDrained();
    void serveMetrics(const MountedRequest &request);
    void countRequest(const QByteArray &method, const QString &route, int status, qint64 elapsedNs) const;

    ProviderClient *m_provider;
    Options m_options;
    std::unique_ptr<UserStore> m_users;
    std::unique_ptr<Authenticator> m_authenticator;
    std::unique_ptr<RequestReplayStore> m_replays;
    const ActionReader *m_reader;
    std::unique_ptr<ActionService> m_service;
    std::unique_ptr<ExecutionService> m_execution;
    std::unique_ptr<ChargeService> m_charges;
    EventStream *m_events = nullptr;
    ApiRoutes::Services m_services; // what the handlers use (with the webhook handler)
    QThreadPool m_pool;
    QPointer<QTcpServer> m_tcp;
    ConnectionGuard *m_guard = nullptr;
    QHash<QString, MountedHandler> m_mounts;
    // The mounted path each socket's request went to, until it is answered (for the request count).
    struct MountedCall
    {
        QByteArray method;
        QString route;
        qint64 arrivedNs = 0;
    };
    mutable QHash<const QTcpSocket *, MountedCall> m_mountedRequests;
    std::unique_ptr<Readiness> m_readiness;
    std::unique_ptr<MetricsEndpoint> m_metrics;
    QTimer m_pruneTimer;
    int m_pending = 0;
    bool m_draining = false;
};

} // namespace cs
