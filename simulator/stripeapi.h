#pragma once

#include "simulator/apierror.h"
#include "simulator/faultrule.h"
#include "simulator/httpexchange.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>

#include <memory>
#include <optional>

namespace cs::paysim {

struct Charge;
class FaultEngine;
class IdMinter;
class IdempotencyStore;
class PaymentStore;
class RequestLog;
class SimClock;
class SimDatabase;

// The Stripe-compatible /v1 API. Each request goes through, in order:
//   fault decision (clock_advance applies here) -> outage_503 / reset_connection (before commit)
//   -> authentication (401) -> rate_limit_429 -> routing (404) -> form decoding (400)
//   -> idempotency layer (key length 400, idempotency_error fault, 409 in flight, 400 mismatch,
//      replay of the saved answer) -> parameter validation (400; nothing saved, key not claimed)
//   -> key claimed (in flight) -> forced_error / error_500_before_commit / delay_before_commit
//   -> execution (business errors such as amount_too_large are saved like successes)
//   -> error_500_after_commit -> answer saved under the key
//   -> drop_response_after_commit / reset_connection (after_commit) / delay_after_commit -> answer.
// A refund_settles rule decided beside the fault only makes the refund created in execution pending.
// Single-threaded; delays are timers, never sleeps.
class StripeApi : public QObject
{
    Q_OBJECT
public:
    StripeApi(SimClock &clock, IdMinter &ids, IdempotencyStore &idempotency, PaymentStore &store, FaultEngine &faults,
              RequestLog &log, SimDatabase *db, QObject *parent = nullptr);

    void handle(const std::shared_ptr<HttpExchange> &exchange);

signals:
    // The books or the clock changed (a request executed, a clock_advance fault): pending refunds
    // may be due to settle, or a new settlement scheduled.
    void stateChanged();

private:
    enum class Route {
        CreateCharge,
        ListCharges,
        RetrieveCharge,
        RetrievePaymentIntent,
        CreateRefund,
        ListRefunds,
        RetrieveRefund,
        UpdateRefund,
        ListEvents,
        RetrieveEvent,
    };

    struct Call
    {
        std::shared_ptr<HttpExchange> exchange;
        QString requestId;
        QString method;
        QString path;
        QString apiKey;
        QString idempotencyKey;
        QString stripeVersion;
        std::optional<FaultRule> fault;
        std::optional<FaultRule> settlement; // refund_settles, decided beside the fault
        Route route = Route::CreateCharge;
        QString resourceId;
        QJsonObject params;
        QElapsedTimer elapsed;

        bool has(FaultRule::Kind kind) const { return fault && fault->kind == kind; }
    };
    using CallPtr = std::shared_ptr<Call>;

    std::optional<ApiError> authenticate(Call &call) const;
    std::optional<ApiError> route(Call &call) const;
    std::optional<ApiError> decodeParams(Call &call) const;
    std::optional<ApiError> validate(const Call &call) const;
    void proceed(const CallPtr &call);
    void execute(const CallPtr &call);
    HttpResponse run(const Call &call);
    void deliver(const CallPtr &call, HttpResponse response, bool replayed);
    void send(const CallPtr &call, HttpResponse response, const QString &outcome);
    void answerError(const CallPtr &call, const ApiError &error);
    void decorate(const Call &call, HttpResponse &response) const;
    void replay(const CallPtr &call, int status, const QByteArray &body, const QString &originalRequestId);

    HttpResponse createCharge(const Call &call);
    HttpResponse createRefund(const Call &call);
    HttpResponse updateRefund(const Call &call);
    HttpResponse listRefunds(const Call &call);
    HttpResponse listCharges(const Call &call);
    HttpResponse listEvents(const Call &call);
    HttpResponse retrieveCharge(const Call &call);
    HttpResponse retrievePaymentIntent(const Call &call);
    QJsonObject chargeRefunds(const Charge &charge) const;

    static HttpResponse errorResponse(const ApiError &error);
    static HttpResponse listPage(const Call &call, const QList<QJsonObject> &items, const QString &url,
                                 const QString &objectName);

    SimClock &m_clock;
    IdMinter &m_ids;
    IdempotencyStore &m_idempotency;
    PaymentStore &m_store;
    FaultEngine &m_faults;
    RequestLog &m_log;
    SimDatabase *m_db;
};

} // namespace cs::paysim
