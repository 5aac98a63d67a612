#include "tests/client/faultproxy.h"

#include <QTimer>
#include <QUrl>

FaultProxy::FaultProxy(quint16 upstreamPort, QObject *parent)
    : QObject(parent)
    , m_upstreamPort(upstreamPort)
{
    connect(&m_server, &QTcpServer::newConnection, this, &FaultProxy::onNewConnection);
}

bool FaultProxy::listen(quint16 port)
{
    if (!m_server.listen(QHostAddress::LocalHost, port))
        return false;
    m_port = m_server.serverPort();
    return true;
}

QUrl FaultProxy::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port));
}

FaultProxy::~FaultProxy()
{
    goDown();
}

void FaultProxy::goDown()
{
    m_server.close();
    const QList<std::shared_ptr<Pair>> pairs = m_pairs;
    m_pairs.clear();
    for (const auto &pair : pairs) {
        if (pair->client) {
            pair->client->disconnect(this);
            pair->client->abort();
            pair->client->deleteLater();
        }
        if (pair->upstream) {
            pair->upstream->disconnect();
            pair->upstream->abort();
        }
    }
}

bool FaultProxy::comeBack()
{
    return m_server.listen(QHostAddress::LocalHost, m_port);
}

void FaultProxy::onNewConnection()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        auto pair = std::make_shared<Pair>();
        pair->client = client;
        auto *upstream = new QTcpSocket(client);
        pair->upstream = upstream;
        m_pairs.append(pair);
        upstream->connectToHost(QHostAddress::LocalHost, m_upstreamPort);

        connect(client, &QTcpSocket::readyRead, this, [this, pair] {
            if (!pair->client || !pair->upstream)
                return;
            const QByteArray bytes = pair->client->readAll();
            if (bytes.startsWith("POST ")) {
                ++m_postsSeen;
                const auto header = [&bytes](const QByteArray &name) {
                    for (const QByteArray &line : bytes.split('\n')) {
                        if (line.toLower().startsWith(QByteArray(name.toLower() + ':')))
                            return QString::fromLatin1(line.mid(name.size() + 1).trimmed());
                    }
                    return QString();
                };
                m_postKeys << header("Idempotency-Key");
                m_postIfMatches << header("If-Match");
                if (m_dropPosts > 0) {
                    --m_dropPosts;
                    pair->dropResponse = true;
                } else if (m_holdPosts > 0) {
                    --m_holdPosts;
                    pair->holdResponse = true;
                }
            }
            if (m_blackhole)
                return;
            pair->upstream->write(bytes);
        });
        connect(upstream, &QTcpSocket::readyRead, this, [this, pair] {
            if (!pair->client || !pair->upstream)
                return;
            const QByteArray bytes = pair->upstream->readAll();
            if (pair->holdResponse)
                return; // never delivered
            if (pair->dropResponse) {
                // The backend acted and answered; the answer is lost on the way.
                ++m_dropped;
                pair->dropResponse = false;
                QPointer<QTcpSocket> c = pair->client;
                QTimer::singleShot(20, this, [c] {
                    if (c)
                        c->abort();
                });
                return;
            }
            pair->client->write(bytes);
        });
        connect(upstream, &QTcpSocket::disconnected, client, [pair] {
            if (pair->client)
                pair->client->disconnectFromHost();
        });
        connect(client, &QTcpSocket::disconnected, this, [this, pair] {
            if (pair->upstream)
                pair->upstream->disconnectFromHost();
            if (pair->client)
                pair->client->deleteLater();
            m_pairs.removeAll(pair);
        });
    }
}
