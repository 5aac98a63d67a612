#include "server/api/apiserver.h"

#include "server/api/apilog.h"
#include "server/api/authenticator.h"
#include "server/api/metricsendpoint.h"
#include "server/api/problem.h"
#include "server/api/readiness.h"
#include "server/api/requestreplaystore.h"
#include "server/api/userstore.h"
#include "server/executionlog.h"

#include "server/ledger/ledger.h"
#include "server/metrics/metrics.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QHttpServerRequest>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>

#include <memory>

namespace cs {

namespace {

// Stored and replayed for a client Idempotency-Key (docs/API.md): 2xx, 403 four_eyes, 404, 409
// (but not idempotency_key_in_flight), 412, 422 (but not idempotency_key_reuse).
bool isReplayable(const ApiResponse &response)
{
    const int s = response.status;
    if (s >= 200 && s < 300)
        return true;
    if (s == 403)
        return response.problemCode == u"four_eyes";
    if (s == 409)
        return response.problemCode != u"idempotency_key_in_flight";
    if (s == 422)
        return response.problemCode != u"idempotency_key_reuse";
    return s == 404 || s == 412;
}

// Every HTTP request answered, by method, route (the endpoint table's path template, a mounted
// path, or "unmatched") and status; and how long it took from its arrival to its answer.
metrics::Counter httpRequests(QStringLiteral("countersign_http_requests_total"),
                              QStringLiteral("HTTP requests answered, by method, route and status"),
                              {QStringLiteral("method"), QStringLiteral("route"), QStringLiteral("status")});
metrics::Histogram httpSeconds(QStringLiteral("countersign_http_request_duration_seconds"),
                               QStringLiteral("HTTP requests from arrival to answer, by route"), {QStringLiteral("route")},
                               metrics::Histogram::latencyBounds());

} // namespace

// One request on its way through dispatch(); copied to a worker thread with Reply::work.
struct ApiServer::Context
{
    QByteArray method;
    ApiRoutes::Call call;
    bool keyStarted = false; // the replay store holds call.checked.idempotencyKey for this request
    bool preauthenticated = false; // call() in this process: call.user is set, no token to check
    std::function<void(const ApiResponse &)> answer; // call(): the answer goes here, not to a socket
    QString route = QStringLiteral("unmatched");      // the endpoint's path template once matched
    qint64 arrivedNs = 0;                            // steady clock at arrival
};

namespace {

qint64 steadyNs()
{
    static QElapsedTimer clock = [] {
        QElapsedTimer c;
        c.start();
        return c;
    }();
    return clock.nsecsElapsed();
}

} // namespace

ApiServer::ApiServer(Ledger *ledger, ProviderClient *provider, Options options, QObject *parent)
    : QAbstractHttpServer(parent), m_provider(provider), m_options(std::move(options))
{
    m_users = std::make_unique<UserStore>(&ledger->database());
    m_authenticator = std::make_unique<Authenticator>(m_users.get(), m_options.authThrottle);
    RequestReplayStore::Options replayOptions;
    replayOptions.retention = m_options.idempotencyRetention;
    m_replays = std::make_unique<RequestReplayStore>(&ledger->database(), systemClock(), replayOptions);
    m_reader = &ledger->reader();
    m_service = std::make_unique<ActionService>(
        ActionService::Stores{&ledger->proposals(), &ledger->approvals(), &ledger->evidence(), m_reader, &ledger->charges(),
                              &ledger->execution()}, m_provider,
        m_options.service);
    m_events = new EventStream(m_reader, &ledger->database(), m_options.events, this);
    m_execution = std::make_unique<ExecutionService>(&ledger->pauses());
    m_services.actions = m_service.get();
    m_services.execution = m_execution.get();
    m_charges = std::make_unique<ChargeService>(m_service.get(), m_reader, &ledger->approvals(), &ledger->charges(), m_provider,
                                                &ledger->evidence());
    m_services.charges = m_charges.get();
    m_services.reader = m_reader;
    m_services.events = m_events;
    m_services.version = m_options.version;
    m_services.approvals = &ledger->approvals();
    m_readiness = std::make_unique<Readiness>(&ledger->database(), provider, m_options.version, Readiness::Options{});
    m_services.readiness = m_readiness.get();
    m_metrics = std::make_unique<MetricsEndpoint>(m_reader, m_events);
    mount(QStringLiteral("/metrics"), [this](const MountedRequest &request) { serveMetrics(request); });
    m_pool.setMaxThreadCount(std::max(1, m_options.workerThreads));
    m_pruneTimer.setInterval(std::chrono::minutes(10));
    connect(&m_pruneTimer, &QTimer::timeout, this, [this] {
        const auto pruned = m_replays->pruneExpired();
        if (!pruned.ok())
            qCWarning(lcApi) << "cannot prune idempotency keys:" << pruned.error().toString();
    });
    m_pruneTimer.start();
}

ApiServer::~ApiServer()
{
    m_pool.waitForDone();
    if (m_events)
        m_events->closeAll();
}

void ApiServer::setWebhookHandler(WebhookHandler handler)
{
    m_services.webhook = std::move(handler);
}

void ApiServer::setPolicyService(PolicyService *policy)
{
    m_services.policy = policy;
}

bool ApiServer::listen(const QHostAddress &address, quint16 port, QString *error)
{
    ConnectionGuard::Limits limits = m_options.connections;
    limits.maxBodyBytes = m_options.maxBodyBytes;
    auto *guard = new ConnectionGuard(this, limits, this);
    QTcpServer *tcp = nullptr;
    if (m_options.tls) {
        auto *ssl = new GuardedSslServer(guard, this);
        ssl->setSslConfiguration(*m_options.tls);
        ssl->setHandshakeTimeout(int(std::max<qint64>(1000, limits.headTimeout.count())));
        tcp = ssl;
    } else {
        tcp = new GuardedTcpServer(guard, this);
    }
    if (!tcp->listen(address, port)) {
        if (error)
            *error = QStringLiteral("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(tcp->errorString());
        delete tcp;
        delete guard;
        return false;
    }
    bind(tcp);
    guard->watch(tcp); // after bind: its slots run after Qt HttpServer's
    m_tcp = tcp;
    m_guard = guard;
    return true;
}

QUrl ApiServer::baseUrl() const
{
    if (!m_tcp)
        return QUrl();
    QUrl url;
    url.setScheme(m_options.tls ? QStringLiteral("https") : QStringLiteral("http"));
    url.setHost(m_tcp->serverAddress().toString());
    url.setPort(m_tcp->serverPort());
    return url;
}

void ApiServer::drain()
{
    if (m_draining)
        return;
    m_draining = true;
    qCInfo(lcApi) << "draining:" << m_pending << "requests in flight";
    if (m_tcp)
        m_tcp->close();
    m_events->closeAll();
    emit draining();
    checkDrained();
}

void ApiServer::checkDrained()
{
    if (m_draining && m_pending == 0)
        QMetaObject::invokeMethod(this, &ApiServer::drained, Qt::QueuedConnection);
}

void ApiServer::missingHandler(const QHttpServerRequest &, QTcpSocket *socket)
{
    write(socket, Problem(QStringLiteral("not_found"), QStringLiteral("no such route")).toResponse(QString()));
}

void ApiServer::write(QTcpSocket *socket, const ApiResponse &response) const
{
    if (!socket || socket->state() != QAbstractSocket::ConnectedState)
        return;
    // Answers go out in request order; the guard says whether this one ends the connection.
    const bool close = (m_guard && m_guard->answering(socket)) || m_draining;
    socket->write(httpAnswer(response, close));
    if (m_guard)
        m_guard->answered(socket, close);
    else if (close)
        socket->disconnectFromHost();
}

void ApiServer::deliver(Context &c, const ApiResponse &response) const
{
    if (c.answer) {
        c.answer(response); // in-process (MCP tools): counted by the /mcp request that made it
        return;
    }
    countRequest(c.method, c.route, response.status, steadyNs() - c.arrivedNs);
    write(c.call.socket, response);
}

void ApiServer::answer(QTcpSocket *socket, const ApiResponse &response) const
{
    if (const auto mounted = m_mountedRequests.constFind(socket); mounted != m_mountedRequests.constEnd()) {
        countRequest(mounted->method, mounted->route, response.status, steadyNs() - mounted->arrivedNs);
        m_mountedRequests.erase(mounted);
    }
    write(socket, response);
}

void ApiServer::countRequest(const QByteArray &method, const QString &route, int status, qint64 elapsedNs) const
{
    httpRequests.inc({QString::fromLatin1(method), route, QString::number(status)});
    httpSeconds.observe({route}, double(elapsedNs) / 1e9);
}

// GET /metrics: Prometheus' text format for a token of the auditor or admin role
// (ActionPolicy::ReadMetrics). Answered on this thread: the ledger reads are counts.
void ApiServer::serveMetrics(const MountedRequest &request)
{
    const QString instance = request.path;
    if (request.method != "GET" && request.method != "HEAD") {
        answer(request.socket, Problem(QStringLiteral("method_not_allowed"), QStringLiteral("/metrics allows GET"))
                                   .withHeader("Allow", "GET")
                                   .toResponse(instance));
        return;
    }
    auto authenticated = authenticate(request.headers, request.socket, instance);
    if (auto *refused = std::get_if<ApiResponse>(&authenticated)) {
        answer(request.socket, *refused);
        return;
    }
    const User &user = std::get<User>(authenticated);
    if (!ActionPolicy::mayCall(user.role, ActionPolicy::Operation::ReadMetrics)) {
        answer(request.socket, Problem(QStringLiteral("forbidden"), QStringLiteral("the %1 role may not %2")
                                                                      .arg(toWire(user.role), ActionPolicy::operationName(
                                                                                                  ActionPolicy::Operation::ReadMetrics)))
                                   .toResponse(instance));
        return;
    }
    ApiResponse response;
    response.contentType = MetricsEndpoint::contentType();
    response.body = m_metrics->scrape(m_pending);
    answer(request.socket, response);
}

void ApiServer::mount(const QString &path, MountedHandler handler)
{
    m_mounts.insert(path, std::move(handler));
}

void ApiServer::keepSocket(QTcpSocket *socket)
{
    if (m_guard && socket)
        m_guard->markStreaming(socket);
}

void ApiServer::call(const User &user, const QByteArray &method, const QString &path, const QJsonObject &body,
                     std::function<void(const ApiResponse &)> done)
{
    Context c;
    c.method = method;
    c.preauthenticated = true;
    c.call.user = user;
    const qsizetype question = path.indexOf(u'?');
    c.call.instance = ApiRoutes::base.toString() + (question < 0 ? path : path.left(question));
    if (question >= 0)
        c.call.query = QUrlQuery(path.mid(question + 1));
    if (method != "GET") {
        c.call.headers = {{"Content-Type", "application/json"}};
        c.call.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    }
    c.answer = [this, done = std::move(done)](const ApiResponse &response) {
        QMetaObject::invokeMethod(this, [done, response] { done(response); }, Qt::QueuedConnection);
    };
    dispatch(c);
}

bool ApiServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    Context context;
    context.arrivedNs = steadyNs();
    context.method = QVariant::fromValue(request.method()).toByteArray().toUpper();
    context.call.socket = socket;
    context.call.instance = request.url().path();
    context.call.query = request.query();
    context.call.headers = request.headers();
    context.call.body = request.body();
    dispatch(context);
    return true;
}

void ApiServer::dispatch(Context &c)
{
    ApiRoutes::Call &call = c.call;
    const auto refuse = [&](const Problem &problem) { finish(c, problem.toResponse(call.instance)); };
    if (m_draining) {
        refuse(Problem(QStringLiteral("unavailable"), QStringLiteral("countersignd is shutting down"))
                   .withHeader("Retry-After", "5"));
        return;
    }
    if (!c.preauthenticated) {
        if (const auto mounted = m_mounts.constFind(call.instance); mounted != m_mounts.constEnd()) {
            if (QTcpSocket *socket = call.socket) {
                // Streams (SSE answers of /mcp) are not answered through answer(): forget the
                // socket's entry when it goes.
                if (!socket->property("countersign_mounted").toBool()) {
                    socket->setProperty("countersign_mounted", true);
                    connect(socket, &QObject::destroyed, this, [this, socket] { m_mountedRequests.remove(socket); });
                }
                m_mountedRequests.insert(socket, MountedCall{c.method, call.instance, c.arrivedNs});
            }
            mounted.value()(MountedRequest{c.method, call.instance, call.headers, call.body, call.socket});
            return;
        }
    }
    const auto matched = ApiRoutes::match(c.method, call.instance);
    if (const auto *unrouted = std::get_if<Problem>(&matched)) {
        refuse(*unrouted);
        return;
    }
    const ApiRoutes::Endpoint &endpoint = *std::get<ApiRoutes::Match>(matched).endpoint;
    call.actionId = std::get<ApiRoutes::Match>(matched).actionId;
    c.route = ApiRoutes::base.toString() + endpoint.path;

    // 401, then 403 for the role: before anything about the body, headers or the action.
    if (auto refused = authorize(c, endpoint)) {
        finish(c, *refused);
        return;
    }
    auto checked = RequestPreconditions::check(endpoint.needs, call.headers, call.body, m_options.maxBodyBytes);
    if (const auto *refused = std::get_if<Problem>(&checked)) {
        refuse(*refused);
        return;
    }
    call.checked = std::get<RequestPreconditions::Passed>(std::move(checked));
    // The replay before If-Match, so a resend that still carries the old version is replayed
    // rather than refused as stale.
    if (!call.checked.idempotencyKey.isEmpty() && !beginReplay(c))
        return;
    if (const auto refused = RequestPreconditions::requireIfMatch(endpoint.needs, call.checked)) {
        refuse(*refused);
        return;
    }

    ApiRoutes::Reply reply = endpoint.handler(call, m_services);
    if (reply.response)
        finish(c, std::move(*reply.response));
    else if (reply.work)
        runAsync(c, std::move(reply.work));
    else if (m_guard && call.socket)
        m_guard->markStreaming(call.socket); // an event stream: long-lived, no idle timeout
}

std::optional<ApiResponse> ApiServer::authorize(Context &c, const ApiRoutes::Endpoint &endpoint) const
{
    if (endpoint.access == ApiRoutes::Access::Public)
        return std::nullopt;
    if (!c.preauthenticated) {
        auto authenticated = authenticate(c.call.headers, c.call.socket, c.call.instance);
        if (auto *refused = std::get_if<ApiResponse>(&authenticated))
            return std::move(*refused);
        c.call.user = std::get<User>(std::move(authenticated));
    }
    if (!ActionPolicy::mayCall(c.call.user.role, endpoint.operation)) {
        return Problem(QStringLiteral("forbidden"), QStringLiteral("the %1 role may not %2")
                                                        .arg(toWire(c.call.user.role), ActionPolicy::operationName(endpoint.operation)))
            .toResponse(c.call.instance);
    }
    return std::nullopt;
}

std::variant<User, ApiResponse> ApiServer::authenticate(const HeaderList &headers, QTcpSocket *socket, const QString &instance) const
{
    const auto authorization = RequestPreconditions::authorization(headers);
    if (const auto *refused = std::get_if<Problem>(&authorization))
        return refused->toResponse(instance);
    // Rate-limited per client address (AuthThrottle): the peer is the one the socket reports.
    const QHostAddress peer = socket ? socket->peerAddress() : QHostAddress();
    const Authenticator::Result auth = m_authenticator->authenticate(std::get<QByteArray>(authorization), peer);
    if (auth.status == Authenticator::Status::Error) {
        qCWarning(lcApi) << "cannot authenticate:" << auth.error;
        return Problem(QStringLiteral("unavailable"), QStringLiteral("the user table cannot be read"))
            .withHeader("Retry-After", "2")
            .toResponse(instance);
    }
    if (auth.status == Authenticator::Status::Throttled) {
        const qint64 seconds = (auth.retryAfter.count() + 999) / 1000;
        return Problem(QStringLiteral("too_many_auth_failures"),
                       QStringLiteral("too many failed authentications from this address; retry in %1 s").arg(seconds))
            .withHeader("Retry-After", QByteArray::number(seconds))
            .toResponse(instance);
    }
    if (auth.status == Authenticator::Status::Expired || auth.status == Authenticator::Status::Disabled) {
        const bool expired = auth.status == Authenticator::Status::Expired;
        return Problem(expired ? QStringLiteral("token_expired") : QStringLiteral("token_disabled"),
                       expired ? QStringLiteral("the bearer token has expired") : QStringLiteral("the user is disabled"))
            .withHeader("WWW-Authenticate", "Bearer realm=\"countersign\", error=\"invalid_token\"")
            .toResponse(instance);
    }
    if (auth.status != Authenticator::Status::Ok) {
        const bool given = auth.status == Authenticator::Status::Unknown;
        return Problem(QStringLiteral("unauthenticated"),
                       given ? QStringLiteral("the bearer token is not known") : QStringLiteral("a bearer token is required"))
            .withHeader("WWW-Authenticate", given ? QByteArray("Bearer realm=\"countersign\", error=\"invalid_token\"")
                                                  : QByteArray("Bearer realm=\"countersign\""))
            .toResponse(instance);
    }
    return auth.user;
}

// Idempotency-Key: replay, 422 reuse, 409 in flight; false when that answered the request.
bool ApiServer::beginReplay(Context &c)
{
    const ApiRoutes::Call &call = c.call;
    const QString &key = call.checked.idempotencyKey;
    const QByteArray canonical = QJsonDocument(call.checked.json).toJson(QJsonDocument::Compact);
    const QByteArray hashInput =
        c.method + '\n' + call.instance.toUtf8() + '\n' + call.checked.ifMatchText.toLatin1() + '\n' + canonical;
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(hashInput, QCryptographicHash::Sha256).toHex());
    const auto begun = m_replays->begin(call.user.name, key, hash, QString::fromLatin1(c.method), call.instance);
    if (!begun.ok()) {
        finish(c, m_service->ledgerFailure(begun.error(), call.instance));
        return false;
    }
    switch (begun->kind) {
    case RequestReplayStore::Begin::Kind::Replay: {
        ApiResponse replay = begun->stored;
        replay.setHeader("Idempotent-Replayed", "true");
        deliver(c, replay);
        return false;
    }
    case RequestReplayStore::Begin::Kind::Reuse:
        finish(c, Problem(QStringLiteral("idempotency_key_reuse"),
                          QStringLiteral("Idempotency-Key \"%1\" was used for a different request").arg(key))
                      .toResponse(call.instance));
        return false;
    case RequestReplayStore::Begin::Kind::InFlight:
        finish(c, Problem(QStringLiteral("idempotency_key_in_flight"),
                          QStringLiteral("the first request with Idempotency-Key \"%1\" is still running").arg(key))
                      .withHeader("Retry-After", "1")
                      .toResponse(call.instance));
        return false;
    case RequestReplayStore::Begin::Kind::Started:
        c.keyStarted = true;
        break;
    }
    return true;
}

