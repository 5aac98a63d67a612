#include "apiserver.h"

#include "apilog.h"
#include "authenticator.h"
#include "problem.h"
#include "requestreplaystore.h"
#include "userstore.h"

#include "ledger.h"

#include <QCryptographicHash>
#include <QHttpServerRequest>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrlQuery>

#include <memory>

namespace cs {

namespace {

enum class Route { Health, Me, Actions, Action, Approvals, Rejections, Lookups, Reconciliations, FollowUps, Events, Webhook };

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
    case 409: return "Conflict";
    case 412: return "Precondition Failed";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 428: return "Precondition Required";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

bool isJsonMediaType(const QByteArray &contentType)
{
    const QList<QByteArray> parts = contentType.split(';');
    if (parts.isEmpty() || parts.constFirst().trimmed().toLower() != "application/json")
        return false;
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const QByteArray parameter = parts.at(i).trimmed();
        if (parameter.isEmpty())
            continue;
        const qsizetype equals = parameter.indexOf('=');
        if (equals <= 0 || parameter.left(equals).trimmed().toLower() != "charset")
            return false;
        QByteArray value = parameter.mid(equals + 1).trimmed().toLower();
        if (value.size() >= 2 && value.startsWith('"') && value.endsWith('"'))
            value = value.mid(1, value.size() - 2);
        if (value != "utf-8" && value != "utf8")
            return false;
    }
    return true;
}

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

ActionPolicy::Operation operationOf(Route route, bool post)
{
    using Op = ActionPolicy::Operation;
    switch (route) {
    case Route::Me:
        return Op::Me;
    case Route::Actions:
        return post ? Op::Propose : Op::ListActions;
    case Route::Action:
        return Op::GetAction;
    case Route::Approvals:
        return Op::Approve;
    case Route::Rejections:
        return Op::Reject;
    case Route::Lookups:
        return Op::Lookup;
    case Route::Reconciliations:
        return Op::Reconcile;
    case Route::FollowUps:
        return Op::FollowUp;
    case Route::Events:
    case Route::Health:
    case Route::Webhook:
        break;
    }
    return Op::Events;
}

} // namespace

struct ApiServer::Context
{
    QPointer<QTcpSocket> socket;
    QByteArray method;
    QString path; // the problem's `instance`
    QUrlQuery query;
    HeaderList headers;
    QByteArray body;

    Route route = Route::Health;
    QString actionId;
    User user;
    QJsonObject json;
    qint64 ifMatch = -1; // -1: absent or *
    QString idempotencyKey;
    bool keyStarted = false;

    QByteArray header(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return h.second;
        }
        return QByteArray();
    }
    bool hasHeader(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return true;
        }
        return false;
    }
    bool isPost() const { return method == "POST"; }
};

ApiServer::ApiServer(Ledger *ledger, ProviderClient *provider, Options options, QObject *parent)
    : QAbstractHttpServer(parent), m_provider(provider), m_options(std::move(options))
{
    m_users = std::make_unique<UserStore>(&ledger->database());
    m_authenticator = std::make_unique<Authenticator>(m_users.get());
    RequestReplayStore::Options replayOptions;
    replayOptions.retention = m_options.idempotencyRetention;
    m_replays = std::make_unique<RequestReplayStore>(&ledger->database(), systemClock(), replayOptions);
    m_reader = &ledger->reader();
    m_service = std::make_unique<ActionService>(
        ActionService::Stores{&ledger->proposals(), &ledger->approvals(), &ledger->evidence(), m_reader}, m_provider,
        m_options.service);
    m_events = new EventStream(m_reader, m_options.events, this);
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
    m_webhookHandler = std::move(handler);
}

