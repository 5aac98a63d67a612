#pragma once

#include "client/apicall.h"
#include "models/actionquery.h"
#include "models/executionpause.h"

#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QSslConfiguration>
#include <QTimer>
#include <QUrl>

#include <chrono>

namespace cs {

// The console's only way into countersignd: its REST API (docs/API.md, resources/openapi.yaml)
// over Qt Network, with a bearer token. Every request has a deadline (a timer that aborts it:
// Qt 6.4 then reports OperationCanceledError, later versions TimeoutError; both become
// ApiError::Timeout). Mutations carry a client Idempotency-Key minted per logical mutation and
// reused, with the same If-Match, on every resend (see ApiCall). The client tracks whether the
// backend is reachable: a transport failure makes it Offline and it probes GET /health with
// backoff until it answers, then it is Online again and waiting mutations are resent at once.
// Not thread-safe: use it from the thread that created it.
class ApiClient : public QObject
{
    Q_OBJECT

public:
    enum class ConnectionState { Unknown, Online, Offline };
    Q_ENUM(ConnectionState)

    explicit ApiClient(QObject *parent = nullptr);
    ~ApiClient() override;

    // The backend's base URL ("http://127.0.0.1:8470"); paths are under /api/v1.
    void setBaseUrl(const QUrl &url);
    QUrl baseUrl() const { return m_baseUrl; }
    void setToken(const QString &token);
    QString token() const { return m_token; }
    // TLS for https:// backends: the CAs to trust (client/tlstrust.h; default: the system's).
    // Certificate errors are never ignored: the call fails as a Transport error whose message
    // is "certificate not trusted: <reason>", also kept in lastTransportError().
    void setSslConfiguration(const QSslConfiguration &configuration) { m_ssl = configuration; }
    QSslConfiguration sslConfiguration() const { return m_ssl; }
    // Why the last call or health probe got no answer ("" once one is answered): what the
    // offline banner shows.
    QString lastTransportError() const { return m_lastTransportError; }

    // Deadline of an ordinary request; lookups (the backend asks the provider, up to 10 s) use
    // the longer lookup deadline.
    void setDeadline(std::chrono::milliseconds deadline) { m_deadlineMs = int(deadline.count()); }
    int deadlineMs() const { return m_deadlineMs; }
    void setLookupDeadline(std::chrono::milliseconds deadline) { m_lookupDeadlineMs = int(deadline.count()); }
    // Resend backoff for mutations (doubling from `initial` up to `max`), and how many sends a
    // mutation gets at most (0: unlimited, until abandoned — the default for the console).
    void setResendPolicy(std::chrono::milliseconds initial, std::chrono::milliseconds max, int maxSends = 0);
    // Health-probe backoff while offline.
    void setProbeInterval(std::chrono::milliseconds initial, std::chrono::milliseconds max);

    ConnectionState connectionState() const { return m_state; }
    // Probe now (the offline banner's "Retry now").
    void probeNow();
    // Something other than a call showed the backend gone or hung (the event stream went silent
    // past its heartbeat): Offline now, with `why`, probing GET /health until it answers.
    void markUnreachable(const QString &why);

    // A fresh client Idempotency-Key (a UUID): one per human intent.
    static QString mintIdempotencyKey();

    // ---- reads ----
    ApiCall *health();
    ApiCall *me();
    ApiCall *listActions(const ActionQuery &query, const QString &cursor = QString(), int limit = 50);
    ApiCall *action(const QString &actionId);
    // GET /execution: {paused, summary, pauses} — the pauses in force (every role may read).
    ApiCall *executionState();
    // GET /charges/{id}: everything recorded about a charge or payment intent — its newest read,
    // its budget, every action on it (docs/API.md, "The charge view"; not for agents).
    ApiCall *charge(const QString &chargeOrIntentId);

