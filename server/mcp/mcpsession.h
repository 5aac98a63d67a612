#pragma once

#include "server/mcp/mcptools.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace cs {

// The MCP protocol engine for one client connection: JSON-RPC 2.0 exactly, the lifecycle
// (initialize with protocol-version negotiation, notifications/initialized, ping), tools/list and
// tools/call through McpTools, progress notifications, notifications/cancelled. Transports (stdio,
// Streamable HTTP) hand it one message at a time and write what it answers.
//
// JSON-RPC errors: -32700 the message is not strict JSON (StrictJson: RFC 8259, valid UTF-8 outside
// strings); -32600 not a request (not an object — batches are not part of MCP since 2025-06-18 —,
// `jsonrpc` not "2.0", an id that is not a string or an integer, no string `method`, params not an
// object, a member given twice outside `params.arguments`, an id already in flight, a request
// before initialize); -32601 an unknown method; -32602 invalid params, `data.errors` naming each
// field (under 2025-11-25 a tool's bad arguments are a tool result with isError instead, SEP-1303).
//
// Not thread-safe: one thread with an event loop.
class McpSession : public QObject
{
    Q_OBJECT
public:
    static constexpr int ParseError = -32700;
    static constexpr int InvalidRequest = -32600;
    static constexpr int MethodNotFound = -32601;
    static constexpr int InvalidParams = -32602;
    static constexpr int InternalError = -32603;

    struct Options
    {
        QString serverVersion = QStringLiteral("0.1.0");
        int pollIntervalMs = McpTools::PollIntervalMs;
    };

    // What the engine writes back for one received message. `notify` carries progress
    // notifications sent before the answer; `respond` is called exactly once, maybe later: with the
    // response, or with nothing (a notification, a response from the client, a cancelled request).
    struct Replier
    {
        std::function<void(const QJsonObject &)> notify;
        std::function<void(const std::optional<QJsonObject> &)> respond;
    };

    McpSession(McpTools *tools, Options options, QObject *parent = nullptr);

    // One JSON-RPC message.
    void receive(const QByteArray &message, const Replier &replier);

    // Revisions spoken, newest first.
    static const QStringList &supportedVersions();
    // The initialize result's `instructions`: the contract, for the model.
    static QString instructions();

    QString protocolVersion() const { return m_version; }
    bool initialized() const { return m_initialized; }
    int inFlight() const { return int(m_inFlight.size()); }

private:
    static QJsonObject error(const QJsonValue &id, int code, const QString &message, const QJsonValue &data = QJsonValue(QJsonValue::Undefined));
    static QJsonObject result(const QJsonValue &id, const QJsonObject &result);

    void request(const QJsonValue &id, const QString &method, const QJsonObject &params, const Replier &replier,
                 const QString &version);
    void notification(const QString &method, const QJsonObject &params);
    QJsonObject initialize(const QJsonValue &id, const QJsonObject &params);
    void callTool(const QJsonValue &id, const QJsonObject &params, const Replier &replier, const QString &version);

    McpTools *m_tools;
    Options m_options;
    QString m_version;          // negotiated (stateful mode)
    bool m_initializeAnswered = false;
    bool m_initialized = false; // notifications/initialized received
    QHash<QString, std::shared_ptr<bool>> m_inFlight; // request id (typed) → its cancelled flag
};

} // namespace cs
