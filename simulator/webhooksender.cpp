#include "simulator/webhooksender.h"

#include "simulator/paysimlog.h"
#include "simulator/webhooksignature.h"

#include <QDateTime>
#include <QJsonObject>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace cs::paysim {

WebhookSender::WebhookSender(const QUrl &url, const QByteArray &secret, QObject *parent)
    : QObject(parent)
    , m_url(url)
    , m_secret(secret)
{
}

void WebhookSender::setRetryPolicy(int maxAttempts, int baseDelayMs, int timeoutMs)
{
    m_maxAttempts = std::max(1, maxAttempts);
    m_baseDelayMs = std::max(1, baseDelayMs);
    m_timeoutMs = std::max(1, timeoutMs);
}

void WebhookSender::deliver(const QString &eventId, const QString &type, const QByteArray &payload, qint64 delayMs)
{
    if (!isEnabled())
        return;
    Delivery d;
    d.eventId = eventId;
    d.type = type;
    d.payload = payload;
    m_deliveries.append(d);
    const qsizetype index = m_deliveries.size() - 1;
    const quint64 generation = m_generation;
    QTimer::singleShot(std::chrono::milliseconds(std::max<qint64>(0, delayMs)), this,
                       [this, index, generation] { attempt(index, generation); });
}

void WebhookSender::attempt(qsizetype index, quint64 generation)
{
    if (generation != m_generation || index >= m_deliveries.size())
        return;
    Delivery &d = m_deliveries[index];
    ++d.attempts;
    QNetworkRequest request(m_url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json; charset=utf-8"));
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("Stripe/1.0 (+https://stripe.com/docs/webhooks)"));
    request.setRawHeader(QByteArrayLiteral("Stripe-Signature"),
                         WebhookSignature::header(m_secret, QDateTime::currentSecsSinceEpoch(), d.payload));
    request.setTransferTimeout(m_timeoutMs);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    QNetworkReply *reply = m_network.post(request, d.payload);
    connect(reply, &QNetworkReply::finished, this, [this, reply, index, generation] {
        reply->deleteLater();
        if (generation != m_generation || index >= m_deliveries.size())
            return;
        Delivery &d = m_deliveries[index];
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        d.lastStatus = status;
        d.lastError = reply->error() == QNetworkReply::NoError ? QString() : reply->errorString();
        if (status >= 200 && status < 300) {
            d.state = QStringLiteral("delivered");
            emit deliveryFinished(d.eventId, true);
            return;
        }
        if (d.attempts >= m_maxAttempts) {
            d.state = QStringLiteral("failed");
            qCWarning(lcPaysim) << "webhook for" << d.eventId << "failed after" << d.attempts << "attempts";
            emit deliveryFinished(d.eventId, false);
            return;
        }
        const qint64 delay = static_cast<qint64>(m_baseDelayMs) << std::min(d.attempts - 1, 20);
        qCDebug(lcPaysim) << "webhook for" << d.eventId << "answered" << status << "- retrying in" << delay << "ms";
        QTimer::singleShot(std::chrono::milliseconds(delay), this, [this, index, generation] { attempt(index, generation); });
    });
}

QJsonArray WebhookSender::deliveries() const
{
    QJsonArray out;
    for (const Delivery &d : m_deliveries) {
        out.append(QJsonObject{{QStringLiteral("event_id"), d.eventId},
                               {QStringLiteral("type"), d.type},
                               {QStringLiteral("attempts"), d.attempts},
                               {QStringLiteral("state"), d.state},
                               {QStringLiteral("last_status"), d.lastStatus},
                               {QStringLiteral("last_error"), d.lastError}});
    }
    return out;
}

void WebhookSender::clear()
{
    ++m_generation;
    m_deliveries.clear();
}

} // namespace cs::paysim
