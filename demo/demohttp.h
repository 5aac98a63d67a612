#pragma once

// A small HTTP helper for the demo's scripted agent, approvers and paysim admin calls. Each call
// runs a local event loop until the answer (or a bounded timeout) arrives, so a scenario step reads
// top to bottom while the caller's event loop keeps running.

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QUrl>

class QNetworkAccessManager;

namespace cs::demo {

struct HttpReply {
    int status = 0;           // 0: no answer (connection closed, reset, timeout)
    QByteArray body;
    QByteArray etag;
    QString error;            // transport error text when status is 0
    QJsonObject json() const;
};

class DemoHttp
{
public:
    DemoHttp();
    ~DemoHttp();
    DemoHttp(const DemoHttp &) = delete;
    DemoHttp &operator=(const DemoHttp &) = delete;

    HttpReply request(const QByteArray &verb, const QUrl &url, const QList<QPair<QByteArray, QByteArray>> &headers,
                      const QByteArray &body = QByteArray(), int timeoutMs = 15000);

    // Waits msecs while the event loop runs (polling intervals; no fixed sleeps in scenarios).
    static void pause(int msecs);

private:
    QNetworkAccessManager *m_nam;
};

} // namespace cs::demo
