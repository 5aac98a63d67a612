#include "simulator/paymentstore.h"

#include "simulator/idminter.h"
#include "simulator/simclock.h"
#include "simulator/simdatabase.h"

#include <algorithm>

namespace cs::paysim {

PaymentStore::PaymentStore(SimClock &clock, IdMinter &ids, SimDatabase *db)
    : m_clock(clock)
    , m_ids(ids)
    , m_db(db)
{
}

Charge PaymentStore::createCharge(qint64 amount, const QString &currency, const QString &source,
                                  const QString &description, const QJsonObject &metadata, const QString &requestId,
                                  const QString &idempotencyKey)
{
    Charge c;
    c.amount = amount;
    c.currency = currency;
    c.source = source;
    c.description = description;
    c.metadata = metadata;
    return addCharge(std::move(c), requestId, idempotencyKey);
}

Charge PaymentStore::addCharge(Charge c, const QString &requestId, const QString &idempotencyKey)
{
    c.id = m_ids.mint(QStringLiteral("ch_"));
    c.paymentIntent = m_ids.mint(QStringLiteral("pi_"));
    if (c.created == 0)
        c.created = m_clock.nowSeconds();
    c.seq = ++m_seq;
    m_chargeIndex.insert(c.id, m_charges.size());
    m_paymentIntentIndex.insert(c.paymentIntent, m_charges.size());
    m_charges.append(c);
    if (m_db)
        m_db->saveCharge(c);
    record(QStringLiteral("charge.succeeded"), c.toApiJson(), {}, requestId, idempotencyKey, 0);
    return c;
}

std::variant<Charge, ApiError> PaymentStore::disputeCharge(const QString &id, const QString &reason,
                                                           const QString &requestId)
{
    const auto it = m_chargeIndex.constFind(id);
    if (it == m_chargeIndex.constEnd())
        return ApiError::resourceMissing(QStringLiteral("charge"), id, QStringLiteral("id"));
    Charge &charge = m_charges[*it];
    if (charge.disputed)
        return ApiError::invalidRequest(QStringLiteral("Charge %1 is already disputed.").arg(id),
                                        QStringLiteral("charge_disputed"), QStringLiteral("charge"));
    charge.disputed = true;
    if (m_db)
        m_db->saveCharge(charge);
    // Stripe's Dispute object (docs.stripe.com/api/disputes/object): the fields a reader needs.
    const QJsonObject dispute{{QStringLiteral("id"), m_ids.mint(QStringLiteral("dp_"))},
                              {QStringLiteral("object"), QStringLiteral("dispute")},
                              {QStringLiteral("amount"), charge.amount},
                              {QStringLiteral("charge"), charge.id},
                              {QStringLiteral("currency"), charge.currency},
                              {QStringLiteral("created"), m_clock.nowSeconds()},
                              {QStringLiteral("livemode"), false},
                              {QStringLiteral("metadata"), QJsonObject()},
                              {QStringLiteral("payment_intent"), charge.paymentIntent},
                              {QStringLiteral("reason"), reason},
                              {QStringLiteral("status"), QStringLiteral("needs_response")}};
    record(QStringLiteral("charge.dispute.created"), dispute, {}, requestId, {}, 0);
    return charge;
}

const Charge *PaymentStore::charge(const QString &id) const
{
    const auto it = m_chargeIndex.constFind(id);
    return it == m_chargeIndex.constEnd() ? nullptr : &m_charges.at(*it);
}

const Charge *PaymentStore::chargeByPaymentIntent(const QString &paymentIntent) const
{
    const auto it = m_paymentIntentIndex.constFind(paymentIntent);
    return it == m_paymentIntentIndex.constEnd() ? nullptr : &m_charges.at(*it);
}

const Refund *PaymentStore::refund(const QString &id) const
{
    const auto it = m_refundIndex.constFind(id);
    return it == m_refundIndex.constEnd() ? nullptr : &m_refunds.at(*it);
}

QString PaymentStore::formatAmount(qint64 amount, const QString &currency)
{
    static const QStringList zeroDecimal{QStringLiteral("bif"), QStringLiteral("clp"), QStringLiteral("djf"),
                                         QStringLiteral("gnf"), QStringLiteral("jpy"), QStringLiteral("kmf"),
                                         QStringLiteral("krw"), QStringLiteral("mga"), QStringLiteral("pyg"),
                                         QStringLiteral("rwf"), QStringLiteral("ugx"), QStringLiteral("vnd"),
                                         QStringLiteral("vuv"), QStringLiteral("xaf"), QStringLiteral("xof"),
                                         QStringLiteral("xpf")};
    if (zeroDecimal.contains(currency))
        return QString::number(amount) + u' ' + currency.toUpper();
    return QStringLiteral("%1.%2 %3").arg(amount / 100).arg(amount % 100, 2, 10, QLatin1Char('0')).arg(currency.toUpper());
}

std::variant<Refund, ApiError> PaymentStore::createRefund(const RefundCommand &cmd)
{
    qsizetype index = -1;
    if (!cmd.charge.isEmpty()) {
        const auto it = m_chargeIndex.constFind(cmd.charge);
        if (it == m_chargeIndex.constEnd())
            return ApiError::resourceMissing(QStringLiteral("charge"), cmd.charge, QStringLiteral("charge"));
        index = *it;
    }
    if (!cmd.paymentIntent.isEmpty()) {
        const auto it = m_paymentIntentIndex.constFind(cmd.paymentIntent);
        if (it == m_paymentIntentIndex.constEnd())
            return ApiError::resourceMissing(QStringLiteral("payment_intent"), cmd.paymentIntent,
                                             QStringLiteral("payment_intent"));
        if (index >= 0 && index != *it)
            return ApiError::invalidRequest(QStringLiteral("The charge '%1' does not belong to the PaymentIntent '%2'.")
                                                .arg(cmd.charge, cmd.paymentIntent),
                                            {}, QStringLiteral("charge"));
        index = *it;
    }
    if (index < 0)
        return ApiError::invalidRequest(QStringLiteral("One of the following params should be provided for this request: "
                                                       "payment_intent or charge."),
                                        QStringLiteral("parameter_missing"), QStringLiteral("charge"));
    Charge &charge = m_charges[index];
    if (charge.refundable() <= 0) {
        return ApiError::invalidRequest(QStringLiteral("Charge %1 has already been refunded.").arg(charge.id),
                                        QStringLiteral("charge_already_refunded"));
    }
    const qint64 amount = cmd.amount.value_or(charge.refundable());
    if (amount > charge.refundable()) {
        return ApiError::invalidRequest(
            QStringLiteral("Refund amount (%1) is greater than unrefunded amount on charge (%2)")
                .arg(formatAmount(amount, charge.currency), formatAmount(charge.refundable(), charge.currency)),
            QStringLiteral("amount_too_large"), QStringLiteral("amount"));
    }

    Refund r;
    r.id = m_ids.mint(QStringLiteral("re_"));
    r.charge = charge.id;
    r.paymentIntent = charge.paymentIntent;
    r.amount = amount;
    r.currency = charge.currency;
    r.created = m_clock.nowSeconds();
    r.reason = cmd.reason;
    r.paymentMethod = charge.paymentMethodId();
    r.metadata = cmd.metadata;
    if (cmd.settlement) {
        // Stripe answers a refund that is not final yet with status pending.
        r.status = QStringLiteral("pending");
        r.settleAtMs = m_clock.nowMs() + cmd.settlement->afterMs;
        r.settleTo = cmd.settlement->to;
        r.settleFailureReason = cmd.settlement->failureReason;
    }
    r.idempotencyKey = cmd.idempotencyKey;
    r.requestId = cmd.requestId;
    r.visibleAtMs = cmd.hideForMs > 0 ? m_clock.nowMs() + cmd.hideForMs : 0;
    r.seq = ++m_seq;
    m_refundIndex.insert(r.id, m_refunds.size());
    m_refunds.append(r);

    const QJsonObject previous{{QStringLiteral("amount_refunded"), charge.amountRefunded},
                               {QStringLiteral("refunded"), charge.refunded()}};
    const bool wasRefunded = charge.refunded();
    charge.amountRefunded += amount;
    QJsonObject changed{{QStringLiteral("amount_refunded"), previous.value(QStringLiteral("amount_refunded"))}};
    if (charge.refunded() != wasRefunded)
        changed.insert(QStringLiteral("refunded"), wasRefunded);

    if (m_db) {
        m_db->saveRefund(r);
        m_db->saveCharge(charge);
    }
    record(QStringLiteral("refund.created"), r.toApiJson(), {}, cmd.requestId, cmd.idempotencyKey, r.visibleAtMs);
    record(QStringLiteral("charge.refunded"), charge.toApiJson(), changed, cmd.requestId, cmd.idempotencyKey, r.visibleAtMs);
    return r;
}

std::variant<Refund, ApiError> PaymentStore::updateRefundMetadata(const QString &id, const QJsonObject &metadata,
                                                                  bool clearAll, const QString &requestId,
                                                                  const QString &idempotencyKey)
{
    const auto it = m_refundIndex.constFind(id);
    if (it == m_refundIndex.constEnd() || !isVisible(m_refunds.at(*it), m_clock.nowMs()))
        return ApiError::resourceMissing(QStringLiteral("refund"), id, QStringLiteral("id"));
    Refund &r = m_refunds[*it];
    const QJsonObject before = r.metadata;
    QJsonObject after = clearAll ? QJsonObject() : r.metadata;
    for (auto m = metadata.constBegin(); m != metadata.constEnd(); ++m) {
        if (m.value().toString().isEmpty())
            after.remove(m.key());
        else
            after.insert(m.key(), m.value());
    }
    if (after != before) {
        r.metadata = after;
        if (m_db)
            m_db->saveRefund(r);
        record(QStringLiteral("refund.updated"), r.toApiJson(), QJsonObject{{QStringLiteral("metadata"), before}}, requestId,
               idempotencyKey, 0);
    }
    return r;
}

std::variant<Refund, ApiError> PaymentStore::setRefundStatus(const QString &id, const QString &status,
                                                             const QString &requestId, const QString &failureReason)
{
    const auto it = m_refundIndex.constFind(id);
    if (it == m_refundIndex.constEnd())
        return ApiError::resourceMissing(QStringLiteral("refund"), id, QStringLiteral("id"));
    if (!Refund::isValidStatus(status))
        return ApiError::invalidRequest(QStringLiteral("Invalid status: %1").arg(status), {}, QStringLiteral("status"));
    if (!failureReason.isEmpty() && (status != QLatin1String("failed") || !Refund::isValidFailureReason(failureReason)))
        return ApiError::invalidRequest(QStringLiteral("Invalid failure_reason: %1 (only with status failed; one of %2)")
                                            .arg(failureReason, Refund::failureReasons().join(QStringLiteral(", "))),
                                        {}, QStringLiteral("failure_reason"));
    Refund &r = m_refunds[*it];
    if (r.settleAtMs != 0) {
        r.settleAtMs = 0;
        if (m_db)
            m_db->saveRefund(r);
    }
    transition(r, status, failureReason, requestId);
    return r;
}

int PaymentStore::settleDue(qint64 nowMs)
{
    QList<qsizetype> due;
    for (qsizetype i = 0; i < m_refunds.size(); ++i) {
        const Refund &r = m_refunds.at(i);
        if (r.settleAtMs != 0 && r.settleAtMs <= nowMs)
            due.append(i);
    }
    std::stable_sort(due.begin(), due.end(),
                     [this](qsizetype a, qsizetype b) { return m_refunds.at(a).settleAtMs < m_refunds.at(b).settleAtMs; });
    for (qsizetype i : std::as_const(due)) {
        Refund &r = m_refunds[i];
        const QString to = r.settleTo;
        const QString failureReason = r.settleFailureReason;
        r.settleAtMs = 0;
        // Only a refund still pending settles; one changed meanwhile keeps its status.
        if (r.status == QLatin1String("pending"))
            transition(r, to, failureReason, {});
        else if (m_db)
            m_db->saveRefund(r);
    }
    return static_cast<int>(due.size());
}

qint64 PaymentStore::nextSettlementMs() const
{
    qint64 next = 0;
    for (const Refund &r : m_refunds) {
        if (r.settleAtMs != 0 && (next == 0 || r.settleAtMs < next))
            next = r.settleAtMs;
    }
    return next;
}

void PaymentStore::transition(Refund &r, const QString &status, const QString &failureReason, const QString &requestId)
{
    if (r.status == status)
        return;
    const QString before = r.status;
    const bool heldBefore = r.holdsFunds();
    r.status = status;
    r.failureReason = status == QLatin1String("failed")
        ? (failureReason.isEmpty() ? Refund::defaultFailureReason() : failureReason)
        : QString();
    if (heldBefore != r.holdsFunds()) {
        // A failed or canceled refund gives the money back to the charge's refundable remainder.
        Charge &charge = m_charges[m_chargeIndex.value(r.charge)];
        charge.amountRefunded += r.holdsFunds() ? r.amount : -r.amount;
        if (m_db)
            m_db->saveCharge(charge);
    }
    if (m_db)
        m_db->saveRefund(r);
    // Stripe documents no order among these; paysim sends the refund's own events first (the
    // update, then the failure) and the charge-scoped one last. docs/PAYSIM.md, "Events".
    const QJsonObject previous{{QStringLiteral("status"), before}};
    const QJsonObject snapshot = r.toApiJson();
    record(QStringLiteral("refund.updated"), snapshot, previous, requestId, {}, r.visibleAtMs);
    if (status == QLatin1String("failed"))
        record(QStringLiteral("refund.failed"), snapshot, {}, requestId, {}, r.visibleAtMs);
    record(QStringLiteral("charge.refund.updated"), snapshot, previous, requestId, {}, r.visibleAtMs);
}

void PaymentStore::setEventPendingWebhooks(const QString &eventId, int pending)
{
    const auto it = m_eventIndex.constFind(eventId);
    if (it == m_eventIndex.constEnd())
        return;
    StripeEvent &e = m_events[*it];
    e.pendingWebhooks = pending;
    if (m_db)
        m_db->saveEvent(e);
}

void PaymentStore::record(const QString &type, const QJsonObject &object, const QJsonObject &previous,
                          const QString &requestId, const QString &idempotencyKey, qint64 visibleAtMs)
{
    StripeEvent e;
    e.id = m_ids.mint(QStringLiteral("evt_"));
    e.type = type;
    e.created = m_clock.nowSeconds();
    e.object = object;
    e.previousAttributes = previous;
    e.requestId = requestId;
    e.idempotencyKey = idempotencyKey;
    e.pendingWebhooks = m_webhooksPerEvent;
    e.visibleAtMs = visibleAtMs;
    e.seq = ++m_seq;
    m_eventIndex.insert(e.id, m_events.size());
    m_events.append(e);
    if (m_db)
        m_db->saveEvent(e);
    if (m_sink)
        m_sink(e);
}

void PaymentStore::clear()
{
    m_charges.clear();
    m_chargeIndex.clear();
    m_paymentIntentIndex.clear();
    m_refunds.clear();
    m_refundIndex.clear();
    m_events.clear();
    m_eventIndex.clear();
}

void PaymentStore::load(const QList<Charge> &charges, const QList<Refund> &refunds, const QList<StripeEvent> &events)
{
    clear();
    for (const Charge &c : charges) {
        m_chargeIndex.insert(c.id, m_charges.size());
        m_paymentIntentIndex.insert(c.paymentIntent, m_charges.size());
        m_charges.append(c);
        m_seq = std::max(m_seq, c.seq);
    }
    for (const Refund &r : refunds) {
        m_refundIndex.insert(r.id, m_refunds.size());
        m_refunds.append(r);
        m_seq = std::max(m_seq, r.seq);
    }
    for (const StripeEvent &e : events) {
        m_eventIndex.insert(e.id, m_events.size());
        m_events.append(e);
        m_seq = std::max(m_seq, e.seq);
    }
}

} // namespace cs::paysim
