#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QUrl>

namespace cs::paysim {

// POSTs events to the configured webhook endpoint, signed like Stripe (WebhookSignature; `t` is
// wall-clock time so receivers can check their tolerance window even after a simulated clock
// jump). Any non-2xx answer, or no answer, is retried with exponential backoff
// (base, 2·base, 4·base, …) up to maxAttempts attempts in all. Pending retries are not persisted.
class WebhookSender : public QObject
{
    Q_OBJECT
public:
    WebhookSender(const QUrl &url, const QByteArray &secret, QObject *parent = nullptr);

    void setRetryPolicy(int maxAttempts, int baseDelayMs, int timeoutMs = 10000);
    bool isEnabled() const { return m_url.isValid() && !m_url.isEmpty(); }
    // Sends after `delayMs` (used to hold back events of a lagging refund).
    void deliver(const QString &eventId, const QString &type, const QByteArray &payload, qint64 delayMs = 0);
    QJsonArray deliveries() const;
    void clear();

signals:
    void deliveryFinished(const QString &eventId, bool delivered);

private:
    struct Delivery
    {
        QString eventId;
        QString type;
        QByteArray payload;
        int attempts = 0;
        QString state = QStringLiteral("pending"); // pending | delivered | failed
        int lastStatus = 0;
        QString lastError;
    };

    void attempt(qsizetype index, quint64 generation);

    QUrl m_url;
    QByteArray m_secret;
    int m_maxAttempts = 6;
    int m_baseDelayMs = 1000;
    int m_timeoutMs = 10000;
    QNetworkAccessManager m_network;
    QList<Delivery> m_deliveries;
    quint64 m_generation = 0;
};

} // namespace cs::paysim