bool ApiServer::listen(const QHostAddress &address, quint16 port, QString *error)
{
    auto *tcp = new QTcpServer(this);
    if (!tcp->listen(address, port)) {
        if (error)
            *error = QStringLiteral("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(tcp->errorString());
        delete tcp;
        return false;
    }
    bind(tcp);
    m_tcp = tcp;
    return true;
}

QUrl ApiServer::baseUrl() const
{
    if (!m_tcp)
        return QUrl();
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    QHostAddress address = m_tcp->serverAddress();
    if (address == QHostAddress::Any || address == QHostAddress::AnyIPv4)
        address = QHostAddress::LocalHost;
    url.setHost(address.toString());
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
    QByteArray out = "HTTP/1.1 " + QByteArray::number(response.status) + ' ' + reasonPhrase(response.status) + "\r\n";
    out += "Content-Type: " + response.contentType + "\r\n";
    out += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n";
    out += "Cache-Control: no-store\r\n";
    for (const auto &header : response.headers)
        out += header.first + ": " + header.second + "\r\n";
    if (m_draining)
        out += "Connection: close\r\n";
    out += "\r\n";
    out += response.body;
    socket->write(out);
    if (m_draining)
        socket->disconnectFromHost();
}

bool ApiServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    Context context;
    context.socket = socket;
    context.method = QVariant::fromValue(request.method()).toByteArray().toUpper();
    context.path = request.url().path();
    context.query = request.query();
    context.headers = request.headers();
    context.body = request.body();
    dispatch(context);
    return true;
}

