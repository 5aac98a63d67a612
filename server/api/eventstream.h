#pragma once

#include "server/api/role.h"
#include "server/ledger/ledgerwatcher.h"

#include "models/auditevent.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>
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
// A read's events are written WriteSlice clients per turn of the event loop, so that a fan-out to
// a thousand consoles leaves room for other requests between its slices.
//
// In-process followers (the MCP tool wait_for_decision, server/mcp/actionchangefeed.h) ride on the
// same reads: while follow() is in force the log is read on every wake even without a client,
// and actionsChanged() names the actions of the rows after the followers' own cursor — once per
// read, however many followers and rows, so a burst of commits costs one read of the log. Every
// change of an action writes an audit row in the same transaction (server/ledger/ledgerrows.cpp,
// commitChange), so no change goes unnamed; a read that fails leaves the cursor where it was.
//
// Not thread-safe: lives on the HTTP server's thread.
class EventStream : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        LedgerWatcher::Options changes; // when the audit log is read again (pollMs: --sse-poll-ms)
        int heartbeatMs = 2000; // the console counts 4 s of silence as the backend gone or hung
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

    // Counted: the first follow() takes the log's latest seq as the followers' cursor (read at
    // once, so that whatever the caller reads next is older than any change it will be told of);
    // the last unfollow() stops the reads made for followers.
    void follow();
    void unfollow();
    int followers() const { return m_followers; }

signals:
    // Actions with audit rows committed after the previous emission, each named once per read.
    void actionsChanged(const QStringList &actionIds);
    // The followers' cursor had to be taken again (the ledger could not be read when follow()
    // asked): any action may have changed meanwhile.
    void anyActionChanged();

private:
    // Clients written per turn of the event loop (flushPending).
    static constexpr int WriteSlice = 64;

    struct Client
    {
        QPointer<QTcpSocket> socket;
        User user;
        qint64 cursor = 0;   // the last seq given to it (written, or pending)
        QByteArray pending;  // events given, not yet written
        QElapsedTimer sinceWrite;
    };

    void wake();
    void poll();
    QStringList followed(const QList<AuditEvent> &events);
    bool send(const QList<AuditEvent> &events);
    void queueFlush();
    void flushPending();
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
    bool m_flushQueued = false;
    int m_followers = 0;
    std::optional<qint64> m_followCursor; // unset while following: taken again at the next read
};

} // namespace cs
