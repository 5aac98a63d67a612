#include "client/eventstreamclient.h"
#include "client/backendurl.h"
#include "client/clientlog.h"
#include "client/tlstrust.h"

#include <QJsonDocument>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace cs {

EventStreamClient::EventStreamClient(QObject *parent)
    : QObject(parent)
{
    m_reconnectTimer.setSingleShot(true);
    connect(&m_reconnectTimer, &QTimer::timeout, this, &EventStreamClient::connectNow);
    // Four times a second: the silence is measured from the last byte (onReadyRead), so a backend
    // gone or hung is noticed at most the timeout and a tick after its last heartbeat.
    m_watchdog.setInterval(250);
    connect(&m_watchdog, &QTimer::timeout, this, [this] {
        if (!m_reply)
            return;
        if (m_parser.takeActivity()) {
            m_sinceActivity.start();
            return;
        }
        if (m_sinceActivity.elapsed() < m_heartbeatTimeoutMs)
            return;
        qCInfo(lcClient) << "event stream silent for" << m_sinceActivity.elapsed() << "ms; reconnecting";
        m_lastError = tr("no heartbeat for %1 s").arg(m_sinceActivity.elapsed() / 1000);
        dropReply();
        scheduleReconnect();
        emit lost(m_lastError);
    });
}

EventStreamClient::~EventStreamClient()
{
    m_reconnectTimer.stop();
    m_watchdog.stop();
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
    }
}

void EventStreamClient::setBaseUrl(const QUrl &url)
{
    m_baseUrl = backendRoot(url);
}

void EventStreamClient::setToken(const QString &token)
{
    m_token = token.trimmed();
}

void EventStreamClient::setBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
{
    m_initialBackoffMs = int(initial.count());
    m_maxBackoffMs = int(max.count());
    m_backoffMs = m_initialBackoffMs;
    m_serverRetryApplied = true; // explicit settings win over the server's hint
}

void EventStreamClient::setHeartbeatTimeout(std::chrono::milliseconds timeout)
{
    m_heartbeatTimeoutMs = int(timeout.count());
}

int EventStreamClient::msUntilReconnect() const
{
    return m_reconnectTimer.isActive() ? m_reconnectTimer.remainingTime() : 0;
}

void EventStreamClient::start()
{
    if (m_state != State::Stopped)
        return;
    m_backoffMs = m_initialBackoffMs;
    connectNow();
}

void EventStreamClient::stop()
{
    m_reconnectTimer.stop();
    m_watchdog.stop();
    dropReply();
    setState(State::Stopped);
}

void EventStreamClient::reconnectNow()
{
    if (m_state == State::Stopped)
        return;
    dropReply();
    m_reconnectTimer.stop();
    connectNow();
}

void EventStreamClient::dropReply()
{
    if (!m_reply)
        return;
    QNetworkReply *reply = m_reply;
    m_reply = nullptr;
    reply->disconnect(this);
    reply->abort();
    reply->deleteLater();
}

void EventStreamClient::connectNow()
{
    dropReply();
    QUrl url = m_baseUrl;
    url.setPath(m_baseUrl.path() + QStringLiteral("/api/v1/events"));
    QNetworkRequest request(url);
    request.setRawHeader("Accept", "text/event-stream");
    request.setRawHeader("Cache-Control", "no-store");
    request.setRawHeader("User-Agent", "countersign/" COUNTERSIGN_VERSION);
    if (!m_token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    if (!m_parser.lastEventId().isEmpty())
        request.setRawHeader("Last-Event-ID", m_parser.lastEventId().toUtf8());
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    request.setTransferTimeout(0); // a stream is idle between events; the watchdog covers silence
    request.setSslConfiguration(m_ssl);

    m_parser.reset();
    m_parser.takeActivity();
    setState(m_reconnects == 0 && m_state != State::Reconnecting ? State::Connecting : State::Reconnecting);
    m_reply = m_nam.get(request);
    rememberSslErrors(m_reply);
    connect(m_reply, &QNetworkReply::readyRead, this, &EventStreamClient::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &EventStreamClient::onFinished);
    connect(m_reply, &QNetworkReply::metaDataChanged, this, [this] {
        if (!m_reply)
            return;
        const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 200) {
            m_lastError.clear();
            m_backoffMs = m_initialBackoffMs;
            setState(State::Live);
        }
    });
    m_sinceActivity.start();
    m_watchdog.start();
}

void EventStreamClient::onReadyRead()
{
    if (!m_reply)
        return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200)
        return; // an error body; handled in onFinished
    m_sinceActivity.start();
    const QList<SseEvent> events = m_parser.feed(m_reply->readAll());
    if (m_state != State::Live)
        setState(State::Live);
    if (!m_serverRetryApplied && m_parser.retryMs()) {
        m_initialBackoffMs = qMax(100, *m_parser.retryMs());
        m_backoffMs = m_initialBackoffMs;
        m_serverRetryApplied = true;
    }
    for (const SseEvent &event : events) {
        const QJsonObject data = QJsonDocument::fromJson(event.data.toUtf8()).object();
        if (event.type == QLatin1String("action.changed")) {
            QString error;
            std::optional<ActionChange> change = ActionChange::fromJson(data, &error);
            if (!change) {
                qCWarning(lcClient) << "unreadable action.changed event" << event.id << error;
                continue;
            }
            change->seq = event.id.toLongLong();
            emit actionChanged(*change);
        } else if (event.type == QLatin1String("execution.changed")) {
            emit executionChanged(data.value(QLatin1String("event")).toString(),
                                  data.value(QLatin1String("actor")).toString());
        } else if (event.type == QLatin1String("resync")) {
            emit resyncRequired(data.value(QLatin1String("latest_seq")).toInteger());
        }
    }
}

void EventStreamClient::onFinished()
{
    QNetworkReply *reply = m_reply;
    if (!reply)
        return;
    m_reply = nullptr;
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    m_lastError = failureText(reply);
    qCInfo(lcClient) << "event stream ended:" << status << m_lastError;
    if (status == 401)
        emit unauthorized();
    if (m_state == State::Stopped)
        return;
    scheduleReconnect();
    // No HTTP answer at all (refused, reset, timed out, or the stream cut): the backend is gone.
    if (status == 0)
        emit lost(m_lastError);
}

void EventStreamClient::scheduleReconnect()
{
    m_watchdog.stop();
    ++m_reconnects;
    setState(State::Reconnecting);
    m_reconnectTimer.start(m_backoffMs);
    m_backoffMs = qMin(m_backoffMs * 2, m_maxBackoffMs);
}

void EventStreamClient::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    emit stateChanged(state);
}

} // namespace cs