void ApiServer::dispatch(Context &c)
{
    const QString &instance = c.path;
    const auto answer = [&](ApiResponse response) { finish(c, std::move(response)); };
    const auto fail = [&](const QString &code, const QString &detail) { answer(Problem(code, detail).toResponse(instance)); };

    if (m_draining) {
        answer(Problem(QStringLiteral("unavailable"), QStringLiteral("countersignd is shutting down"))
                   .withHeader("Retry-After", "5")
                   .toResponse(instance));
        return;
    }

    // Routing: 404 for an unknown path, 405 for a known path with another method.
    static const QString prefix = QStringLiteral("/api/v1/");
    QByteArray allowed;
    if (c.path.startsWith(prefix)) {
        const QStringList parts = c.path.mid(prefix.size()).split(u'/');
        const qsizetype n = parts.size();
        if (n == 1 && parts[0] == u"health") {
            c.route = Route::Health;
            allowed = "GET";
        } else if (n == 1 && parts[0] == u"me") {
            c.route = Route::Me;
            allowed = "GET";
        } else if (n == 1 && parts[0] == u"actions") {
            c.route = Route::Actions;
            allowed = "GET, POST";
        } else if (n == 2 && parts[0] == u"actions" && !parts[1].isEmpty()) {
            c.route = Route::Action;
            c.actionId = parts[1];
            allowed = "GET";
        } else if (n == 3 && parts[0] == u"actions" && !parts[1].isEmpty()) {
            static const QHash<QString, Route> subroutes = {
                {QStringLiteral("approvals"), Route::Approvals},
                {QStringLiteral("rejections"), Route::Rejections},
                {QStringLiteral("lookups"), Route::Lookups},
                {QStringLiteral("reconciliations"), Route::Reconciliations},
                {QStringLiteral("follow-ups"), Route::FollowUps},
            };
            if (subroutes.contains(parts[2])) {
                c.route = subroutes.value(parts[2]);
                c.actionId = parts[1];
                allowed = "POST";
            }
        } else if (n == 1 && parts[0] == u"events") {
            c.route = Route::Events;
            allowed = "GET";
        } else if (n == 2 && parts[0] == u"webhooks" && parts[1] == u"provider") {
            c.route = Route::Webhook;
            allowed = "POST";
        }
    }
    if (allowed.isEmpty()) {
        fail(QStringLiteral("not_found"), QStringLiteral("no route %1").arg(c.path));
        return;
    }
    bool methodAllowed = false;
    for (const QByteArray &method : allowed.split(','))
        methodAllowed = methodAllowed || method.trimmed() == c.method;
    if (!methodAllowed) {
        answer(Problem(QStringLiteral("method_not_allowed"),
                       QStringLiteral("%1 does not allow %2").arg(c.path, QString::fromLatin1(c.method)))
                   .withHeader("Allow", allowed)
                   .toResponse(instance));
        return;
    }

    if (c.route == Route::Health) {
        const auto seq = m_reader->latestAuditSeq();
        const QJsonObject body{{QStringLiteral("status"), seq.ok() ? QStringLiteral("ok") : QStringLiteral("unavailable")},
                               {QStringLiteral("version"), m_options.version}};
        answer(ApiResponse::json(seq.ok() ? 200 : 503, body,
                                 seq.ok() ? HeaderList() : HeaderList{{"Retry-After", "5"}}));
        return;
    }
    if (c.route == Route::Webhook) {
        handleWebhook(c);
        return;
    }

    // 401, then 403 for the role: before anything about the body, headers or the action.
    const Authenticator::Result auth = m_authenticator->authenticate(c.header("Authorization"));
    if (auth.status == Authenticator::Status::Error) {
        qCWarning(lcApi) << "cannot authenticate:" << auth.error;
        answer(Problem(QStringLiteral("unavailable"), QStringLiteral("the user table cannot be read"))
                   .withHeader("Retry-After", "2")
                   .toResponse(instance));
        return;
    }
    if (auth.status != Authenticator::Status::Ok) {
        const bool given = auth.status == Authenticator::Status::Unknown;
        answer(Problem(QStringLiteral("unauthenticated"),
                       given ? QStringLiteral("the bearer token is not known") : QStringLiteral("a bearer token is required"))
                   .withHeader("WWW-Authenticate", given ? QByteArray("Bearer realm=\"countersign\", error=\"invalid_token\"")
                                                         : QByteArray("Bearer realm=\"countersign\""))
                   .toResponse(instance));
        return;
    }
    c.user = auth.user;
    const ActionPolicy::Operation operation = operationOf(c.route, c.isPost());
    if (c.route != Route::Events && !ActionPolicy::mayCall(c.user.role, operation)) {
        fail(QStringLiteral("forbidden"), QStringLiteral("the %1 role may not %2")
                                              .arg(toWire(c.user.role), ActionPolicy::operationName(operation)));
        return;
    }

    switch (c.route) {
    case Route::Me:
        answer(ApiResponse::json(200, QJsonObject{{QStringLiteral("user"), c.user.name},
                                                  {QStringLiteral("role"), toWire(c.user.role)}}));
        return;
    case Route::Actions:
        if (!c.isPost()) {
            answer(m_service->list(c.user, c.query, instance));
            return;
        }
        handleMutation(c);
        return;
    case Route::Action:
        answer(m_service->get(c.user, c.actionId, instance));
        return;
    case Route::Events: {
        std::optional<qint64> lastEventId;
        if (c.hasHeader("Last-Event-ID")) {
            static const QRegularExpression digits(QStringLiteral("\\A[0-9]{1,18}\\z"));
            const QString value = QString::fromLatin1(c.header("Last-Event-ID").trimmed());
            if (!digits.match(value).hasMatch()) {
                answer(Problem(QStringLiteral("invalid_parameter"), QStringLiteral("Last-Event-ID must be an event id"))
                           .withErrors({FieldError{QStringLiteral("Last-Event-ID"), QStringLiteral("must be 1 to 18 digits")}})
                           .toResponse(instance));
                return;
            }
            lastEventId = value.toLongLong();
        }
        if (!c.socket || !m_events->open(c.socket, c.user, lastEventId))
            fail(QStringLiteral("unavailable"), QStringLiteral("the audit log cannot be read"));
        return;
    }
    default:
        handleMutation(c);
        return;
    }
}

