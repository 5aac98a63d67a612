#pragma once

#include "models/actionpagesource.h"

#include <QPointer>

namespace cs {

class ApiClient;

// The queue model's page source over the REST API: pages from GET /actions, single rows from
// GET /actions/{id} (the detail, reduced to its summary).
class ApiPageSource : public ActionPageSource
{
    Q_OBJECT

public:
    explicit ApiPageSource(ApiClient *client, QObject *parent = nullptr);

    quint64 requestPage(const ActionQuery &query, const QString &cursor, int limit) override;
    quint64 requestSummary(const QString &actionId) override;

private:
    QPointer<ApiClient> m_client;
    quint64 m_nextTicket = 0;
};

} // namespace cs
