#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

// One dispatched server-sent event (WHATWG HTML, "Interpreting an event stream").
struct SseEvent
{
    QString id;          // the last event id in effect when it was dispatched
    QString type;        // "message" when the stream named none
    QString data;        // data lines joined with "\n"
    friend bool operator==(const SseEvent &, const SseEvent &) = default;
};

// Incremental parser of a text/event-stream: feed it bytes as they arrive, in any chunking;
// it returns the events completed by them. Handles CRLF, CR and LF line ends, comments
// (": heartbeat"), multi-line data, `id` (ignored if it contains NUL), `retry`. Not thread-safe.
class SseParser
{
public:
    QList<SseEvent> feed(const QByteArray &bytes);
    void reset(); // a new connection: pending lines and the event buffer are dropped

    QString lastEventId() const { return m_lastEventId; }
    void setLastEventId(const QString &id) { m_lastEventId = id; }
    // The reconnection time the stream asked for, if it did.
    std::optional<int> retryMs() const { return m_retryMs; }
    // Anything at all (including comments) arrived since the last call; for heartbeat watchdogs.
    bool takeActivity();

private:
    void processLine(const QByteArray &line, QList<SseEvent> *out);

    QByteArray m_buffer;
    bool m_pendingCr = false; // a CR ended the previous chunk; a following LF belongs to it
    bool m_bomChecked = false;
    QString m_lastEventId;
    QString m_type;
    QString m_data;
    bool m_hasData = false;
    std::optional<int> m_retryMs;
    bool m_activity = false;
};

} // namespace cs
