#pragma once

#include "server/mcp/mcpbackend.h"

#include <QObject>
#include <QSslConfiguration>
#include <QUrl>

#include <optional>

class QNetworkAccessManager;

namespace cs {

// McpBackend over countersignd's REST API (countersign-mcp): `Authorization: Bearer <token>` on
// every call, JSON bodies, each call bounded by `timeoutMs` of silence (a timed-out call is a
// Reply with status 0: the outcome is unknown, which the tools say). Holds no state that matters:
// a proposal resent after a lost answer is recognised by the backend by its client_reference.
// Not thread-safe; lives on one thread with an event loop.
class RestBackend : public QObject, public McpBackend
{
    Q_OBJECT
public:
    // `base`: the backend's root URL ("http://127.0.0.1:8470"); /api/v1 is appended.
    RestBackend(QUrl base, QByteArray token, QObject *parent = nullptr);

    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    // TLS trust for an https backend (client/tlstrust's --ca-file); the system's CAs otherwise.
    void setSslConfiguration(const QSslConfiguration &config) { m_ssl = config; }

    void request(const QByteArray &method, const QString &path, const QJsonObject &body, Done done) override;

private:
    QNetworkAccessManager *m_network;
    QUrl m_base;
    QByteArray m_token;
    int m_timeoutMs = 30000;
    std::optional<QSslConfiguration> m_ssl;
};

} // namespace cs