void ApiServer::handleMutation(Context &c)
{
    const QString &instance = c.path;
    const auto answer = [&](ApiResponse response) { finish(c, std::move(response)); };
    const auto invalidParameter = [&](const QString &field, const QString &message) {
        answer(Problem(QStringLiteral("invalid_parameter"), QStringLiteral("%1 %2").arg(field, message))
                   .withErrors({FieldError{field, message}})
                   .toResponse(instance));
    };

    // 413, 415, 400.
    if (c.body.size() > m_options.maxBodyBytes) {
        answer(Problem(QStringLiteral("payload_too_large"),
                       QStringLiteral("the body is %1 bytes; at most %2 are accepted").arg(c.body.size()).arg(m_options.maxBodyBytes))
                   .toResponse(instance));
        return;
    }
    const bool bodyOptional = c.route == Route::Lookups;
    const bool hasContentType = c.hasHeader("Content-Type");
    if (c.body.isEmpty() && bodyOptional) {
        c.json = QJsonObject();
    } else {
        if ((hasContentType || !c.body.isEmpty()) && !isJsonMediaType(c.header("Content-Type"))) {
            answer(Problem(QStringLiteral("unsupported_media_type"),
                           QStringLiteral("the body must be application/json, not \"%1\"")
                               .arg(QString::fromLatin1(c.header("Content-Type"))))
                       .toResponse(instance));
            return;
        }
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(c.body, &parseError);
        if (c.body.isEmpty() || parseError.error != QJsonParseError::NoError || !document.isObject()) {
            answer(Problem(QStringLiteral("malformed_json"),
                           c.body.isEmpty() ? QStringLiteral("a JSON object body is required")
                           : parseError.error != QJsonParseError::NoError
                               ? QStringLiteral("the body is not JSON: %1 at offset %2").arg(parseError.errorString()).arg(parseError.offset)
                               : QStringLiteral("the body is not a JSON object"))
                       .toResponse(instance));
            return;
        }
        c.json = document.object();
    }

    // Header syntax (400).
    const bool needsIfMatch = c.route != Route::Actions;
    QString ifMatchText;
    if (needsIfMatch && c.hasHeader("If-Match")) {
        const QString raw = QString::fromLatin1(c.header("If-Match").trimmed());
        if (raw != u"*") {
            static const QRegularExpression etag(QStringLiteral("\\A(?:W/)?\"([0-9]{1,18})\"\\z"));
            const QRegularExpressionMatch match = etag.match(raw);
            if (!match.hasMatch()) {
                invalidParameter(QStringLiteral("If-Match"), QStringLiteral("must be one entity tag of digits such as \"7\""));
                return;
            }
            c.ifMatch = match.captured(1).toLongLong();
            ifMatchText = match.captured(1);
        }
    }
    if (c.hasHeader("Idempotency-Key")) {
        static const QRegularExpression printable(QStringLiteral("\\A[\\x21-\\x7E]{1,255}\\z"));
        const QString key = QString::fromLatin1(c.header("Idempotency-Key"));
        if (!printable.match(key).hasMatch()) {
            invalidParameter(QStringLiteral("Idempotency-Key"), QStringLiteral("must be 1 to 255 printable ASCII characters"));
            return;
        }
        c.idempotencyKey = key;
    }

    // Idempotency-Key: replay, 422 reuse, 409 in flight — before If-Match, so a resend that still
    // carries the old version is replayed rather than refused as stale.
    if (!c.idempotencyKey.isEmpty()) {
        const QByteArray canonical = QJsonDocument(c.json).toJson(QJsonDocument::Compact);
        const QByteArray hashInput = c.method + '\n' + c.path.toUtf8() + '\n' + ifMatchText.toLatin1() + '\n' + canonical;
        const QString hash = QString::fromLatin1(QCryptographicHash::hash(hashInput, QCryptographicHash::Sha256).toHex());
        const auto begun = m_replays->begin(c.user.name, c.idempotencyKey, hash, QString::fromLatin1(c.method), c.path);
        if (!begun.ok()) {
            answer(m_service->ledgerFailure(begun.error(), instance));
            return;
        }
        switch (begun->kind) {
        case RequestReplayStore::Begin::Kind::Replay: {
            ApiResponse replay = begun->stored;
            replay.setHeader("Idempotent-Replayed", "true");
            write(c.socket, replay);
            return;
        }
        case RequestReplayStore::Begin::Kind::Reuse:
            answer(Problem(QStringLiteral("idempotency_key_reuse"),
                           QStringLiteral("Idempotency-Key \"%1\" was used for a different request").arg(c.idempotencyKey))
                       .toResponse(instance));
            return;
        case RequestReplayStore::Begin::Kind::InFlight:
            answer(Problem(QStringLiteral("idempotency_key_in_flight"),
                           QStringLiteral("the first request with Idempotency-Key \"%1\" is still running").arg(c.idempotencyKey))
                       .withHeader("Retry-After", "1")
                       .toResponse(instance));
            return;
        case RequestReplayStore::Begin::Kind::Started:
            c.keyStarted = true;
            break;
        }
    }

    if (needsIfMatch && c.ifMatch < 0) {
        answer(Problem(QStringLiteral("if_match_required"),
                       QStringLiteral("send If-Match with the action's state_version, e.g. If-Match: \"1\""))
                   .toResponse(instance));
        return;
    }

    switch (c.route) {
    case Route::Actions:
        answer(m_service->propose(c.user, c.json, instance));
        return;
    case Route::Approvals:
        answer(m_service->approve(c.user, c.actionId, c.ifMatch, c.json, instance));
        return;
    case Route::Rejections:
        answer(m_service->reject(c.user, c.actionId, c.ifMatch, c.json, instance));
        return;
    case Route::Reconciliations:
        answer(m_service->reconcile(c.user, c.actionId, c.ifMatch, c.json, instance));
        return;
    case Route::FollowUps:
        answer(m_service->followUp(c.user, c.actionId, c.ifMatch, c.json, instance));
        return;
    case Route::Lookups: {
        auto prepared = m_service->prepareLookup(c.user, c.actionId, c.ifMatch, c.json, instance);
        if (auto *refused = std::get_if<ApiResponse>(&prepared)) {
            answer(*refused);
            return;
        }
        const User user = c.user;
        const QString id = c.actionId;
        ActionService *service = m_service.get();
        runAsync(c, [service, user, id, instance] { return service->runLookup(user, id, instance); });
        return;
    }
    default:
        answer(Problem(QStringLiteral("internal"), QStringLiteral("unrouted request")).toResponse(instance));
        return;
    }
}

