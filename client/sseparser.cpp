#include "client/sseparser.h"

namespace cs {

void SseParser::reset()
{
    m_buffer.clear();
    m_pendingCr = false;
    m_bomChecked = false;
    m_type.clear();
    m_data.clear();
    m_hasData = false;
}

bool SseParser::takeActivity()
{
    const bool activity = m_activity;
    m_activity = false;
    return activity;
}

QList<SseEvent> SseParser::feed(const QByteArray &bytes)
{
    QList<SseEvent> events;
    if (bytes.isEmpty())
        return events;
    m_activity = true;
    qsizetype start = 0;
    if (m_pendingCr && bytes.startsWith('\n'))
        start = 1;
    m_pendingCr = false;
    m_buffer.append(bytes.constData() + start, bytes.size() - start);

    // A BOM is dropped only at the very start of the stream: decided once, as soon as the first
    // bytes either are one or cannot become one (a later chunk never starts "the stream" again).
    if (!m_bomChecked) {
        static constexpr QByteArrayView Bom("\xEF\xBB\xBF");
        if (m_buffer.size() < Bom.size() && Bom.startsWith(QByteArrayView(m_buffer)))
            return events; // all of it may still be a BOM: nothing to process yet
        if (m_buffer.startsWith(Bom))
            m_buffer.remove(0, Bom.size());
        m_bomChecked = true;
    }

    qsizetype lineStart = 0;
    for (qsizetype i = 0; i < m_buffer.size(); ++i) {
        const char c = m_buffer.at(i);
        if (c != '\n' && c != '\r')
            continue;
        processLine(m_buffer.mid(lineStart, i - lineStart), &events);
        if (c == '\r') {
            if (i + 1 < m_buffer.size()) {
                if (m_buffer.at(i + 1) == '\n')
                    ++i;
            } else {
                m_pendingCr = true; // the LF may come with the next chunk
            }
        }
        lineStart = i + 1;
    }
    m_buffer.remove(0, lineStart);
    return events;
}

void SseParser::processLine(const QByteArray &line, QList<SseEvent> *out)
{
    if (line.isEmpty()) {
        // Dispatch.
        if (m_hasData) {
            SseEvent event;
            event.id = m_lastEventId;
            event.type = m_type.isEmpty() ? QStringLiteral("message") : m_type;
            event.data = m_data;
            out->append(event);
        }
        m_type.clear();
        m_data.clear();
        m_hasData = false;
        return;
    }
    if (line.startsWith(':'))
        return; // comment (heartbeat)
    const qsizetype colon = line.indexOf(':');
    QByteArray field = colon < 0 ? line : line.left(colon);
    QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
    if (value.startsWith(' '))
        value.remove(0, 1);

    if (field == "event") {
        m_type = QString::fromUtf8(value);
    } else if (field == "data") {
        if (m_hasData)
            m_data += QLatin1Char('\n');
        m_data += QString::fromUtf8(value);
        m_hasData = true;
    } else if (field == "id") {
        if (!value.contains('\0'))
            m_lastEventId = QString::fromUtf8(value);
    } else if (field == "retry") {
        // ASCII digits only (WHATWG): no sign, no spaces.
        bool digits = !value.isEmpty();
        for (char c : std::as_const(value))
            digits = digits && c >= '0' && c <= '9';
        bool ok = false;
        const int ms = value.toInt(&ok);
        if (digits && ok)
            m_retryMs = ms;
    }
}

} // namespace cs
