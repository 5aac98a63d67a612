#pragma once

// The demo's HTTP transport for its scripted agent, approvers and paysim admin calls. Every call
// is asynchronous: it returns at once and calls `done` later from the event loop (never from
// inside the call, never through a nested event loop). Not thread-safe: one thread.

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <QUrl>

#include <functional>

class QNetworkAccessManager;

namespace cs::demo {

struct HttpReply {
    int status = 0;           // 0: no answer (connection closed, reset, timeout)
    QByteArray body;
    QByteArray etag;
    QList<QPair<QByteArray, QByteArray>> headers; // as received (request() only)
    QString error;            // Qt's error text when the request failed (always set when status is 0)
    QJsonObject json() const;
    QByteArray header(const QByteArray &name) const; // the first one of that name, any case; empty if none
};

class DemoHttp : public QObject
{
    Q_OBJECT
public:
    using Headers = QList<QPair<QByteArray, QByteArray>>;
    using Done = std::function<void(const HttpReply &)>;

    explicit DemoHttp(QObject *parent = nullptr);
    ~DemoHttp() override;

    // One request through QNetworkAccessManager; timeoutMs is Qt's idle transfer timeout. If this
    // object is destroyed first, `done` is never called.
    void request(const QByteArray &verb, const QUrl &url, const Headers &headers, const QByteArray &body, Done done,
                 int timeoutMs = 15000);

    // request() whose answer never reaches the caller — an agent host that gave up, or crashed,
    // before handing the result to its model. The returned function, called later, aborts the
    // request if it is still running (closing its connection); whatever arrived is thrown away
    // either way. Calling it twice, or after this object is gone, does nothing.
    std::function<void()> requestThenHangUp(const QByteArray &verb, const QUrl &url, const Headers &headers,
                                            const QByteArray &body);

    // One raw HTTP/1.1 request on its own TCP connection (`rawRequest` is sent as given, with
    // "Connection: close"), answered when the server closes, errs, or after timeoutMs. Nothing
    // below resends on the caller's behalf — what a naive agent without a library does.
    void requestOnce(const QString &host, quint16 port, const QByteArray &rawRequest, Done done, int timeoutMs = 5000);

    // Calls done after msecs on this object's event loop (polling intervals, not fixed sleeps).
    void after(int msecs, std::function<void()> done);

private:
    QNetworkAccessManager *m_nam;
};

} // namespace cs::demo
