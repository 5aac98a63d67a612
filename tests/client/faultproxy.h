#pragma once

// A TCP proxy on 127.0.0.1 in front of countersignd that loses answers on purpose: it can
// forward a POST and drop its response (the backend acted, the client never hears), hold a
// response past the client's deadline, or go away entirely (connection refused) and come back
// on the same port. The backend is real; only the wire between them misbehaves.

#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QStringList>
#include <QUrl>

class FaultProxy : public QObject
{
    Q_OBJECT

public:
    explicit FaultProxy(quint16 upstreamPort, QObject *parent = nullptr);
    ~FaultProxy() override;

    bool listen(quint16 port = 0);
    quint16 port() const { return m_port; }
    QUrl url() const;

    // The next POST is forwarded, and its response discarded: the client's connection is
    // closed once the backend answered.
    void dropNextPostResponse(int count = 1) { m_dropPosts = count; }
    // The next POST is forwarded; its response is held (never delivered) until the client gives up.
    void holdNextPostResponse() { m_holdPosts = 1; }
    // Every request is held without an answer (the backend "hangs").
    void setBlackhole(bool on) { m_blackhole = on; }
    // Refuse connections and cut the open ones (the backend is gone) / accept again.
    void goDown();
    bool comeBack();

    int postsSeen() const { return m_postsSeen; }
    // The Idempotency-Key and If-Match headers of every POST seen, in order.
    QStringList postKeys() const { return m_postKeys; }
    QStringList postIfMatches() const { return m_postIfMatches; }
    // The Idempotency-Keys of the POSTs that carried If-Match — the decisions on an action — in
    // order; reads such as the approve dialog's POST …/charge-lookups carry none.
    QStringList decisionKeys() const
    {
        QStringList keys;
        for (qsizetype i = 0; i < m_postKeys.size(); ++i) {
            if (!m_postIfMatches.value(i).isEmpty())
                keys << m_postKeys.at(i);
        }
        return keys;
    }
    int droppedResponses() const { return m_dropped; }

private:
    struct Pair
    {
        QPointer<QTcpSocket> client;
        QPointer<QTcpSocket> upstream;
        bool dropResponse = false;
        bool holdResponse = false;
    };
    void onNewConnection();

    quint16 m_upstreamPort;
    quint16 m_port = 0;
    QList<std::shared_ptr<Pair>> m_pairs; // before m_server: sockets it owns report to it
    QTcpServer m_server;
    int m_dropPosts = 0;
    int m_holdPosts = 0;
    bool m_blackhole = false;
    int m_postsSeen = 0;
    QStringList m_postKeys;
    QStringList m_postIfMatches;
    int m_dropped = 0;
};
