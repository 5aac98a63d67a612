#pragma once

#include "client/apierror.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <QUrlQuery>

class QNetworkReply;

namespace cs {

class ApiClient;

// The final answer to one API call.
struct ApiResponse
{
    int httpStatus = 0;
    QJsonDocument body;
    qint64 etag = -1;        // the action's state_version from `ETag: "7"`, -1 when absent
    bool replayed = false;   // Idempotent-Replayed: true — the first answer to this key, again
    QString location;
    ApiError error;

    bool ok() const { return !error.isError(); }
    QJsonObject object() const { return body.object(); }
};

// One logical call to the backend. A read is sent once. A mutation is sent with a client
// Idempotency-Key and If-Match and, when its answer is lost (transport error, deadline) or the
// backend is briefly unavailable, sent again with exactly the same key, If-Match and body: the
// backend then replays its first answer, so the mutation cannot happen twice. It keeps resending
// (with backoff, and at once when the backend is reachable again) until an answer arrives, the
// client's resend limit is reached, or abandon() is called.
//
// Owned by the ApiClient; deletes itself (deleteLater) after emitting finished(). Use response()
// from the finished() handler.
class ApiCall : public QObject
{
    Q_OBJECT

public:
    QString method() const { return m_method; }
    QString path() const { return m_path; }
    bool isMutation() const { return m_mutation; }
    QString idempotencyKey() const { return m_idempotencyKey; }
    qint64 ifMatch() const { return m_ifMatch; }
    QByteArray body() const { return m_body; }
    int sendCount() const { return m_sendCount; }
    bool isFinished() const { return m_finished; }
    bool isWaitingToResend() const { return m_resendTimer.isActive(); }
    const ApiResponse &response() const { return m_response; }

    // Stop resending: finishes at once with Cancelled (what was already sent may have acted;
    // reload the action to know). No effect once finished.
    void abandon();

signals:
    void finished(cs::ApiCall *call);
    // The answer to send number `sendCount` was lost or transient; it will be sent again.
    void resending(int sendCount, const cs::ApiError &lastError);

private:
    friend class ApiClient;
    explicit ApiCall(ApiClient *client);

    QPointer<ApiClient> m_client;
    QString m_method;
    QString m_path;
    QUrlQuery m_query;
    QByteArray m_body;
    bool m_hasBody = false;
    bool m_mutation = false;
    QString m_idempotencyKey;
    qint64 m_ifMatch = -1;
    int m_deadlineMs = 15000;
    int m_sendCount = 0;
    bool m_finished = false;
    QPointer<QNetworkReply> m_reply;
    QTimer m_resendTimer;
    ApiResponse m_response;
};

} // namespace cs
