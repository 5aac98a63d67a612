#include "server/mcp/inprocessbackend.h"

#include "server/api/apiserver.h"
#include "server/mcp/mcplog.h"

#include <QJsonDocument>

namespace cs {

InProcessBackend::InProcessBackend(ApiServer *server, User user, QObject *parent)
    : QObject(parent)
    , m_server(server)
    , m_user(std::move(user))
{
}

void InProcessBackend::request(const QByteArray &method, const QString &path, const QJsonObject &body, Done done)
{
    QPointer<InProcessBackend> self(this);
    if (!m_server) {
        QMetaObject::invokeMethod(this, [done] { done(Reply{0, {}, QStringLiteral("countersignd is shutting down"), -1}); },
                                  Qt::QueuedConnection);
        return;
    }
    qCDebug(lcMcp) << "in process:" << method << path << "for" << m_user.name;
    m_server->call(m_user, method, path, body, [self, done = std::move(done)](const ApiResponse &response) {
        if (!self)
            return; // the session ended while the call ran
        Reply reply;
        reply.status = response.status;
        const QJsonDocument json = QJsonDocument::fromJson(response.body);
        if (json.isObject())
            reply.body = json.object();
        bool ok = false;
        const int retryAfter = response.header("Retry-After").toInt(&ok);
        if (ok)
            reply.retryAfterSeconds = retryAfter;
        done(reply);
    });
}

} // namespace cs
