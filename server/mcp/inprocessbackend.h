#pragma once

#include "server/api/role.h"
#include "server/mcp/mcpbackend.h"

#include <QObject>
#include <QPointer>

namespace cs {

class ApiServer;

// McpBackend inside countersignd (/mcp, HttpTransport): each call goes through ApiServer::call —
// the same route table, role check, preconditions and handlers as a REST request — for the user
// the MCP session's bearer token authenticated, with no HTTP in between. The user is refreshed
// on every request of the session (setUser), so a role change applies to the next tool call.
// Not thread-safe; lives on the HTTP server's thread. Answers arriving after it is gone are dropped.
class InProcessBackend : public QObject, public McpBackend
{
    Q_OBJECT
public:
    InProcessBackend(ApiServer *server, User user, QObject *parent = nullptr);

    void setUser(const User &user) { m_user = user; }
    const User &user() const { return m_user; }

    void request(const QByteArray &method, const QString &path, const QJsonObject &body, Done done) override;

private:
    QPointer<ApiServer> m_server;
    User m_user;
};

} // namespace cs
