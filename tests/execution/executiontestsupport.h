#pragma once

// Shared by the execution tests: an in-process paysim on 127.0.0.1 with its ground truth, an
// adjustable clock, fast configurations, and approved refunds in a ledger.

#include "models/actionstate.h"
#include "server/executionconfig.h"
#include "server/ledger/ledger.h"
#include "server/webhookreceiver.h"
#include "server/stripeclient.h"

#include "simulator/paysimconfig.h"
#include "simulator/paysimserver.h"
#include "tests/simulator/paysimtestsupport.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QUrl>

#include <atomic>
#include <memory>
#include <utility>

namespace cs::test {

// Where an executed action comes to rest: done, refused, or handed to a human.
inline bool isSettled(ActionState state)
{
    return state == ActionState::Completed || state == ActionState::Rejected || state == ActionState::RequiresReview;
}

// The system clock plus an offset the test moves forward (key windows). Thread-safe.
class OffsetClock
{
public:
    OffsetClock() : m_offsetMs(std::make_shared<std::atomic<qint64>>(0)) {}
    Clock clock() const
    {
        auto offset = m_offsetMs;
        return [offset] { return QDateTime::currentDateTimeUtc().addMSecs(offset->load()); };
    }
    void advance(qint64 ms) { m_offsetMs->fetch_add(ms); }

private:
    std::shared_ptr<std::atomic<qint64>> m_offsetMs;
};

// paysim in this process, on the test's thread: while a test waits for workers it must keep the
// event loop running (QTRY_*, QTest::qWaitFor), or paysim cannot answer them.
class Paysim
{
public:
    explicit Paysim(paysim::PaysimConfig config = {});
    ~Paysim();
    bool start();
    QUrl url() const { return m_server->baseUrl(); }
    paysim::PaysimServer &server() { return *m_server; }
    SimClient &admin() { return *m_admin; }

    QString seedCharge(qint64 amount, const QString &currency = QStringLiteral("usd"));
    bool addFault(const QJsonObject &rule); // as POST /_sim/faults takes it
    QJsonArray groundTruth();               // GET /_sim/refunds: every refund really created
    QJsonArray refundsFor(const QString &actionId); // ground-truth rows whose metadata names the action
    int requestsTo(const QString &method, const QString &path); // from the request log

private:
    std::unique_ptr<paysim::PaysimServer> m_server;
    std::unique_ptr<SimClient> m_admin;
};

QByteArray secretKey();
QString writeSecretKeyFile(const QTemporaryDir &dir);
StripeClientConfig providerConfig(const QUrl &base, int timeoutMs = 400);

// Small times for tests: 400 ms request timeout, 2 s lease, 10 ms idle poll, backoff 50 ms doubling to 400 ms.
ExecutionConfig fastConfig(int workers = 1);

ProposalStore::ProposalInput refundInput(const QString &chargeId, qint64 amount, const QString &clientReference);
// Proposed by "agent-7" and approved by "alice"; an invalid record (empty id) on failure.
ActionRecord approvedRefund(Ledger &ledger, const QString &chargeId, qint64 amount, const QString &clientReference);

QString describe(Ledger &ledger, const QString &actionId); // state, attempts, lookups, for failure messages

// A one-route HTTP server standing in for the API's webhook route: hands each POST to the receiver.
class WebhookEndpoint : public QObject
{
public:
    explicit WebhookEndpoint(WebhookReceiver &receiver) : m_receiver(receiver)
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, this, [this, socket] { serve(socket); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QUrl url() const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1/webhooks/stripe").arg(m_server.serverPort()));
    }
    QList<WebhookReceiver::Result> results;
    int held() const { return int(m_held.size()); }
    // While holding, deliveries wait unanswered (paysim keeps the connection open), so a test
    // decides when they reach the receiver.
    void hold() { m_holding = true; }
    void release()
    {
        m_holding = false;
        const auto held = std::exchange(m_held, {});
        for (const Held &h : held)
            answer(h.socket, h.signature, h.body);
    }

private:
    struct Held
    {
        QPointer<QTcpSocket> socket;
        QByteArray signature;
        QByteArray body;
    };

    void answer(const QPointer<QTcpSocket> &socket, const QByteArray &signature, const QByteArray &body)
    {
        const WebhookReceiver::Result result = m_receiver.handle(signature, body);
        results << result;
        if (!socket)
            return;
        socket->write("HTTP/1.1 " + QByteArray::number(result.httpStatus) + " X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        socket->disconnectFromHost();
    }

    void serve(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        QByteArray signature;
        qsizetype length = 0;
        for (const QByteArray &line : buffer.left(end).split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon < 0)
                continue;
            const QByteArray name = line.left(colon).trimmed().toLower();
            if (name == "stripe-signature")
                signature = line.mid(colon + 1).trimmed();
            else if (name == "content-length")
                length = line.mid(colon + 1).trimmed().toLongLong();
        }
        if (buffer.size() < end + 4 + length)
            return;
        const QByteArray body = buffer.mid(end + 4, length);
        m_buffers.remove(socket);
        if (m_holding)
            m_held.append({QPointer<QTcpSocket>(socket), signature, body});
        else
            answer(socket, signature, body);
    }

    WebhookReceiver &m_receiver;
    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QList<Held> m_held;
    bool m_holding = false;
};

} // namespace cs::test
