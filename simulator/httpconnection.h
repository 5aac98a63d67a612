#pragma once

#include "simulator/httprequest.h"
#include "simulator/httprequestparser.h"
#include "simulator/httpresponse.h"

#include <QObject>
#include <QPointer>
#include <QTcpSocket>

#include <functional>
#include <memory>

namespace cs::paysim {

class HttpExchange;

// One client connection speaking HTTP/1.1: keep-alive, bodies framed by Content-Length only
// (HttpRequestParser reads the heads).
// Requests are answered one at a time in arrival order; bytes of a following request are
// buffered until the current one is answered (no pipelining of answers).
// Refused clearly: malformed request line or headers, a bare CR or NUL in the head (400), a body
// without Content-Length (411), transfer-coded (chunked) bodies (411), bodies over MaxBodyBytes
// (413), heads over MaxHeadBytes (431), versions other than HTTP/1.0 and 1.1 (505). Those answers
// close the connection.
class HttpConnection : public QObject
{
    Q_OBJECT
public:
    using Handler = std::function<void(std::shared_ptr<HttpExchange>)>;
    // The time every answer's Date header carries; unset: the wall clock.
    using DateSource = std::function<QDateTime()>;

    static constexpr qsizetype MaxHeadBytes = HttpRequestParser::MaxHeadBytes;
    static constexpr qsizetype MaxBodyBytes = HttpRequestParser::MaxBodyBytes;

    HttpConnection(QTcpSocket *socket, Handler handler, QObject *parent = nullptr, DateSource date = {});
    ~HttpConnection() override;

    bool isOpen() const;
    void respond(const HttpResponse &response, bool keepAlive);
    void dropWithoutAnswer();
    void resetConnection();
    // Closes at once (server shutdown).
    void abort();

signals:
    void closed();

private:
    enum class State { ReadingHead, ReadingBody, AwaitingAnswer, Closing, Closed };

    void onReadyRead();
    void onDisconnected();
    void processBuffer();
    void startBody(HttpRequestParser::Head head);
    void refuse(int status, const QString &message);
    void lingeringClose();
    void shutdownWrite();
    void dispatch();

    QPointer<QTcpSocket> m_socket;
    Handler m_handler;
    DateSource m_date;
    QByteArray m_buffer;
    State m_state = State::ReadingHead;
    HttpRequest m_current;
    qsizetype m_bodyLength = 0;
    bool m_processQueued = false;
    bool m_shutdownPending = false;
};

} // namespace cs::paysim
