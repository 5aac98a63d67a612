#include "simulator/httpexchange.h"

#include "simulator/httpconnection.h"

namespace cs::paysim {

HttpExchange::HttpExchange(HttpRequest request, HttpConnection *connection)
    : m_request(std::move(request))
    , m_connection(connection)
{
}

HttpExchange::~HttpExchange()
{
    if (!m_answered && m_connection)
        m_connection->dropWithoutAnswer();
}

bool HttpExchange::isConnected() const
{
    return m_connection && m_connection->isOpen();
}

void HttpExchange::respond(const HttpResponse &response)
{
    if (m_answered)
        return;
    m_answered = true;
    if (m_connection)
        m_connection->respond(response, m_request.keepAlive());
}

void HttpExchange::dropWithoutAnswer()
{
    if (m_answered)
        return;
    m_answered = true;
    if (m_connection)
        m_connection->dropWithoutAnswer();
}

void HttpExchange::reset()
{
    if (m_answered)
        return;
    m_answered = true;
    if (m_connection)
        m_connection->resetConnection();
}

} // namespace cs::paysim
