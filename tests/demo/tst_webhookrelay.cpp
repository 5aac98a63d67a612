// WebhookRelay (demo/webhookrelay.h) between a client posting like paysim's webhook sender and a
// fake backend on 127.0.0.1: forwarding on, the delivery reaches /api/v1/webhooks/provider with
// its body and Stripe-Signature unchanged and the backend's answer comes back; off, it is answered
// 200 and dropped; no backend is 502, on without a target 503 (paysim retries either); malformed
// requests are refused.

#include "demo/demohttp.h"
#include "demo/webhookrelay.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <optional>

using namespace cs::demo;

namespace {

// One HTTP/1.1 request per connection, answered with `status` and `body` once it is complete.
class FakeBackend : public QObject
{
    Q_OBJECT
public:
    struct Request {
        QByteArray head;
        QByteArray body;
    };
    QList<Request> received;
    int status = 200;
    QByteArray body = R"({"received":true,"outcome":"accepted"})";

    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort())); }

    FakeBackend()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] {
                    QByteArray data = socket->property("buffer").toByteArray() + socket->readAll();
                    socket->setProperty("buffer", data);
                    const qsizetype end = data.indexOf("\r\n\r\n");
                    if (end < 0)
                        return;
                    const QByteArray head = data.left(end);
                    qint64 length = 0;
                    for (const QByteArray &line : head.split('\n')) {
                        if (line.toLower().startsWith("content-length:"))
                            length = line.mid(15).trimmed().toLongLong();
                    }
                    if (data.size() - end - 4 < length)
                        return;
                    received.append({head, data.mid(end + 4, length)});
                    socket->write("HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\nContent-Length: "
                                  + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
                    socket->disconnectFromHost();
                });
            }
        });
    }

private:
    QTcpServer m_server;
};

QByteArray headerOf(const QByteArray &head, const QByteArray &name)
{
    for (const QByteArray &line : head.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
            return line.mid(colon + 1).trimmed();
    }
    return QByteArray();
}

} // namespace

class TestWebhookRelay : public QObject
{
    Q_OBJECT

private:
    DemoHttp m_http;
    const QByteArray m_event = R"({"id":"evt_1","object":"event","type":"refund.failed","data":{"object":{"id":"re_1"}}})";
    const QByteArray m_signature = "t=1733350000,v1=" + QByteArray(64, 'a');

    // Posts like paysim's webhook sender and waits for the relay's answer.
    HttpReply deliver(const QUrl &url)
    {
        std::optional<HttpReply> answer;
        const DemoHttp::Headers headers{{"Content-Type", "application/json; charset=utf-8"}, {"Stripe-Signature", m_signature}};
        m_http.request("POST", url, headers, m_event, [&](const HttpReply &reply) { answer = reply; });
        [&] { QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 10000); }();
        return answer.value_or(HttpReply());
    }

    // A raw request on its own connection; the relay's status (0: no answer).
    int raw(const QUrl &url, const QByteArray &request)
    {
        std::optional<HttpReply> answer;
        m_http.requestOnce(url.host(), quint16(url.port()), request, [&](const HttpReply &reply) { answer = reply; });
        [&] { QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 10000); }();
        return answer ? answer->status : -1;
    }

