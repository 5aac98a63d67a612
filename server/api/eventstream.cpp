#include "server/api/eventstream.h"

#include "server/api/apilog.h"
#include "server/ledger/actionreader.h"

#include "models/actionchange.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <utility>

namespace cs {

namespace {

// The stop switch's audit rows (PauseStore): about no action, streamed to every client as
// `execution.changed` so consoles read GET /execution again.
bool isExecutionEvent(const AuditEvent &event)
{
    return event.actionId.isEmpty()
        && (event.event == u"execution_paused" || event.event == u"execution_resumed");
}

QJsonObject executionChange(const AuditEvent &event)
{
    return QJsonObject{{QStringLiteral("event"), event.event},
                       {QStringLiteral("actor"), event.actor},
                       {QStringLiteral("reason"), event.reason},
                       {QStringLiteral("at"), toWireTime(event.at)}};
}

} // namespace

EventStream::EventStream(const ActionReader *reader, LedgerDatabase *database, Options options, QObject *parent)
    : QObject(parent), m_reader(reader), m_options(options),
      m_watcher(new LedgerWatcher(database, m_options.changes, this))
{
    // Queued: a local commit emits on the committing thread, possibly this one inside its write.
    connect(m_watcher, &LedgerWatcher::changed, this, &EventStream::wake, Qt::QueuedConnection);
    m_watcher->start();
    // A quarter of the silence allowed: a heartbeat goes out at most 1.25 heartbeatMs after the
    // last write.
    m_heartbeat.setInterval(std::max(10, m_options.heartbeatMs / 4));
    connect(&m_heartbeat, &QTimer::timeout, this, &EventStream::heartbeat);
}

EventStream::~EventStream()
{
    closeAll();
}

int EventStream::clientCount() const
{
    int count = 0;
    for (const Client &client : m_clients) {
        if (client.socket && client.socket->state() == QAbstractSocket::ConnectedState)
            ++count;
    }
    return count;
}

bool EventStream::writeChunk(Client &client, const QByteArray &data)
{
    QTcpSocket *socket = client.socket.data();
    if (!socket || socket->state() != QAbstractSocket::ConnectedState)
        return false;
    if (socket->bytesToWrite() > m_options.maxBufferedBytes) {
        qCWarning(lcApi) << "event stream of" << client.user.name << "is not read; closing it";
        socket->abort();
        return false;
    }
    socket->write(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n");
    client.sinceWrite.start();
    return true;
}

bool EventStream::open(QTcpSocket *socket, const User &user, std::optional<qint64> lastEventId)
{
    const auto latest = m_reader->latestAuditSeq();
    if (!latest.ok())
        return false;
    Client client;
    client.socket = socket;
    client.user = user;
    client.cursor = *latest;
    QByteArray first = "retry: " + QByteArray::number(m_options.retryMs) + "\n\n";
    if (lastEventId) {
        const qint64 missed = *latest - *lastEventId;
        if (*lastEventId > *latest || missed > m_options.maxBacklog) {
            const QByteArray data = QJsonDocument(QJsonObject{{QStringLiteral("latest_seq"), *latest}})
                                        .toJson(QJsonDocument::Compact);
            first += "id: " + QByteArray::number(*latest) + "\nevent: resync\ndata: " + data + "\n\n";
        } else {
            client.cursor = *lastEventId;
        }
    }
    socket->write("HTTP/1.1 200 OK\r\n"
                  "Content-Type: text/event-stream; charset=utf-8\r\n"
                  "Cache-Control: no-store\r\n"
                  "Transfer-Encoding: chunked\r\n"
                  "X-Accel-Buffering: no\r\n"
                  "\r\n");
    m_clients.append(client);
    writeChunk(m_clients.last(), first);
    qCDebug(lcApi) << "event stream opened for" << user.name << "from seq" << client.cursor;
    if (!m_heartbeat.isActive())
        m_heartbeat.start();
    wake(); // the backlog at once
    return true;
}

// Every wake queued while one is pending is served by the same read.
void EventStream::wake()
{
    if (m_pollQueued || (m_clients.isEmpty() && m_followers == 0))
        return;
    m_pollQueued = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_pollQueued = false;
            poll();
        },
        Qt::QueuedConnection);
}

void EventStream::dropDeadClients()
{
    m_clients.removeIf([](const Client &client) {
        return !client.socket || client.socket->state() != QAbstractSocket::ConnectedState;
    });
}

void EventStream::follow()
{
    if (m_followers++ > 0)
        return;
    const auto latest = m_reader->latestAuditSeq();
    if (latest.ok())
        m_followCursor = *latest;
    else
        qCWarning(lcApi) << "event stream cannot read the audit log for its followers:" << latest.error().toString();
}

void EventStream::unfollow()
{
    if (m_followers > 0 && --m_followers == 0)
        m_followCursor.reset();
}

// The followers' part of a read: the actions of the rows after their cursor, which moves on.
QStringList EventStream::followed(const QList<AuditEvent> &events)
{
    QStringList ids;
    if (!m_followCursor || events.isEmpty() || events.constLast().seq <= *m_followCursor)
        return ids;
    QSet<QString> seen;
    for (const AuditEvent &event : events) {
        if (event.seq > *m_followCursor && !event.actionId.isEmpty() && !seen.contains(event.actionId)) {
            seen.insert(event.actionId);
            ids << event.actionId;
        }
    }
    m_followCursor = events.constLast().seq;
    return ids;
}

