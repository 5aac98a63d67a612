#pragma once

#include "simulator/httpexchange.h"

#include <QJsonObject>
#include <QObject>

#include <memory>

namespace cs::paysim {

class PaysimServer;

// The simulator's own control API under /_sim: no authentication, answered only to loopback
// peers (403 otherwise). JSON in and out. Routes (docs/PAYSIM.md):
//   GET  /_sim/info                        version, seed, key window, counts
//   GET  /_sim/clock, POST /_sim/clock     {"advance_ms": N}
//   GET|POST|DELETE /_sim/faults, DELETE /_sim/faults/{id}
//   GET  /_sim/refunds                     ground truth: every refund actually created
//   POST /_sim/refunds/{id}                {"status": "failed", "failure_reason": …} etc. (emits
//                                          refund.updated, refund.failed, charge.refund.updated)
//   GET|POST /_sim/charges                 list / seed charges ({"count": N} or {"amounts": [...]},
//                                          optionally age_seconds, source, card, disputed)
//   POST /_sim/charges/{id}/dispute        {"reason": "fraudulent"}: the customer disputes it
//   GET  /_sim/idempotency                 stored keys
//   GET  /_sim/requests?limit=N            request log with the fault applied
//   GET  /_sim/webhooks                    webhook deliveries
//   POST /_sim/reset                       clears everything, faults and keys included
class AdminApi : public QObject
{
    Q_OBJECT
public:
    explicit AdminApi(PaysimServer &server, QObject *parent = nullptr);

    void handle(const std::shared_ptr<HttpExchange> &exchange);

private:
    HttpResponse dispatch(const HttpRequest &request, const QJsonObject &body);
    HttpResponse faults(const QString &method, const QStringList &parts, const QJsonObject &body);
    HttpResponse clock(const QString &method, const QJsonObject &body);
    HttpResponse charges(const QString &method, const QJsonObject &body);
    HttpResponse dispute(const QString &chargeId, const QJsonObject &body);
    HttpResponse refunds(const QString &method, const QStringList &parts, const QJsonObject &body);

    PaysimServer &m_server;
};

} // namespace cs::paysim
