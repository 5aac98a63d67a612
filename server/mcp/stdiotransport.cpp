#include "server/mcp/stdiotransport.h"

#include "server/mcp/mcplog.h"
#include "server/mcp/mcpsession.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>

#include <cerrno>
#include <unistd.h>

namespace cs {

StdioTransport::StdioTransport(McpSession *session, int inFd, int outFd, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_in(inFd)
    , m_out(outFd)
{
}

void StdioTransport::start()
{
    m_notifier = new QSocketNotifier(m_in, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &StdioTransport::readable);
}

void StdioTransport::readable()
{
    char chunk[65536];
    const ssize_t n = ::read(m_in, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        m_notifier->setEnabled(false);
        qCDebug(lcMcp) << "stdin closed";
        m_inputEnded = true;
        closeWhenIdle();
        return;
    }
    m_buffer.append(chunk, n);
    qsizetype start = 0;
    for (;;) {
        const qsizetype newline = m_buffer.indexOf('\n', start);
        if (newline < 0)
            break;
        QByteArray bytes = m_buffer.mid(start, newline - start);
        start = newline + 1;
        if (m_skipping) {
            m_skipping = false;
            continue;
        }
        if (bytes.endsWith('\r'))
            bytes.chop(1);
        if (!bytes.trimmed().isEmpty())
            line(bytes);
    }
    m_buffer.remove(0, start);
    if (m_buffer.size() > MaxLineBytes) {
        if (!m_skipping)
            write(QJsonDocument(QJsonObject{
                {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                {QStringLiteral("id"), QJsonValue::Null},
                {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), McpSession::InvalidRequest},
                                                      {QStringLiteral("message"), QStringLiteral("Invalid Request: a message over %1 bytes").arg(MaxLineBytes)}}}})
                      .toJson(QJsonDocument::Compact));
        m_skipping = true;
        m_buffer.clear();
    }
}

void StdioTransport::line(const QByteArray &bytes)
{
    QPointer<StdioTransport> self(this);
    McpSession::Replier replier;
    replier.notify = [self](const QJsonObject &message) {
        if (self)
            self->write(QJsonDocument(message).toJson(QJsonDocument::Compact));
    };
    replier.respond = [self](const std::optional<QJsonObject> &message) {
        if (self && message)
            self->write(QJsonDocument(*message).toJson(QJsonDocument::Compact));
        if (self && self->m_inputEnded)
            QMetaObject::invokeMethod(self, &StdioTransport::closeWhenIdle, Qt::QueuedConnection);
    };
    m_session->receive(bytes, replier);
}

void StdioTransport::closeWhenIdle()
{
    if (m_closed || m_session->inFlight() > 0)
        return; // the last answer calls again
    m_closed = true;
    emit closed();
}

void StdioTransport::write(const QByteArray &message)
{
    if (m_closed)
        return;
    const QByteArray framed = message + '\n';
    qsizetype done = 0;
    while (done < framed.size()) {
        const ssize_t n = ::write(m_out, framed.constData() + done, size_t(framed.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            qCWarning(lcMcp) << "stdout is gone:" << qt_error_string(errno);
            m_closed = true;
            emit closed();
            return;
        }
        done += n;
    }
}

} // namespace cs
