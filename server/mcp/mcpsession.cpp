#include "server/mcp/mcpsession.h"

#include "server/api/strictjson.h"
#include "server/mcp/mcplog.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace cs {

namespace {

const QString Latest = QStringLiteral("2025-11-25");
const QString Baseline = QStringLiteral("2025-06-18");

// A request id as a map key that keeps its JSON type: 1 and "1" are different requests.
QString idKey(const QJsonValue &id)
{
    return id.isString() ? QString(u's' + id.toString()) : QString(u'n' + QString::number(id.toInteger()));
}

bool validId(const QJsonValue &id)
{
    return id.isString() || (id.isDouble() && StrictJson::isIntegerLiteral(id));
}

QJsonArray errorsJson(const QList<FieldError> &errors)
{
    QJsonArray out;
    for (const FieldError &e : errors)
        out.append(QJsonObject{{QStringLiteral("field"), e.field}, {QStringLiteral("message"), e.message}});
    return out;
}

QJsonObject invalidParamsData(const QString &field, const QString &message)
{
    return QJsonObject{{QStringLiteral("errors"), QJsonArray{QJsonObject{{QStringLiteral("field"), field},
                                                                         {QStringLiteral("message"), message}}}}};
}

} // namespace

McpSession::McpSession(McpTools *tools, Options options, QObject *parent)
    : QObject(parent)
    , m_tools(tools)
    , m_options(std::move(options))
{
}

const QStringList &McpSession::supportedVersions()
{
    static const QStringList versions = {Latest, Baseline};
    return versions;
}

QString McpSession::instructions()
{
    return QStringLiteral(
        "Countersign guards refunds: propose_refund records a proposal that a human approves or rejects before "
        "anything is sent to the payment provider; you never send money, and you never see or send a provider "
        "idempotency key. Choose one client_reference per business action (e.g. \"order-4821-refund\") and reuse "
        "it on every retry of that refund. A timeout, an error without an answer or a lost result does NOT mean the "
        "refund failed: call propose_refund again with exactly the same arguments (it returns the same action) or "
        "ask get_action / list_my_actions. Never propose the same refund again under a new client_reference, and "
        "never change the amount under a used one: a changed payload is refused and sent to a human for review. "
        "After proposing, call wait_for_decision with the action_id; COMPLETED carries the provider's refund_id "
        "and refund_status (pending means on its way, not arrived; failed or canceled means the customer was not "
        "refunded and a human decides what follows — never propose it again yourself), "
        "REJECTED says why, CONFIRMATION_UNKNOWN and REQUIRES_REVIEW mean Countersign and a human are finding out: "
        "wait, do not retry. Amounts are integers in minor units (4000 = 40.00 USD).");
}

QJsonObject McpSession::error(const QJsonValue &id, int code, const QString &message, const QJsonValue &data)
{
    QJsonObject e{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}};
    if (!data.isUndefined())
        e.insert(QStringLiteral("data"), data);
    return QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                       {QStringLiteral("id"), id.isUndefined() ? QJsonValue(QJsonValue::Null) : id},
                       {QStringLiteral("error"), e}};
}

QJsonObject McpSession::result(const QJsonValue &id, const QJsonObject &result)
{
    return QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id},
                       {QStringLiteral("result"), result}};
}