void ApiServer::handleWebhook(Context &c)
{
    const QString &instance = c.path;
    if (c.body.size() > m_options.maxBodyBytes) {
        finish(c, Problem(QStringLiteral("payload_too_large"),
                          QStringLiteral("the body is %1 bytes; at most %2 are accepted").arg(c.body.size()).arg(m_options.maxBodyBytes))
                      .toResponse(instance));
        return;
    }
    if (!isJsonMediaType(c.header("Content-Type"))) {
        finish(c, Problem(QStringLiteral("unsupported_media_type"), QStringLiteral("a webhook body must be application/json"))
                      .toResponse(instance));
        return;
    }
    if (!m_webhookHandler) {
        finish(c, Problem(QStringLiteral("unavailable"),
                          QStringLiteral("no webhook receiver is configured in this countersignd; nothing was recorded"))
                      .withHeader("Retry-After", "60")
                      .toResponse(instance));
        return;
    }
    const WebhookHandler handler = m_webhookHandler;
    const QByteArray body = c.body;
    const QByteArray signature = c.header("Stripe-Signature");
    runAsync(c, [handler, body, signature, instance] {
        const WebhookResult result = handler(body, signature);
        if (result.httpStatus == 200) {
            QJsonObject ack{{QStringLiteral("received"), true}, {QStringLiteral("outcome"), result.outcome}};
            if (!result.actionId.isEmpty())
                ack.insert(QStringLiteral("action_id"), result.actionId);
            return ApiResponse::json(200, ack);
        }
        const QString code = result.problemCode.isEmpty() ? QStringLiteral("internal") : result.problemCode;
        Problem problem(code, result.detail);
        if (code == u"unavailable")
            problem.withHeader("Retry-After", "5");
        return problem.toResponse(instance);
    });
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
        const LedgerError error = isReplayable(response) ? m_replays->complete(c.user.name, c.idempotencyKey, response)
                                                         : m_replays->release(c.user.name, c.idempotencyKey);
        if (!error.ok())
            qCWarning(lcApi) << "cannot store the answer for Idempotency-Key" << c.idempotencyKey << error.toString();
        c.keyStarted = false;
    }
    if (response.status >= 500)
        qCWarning(lcApi) << c.method << c.path << response.status << response.problemCode;
    else
        qCDebug(lcApi) << c.method << c.path << response.status << response.problemCode;
    write(c.socket, response);
}

} // namespace cs
