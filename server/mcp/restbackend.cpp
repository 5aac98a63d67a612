#include "server/mcp/restbackend.h"

#include "server/mcp/mcplog.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace cs {

RestBackend::RestBackend(QUrl base, QByteArray token, QObject *parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
    , m_base(std::move(base))
    , m_token(std::move(token))
{
    // Proxies from the environment are not for a loopback backend; an explicit one is not needed.
    m_network->setProxy(QNetworkProxy::NoProxy);
}

void RestBackend::request(const QByteArray &method, const QString &path, const QJsonObject &body, Done done)
{
    QString root = m_base.toString(QUrl::StripTrailingSlash);
    const QUrl url(QString(root + u"/api/v1" + path));
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", QByteArray("Bearer " + m_token));
    request.setRawHeader("Accept", "application/json");
    request.setTransferTimeout(m_timeoutMs);
    if (m_ssl)
        request.setSslConfiguration(*m_ssl);

    QNetworkReply *reply = nullptr;
    if (method == "GET") {
        reply = m_network->get(request);
    } else {
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        reply = m_network->sendCustomRequest(request, method, QJsonDocument(body).toJson(QJsonDocument::Compact));
    }
    qCDebug(lcMcp) << method << url.toString();
    connect(reply, &QNetworkReply::finished, this, [reply, done = std::move(done)] {
        reply->deleteLater();
        Reply out;
        out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (out.status == 0) {
            // Qt 6.4 reports a transfer timeout as OperationCanceledError (later: TimeoutError).
            const auto error = reply->error();
            out.failure = (error == QNetworkReply::OperationCanceledError || error == QNetworkReply::TimeoutError)
                              ? QStringLiteral("no answer within the timeout")
                              : reply->errorString();
            done(out);
            return;
        }
        const QByteArray bytes = reply->readAll();
        const QJsonDocument json = QJsonDocument::fromJson(bytes);
        if (json.isObject())
            out.body = json.object();
        bool ok = false;
        const int retryAfter = reply->rawHeader("Retry-After").toInt(&ok);
        if (ok)
            out.retryAfterSeconds = retryAfter;
        done(out);
    });
}

} // namespace cs
