#pragma once

#include <QByteArray>
#include <QObject>

class QSocketNotifier;

namespace cs {

class McpSession;

// MCP's stdio transport (countersign-mcp): newline-delimited JSON-RPC messages on file descriptors
// 0 (in) and 1 (out). Only protocol messages are written to stdout; logs go to stderr. A line over
// MaxLineBytes is answered -32600 and skipped up to its newline; empty lines are ignored; a CR
// before the LF is dropped. closed() when stdin ended (the client's way to stop the server) and the
// requests in flight were answered, or when stdout is gone. Not thread-safe; the thread's event loop reads stdin.
class StdioTransport : public QObject
{
    Q_OBJECT
public:
    static constexpr qsizetype MaxLineBytes = 1024 * 1024;

    StdioTransport(McpSession *session, int inFd = 0, int outFd = 1, QObject *parent = nullptr);

    void start();

signals:
    void closed();

private:
    void readable();
    void line(const QByteArray &bytes);
    void write(const QByteArray &message);
    void closeWhenIdle();

    McpSession *m_session;
    int m_in;
    int m_out;
    QSocketNotifier *m_notifier = nullptr;
    QByteArray m_buffer;
    bool m_skipping = false; // inside a line that was too long
    bool m_closed = false;
    bool m_inputEnded = false;
};

} // namespace cs
