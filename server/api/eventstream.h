#pragma once

#include "server/api/role.h"
#include "server/ledger/ledgerwatcher.h"

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
class LedgerDatabase;

// GET /events: server-sent events for every audit event that concerns an action, and for the
// execution pauses (`execution.changed`)
// (docs/API.md, "Live updates"). The audit log's global seq is the event id. One LedgerWatcher
// (server/ledger/ledgerwatcher.h) says when to read the log again for all clients: at once after
// each commit of this process, on PostgreSQL after each commit of any instance (LISTEN/NOTIFY),
// and on its poll (Options::changes.pollMs while there are no notifications, safetyPollMs while
// there are), so changes written by other threads and processes (the executor, the reconciler,
// another countersignd) stream as well as the API's own. Each read takes the rows after the
// lowest cursor; wakes that arrive while one is queued are coalesced into it.
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
        LedgerWatcher::Options changes; // when the audit log is read again (pollMs: --sse-poll-ms)
        int heartbeatMs = 15000;
        qint64 maxBacklog = 10000;  // more missed events than this: one `resync` instead
        int retryMs = 3000;         // the `retry:` field sent first
        int batch = 1000;           // audit rows read per poll
        qint64 maxBufferedBytes = 4 * 1024 * 1024; // a client that reads slower is dropped
    };

    // Reads through reader; watches database (the same ledger's), which must outlive it.
    EventStream(const ActionReader *reader, LedgerDatabase *database, Options options, QObject *parent = nullptr);
    ~EventStream() override;

    // Takes the socket over: writes the response head and streams until the client goes.
    // lastEventId: resume after it; nothing: only events from now on. Returns false (and writes
    // nothing) if the ledger cannot be read; the caller answers 503 then.
    bool open(QTcpSocket *socket, const User &user, std::optional<qint64> lastEventId);

    int clientCount() const;
    // Ends every stream (the terminating chunk, then close): used when the service drains.
    void closeAll();
    // What wakes the stream (for tests and diagnostics: isSubscribed(), listenerPid()).
    const LedgerWatcher *watcher() const { return m_watcher; }

private:
    struct Client
    {
        QPointer<QTcpSocket> socket;
        User user;
        qint64 cursor = 0;
        QElapsedTimer sinceWrite;
    };

    void wake();
    void poll();
    void heartbeat();
    bool writeChunk(Client &client, const QByteArray &data);
    void dropDeadClients();

    const ActionReader *m_reader;
    Options m_options;
    QList<Client> m_clients;
    LedgerWatcher *m_watcher;
    QTimer m_heartbeat;
    bool m_polling = false;
    bool m_pollQueued = false;
};

} // namespace cs
