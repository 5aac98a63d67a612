#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <functional>

namespace cs {

// The MCP tools' one way to Countersign: REST-shaped calls under /api/v1 (resources/openapi.yaml),
// answered with the HTTP status and the JSON body. One tool layer (McpTools) serves both
// transports: RestBackend (countersign-mcp, over HTTP with the agent's bearer token) and
// InProcessBackend (/mcp on countersignd, ActionService with the authenticated user).
//
// Asynchronous: `done` is called exactly once, later, on the thread that called request() — never
// from inside request(). Implementations are not thread-safe; use one from one thread.
class McpBackend
{
public:
    struct Reply
    {
        int status = 0;        // the HTTP status; 0 when no answer arrived (then `failure` says why)
        QJsonObject body;      // the JSON object answered (a problem for 4xx/5xx); empty if none
        QString failure;       // transport failure ("connection refused", "timed out"), else empty
        int retryAfterSeconds = -1; // Retry-After, when the answer had one
    };
    using Done = std::function<void(const Reply &)>;

    virtual ~McpBackend() = default;

    // `path` is relative to /api/v1 and may carry a query ("/actions?state=PENDING&limit=5");
    // `body` is sent as JSON for POST (ignored for GET).
    virtual void request(const QByteArray &method, const QString &path, const QJsonObject &body, Done done) = 0;
};

} // namespace cs