    // ---- mutations (ifMatch: the action's state_version; key: empty mints one) ----
    ApiCall *propose(const QJsonObject &proposal, const QString &key = QString());
    ApiCall *approve(const QString &actionId, qint64 ifMatch, const QString &note, const QString &key = QString());
    // reason: one of Approval::rejectionReasons(); note required for "other".
    ApiCall *reject(const QString &actionId, qint64 ifMatch, const QString &reason, const QString &note,
                    const QString &key = QString());
    ApiCall *lookUp(const QString &actionId, qint64 ifMatch, const QString &key = QString());
    // POST …/charge-lookups: the provider's view of the action's charge now, recorded; 201
    // {snapshot, budget, warnings} (docs/API.md). No If-Match; the lookup deadline.
    ApiCall *readCharge(const QString &actionId, const QString &key = QString());
    // POST /charges/{id}/lookups: the charge view's Refresh — the provider's view now, recorded;
    // 201 with the view (approvers, supervisors, admins). No If-Match; the lookup deadline.
    ApiCall *lookUpCharge(const QString &chargeOrIntentId, const QString &key = QString());
    ApiCall *reconcile(const QString &actionId, qint64 ifMatch, bool committed, int evidenceLookupSeq,
                       const QString &note, const QString &key = QString());
    ApiCall *followUp(const QString &actionId, qint64 ifMatch, qint64 desiredTotalAmount, const QString &note,
                      const QString &key = QString());
    // POST …/settlement/close (issue 18; supervisors and admins): closes the open review item of a
    // COMPLETED action whose refund failed or was canceled afterwards, without re-sending anything;
    // `note` (1–2000 characters) says why. 200 with the action; 409 when no review item is open.
    ApiCall *closeSettlement(const QString &actionId, qint64 ifMatch, const QString &note, const QString &key = QString());

    // The stop switch (docs/API.md, "Pausing execution"; supervisors and admins): POST
    // /execution/pauses — `name` is the agent (Scope::Agent) or the provider account
    // (Scope::Account), ignored for Scope::All; 201 with the pause. POST /execution/pauses/{id}/resume
    // with an optional note; 200 with the resumed pause. No If-Match (a pause has no version); the
    // Idempotency-Key is reused on every resend, so a lost answer is replayed (201/200), never
    // answered 409 already_paused / already_resumed by its own first copy.
    ApiCall *pauseExecution(ExecutionPause::Scope scope, const QString &name, const QString &reason,
                            const QString &key = QString());
    ApiCall *resumeExecution(const QString &pauseId, const QString &note, const QString &key = QString());

    // Any mutation: POST `path` (under /api/v1) with a JSON body.
    ApiCall *post(const QString &path, const QJsonObject &body, qint64 ifMatch, const QString &key,
                  int deadlineMs = 0);

    QNetworkAccessManager *networkAccessManager() { return &m_nam; }

signals:
    void connectionStateChanged(cs::ApiClient::ConnectionState state);
    // 401 on any call: the token is missing, wrong or revoked.
    void unauthorized();
    // A mutation's answer was lost and it is being resent (for the status bar).
    void mutationResending(const QString &path, int sendCount);

private:
    friend class ApiCall;
    ApiCall *get(const QString &path, const QUrlQuery &query = QUrlQuery());
    void send(ApiCall *call);
    void onReplyFinished(ApiCall *call, QNetworkReply *reply, bool timedOut);
    void finish(ApiCall *call);
    void scheduleResend(ApiCall *call);
    void setConnectionState(ConnectionState state);
    void startProbing();
    void probe();
    QUrl urlFor(const QString &path, const QUrlQuery &query) const;
    QNetworkRequest newRequest(const QString &path, const QUrlQuery &query) const;

    QNetworkAccessManager m_nam;
    QUrl m_baseUrl;
    QString m_token;
    QSslConfiguration m_ssl = QSslConfiguration::defaultConfiguration();
    QString m_lastTransportError;
    int m_deadlineMs = 15000;
    int m_lookupDeadlineMs = 25000;
    int m_resendInitialMs = 500;
    int m_resendMaxMs = 8000;
    int m_maxSends = 0;
    int m_probeInitialMs = 1000;
    int m_probeMaxMs = 10000;
    int m_probeDelayMs = 1000;
    ConnectionState m_state = ConnectionState::Unknown;
    QTimer m_probeTimer;
    QPointer<QNetworkReply> m_probeReply;
    QList<QPointer<ApiCall>> m_waiting; // mutations waiting to resend
};

} // namespace cs
