#pragma once

#include "demo/demohttp.h"

#include <QObject>
#include <QUrl>

class QTcpServer;
class QTcpSocket;

namespace cs::demo {

// paysim's webhooks on their way to countersignd, inside the demo stack (docs/DEMO.md, "Webhooks
// in the demo"). paysim is told its webhook URL when it starts, before countersignd — which needs
// paysim's URL — has a port; and scenarios 1–9 teach what the backend does when it learns of a
// refund only from its own answers and look-ups (a webhook would settle their unknown outcomes
// before the look-up they show). So paysim posts to this relay on loopback, which forwards each
// delivery as received (body, Stripe-Signature, Content-Type) to the backend's
// POST /api/v1/webhooks/provider while forwarding is on (scenario 10 turns it on for its run) and
// hands the backend's answer back, so paysim's retries see what countersignd said. While it is off
// a delivery is answered 200 {"forwarded": false} and dropped, as for an endpoint that is not
// subscribed; while it is on with no target yet, 503 (paysim delivers it again). The chaos
// harness (tests/chaos) uses it too, retargeting it as its countersignd instances come and go.
// One request per connection ("Connection: close"), bodies up to 1 MiB.
// Not thread-safe: the thread that owns it (the demo's GUI or main thread).
class WebhookRelay : public QObject
{
    Q_OBJECT
public:
    explicit WebhookRelay(QObject *parent = nullptr);
    ~WebhookRelay() override;

    // Listens on 127.0.0.1, a free port; false (with *error) if it cannot.
    bool listen(QString *error);
    QUrl url() const; // http://127.0.0.1:PORT/webhooks, for paysim's --webhook-url

    // The backend's base URL (http://127.0.0.1:PORT); deliveries go to its /api/v1/webhooks/provider.
    void setTarget(const QUrl &backendUrl) { m_target = backendUrl; }
    QUrl target() const { return m_target; }
    void setForwarding(bool on) { m_forwarding = on; }
    bool isForwarding() const { return m_forwarding; }

    int forwarded() const { return m_forwarded; } // deliveries handed to the backend (whatever it answered)
    int dropped() const { return m_dropped; }     // deliveries answered while forwarding was off

signals:
    // One per delivery forwarded: the backend's HTTP status (0: it did not answer) and body.
    void delivered(int backendStatus, const QByteArray &backendBody);

private:
    void onReadyRead(QTcpSocket *socket);
    void answer(QTcpSocket *socket, int status, const QByteArray &body);

    QTcpServer *m_server;
    DemoHttp m_http;
    QUrl m_target;
    bool m_forwarding = false;
    int m_forwarded = 0;
    int m_dropped = 0;
};

} // namespace cs::demo