void ApiServer::runAsync(Context &c, std::function<ApiResponse()> work)
{
    ++m_pending;
    auto context = std::make_shared<Context>(c);
    m_pool.start([this, context, work = std::move(work)] {
        ApiResponse response = work();
        QMetaObject::invokeMethod(
            this,
            [this, context, response] {
                finish(*context, response);
                --m_pending;
                checkDrained();
            },
            Qt::QueuedConnection);
    });
}

void ApiServer::finish(Context &c, ApiResponse response)
{
    if (c.keyStarted) {
        const QString &user = c.call.user.name;
        const QString &key = c.call.checked.idempotencyKey;
        const LedgerError error = isReplayable(response) ? m_replays->complete(user, key, response) : m_replays->release(user, key);
        if (!error.ok())
            qCWarning(lcApi) << ActionTag{c.call.actionId} << "cannot store the answer for Idempotency-Key" << key
                             << error.toString();
        c.keyStarted = false;
    }
    if (response.status >= 500)
        qCWarning(lcApi) << ActionTag{c.call.actionId} << c.method << c.call.instance << response.status
                         << response.problemCode;
    else
        qCDebug(lcApi) << ActionTag{c.call.actionId} << c.method << c.call.instance << response.status
                       << response.problemCode;
    deliver(c, response);
}

} // namespace cs
