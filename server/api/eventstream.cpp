#include "server/api/eventstream.h"

#include "server/api/apilog.h"
#include "server/ledger/actionreader.h"

#include "models/actionchange.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>

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
    if (m_pollQueued || m_clients.isEmpty())
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

void EventStream::poll()
{
    if (m_polling)
        return;
    m_polling = true;
    dropDeadClients();
    if (m_clients.isEmpty()) {
        m_heartbeat.stop();
        m_polling = false;
        return;
    }
    qint64 from = m_clients.constFirst().cursor;
    for (const Client &client : std::as_const(m_clients))
        from = std::min(from, client.cursor);

    const auto events = m_reader->auditLog(from, m_options.batch);
    bool more = false; // a full batch: read on at once rather than at the next wake
    if (!events.ok()) {
        qCWarning(lcApi) << "event stream cannot read the audit log:" << events.error().toString();
    } else if (!events->isEmpty()) {
        QStringList ids;
        QSet<QString> seen;
        for (const AuditEvent &event : *events) {
            if (!event.actionId.isEmpty() && !seen.contains(event.actionId)) {
                seen.insert(event.actionId);
                ids << event.actionId;
            }
        }
        QHash<QString, ActionRecord> records;
        const auto summaries = m_reader->summaries(ids);
        if (summaries.ok()) {
            for (const ActionReader::Summary &s : *summaries)
                records.insert(s.record.id, s.record);
        }
        if (!summaries.ok()) {
            qCWarning(lcApi) << "event stream cannot read actions:" << summaries.error().toString();
        } else {
            const qint64 lastSeq = events->constLast().seq;
            more = events->size() >= m_options.batch;
            for (Client &client : m_clients) {
                QByteArray out;
                for (const AuditEvent &event : *events) {
                    if (event.seq > client.cursor && isExecutionEvent(event)) {
                        out += "id: " + QByteArray::number(event.seq) + "\nevent: execution.changed\ndata: "
                            + QJsonDocument(executionChange(event)).toJson(QJsonDocument::Compact) + "\n\n";
                        continue;
                    }
                    if (event.seq <= client.cursor || event.actionId.isEmpty() || !records.contains(event.actionId))
                        continue;
                    const ActionRecord &record = records[event.actionId];
                    if (client.user.role == Role::Agent && record.requestedBy != client.user.name)
                        continue;
                    // The console reads this with the same type (models/actionchange.h).
                    const QJsonObject data =
                        ActionChange{event.seq, event.actionId, record.state, record.stateVersion, event.event, event.at}
                            .toJson();
                    out += "id: " + QByteArray::number(event.seq) + "\nevent: action.changed\ndata: "
                        + QJsonDocument(data).toJson(QJsonDocument::Compact) + "\n\n";
                }
                if (lastSeq > client.cursor) {
                    if (!out.isEmpty() && !writeChunk(client, out))
                        continue;
                    client.cursor = lastSeq;
                }
            }
        }
    }
    dropDeadClients();
    m_polling = false;
    if (more)
        wake();
}

void EventStream::heartbeat()
{
    for (Client &client : m_clients) {
        if (client.sinceWrite.isValid() && client.sinceWrite.elapsed() >= m_options.heartbeatMs)
            writeChunk(client, ": heartbeat\n\n");
    }
    dropDeadClients();
    if (m_clients.isEmpty())
        m_heartbeat.stop();
}

void EventStream::closeAll()
{
    for (Client &client : m_clients) {
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
