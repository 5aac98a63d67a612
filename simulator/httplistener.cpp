#include "simulator/httplistener.h"

#include "simulator/paysimlog.h"

namespace cs::paysim {

HttpListener::HttpListener(QObject *parent)
    : QObject(parent)
{
    connect(&m_server, &QTcpServer::newConnection, this, &HttpListener::onNewConnection);
}

HttpListener::~HttpListener()
{
    close();
}

void HttpListener::setHandler(HttpConnection::Handler handler)
{
    m_handler = std::move(handler);
}

bool HttpListener::listen(const QHostAddress &address, quint16 port, QString *error)
{
    if (!m_server.listen(address, port)) {
        if (error)
            *error = m_server.errorString();
        return false;
    }
    return true;
}

bool HttpListener::isListening() const
{
    return m_server.isListening();
}

QHostAddress HttpListener::address() const
{
    return m_server.serverAddress();
}

quint16 HttpListener::port() const
{
    return m_server.serverPort();
}

void HttpListener::close()
{
    m_server.close();
    const auto connections = m_connections;
    m_connections.clear();
    for (const auto &c : connections) {
        if (c)
            c->abort();
    }
}

int HttpListener::openConnectionCount() const
{
    int n = 0;
    for (const auto &c : m_connections)
        n += c && c->isOpen() ? 1 : 0;
    return n;
}

void HttpListener::onNewConnection()
{
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        auto *connection = new HttpConnection(socket, m_handler, this, m_date);
        m_connections.removeIf([](const QPointer<HttpConnection> &c) { return c.isNull(); });
        m_connections.append(connection);
        qCDebug(lcPaysim) << "connection from" << socket->peerAddress() << socket->peerPort();
    }
}

} // namespace cs::paysim
