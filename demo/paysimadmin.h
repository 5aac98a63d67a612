#pragma once

#include "demo/demohttp.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QUrl>

namespace cs::demo {

// paysim's admin API (/_sim/..., loopback, no authentication; docs/PAYSIM.md "Admin API") for the
// demo: fault rules, charges, ground truth, the clock. The one client of it in the demo: the
// scenarios, the fault-injection panel and the ground-truth view all go through it.
// Asynchronous: every call returns at once and calls `done` from the event loop with paysim's
// answer (status 0 when it did not answer). Without a valid base URL nothing is sent and `done`
// is not called. If this object is destroyed first, pending callbacks are dropped.
// Not thread-safe: one thread.
class PaysimAdminClient : public QObject
{
    Q_OBJECT
public:
    using Done = DemoHttp::Done;

    explicit PaysimAdminClient(QObject *parent = nullptr);

    void setBaseUrl(const QUrl &url) { m_base = url; }
    QUrl baseUrl() const { return m_base; }

    void faults(Done done);                             // GET /_sim/faults → {"rules": [...]}
    void addFaults(const QJsonArray &rules, Done done); // POST /_sim/faults, all or nothing
    void deleteFault(const QString &id, Done done);     // DELETE /_sim/faults/{id}
    void clearFaults(Done done);                        // DELETE /_sim/faults
    void refunds(Done done);                            // GET /_sim/refunds: the ground truth
    void createCharges(const QList<qint64> &amounts, Done done); // POST /_sim/charges {"amounts": [...]}
    // POST /_sim/charges with the request as given: amounts or count, and the charges' look
    // (currency, age_seconds, source, card, disputed; docs/PAYSIM.md).
    void createChargesFrom(const QJsonObject &request, Done done);
    void advanceClock(qint64 ms, Done done);            // POST /_sim/clock {"advance_ms": ms}

    // The "data" array of a /_sim/refunds or /_sim/charges answer.
    static QJsonArray dataOf(const HttpReply &reply);
    // paysim's error message (Stripe's error object), or the transport's error text.
    static QString errorOf(const HttpReply &reply);

private:
    void send(const QByteArray &verb, const QString &path, const QJsonObject &body, Done done);

    DemoHttp m_http;
    QUrl m_base;
};

} // namespace cs::demo
