#pragma once

#include "client/sseparser.h"
#include "models/actionchange.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QSslConfiguration>
#include <QTimer>
#include <QUrl>

class QNetworkReply;

namespace cs {

// Follows the backend's server-sent event stream (GET /api/v1/events): emits actionChanged for
// each `action.changed`, executionChanged for each `execution.changed` (a pause or a resume of
// execution: read GET /execution again) and resyncRequired for `resync`. When the stream breaks (backend gone,
// error status, no byte — not even a heartbeat — for the heartbeat timeout), it reconnects with
// exponential backoff starting at the server's `retry` hint, sending Last-Event-ID so that
// nothing is missed. Not thread-safe.
class EventStreamClient : public QObject
{
    Q_OBJECT

public:
    enum class State { Stopped, Connecting, Live, Reconnecting };
    Q_ENUM(State)

    explicit EventStreamClient(QObject *parent = nullptr);
    ~EventStreamClient() override;

    void setBaseUrl(const QUrl &url); // as ApiClient: the backend root, /api/v1 is appended
    void setToken(const QString &token);
    // TLS trust as ApiClient's (client/tlstrust.h). A refused certificate ends the attempt
    // (never ignored); lastError() then says "certificate not trusted: <reason>".
    void setSslConfiguration(const QSslConfiguration &configuration) { m_ssl = configuration; }
    // Why the stream last ended ("" while live).
    QString lastError() const { return m_lastError; }
    // Resume after this id (e.g. the newest event the console has already reflected).
    void setLastEventId(const QString &id) { m_parser.setLastEventId(id); }
    QString lastEventId() const { return m_parser.lastEventId(); }
    // Backoff bounds; the server's `retry:` value, when sent, replaces `initial`.
    void setBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max);
    // How long the stream may stay silent (the server's heartbeat comes every 2 s) before the
    // backend counts as gone or hung: lost() and a reconnect. 4 s by default (two beats missed),
    // checked four times a second: a backend that stops is shown within 5 s of its last beat.
    void setHeartbeatTimeout(std::chrono::milliseconds timeout);

    State state() const { return m_state; }
    int reconnectCount() const { return m_reconnects; }
    // When the next reconnect attempt is due, in ms from now (0 when none is scheduled).
    int msUntilReconnect() const;

public slots:
    void start();
    void stop();
    // Drop the current connection (if any) and connect again now.
    void reconnectNow();

signals:
    void stateChanged(cs::EventStreamClient::State state);
    void actionChanged(const cs::ActionChange &change);
    // Too many events were missed (or the ledger was reset): refetch whatever is shown.
    void resyncRequired(qint64 latestSeq);
    // Execution was paused or resumed (`event` "execution_paused" / "execution_resumed", by
    // `actor`): what is in force is read from GET /execution.
    void executionChanged(const QString &event, const QString &actor);
    void unauthorized();
    // The backend went silent past the heartbeat timeout, or the stream could not be had for want
    // of an answer (refused, reset, timed out; not an HTTP error): `why`, for the offline banner.
    void lost(const QString &why);

private:
    void connectNow();
    void onReadyRead();
    void onFinished();
    void scheduleReconnect();
    void setState(State state);
    void dropReply();

    QNetworkAccessManager m_nam;
    QUrl m_baseUrl;
    QString m_token;
    QSslConfiguration m_ssl = QSslConfiguration::defaultConfiguration();
    QString m_lastError;
    SseParser m_parser;
    QPointer<QNetworkReply> m_reply;
    State m_state = State::Stopped;
    QTimer m_reconnectTimer;
    QTimer m_watchdog;
    int m_initialBackoffMs = 3000;
    int m_maxBackoffMs = 30000;
    int m_backoffMs = 3000;
    int m_heartbeatTimeoutMs = 4000;
    QElapsedTimer m_sinceActivity;
    int m_reconnects = 0;
    bool m_serverRetryApplied = false;
};

} // namespace cs
