#include "client/apipagesource.h"
#include "client/apiclient.h"
#include "models/actiondetail.h"

#include <QTimer>

namespace cs {

ApiPageSource::ApiPageSource(ApiClient *client, QObject *parent)
    : ActionPageSource(parent)
    , m_client(client)
{
}

quint64 ApiPageSource::requestPage(const ActionQuery &query, const QString &cursor, int limit)
{
    const quint64 ticket = ++m_nextTicket;
    ApiCall *call = m_client->listActions(query, cursor, limit);
    connect(call, &ApiCall::finished, this, [this, ticket](ApiCall *c) {
        const ApiResponse &response = c->response();
        if (!response.ok()) {
            emit pageFailed(ticket, response.error.userText());
            return;
        }
        QString error;
        std::optional<ActionPage> page = ActionPage::fromJson(response.object(), &error);
        if (!page) {
            emit pageFailed(ticket, tr("The backend's page could not be read: %1").arg(error));
            return;
        }
        emit pageReady(ticket, *page);
    });
    return ticket;
}

quint64 ApiPageSource::requestSummary(const QString &actionId)
{
    const quint64 ticket = ++m_nextTicket;
    ApiCall *call = m_client->action(actionId);
    connect(call, &ApiCall::finished, this, [this, ticket, actionId](ApiCall *c) {
        const ApiResponse &response = c->response();
        if (!response.ok()) {
            emit summaryFailed(ticket, actionId, response.httpStatus == 404, response.error.userText());
            return;
        }
        QString error;
        std::optional<ActionDetail> detail = ActionDetail::fromJson(response.object(), &error);
        if (!detail) {
            emit summaryFailed(ticket, actionId, false, error);
            return;
        }
        emit summaryReady(ticket, detail->summary());
    });
    return ticket;
}

} // namespace cs