private slots:
    void forwardsAsReceivedWhileOn()
    {
        FakeBackend backend;
        QVERIFY(backend.listen());
        WebhookRelay relay;
        QString error;
        QVERIFY2(relay.listen(&error), qPrintable(error));
        QCOMPARE(relay.url().path(), QStringLiteral("/webhooks"));
        relay.setTarget(backend.url());
        relay.setForwarding(true);
        QSignalSpy delivered(&relay, &WebhookRelay::delivered);
        QVERIFY(delivered.isValid());

        const HttpReply reply = deliver(relay.url());
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.body, backend.body);
        QCOMPARE(backend.received.size(), 1);
        const FakeBackend::Request &got = backend.received.first();
        QVERIFY2(got.head.startsWith("POST /api/v1/webhooks/provider HTTP/1.1"), got.head.constData());
        QCOMPARE(got.body, m_event);
        QCOMPARE(headerOf(got.head, "Stripe-Signature"), m_signature);
        QCOMPARE(headerOf(got.head, "Content-Type"), QByteArray("application/json; charset=utf-8"));
        QCOMPARE(delivered.size(), 1);
        QCOMPARE(delivered.first().at(0).toInt(), 200);
        QCOMPARE(delivered.first().at(1).toByteArray(), backend.body);
        QCOMPARE(relay.forwarded(), 1);
        QCOMPARE(relay.dropped(), 0);

        // The backend's refusal goes back to paysim as it was (a bad signature is 400 there).
        backend.status = 400;
        backend.body = R"({"code":"invalid_signature"})";
        const HttpReply refused = deliver(relay.url());
        QCOMPARE(refused.status, 400);
        QCOMPARE(refused.body, backend.body);
        QCOMPARE(backend.received.size(), 2);
    }

    void dropsWhileOff()
    {
        FakeBackend backend;
        QVERIFY(backend.listen());
        WebhookRelay relay;
        QVERIFY(relay.listen(nullptr));
        relay.setTarget(backend.url());
        QVERIFY(!relay.isForwarding()); // off until a scenario turns it on
        const HttpReply reply = deliver(relay.url());
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json().value(QLatin1String("forwarded")).toBool(true), false);
        QCOMPARE(relay.dropped(), 1);
        QCOMPARE(relay.forwarded(), 0);
        QTest::qWait(50); // nothing may arrive late either
        QVERIFY(backend.received.isEmpty());

        relay.setForwarding(true);
        QCOMPARE(deliver(relay.url()).status, 200);
        QCOMPARE(backend.received.size(), 1);
    }

    void backendDownIsBadGateway()
    {
        quint16 port = 0;
        {
            QTcpServer closed; // a port that was free a moment ago and is closed now
            QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
            port = closed.serverPort();
        }
        WebhookRelay relay;
        QVERIFY(relay.listen(nullptr));
        relay.setTarget(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)));
        relay.setForwarding(true);
        QSignalSpy delivered(&relay, &WebhookRelay::delivered);
        QCOMPARE(deliver(relay.url()).status, 502);
        QCOMPARE(delivered.size(), 1);
        QCOMPARE(delivered.first().at(0).toInt(), 0);
    }

    void onWithoutTargetAsksForRedelivery()
    {
        WebhookRelay relay;
        QVERIFY(relay.listen(nullptr));
        relay.setForwarding(true); // no backend yet (the chaos harness, before its first instance)
        QSignalSpy delivered(&relay, &WebhookRelay::delivered);
        QCOMPARE(deliver(relay.url()).status, 503);
        QCOMPARE(relay.dropped(), 0);
        QCOMPARE(relay.forwarded(), 0);
        QCOMPARE(delivered.size(), 0);
    }

    void refusesMalformed_data()
    {
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<int>("status");
        QTest::newRow("GET") << QByteArray("GET /webhooks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") << 405;
        QTest::newRow("no length") << QByteArray("POST /webhooks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n{}") << 400;
        QTest::newRow("bad length") << QByteArray("POST /webhooks HTTP/1.1\r\nContent-Length: -3\r\nConnection: close\r\n\r\n") << 400;
        QTest::newRow("too large") << QByteArray("POST /webhooks HTTP/1.1\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n") << 413;
        QTest::newRow("head too large") << QByteArray("POST /webhooks HTTP/1.1\r\nX: " + QByteArray(20000, 'a')) << 400;
    }

    void refusesMalformed()
    {
        QFETCH(QByteArray, request);
        QFETCH(int, status);
        FakeBackend backend;
        QVERIFY(backend.listen());
        WebhookRelay relay;
        QVERIFY(relay.listen(nullptr));
        relay.setTarget(backend.url());
        relay.setForwarding(true);
        QCOMPARE(raw(relay.url(), request), status);
        QVERIFY(backend.received.isEmpty());
        QCOMPARE(relay.forwarded(), 0);
    }
};

QTEST_GUILESS_MAIN(TestWebhookRelay)
#include "tst_webhookrelay.moc"