void McpSession::receive(const QByteArray &message, const Replier &replier)
{
    const auto parsed = StrictJson::parse(message);
    if (const auto *failure = std::get_if<StrictJson::Error>(&parsed)) {
        if (failure->kind == StrictJson::Error::Kind::Syntax) {
            replier.respond(error(QJsonValue::Null, ParseError,
                                  QStringLiteral("Parse error: %1 at byte %2").arg(failure->message).arg(failure->offset)));
            return;
        }
        // A member given twice: the message is ambiguous. Answer the id it most likely has, unless the
        // id itself is the member given twice.
        QJsonValue id = QJsonValue::Null;
        const QJsonObject lenient = QJsonDocument::fromJson(message).object();
        if (failure->path != u"id" && validId(lenient.value(QStringLiteral("id"))))
            id = lenient.value(QStringLiteral("id"));
        static const QString argumentsPrefix = QStringLiteral("params.arguments.");
        if (failure->path.startsWith(argumentsPrefix)) {
            const QString field = failure->path.mid(argumentsPrefix.size());
            replier.respond(error(id, InvalidParams, QStringLiteral("Invalid params: %1: is given twice").arg(field),
                                  invalidParamsData(field, QStringLiteral("is given twice"))));
        } else {
            replier.respond(error(id, InvalidRequest, QStringLiteral("Invalid Request: member \"%1\" is given twice").arg(failure->path),
                                  invalidParamsData(failure->path, QStringLiteral("is given twice"))));
        }
        return;
    }
    const QJsonValue value = std::get<QJsonValue>(parsed);
    if (value.isArray()) {
        replier.respond(error(QJsonValue::Null, InvalidRequest,
                              QStringLiteral("Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 and later)")));
        return;
    }
    if (!value.isObject()) {
        replier.respond(error(QJsonValue::Null, InvalidRequest, QStringLiteral("Invalid Request: a message is a JSON object")));
        return;
    }
    const QJsonObject object = value.toObject();
    const bool hasId = object.contains(QStringLiteral("id"));
    const QJsonValue id = object.value(QStringLiteral("id"));
    const QJsonValue answerId = hasId && validId(id) ? id : QJsonValue(QJsonValue::Null);
    if (object.value(QStringLiteral("jsonrpc")) != QJsonValue(QStringLiteral("2.0"))) {
        replier.respond(error(answerId, InvalidRequest, QStringLiteral("Invalid Request: \"jsonrpc\" must be \"2.0\"")));
        return;
    }
    if (hasId && !validId(id)) {
        replier.respond(error(QJsonValue::Null, InvalidRequest,
                              QStringLiteral("Invalid Request: \"id\" must be a string or an integer (never null)")));
        return;
    }
    if (!object.contains(QStringLiteral("method"))) {
        if (hasId && (object.contains(QStringLiteral("result")) || object.contains(QStringLiteral("error")))) {
            replier.respond(std::nullopt); // a response to a request of ours: this server sends none
            return;
        }
        replier.respond(error(answerId, InvalidRequest, QStringLiteral("Invalid Request: \"method\" is missing")));
        return;
    }
    const QJsonValue method = object.value(QStringLiteral("method"));
    if (!method.isString()) {
        replier.respond(error(answerId, InvalidRequest, QStringLiteral("Invalid Request: \"method\" must be a string")));
        return;
    }
    QJsonObject params;
    if (object.contains(QStringLiteral("params"))) {
        const QJsonValue p = object.value(QStringLiteral("params"));
        if (p.isArray()) {
            // Structured, so valid JSON-RPC; but every MCP method takes named params.
            if (!hasId) {
                replier.respond(std::nullopt);
                return;
            }
            replier.respond(error(id, InvalidParams, QStringLiteral("Invalid params: MCP params are an object"),
                                  invalidParamsData(QStringLiteral("params"), QStringLiteral("must be an object"))));
            return;
        }
        if (!p.isObject()) {
            replier.respond(error(answerId, InvalidRequest, QStringLiteral("Invalid Request: \"params\" must be an object")));
            return;
        }
        params = p.toObject();
    }
    if (!hasId) {
        notification(method.toString(), params);
        replier.respond(std::nullopt);
        return;
    }
    request(id, method.toString(), params, replier, m_version.isEmpty() ? Baseline : m_version);
}

void McpSession::notification(const QString &method, const QJsonObject &params)
{
    if (method == u"notifications/initialized") {
        m_initialized = true;
        return;
    }
    if (method == u"notifications/cancelled") {
        const QJsonValue requestId = params.value(QStringLiteral("requestId"));
        if (!validId(requestId))
            return;
        if (const auto it = m_inFlight.constFind(idKey(requestId)); it != m_inFlight.constEnd()) {
            *it.value() = true;
            qCDebug(lcMcp) << "cancelled" << idKey(requestId) << params.value(QStringLiteral("reason")).toString();
        }
        return;
    }
    qCDebug(lcMcp) << "notification ignored:" << method;
}

QJsonObject McpSession::initialize(const QJsonValue &id, const QJsonObject &params)
{
    const QJsonValue requested = params.value(QStringLiteral("protocolVersion"));
    if (!requested.isString())
        return error(id, InvalidParams, QStringLiteral("Invalid params: protocolVersion: must be a string such as \"%1\"").arg(Latest),
                     invalidParamsData(QStringLiteral("protocolVersion"), QStringLiteral("must be a string")));
    for (const QString &member : {QStringLiteral("capabilities"), QStringLiteral("clientInfo")}) {
        if (params.contains(member) && !params.value(member).isObject())
            return error(id, InvalidParams, QStringLiteral("Invalid params: %1: must be an object").arg(member),
                         invalidParamsData(member, QStringLiteral("must be an object")));
    }
    if (m_initializeAnswered)
        return error(id, InvalidRequest, QStringLiteral("Invalid Request: this session is already initialized"));
    // The client's revision when this server speaks it, else the newest this server speaks (the
    // client then decides whether it can go on).
    const QString version = supportedVersions().contains(requested.toString()) ? requested.toString() : Latest;
    m_version = version;
    m_initializeAnswered = true;
    const QJsonObject clientInfo = params.value(QStringLiteral("clientInfo")).toObject();
    qCDebug(lcMcp) << "initialize from" << clientInfo.value(QStringLiteral("name")).toString()
                   << "asked" << requested.toString() << "speaking" << version;
    return result(id, QJsonObject{
        {QStringLiteral("protocolVersion"), version},
        {QStringLiteral("capabilities"), QJsonObject{{QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}}}},
        {QStringLiteral("serverInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("countersign")},
                                                   {QStringLiteral("title"), QStringLiteral("Countersign")},
                                                   {QStringLiteral("version"), m_options.serverVersion}}},
        {QStringLiteral("instructions"), instructions()},
    });
}

