#include "server/mcp/httptransport.h"

#include "server/api/eventstream.h"
#include "server/api/requestpreconditions.h"
#include "server/mcp/actionchangefeed.h"
#include "server/mcp/inprocessbackend.h"
#include "server/mcp/mcplog.h"
#include "server/mcp/mcpsession.h"
#include "server/mcp/mcptools.h"

#include <QHostAddress>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QUrl>

#include <algorithm>

namespace cs {

namespace {

// Transport-level refusals carry a JSON-RPC error without an id (as the official SDK's server
// answers them): -32000 for HTTP-level problems, -32001 for a session that is not there.
constexpr int TransportError = -32000;
constexpr int SessionNotFound = -32001;

ApiResponse rpcError(int status, int code, const QString &message, const HeaderList &headers = {})
{
    const QJsonObject body{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                           {QStringLiteral("id"), QJsonValue::Null},
                           {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}};
    return ApiResponse::json(status, body, headers);
}

QByteArray headerValue(const HeaderList &headers, const QByteArray &name)
{
    return RequestPreconditions::header(headers, name).value_or(QByteArray());
}

bool hasHeader(const HeaderList &headers, const QByteArray &name)
{
    return RequestPreconditions::header(headers, name).has_value();
}

QString newSessionId()
{
    quint32 words[8];
    QRandomGenerator::system()->fillRange(words);
    const QByteArray bytes(reinterpret_cast<const char *>(words), sizeof(words));
    return QString::fromLatin1(bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

// The names a loopback listener answers to by itself, exactly: `localhost` (in any case), 127.0.0.1
// and ::1. Not 127.0.0.2 nor another 127.x: a page's name can be rebound to any of them, and the
// operator names any other with --mcp-allow-host (docs/SECURITY.md).
bool isLoopbackName(const QString &host)
{
    return host.compare(u"localhost", Qt::CaseInsensitive) == 0 || host == u"127.0.0.1" || host == u"::1";
}

// ":port" after a host: one to five digits.
bool isPortSuffix(QStringView rest)
{
    if (rest.isEmpty())
        return true;
    if (!rest.startsWith(u':') || rest.size() < 2 || rest.size() > 6)
        return false;
    return std::all_of(rest.begin() + 1, rest.end(), [](QChar c) { return c >= u'0' && c <= u'9'; });
}

// "host", "host:port", "[v6]", "[v6]:port" → the host without brackets; empty when malformed.
QString hostOf(const QByteArray &hostHeader)
{
    const QString value = QString::fromLatin1(hostHeader).trimmed();
    if (value.startsWith(u'[')) {
        const qsizetype close = value.indexOf(u']');
        if (close < 0 || !isPortSuffix(QStringView(value).mid(close + 1)))
            return QString();
        return value.mid(1, close - 1);
    }
    const qsizetype colon = value.indexOf(u':');
    if (colon < 0)
        return value;
    return isPortSuffix(QStringView(value).mid(colon)) ? value.left(colon) : QString();
}

// What the message is, read leniently (McpSession reads it strictly).
struct Peek
{
    bool object = false;
    bool request = false;     // has a method and an id: it gets an answer
    bool initialize = false;
    QJsonValue id;
};

Peek peek(const QByteArray &body)
{
    Peek p;
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    if (!doc.isObject())
        return p;
    const QJsonObject o = doc.object();
    p.object = true;
    p.request = o.value(QStringLiteral("method")).isString() && o.contains(QStringLiteral("id"));
    p.initialize = p.request && o.value(QStringLiteral("method")).toString() == u"initialize";
    p.id = o.value(QStringLiteral("id"));
    return p;
}

bool acceptsBoth(const QByteArray &accept)
{
    bool json = false;
    bool stream = false;
    for (const QByteArray &part : accept.split(',')) {
        const QByteArray type = part.split(';').first().trimmed().toLower();
        if (type == "*/*")
            return true;
        json = json || type == "application/json";
        stream = stream || type == "text/event-stream";
    }
    return json && stream;
}

QByteArray chunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

} // namespace

// One MCP session: its engine, its tools and their backend, for one user.
struct HttpTransport::Session
{
    QString id;
    QString user;
    QObject *holder = nullptr; // parent of the three below; deleted later when the session ends
    InProcessBackend *backend = nullptr;
    McpTools *tools = nullptr;
    McpSession *engine = nullptr;
    QElapsedTimer lastUsed;
    QList<std::shared_ptr<Exchange>> open; // POSTs not answered yet
};

// One POST on its way: where its answer goes.
struct HttpTransport::Exchange
{
    QPointer<QTcpSocket> socket;
    HeaderList headers; // Mcp-Session-Id, CORS
    Peek message;
    bool streaming = false;
    bool finished = false;
    QMetaObject::Connection hangUp; // the socket's disconnected → cancellation, until answered
};

HttpTransport::HttpTransport(ApiServer *server, Options options, QObject *parent)
    : QObject(parent)
    , m_server(server)
    , m_options(std::move(options))
{
    for (QString &origin : m_options.allowedOrigins)
        origin = origin.trimmed().toLower();
    // wait_for_decision reads its action again when a commit names it, from the event stream's
    // reads of the audit log, which it follows only while a wait is running.
    m_changes = new ActionChangeFeed(this);
    if (EventStream *events = server->events()) {
        connect(events, &EventStream::actionsChanged, m_changes, &ActionChangeFeed::notify);
        connect(events, &EventStream::anyActionChanged, m_changes, &ActionChangeFeed::notifyAll);
        connect(m_changes, &ActionChangeFeed::following, events, [events](bool on) {
            if (on)
                events->follow();
            else
                events->unfollow();
        });
    }
    server->mount(Path.toString(), [this](const ApiServer::MountedRequest &request) { handle(request); });
    connect(server, &ApiServer::draining, this, [this] {
        const QStringList ids = m_sessions.keys();
        for (const QString &id : ids)
            endSession(id, QStringLiteral("countersignd is shutting down"));
    });
    const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(m_options.idleTimeout);
    m_pruneTimer.setInterval(std::clamp<qint64>(idle.count() / 4, 1000, 60000));
    connect(&m_pruneTimer, &QTimer::timeout, this, &HttpTransport::pruneIdle);
    m_pruneTimer.start();
}

HttpTransport::~HttpTransport()
{
    for (Session *session : std::as_const(m_sessions)) {
        delete session->holder;
        delete session;
    }
}

bool HttpTransport::isLoopbackHost(const QByteArray &host)
{
    const QString name = hostOf(host);
    return !name.isEmpty() && isLoopbackName(name);
}

bool HttpTransport::hostAllowed(const QByteArray &host, const QString &listenHost, const QStringList &allowedHosts)
{
    const QString name = hostOf(host);
    if (name.isEmpty())
        return false;
    return isLoopbackName(name) || name.compare(listenHost, Qt::CaseInsensitive) == 0
        || allowedHosts.contains(name, Qt::CaseInsensitive);
}

bool HttpTransport::isLoopbackOrigin(const QByteArray &origin)
{
    const QUrl url(QString::fromLatin1(origin), QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != u"http" && url.scheme() != u"https") || !url.path().isEmpty()
        || url.hasQuery() || url.hasFragment() || !url.userInfo().isEmpty())
        return false;
    return isLoopbackName(url.host());
}

bool HttpTransport::originAllowed(const QByteArray &origin) const
{
    return isLoopbackOrigin(origin) || m_options.allowedOrigins.contains(QString::fromLatin1(origin).trimmed().toLower());
}

std::optional<QByteArray> HttpTransport::refusedHost(const ApiServer::MountedRequest &request) const
{
    // A server on a public address is reached under names this process cannot know; a loopback one
    // only under loopback names (anything else is a page whose name was rebound to 127.0.0.1).
    const QHostAddress bound(m_server->baseUrl().host());
    if (bound.isNull() || !bound.isLoopback())
        return std::nullopt;
    const QByteArray host = headerValue(request.headers, "Host");
    if (hostAllowed(host, m_server->baseUrl().host(), m_options.allowedHosts))
        return std::nullopt;
    return host;
}

void HttpTransport::handle(const ApiServer::MountedRequest &request)
{
    const auto answer = [&](const ApiResponse &response) { m_server->answer(request.socket, response); };
    if (const auto host = refusedHost(request)) {
        qCInfo(lcMcp) << "refused Host" << *host << "on" << Path;
        answer(rpcError(403, TransportError,
                        QStringLiteral("Forbidden: Host \"%1\" is not a name of this server (DNS rebinding protection)")
                            .arg(QString::fromLatin1(*host))));
        return;
    }
    HeaderList cors;
    if (hasHeader(request.headers, "Origin")) {
        const QByteArray origin = headerValue(request.headers, "Origin");
        if (!originAllowed(origin)) {
            qCInfo(lcMcp) << "refused Origin" << origin << "on" << Path;
            answer(rpcError(403, TransportError,
                            QStringLiteral("Forbidden: Origin \"%1\" may not call this server; countersignd serve "
                                           "--mcp-allow-origin admits it")
                                .arg(QString::fromLatin1(origin))));
            return;
        }
        cors = {{"Access-Control-Allow-Origin", origin}, {"Vary", "Origin"},
                {"Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate"}};
    }
    if (request.method == "OPTIONS") {
        // A browser's preflight: answered without a token, as CORS requires.
        ApiResponse preflight;
        preflight.status = 204;
        preflight.headers = cors;
        preflight.setHeader("Allow", "POST, DELETE, OPTIONS");
        if (!cors.isEmpty()) {
            preflight.setHeader("Access-Control-Allow-Methods", "POST, DELETE");
            preflight.setHeader("Access-Control-Allow-Headers",
                                "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID");
            preflight.setHeader("Access-Control-Max-Age", "600");
        }
        answer(preflight);
        return;
    }
    auto authenticated = m_server->authenticate(request.headers, request.socket, request.path);
    if (auto *refused = std::get_if<ApiResponse>(&authenticated)) {
        for (const auto &header : std::as_const(cors))
            refused->setHeader(header.first, header.second);
        answer(*refused);
        return;
    }
    const User user = std::get<User>(authenticated);
    if (request.method == "POST") {
        post(request, user, cors);
        return;
    }
    if (request.method == "DELETE") {
        const QString id = QString::fromLatin1(headerValue(request.headers, "Mcp-Session-Id"));
        if (id.isEmpty()) {
            answer(rpcError(400, TransportError, QStringLiteral("Bad Request: DELETE needs the Mcp-Session-Id header"), cors));
            return;
        }
        const Session *session = m_sessions.value(id);
        if (!session || session->user != user.name) {
            answer(rpcError(404, SessionNotFound, QStringLiteral("Session not found"), cors));
            return;
        }
        endSession(id, QStringLiteral("ended by the client"));
        ApiResponse ended;
        ended.status = 204;
        ended.headers = cors;
        answer(ended);
        return;
    }
    HeaderList allow = cors;
    allow.append(qMakePair(QByteArray("Allow"), QByteArray("POST, DELETE, OPTIONS")));
    answer(rpcError(405, TransportError,
                    request.method == "GET"
                        ? QStringLiteral("Method Not Allowed: this server sends nothing outside the answer to a POST, so it offers no GET stream")
                        : QStringLiteral("Method Not Allowed: %1 %2").arg(QString::fromLatin1(request.method), Path.toString()),
                    allow));
}

void HttpTransport::post(const ApiServer::MountedRequest &request, const User &user, const HeaderList &cors)
{
    const auto answer = [&](const ApiResponse &response) { m_server->answer(request.socket, response); };
    const QByteArray contentType = headerValue(request.headers, "Content-Type").split(';').first().trimmed().toLower();
    if (contentType != "application/json") {
        answer(rpcError(415, TransportError, QStringLiteral("Unsupported Media Type: a POST to /mcp carries application/json"), cors));
        return;
    }
    if (!acceptsBoth(headerValue(request.headers, "Accept"))) {
        answer(rpcError(406, TransportError,
                        QStringLiteral("Not Acceptable: Accept must list both application/json and text/event-stream"), cors));
        return;
    }
    auto exchange = std::make_shared<Exchange>();
    exchange->socket = request.socket;
    exchange->headers = cors;
    exchange->message = peek(request.body);
    const QString sessionId = QString::fromLatin1(headerValue(request.headers, "Mcp-Session-Id"));

    Session *session = nullptr;
    if (sessionId.isEmpty()) {
        if (!exchange->message.initialize) {
            if (!exchange->message.object) {
                // Not a JSON object: the engine says how (-32700, -32600), answered 400.
                McpSession probe(nullptr, McpSession::Options{});
                probe.receive(request.body, McpSession::Replier{nullptr, [&](const std::optional<QJsonObject> &out) {
                    answer(ApiResponse::json(400, out.value_or(QJsonObject()), cors));
                }});
                return;
            }
            answer(rpcError(400, TransportError,
                            QStringLiteral("Bad Request: Mcp-Session-Id header is required (send initialize first)"), cors));
            return;
        }
        QString refusal;
        session = openSession(user, &refusal);
        if (!session) {
            HeaderList headers = cors;
            headers.append(qMakePair(QByteArray("Retry-After"), QByteArray("5")));
            answer(rpcError(refusal.startsWith(u"Service") ? 503 : 429, TransportError, refusal, headers));
            return;
        }
    } else {
        session = m_sessions.value(sessionId);
        if (!session || session->user != user.name) {
            answer(rpcError(404, SessionNotFound, QStringLiteral("Session not found: start a new one with initialize"), cors));
            return;
        }
        if (const auto version = RequestPreconditions::header(request.headers, "MCP-Protocol-Version");
            version && QString::fromLatin1(*version) != session->engine->protocolVersion()) {
            answer(rpcError(400, TransportError,
                            QStringLiteral("Bad Request: MCP-Protocol-Version \"%1\" is not this session's revision (%2)")
                                .arg(QString::fromLatin1(*version), session->engine->protocolVersion()),
                            cors));
            return;
        }
        session->backend->setUser(user); // a role changed since: it applies now
    }
    exchange->headers.append(qMakePair(QByteArray("Mcp-Session-Id"), session->id.toLatin1()));
    feed(session, exchange, request.body);
}

HttpTransport::Session *HttpTransport::openSession(const User &user, QString *refusal)
{
    QList<Session *> mine;
    for (Session *s : std::as_const(m_sessions)) {
        if (s->user == user.name)
            mine.append(s);
    }
    if (mine.size() >= m_options.maxSessionsPerUser) {
        Session *oldest = nullptr;
        for (Session *s : std::as_const(mine)) {
            if (s->open.isEmpty() && (!oldest || s->lastUsed.elapsed() > oldest->lastUsed.elapsed()))
                oldest = s;
        }
        if (!oldest) {
            *refusal = QStringLiteral("Too Many Requests: %1 has %2 MCP sessions, each with a request running")
                           .arg(user.name).arg(mine.size());
            return nullptr;
        }
        endSession(oldest->id, QStringLiteral("the least recently used of %1's %2 sessions").arg(user.name).arg(mine.size()));
    }
    if (m_sessions.size() >= m_options.maxSessions) {
        *refusal = QStringLiteral("Service Unavailable: %1 MCP sessions are open").arg(m_sessions.size());
        return nullptr;
    }
    auto *session = new Session;
    session->id = newSessionId();
    session->user = user.name;
    session->holder = new QObject(this);
    session->backend = new InProcessBackend(m_server, user, session->holder);
    session->tools = new McpTools(session->backend, session->holder);
    session->tools->setChangeFeed(m_changes);
    McpSession::Options engineOptions;
    engineOptions.serverVersion = m_options.serverVersion;
    engineOptions.pollIntervalMs = m_options.pollIntervalMs;
    session->engine = new McpSession(session->tools, engineOptions, session->holder);
    session->lastUsed.start();
    m_sessions.insert(session->id, session);
    return session;
}

void HttpTransport::feed(Session *session, const std::shared_ptr<Exchange> &exchange, const QByteArray &message)
{
    session->lastUsed.start();
    session->open.append(exchange);
    const QString sessionId = session->id;
    QPointer<HttpTransport> self(this);
    QPointer<ApiServer> server(m_server);

    const auto finish = [self, sessionId, exchange] {
        exchange->finished = true;
        QObject::disconnect(exchange->hangUp); // a kept-alive socket carries later requests
        if (!self)
            return;
        if (Session *s = self->m_sessions.value(sessionId)) {
            s->open.removeOne(exchange);
            s->lastUsed.start();
        }
    };
    McpSession::Replier replier;
    replier.notify = [exchange, server](const QJsonObject &notification) {
        QTcpSocket *socket = exchange->socket.data();
        if (exchange->finished || !socket || socket->state() != QAbstractSocket::ConnectedState || !server)
            return;
        if (!exchange->streaming) {
            exchange->streaming = true;
            server->keepSocket(socket);
            QByteArray head = "HTTP/1.1 200 OK\r\n"
                              "Content-Type: text/event-stream; charset=utf-8\r\n"
                              "Cache-Control: no-store\r\n"
                              "Transfer-Encoding: chunked\r\n"
                              "X-Accel-Buffering: no\r\n";
            for (const auto &header : std::as_const(exchange->headers))
                head += header.first + ": " + header.second + "\r\n";
            socket->write(head + "Connection: close\r\n\r\n");
        }
        socket->write(chunk("event: message\ndata: " + QJsonDocument(notification).toJson(QJsonDocument::Compact) + "\n\n"));
    };
    replier.respond = [self, exchange, server, finish, sessionId](const std::optional<QJsonObject> &out) {
        if (exchange->finished)
            return;
        finish();
        QTcpSocket *socket = exchange->socket.data();
        const bool initializing = exchange->message.initialize;
        if (initializing && self && (!out || out->contains(QStringLiteral("error")))) {
            // A refused initialize opens no session.
            self->endSession(sessionId, QStringLiteral("its initialize was refused"));
            exchange->headers.removeIf([](const auto &h) { return h.first == "Mcp-Session-Id"; });
        } else if (initializing && self) {
            qCInfo(lcMcp) << "session" << sessionId.left(8) << "opened;" << self->m_sessions.size() << "open";
        }
        if (!socket || socket->state() != QAbstractSocket::ConnectedState || !server)
            return;
        if (exchange->streaming) {
            if (out)
                socket->write(chunk("event: message\ndata: " + QJsonDocument(*out).toJson(QJsonDocument::Compact) + "\n\n"));
            socket->write("0\r\n\r\n");
            socket->disconnectFromHost();
            return;
        }
        if (!out) {
            if (exchange->message.request) {
                socket->disconnectFromHost(); // a request the client cancelled: nothing to answer
                return;
            }
            ApiResponse accepted;
            accepted.status = 202;
            accepted.headers = exchange->headers;
            server->answer(socket, accepted);
            return;
        }
        // Errors that name no request (the message could not be read as one) are HTTP 400.
        const bool unreadable = out->contains(QStringLiteral("error")) && out->value(QStringLiteral("id")).isNull();
        server->answer(socket, ApiResponse::json(unreadable ? 400 : 200, *out, exchange->headers));
    };

    // The client closed the connection before the answer: for MCP that is a cancellation of the
    // request (its answer has nowhere to go; a wait stops; a write already made stays).
    if (exchange->message.request && exchange->socket) {
        const QJsonValue id = exchange->message.id;
        exchange->hangUp = connect(exchange->socket, &QAbstractSocket::disconnected, this, [self, exchange, sessionId, id] {
            if (exchange->finished || !self)
                return;
            Session *s = self->m_sessions.value(sessionId);
            if (!s)
                return;
            const QJsonObject cancel{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                     {QStringLiteral("method"), QStringLiteral("notifications/cancelled")},
                                     {QStringLiteral("params"), QJsonObject{{QStringLiteral("requestId"), id},
                                                                            {QStringLiteral("reason"), QStringLiteral("the connection closed")}}}};
            s->engine->receive(QJsonDocument(cancel).toJson(QJsonDocument::Compact), McpSession::Replier{nullptr, [](const auto &) {}});
            qCDebug(lcMcp) << "request" << id << "of session" << sessionId.left(8) << "lost its connection";
        });
    }
    session->engine->receive(message, replier);
}

void HttpTransport::endSession(const QString &id, const QString &why)
{
    Session *session = m_sessions.take(id);
    if (!session)
        return;
    qCInfo(lcMcp) << "session" << id.left(8) << "of" << session->user << "ended:" << why;
    for (const auto &exchange : std::as_const(session->open)) {
        exchange->finished = true;
        QObject::disconnect(exchange->hangUp);
        if (QTcpSocket *socket = exchange->socket.data()) {
            if (exchange->streaming)
                socket->write("0\r\n\r\n");
            socket->disconnectFromHost();
        }
    }
    session->holder->deleteLater();
    delete session;
}

void HttpTransport::pruneIdle()
{
    const qint64 idleMs = std::chrono::duration_cast<std::chrono::milliseconds>(m_options.idleTimeout).count();
    QStringList idle;
    for (const Session *s : std::as_const(m_sessions)) {
        if (s->open.isEmpty() && s->lastUsed.elapsed() >= idleMs)
            idle.append(s->id);
    }
    for (const QString &id : std::as_const(idle))
        endSession(id, QStringLiteral("unused for %1 s").arg(idleMs / 1000));
}

} // namespace cs