void EventStream::poll()
{
    if (m_polling)
        return;
    m_polling = true;
    dropDeadClients();
    if (m_clients.isEmpty())
        m_heartbeat.stop();
    bool anyChanged = false; // the followers' cursor is taken again: every action may have changed
    if (m_followers > 0 && !m_followCursor) {
        if (const auto latest = m_reader->latestAuditSeq(); latest.ok()) {
            m_followCursor = *latest;
            anyChanged = true;
        }
    }
    std::optional<qint64> from = m_followCursor;
    for (const Client &client : std::as_const(m_clients))
        from = std::min(from.value_or(client.cursor), client.cursor);

    QStringList changed; // for the followers, emitted once the read is done
    bool more = false;   // a full batch: read on at once rather than at the next wake
    if (from) {
        const auto events = m_reader->auditLog(*from, m_options.batch);
        if (!events.ok()) {
            qCWarning(lcApi) << "event stream cannot read the audit log:" << events.error().toString();
        } else if (!events->isEmpty()) {
            changed = followed(*events);
            more = send(*events) && events->size() >= m_options.batch;
        }
    }
    dropDeadClients();
    m_polling = false;
    if (anyChanged)
        emit anyActionChanged();
    else if (!changed.isEmpty())
        emit actionsChanged(changed);
    if (more)
        wake();
}

// The clients' part of a read: each client is given its events after its cursor, to be written
// by flushPending(). Each event's text is made once, whoever receives it. False when the actions
// could not be read (the cursors stay: the next wake reads the same rows).
bool EventStream::send(const QList<AuditEvent> &events)
{
    if (m_clients.isEmpty())
        return true;
    QStringList ids;
    QSet<QString> seen;
    for (const AuditEvent &event : events) {
        if (!event.actionId.isEmpty() && !seen.contains(event.actionId)) {
            seen.insert(event.actionId);
            ids << event.actionId;
        }
    }
    const auto summaries = m_reader->summaries(ids);
    if (!summaries.ok()) {
        qCWarning(lcApi) << "event stream cannot read actions:" << summaries.error().toString();
        return false;
    }
    QHash<QString, ActionRecord> records;
    for (const ActionReader::Summary &s : *summaries)
        records.insert(s.record.id, s.record);
    struct Text
    {
        QByteArray bytes;    // empty: sent to nobody
        QString requestedBy; // an agent sees only the actions it requested...
        bool everyone = false; // ...and every execution.changed
    };
    QList<Text> texts;
    texts.reserve(events.size());
    for (const AuditEvent &event : events) {
        if (isExecutionEvent(event)) {
            texts.append({"id: " + QByteArray::number(event.seq) + "\nevent: execution.changed\ndata: "
                              + QJsonDocument(executionChange(event)).toJson(QJsonDocument::Compact) + "\n\n",
                          QString(), true});
            continue;
        }
        const auto record = records.constFind(event.actionId);
        if (event.actionId.isEmpty() || record == records.constEnd()) {
            texts.append(Text());
            continue;
        }
        // The console reads this with the same type (models/actionchange.h).
        const QJsonObject data =
            ActionChange{event.seq, event.actionId, record->state, record->stateVersion, event.event, event.at}.toJson();
        texts.append({"id: " + QByteArray::number(event.seq) + "\nevent: action.changed\ndata: "
                          + QJsonDocument(data).toJson(QJsonDocument::Compact) + "\n\n",
                      record->requestedBy, false});
    }
    const qint64 lastSeq = events.constLast().seq;
    for (Client &client : m_clients) {
        if (lastSeq <= client.cursor)
            continue;
        for (qsizetype i = 0; i < events.size(); ++i) {
            const Text &text = texts.at(i);
            if (events.at(i).seq <= client.cursor || text.bytes.isEmpty())
                continue;
            if (client.user.role == Role::Agent && !text.everyone && text.requestedBy != client.user.name)
                continue;
            client.pending += text.bytes;
        }
        client.cursor = lastSeq;
    }
    queueFlush();
    return true;
}

void EventStream::queueFlush()
{
    if (m_flushQueued)
        return;
    m_flushQueued = true;
    QMetaObject::invokeMethod(this, [this] { flushPending(); }, Qt::QueuedConnection);
}

// What clients have pending goes out WriteSlice clients per turn of the event loop, so that a
// commit streamed to a thousand consoles does not hold this thread (and GET /health) for the
// whole fan-out: every write arms the socket's write notifier, and under Qt's GLib dispatcher
// arming and disarming one costs time in proportion to the sockets open.
void EventStream::flushPending()
{
    m_flushQueued = false;
    int written = 0;
    for (Client &client : m_clients) {
        if (client.pending.isEmpty())
            continue;
        if (written == WriteSlice) {
            queueFlush();
            return;
        }
        writeChunk(client, std::exchange(client.pending, QByteArray()));
        ++written;
    }
}

void EventStream::heartbeat()
{
    for (Client &client : m_clients) {
        if (client.pending.isEmpty() && client.sinceWrite.isValid() && client.sinceWrite.elapsed() >= m_options.heartbeatMs)
            writeChunk(client, ": heartbeat\n\n");
    }
    dropDeadClients();
    if (m_clients.isEmpty())
        m_heartbeat.stop();
}

void EventStream::closeAll()
{
    for (Client &client : m_clients) {
        if (!client.pending.isEmpty())
            writeChunk(client, std::exchange(client.pending, QByteArray()));
        if (QTcpSocket *socket = client.socket.data()) {
            if (socket->state() == QAbstractSocket::ConnectedState) {
                socket->write("0\r\n\r\n");
                socket->disconnectFromHost();
            }
        }
    }
    m_clients.clear();
    m_heartbeat.stop();
}

} // namespace cs
