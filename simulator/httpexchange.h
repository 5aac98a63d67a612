#pragma once

#include "simulator/httprequest.h"
#include "simulator/httpresponse.h"

#include <QPointer>

namespace cs::paysim {

class HttpConnection;

// One request waiting for its answer. It may be held (by a timer) while the connection's other
// work continues; if the client goes away meanwhile, answering becomes a no-op.
// Destroying an exchange that was never answered closes its connection, so no client hangs on a
// forgotten request. Not thread-safe: use on the thread of its connection.
class HttpExchange
{
public:
    HttpExchange(HttpRequest request, HttpConnection *connection);
    ~HttpExchange();
    HttpExchange(const HttpExchange &) = delete;
    HttpExchange &operator=(const HttpExchange &) = delete;

    const HttpRequest &request() const { return m_request; }
    bool isAnswered() const { return m_answered; }
    bool isConnected() const;

    void respond(const HttpResponse &response);
    // Closes the connection (FIN) without writing any answer.
    void dropWithoutAnswer();
    // Resets the connection (RST) without writing any answer.
    void reset();

private:
    HttpRequest m_request;
    QPointer<HttpConnection> m_connection;
    bool m_answered = false;
};

} // namespace cs::paysim
