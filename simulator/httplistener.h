#pragma once

#include "simulator/httpconnection.h"

#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTcpServer>

namespace cs::paysim {

// Accepts TCP connections and hands each complete request to the handler as an HttpExchange.
// Single-threaded: everything runs on the thread that owns the listener.
class HttpListener : public QObject
{
    Q_OBJECT
public:
    explicit HttpListener(QObject *parent = nullptr);
    ~HttpListener() override;

    void setHandler(HttpConnection::Handler handler);
    // What every answer's Date says (paysim: its simulated clock); unset: the wall clock.
    void setDateSource(HttpConnection::DateSource date) { m_date = std::move(date); }
    bool listen(const QHostAddress &address, quint16 port, QString *error = nullptr);
    bool isListening() const;
    QHostAddress address() const;
    quint16 port() const;
    // Stops listening and aborts every open connection.
    void close();
    int openConnectionCount() const;

private:
    void onNewConnection();

    QTcpServer m_server;
    HttpConnection::Handler m_handler;
    HttpConnection::DateSource m_date;
    QList<QPointer<HttpConnection>> m_connections;
};

} // namespace cs::paysim
