#pragma once

#include "server/api/apiresponse.h"
#include "server/api/role.h"

#include <QJsonObject>
#include <QString>

namespace cs {

class PauseStore;

// The stop switch's endpoints (docs/API.md, "Pausing execution"; server/ledger/pausestore.h):
// GET /execution (the pauses in force, every role), POST /execution/pauses (supervisors and
// admins: scope all | agent | account with a reason, 201 with the pause) and
// POST /execution/pauses/{id}/resume (supervisors and admins, an optional note). The role check
// is the route table's (ActionPolicy); the rest is here. Runs on the HTTP server's thread.
class ExecutionService
{
public:
    explicit ExecutionService(PauseStore *pauses) : m_pauses(pauses) {}

    ApiResponse state(const QString &instance) const;
    ApiResponse pause(const User &user, const QJsonObject &body, const QString &instance);
    ApiResponse resume(const User &user, const QString &id, const QJsonObject &body, const QString &instance);

private:
    PauseStore *m_pauses;
};

} // namespace cs
