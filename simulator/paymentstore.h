#pragma once

#include "simulator/apierror.h"
#include "simulator/charge.h"
#include "simulator/refund.h"
#include "simulator/stripeevent.h"

#include <QHash>
#include <QList>

#include <functional>
#include <optional>
#include <variant>

namespace cs::paysim {

class IdMinter;
class SimClock;
class SimDatabase;

// The provider's books: charges, refunds and the events about them, in creation order.
// Business rules live here (refundable remainder, already refunded, unknown targets); parameter
// syntax is checked before, by the API layer. Every change is written through to the database
// when there is one. Not thread-safe.
class PaymentStore
{
public:
    struct RefundCommand
    {
        QString charge;
        QString paymentIntent;
        std::optional<qint64> amount; // default: the whole remaining refundable amount
        QString reason;
        QJsonObject metadata;
        QString idempotencyKey;
        QString requestId;
        qint64 hideForMs = 0; // lookup lag
        // refund_settles: created pending, becomes `to` after `afterMs` on the simulator clock.
        struct Settlement
        {
            qint64 afterMs = 0;
            QString to;
            QString failureReason;
        };
        std::optional<Settlement> settlement;
    };
    using EventSink = std::function<void(const StripeEvent &)>;

    PaymentStore(SimClock &clock, IdMinter &ids, SimDatabase *db = nullptr);

    void setEventSink(EventSink sink) { m_sink = std::move(sink); }
    void setWebhooksPerEvent(int n) { m_webhooksPerEvent = n; }

    Charge createCharge(qint64 amount, const QString &currency, const QString &source, const QString &description,
                        const QJsonObject &metadata, const QString &requestId, const QString &idempotencyKey);
    // Takes a charge as the admin API seeds it (amount, currency, source, created, card, disputed
    // set by the caller; created 0: now). Mints its ch_ and pi_ ids; emits charge.succeeded.
    Charge addCharge(Charge charge, const QString &requestId, const QString &idempotencyKey);
    // The customer disputes the charge: disputed becomes true and charge.dispute.created is
    // emitted (a dispute object of the whole amount, status needs_response). A second dispute of
    // the same charge is refused (400, like Stripe's one dispute per charge).
    std::variant<Charge, ApiError> disputeCharge(const QString &id, const QString &reason, const QString &requestId);
    const Charge *charge(const QString &id) const;
    const Charge *chargeByPaymentIntent(const QString &paymentIntent) const;
    const QList<Charge> &charges() const { return m_charges; }

    std::variant<Refund, ApiError> createRefund(const RefundCommand &command);
    const Refund *refund(const QString &id) const;
    const QList<Refund> &refunds() const { return m_refunds; }
    // `metadata` is Stripe's update: a key set to "" is removed; `clearAll` empties it first.
    std::variant<Refund, ApiError> updateRefundMetadata(const QString &id, const QJsonObject &metadata, bool clearAll,
                                                        const QString &requestId, const QString &idempotencyKey);
    // A status change made from outside (POST /_sim/refunds/{id}): the same transition and events
    // as a settlement, and any scheduled settlement of that refund is dropped. failureReason only
    // for "failed" (empty: Refund::defaultFailureReason()).
    std::variant<Refund, ApiError> setRefundStatus(const QString &id, const QString &status, const QString &requestId,
                                                   const QString &failureReason = {});
    // Settles every pending refund whose settlement is due at nowMs (simulator clock), oldest
    // due first; returns how many changed.
    int settleDue(qint64 nowMs);
    // The simulator time of the next scheduled settlement, or 0 when none is.
    qint64 nextSettlementMs() const;

    const QList<StripeEvent> &events() const { return m_events; }
    void setEventPendingWebhooks(const QString &eventId, int pending);

    bool isVisible(const Refund &refund, qint64 nowMs) const { return refund.visibleAtMs <= nowMs; }
    bool isVisible(const StripeEvent &event, qint64 nowMs) const { return event.visibleAtMs <= nowMs; }

    void clear();
    void load(const QList<Charge> &charges, const QList<Refund> &refunds, const QList<StripeEvent> &events);

private:
    // The one status transition: money back to the charge when the refund stops (or starts again)
    // holding funds; refund.updated and charge.refund.updated (previous status in
    // previous_attributes) and, on failure, refund.failed.
    void transition(Refund &refund, const QString &status, const QString &failureReason, const QString &requestId);
    void record(const QString &type, const QJsonObject &object, const QJsonObject &previous, const QString &requestId,
                const QString &idempotencyKey, qint64 visibleAtMs);
    static QString formatAmount(qint64 amount, const QString &currency);

    SimClock &m_clock;
    IdMinter &m_ids;
    SimDatabase *m_db;
    EventSink m_sink;
    int m_webhooksPerEvent = 0;
    qint64 m_seq = 0;
    QList<Charge> m_charges;
    QHash<QString, qsizetype> m_chargeIndex;
    QHash<QString, qsizetype> m_paymentIntentIndex;
    QList<Refund> m_refunds;
    QHash<QString, qsizetype> m_refundIndex;
    QList<StripeEvent> m_events;
    QHash<QString, qsizetype> m_eventIndex;
};

} // namespace cs::paysim
