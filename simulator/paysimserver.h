#pragma once

#include "simulator/charge.h"
#include "simulator/faultengine.h"
#include "simulator/httplistener.h"
#include "simulator/idempotencystore.h"
#include "simulator/idminter.h"
#include "simulator/paymentstore.h"
#include "simulator/paysimconfig.h"
#include "simulator/requestlog.h"
#include "simulator/simclock.h"

#include <QObject>
#include <QUrl>

#include <memory>

namespace cs::paysim {

class AdminApi;
class RefundSettler;
class SimDatabase;
class StripeApi;
class WebhookSender;

// How seeded charges look beyond their amounts (docs/PAYSIM.md, POST /_sim/charges).
struct ChargeSeed
{
    qint64 ageSeconds = 0;                    // created = now − age (simulator clock)
    QString source = QStringLiteral("tok_visa"); // tok_visa | tok_mastercard | tok_amex
    QString cardBrand;                        // overrides the source's brand when set
    QString cardLast4;                        // overrides the source's last 4 when set
    bool disputed = false;                    // disputed right after creation (reason "general")
};

// The whole provider simulator in one object: HTTP listener, Stripe-compatible /v1 API, /_sim
// admin API, state (optionally persisted), fault engine and webhook sender. Tests create it
// in-process; the `paysim` executable only parses its command line into a PaysimConfig.
// Single-threaded: lives on the thread that created it, driven by its event loop.
class PaysimServer : public QObject
{
    Q_OBJECT
public:
    explicit PaysimServer(const PaysimConfig &config, QObject *parent = nullptr);
    ~PaysimServer() override;

    // Opens the database, loads state, installs --fault rules, seeds charges, listens.
    bool start(QString *error);
    void stop();
    QUrl baseUrl() const;
    quint16 port() const;
    const PaysimConfig &config() const { return m_config; }

    SimClock &clock() { return m_clock; }
    FaultEngine &faults() { return m_faults; }
    PaymentStore &store() { return *m_store; }
    IdempotencyStore &idempotency() { return *m_idempotency; }
    RequestLog &requestLog() { return m_requestLog; }
    WebhookSender &webhooks() { return *m_webhooks; }
    RefundSettler &settler() { return *m_settler; }

    // Adds a fault rule given as JSON; returns the error text, or empty on success.
    QString addFault(const QJsonObject &json);
    // Creates charges of the given amounts (minor units), or `count` charges of varied amounts.
    QList<Charge> seedCharges(const QList<qint64> &amounts, const QString &currency, const ChargeSeed &seed = ChargeSeed());
    QList<Charge> seedCharges(int count, const QString &currency, const ChargeSeed &seed = ChargeSeed());
    // Moves the clock forward; pending refunds due by then settle at once.
    void advanceClock(qint64 ms);
    // Clears state, idempotency keys, faults (PRNG reseeded), request log, deliveries and the clock offset.
    void reset();

private:
    void route(const std::shared_ptr<HttpExchange> &exchange);
    void persistCounters();

    PaysimConfig m_config;
    SimClock m_clock;
    IdMinter m_ids;
    std::unique_ptr<SimDatabase> m_db;
    std::unique_ptr<IdempotencyStore> m_idempotency;
    std::unique_ptr<PaymentStore> m_store;
    FaultEngine m_faults;
    RequestLog m_requestLog;
    WebhookSender *m_webhooks = nullptr;
    HttpListener *m_listener = nullptr;
    StripeApi *m_stripe = nullptr;
    AdminApi *m_admin = nullptr;
    RefundSettler *m_settler = nullptr;
    quint64 m_amountCounter = 0;
    bool m_dbOpen = false;
};

} // namespace cs::paysim
