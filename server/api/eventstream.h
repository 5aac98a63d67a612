#pragma once

#include "server/api/role.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

#include <optional>

namespace cs {

class ActionReader;

// GET /events: server-sent events for every audit event that concerns an action
// (docs/API.md, "Live updates"). The audit log's global seq is the event id. One timer polls the
// log (every pollIntervalMs) for all clients, so changes written by other threads and processes
// (the executor, the reconciler, another countersignd) stream as well as the API's own.
//
// Each client has a cursor (the last seq it was sent or skipped): every event is sent at most
// once per connection and, with Last-Event-ID, resumed exactly after the last one received.
// Sockets are guarded with QPointer and checked before every write (Qt HttpServer 6.4 crashes
// writing to a socket whose client has gone). The body is chunked; heartbeats are SSE comments.
//
// Not thread-safe: lives on the HTTP server's thread.
class EventStream : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int pollIntervalMs = 150;
        int heartbeatMs = 15000;
        qint64 maxBacklog = 10000;  // more missed events than this: one `resync` instead
        int retryMs = 3000;         // the `retry:` field sent first
        int batch = 1000;           // audit rows read per poll
        qint64 maxBufferedBytes = 4 * 1024 * 1024; // a client that reads slower is dropped
    };

    EventStream(const ActionReader *reader, Options options, QObject *parent = nullptr);
    ~EventStream() override;

    // Takes the socket over: writes the response head and streams until the client goes.
    // lastEventId: resume after it; nothing: only events from now on. Returns false (and writes
    // nothing) if the ledger cannot be read; the caller answers 503 then.
    bool open(QTcpSocket *socket, const User &user, std::optional<qint64> lastEventId);

    int clientCount() const;
    // Ends every stream (the terminating chunk, then close): used when the service drains.
    void closeAll();

private:
    struct Client
    {
        QPointer<QTcpSocket> socket;
        User user;
        qint64 cursor = 0;
        QElapsedTimer sinceWrite;
    };

    void poll();
    bool writeChunk(Client &client, const QByteArray &data);
    void dropDeadClients();

    const ActionReader *m_reader;
    Options m_options;
    QList<Client> m_clients;
    QTimer m_timer;
    bool m_polling = false;
};

} // namespace cs