void McpSession::request(const QJsonValue &id, const QString &method, const QJsonObject &params, const Replier &replier,
                         const QString &version)
{
    if (m_inFlight.contains(idKey(id))) {
        replier.respond(error(id, InvalidRequest, QStringLiteral("Invalid Request: id %1 is already in use by a request in flight")
                                                      .arg(id.isString() ? id.toString() : QString::number(id.toInteger()))));
        return;
    }
    if (method == u"initialize") {
        replier.respond(initialize(id, params));
        return;
    }
    if (method == u"ping") {
        replier.respond(result(id, QJsonObject()));
        return;
    }
    static const QStringList known = {QStringLiteral("tools/list"), QStringLiteral("tools/call")};
    if (!known.contains(method)) {
        replier.respond(error(id, MethodNotFound, QStringLiteral("Method not found: %1").arg(method)));
        return;
    }
    if (!m_initializeAnswered) {
        replier.respond(error(id, InvalidRequest, QStringLiteral("Invalid Request: send initialize first")));
        return;
    }
    if (method == u"tools/list") {
        if (params.contains(QStringLiteral("cursor")) && !params.value(QStringLiteral("cursor")).isString()) {
            replier.respond(error(id, InvalidParams, QStringLiteral("Invalid params: cursor: must be a string"),
                                  invalidParamsData(QStringLiteral("cursor"), QStringLiteral("must be a string"))));
            return;
        }
        replier.respond(result(id, QJsonObject{{QStringLiteral("tools"), McpTools::definitions()}}));
        return;
    }
    callTool(id, params, replier, version);
}

void McpSession::callTool(const QJsonValue &id, const QJsonObject &params, const Replier &replier, const QString &version)
{
    const QJsonValue name = params.value(QStringLiteral("name"));
    if (!name.isString()) {
        replier.respond(error(id, InvalidParams, QStringLiteral("Invalid params: name: must be the name of a tool"),
                              invalidParamsData(QStringLiteral("name"), QStringLiteral("must be a string"))));
        return;
    }
    if (!McpTools::exists(name.toString())) {
        // Unknown tools stay protocol errors under every revision (SEP-1303 changed only arguments).
        replier.respond(error(id, InvalidParams, QStringLiteral("Unknown tool: %1").arg(name.toString()),
                              invalidParamsData(QStringLiteral("name"), QStringLiteral("is not a tool of this server"))));
        return;
    }
    const QJsonValue arguments = params.value(QStringLiteral("arguments"));
    if (!arguments.isUndefined() && !arguments.isObject()) {
        replier.respond(error(id, InvalidParams, QStringLiteral("Invalid params: arguments: must be an object"),
                              invalidParamsData(QStringLiteral("arguments"), QStringLiteral("must be an object"))));
        return;
    }
    McpTools::Context context;
    context.argumentErrorsAsResults = version == Latest;
    context.pollIntervalMs = m_options.pollIntervalMs;
    const QJsonObject meta = params.value(QStringLiteral("_meta")).toObject();
    const QJsonValue token = meta.value(QStringLiteral("progressToken"));
    if (validId(token) && replier.notify) {
        auto notify = replier.notify;
        context.progress = [notify, token](double progress, double total, const QString &message) {
            notify(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                               {QStringLiteral("method"), QStringLiteral("notifications/progress")},
                               {QStringLiteral("params"), QJsonObject{{QStringLiteral("progressToken"), token},
                                                                      {QStringLiteral("progress"), progress},
                                                                      {QStringLiteral("total"), total},
                                                                      {QStringLiteral("message"), message}}}});
        };
    }
    const QString key = idKey(id);
    m_inFlight.insert(key, context.cancelled);
    QPointer<McpSession> self(this);
    const auto respond = replier.respond;
    const auto cancelled = context.cancelled;
    m_tools->call(name.toString(), arguments.toObject(), context, [self, key, id, respond, cancelled](const McpTools::Outcome &out) {
        if (self)
            self->m_inFlight.remove(key);
        if (out.cancelled || *cancelled) {
            respond(std::nullopt); // the client gave up on it: no answer (MCP cancellation)
            return;
        }
        if (out.invalidParams) {
            respond(error(id, InvalidParams, out.message, QJsonObject{{QStringLiteral("errors"), errorsJson(out.errors)}}));
            return;
        }
        respond(result(id, out.result));
    });
}

} // namespace cs
