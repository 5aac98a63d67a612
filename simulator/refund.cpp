#include "simulator/refund.h"

namespace cs::paysim {

namespace {

QJsonValue orNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

} // namespace

bool Refund::holdsFunds() const
{
    return status != QLatin1String("failed") && status != QLatin1String("canceled");
}

bool Refund::isValidStatus(const QString &s)
{
    return s == QLatin1String("pending") || s == QLatin1String("requires_action") || s == QLatin1String("succeeded")
        || s == QLatin1String("failed") || s == QLatin1String("canceled");
}

QString Refund::effectiveFailureReason() const
{
    if (status != QLatin1String("failed"))
        return {};
    return failureReason.isEmpty() ? defaultFailureReason() : failureReason;
}

QStringList Refund::failureReasons()
{
    return {QStringLiteral("lost_or_stolen_card"), QStringLiteral("expired_or_canceled_card"),
            QStringLiteral("charge_for_pending_refund_disputed"), QStringLiteral("insufficient_funds"),
            QStringLiteral("declined"), QStringLiteral("merchant_request"), QStringLiteral("unknown")};
}

bool Refund::isValidFailureReason(const QString &reason)
{
    return failureReasons().contains(reason);
}

// Every top-level property of Stripe's refund fixture (tests/data/stripe-fixtures), and no
// `livemode`: Stripe's refund object has none. The spec has
// failure_reason and pending_reason as non-nullable and optional: they appear only while they
// apply (a failed, a pending refund). destination_details is a card refund's: its card.type is
// "pending" while the refund is, "refund" otherwise; reference_status follows the status.
QJsonObject Refund::toApiJson() const
{
    const bool pending = status == QLatin1String("pending") || status == QLatin1String("requires_action");
    QString referenceStatus = QStringLiteral("available");
    if (pending)
        referenceStatus = QStringLiteral("pending");
    else if (!holdsFunds())
        referenceStatus = QStringLiteral("unavailable");
    const QJsonObject destination{
        {QStringLiteral("type"), QStringLiteral("card")},
        {QStringLiteral("card"),
         QJsonObject{{QStringLiteral("reference_status"), referenceStatus},
                     {QStringLiteral("type"), pending ? QStringLiteral("pending") : QStringLiteral("refund")}}}};
    QJsonObject o{
        {QStringLiteral("id"), id},
        {QStringLiteral("object"), QStringLiteral("refund")},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("balance_transaction"), QJsonValue::Null},
        {QStringLiteral("charge"), charge},
        {QStringLiteral("created"), created},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("customer"), QJsonValue::Null},
        {QStringLiteral("customer_account"), QJsonValue::Null},
        {QStringLiteral("destination_details"), destination},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("payment_intent"), orNull(paymentIntent)},
        {QStringLiteral("payment_method"), orNull(paymentMethod)},
        {QStringLiteral("reason"), orNull(reason)},
        {QStringLiteral("receipt_number"), QJsonValue::Null},
        {QStringLiteral("source_transfer_reversal"), QJsonValue::Null},
        {QStringLiteral("status"), status},
        {QStringLiteral("transfer_reversal"), QJsonValue::Null},
    };
    if (status == QLatin1String("failed"))
        o.insert(QStringLiteral("failure_reason"), effectiveFailureReason());
    if (status == QLatin1String("pending"))
        o.insert(QStringLiteral("pending_reason"), QStringLiteral("processing"));
    return o;
}

QJsonObject Refund::toOracleJson() const
{
    QJsonObject o{
        {QStringLiteral("id"), id},
        {QStringLiteral("charge"), charge},
        {QStringLiteral("payment_intent"), orNull(paymentIntent)},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("idempotency_key"), orNull(idempotencyKey)},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("created"), created},
        {QStringLiteral("status"), status},
        {QStringLiteral("failure_reason"), orNull(effectiveFailureReason())},
        {QStringLiteral("request_id"), requestId},
        {QStringLiteral("visible_at_ms"), visibleAtMs},
    };
    if (settleAtMs > 0) {
        o.insert(QStringLiteral("settles_at_ms"), settleAtMs);
        o.insert(QStringLiteral("settles_to"), settleTo);
    }
    return o;
}

QJsonObject Refund::toStorageJson() const
{
    QJsonObject o = toApiJson();
    o.insert(QStringLiteral("_idempotency_key"), idempotencyKey);
    o.insert(QStringLiteral("_request_id"), requestId);
    o.insert(QStringLiteral("_visible_at_ms"), visibleAtMs);
    o.insert(QStringLiteral("_settle_at_ms"), settleAtMs);
    o.insert(QStringLiteral("_settle_to"), settleTo);
    o.insert(QStringLiteral("_settle_failure_reason"), settleFailureReason);
    o.insert(QStringLiteral("_seq"), seq);
    return o;
}

// Rows written before a field existed lack it: the defaults (no failure, no settlement, the
// charge's derived payment method) are what those refunds were.
Refund Refund::fromStorageJson(const QJsonObject &json)
{
    Refund r;
    r.id = json.value(QStringLiteral("id")).toString();
    r.charge = json.value(QStringLiteral("charge")).toString();
    r.paymentIntent = json.value(QStringLiteral("payment_intent")).toString();
    r.amount = json.value(QStringLiteral("amount")).toInteger();
    r.currency = json.value(QStringLiteral("currency")).toString();
    r.created = json.value(QStringLiteral("created")).toInteger();
    r.reason = json.value(QStringLiteral("reason")).toString();
    r.status = json.value(QStringLiteral("status")).toString();
    r.failureReason = json.value(QStringLiteral("failure_reason")).toString();
    r.paymentMethod = json.value(QStringLiteral("payment_method")).toString();
    if (r.paymentMethod.isEmpty() && r.charge.startsWith(QLatin1String("ch_")))
        r.paymentMethod = QStringLiteral("pm_") + r.charge.mid(3);
    r.metadata = json.value(QStringLiteral("metadata")).toObject();
    r.idempotencyKey = json.value(QStringLiteral("_idempotency_key")).toString();
    r.requestId = json.value(QStringLiteral("_request_id")).toString();
    r.visibleAtMs = json.value(QStringLiteral("_visible_at_ms")).toInteger();
    r.settleAtMs = json.value(QStringLiteral("_settle_at_ms")).toInteger();
    r.settleTo = json.value(QStringLiteral("_settle_to")).toString();
    r.settleFailureReason = json.value(QStringLiteral("_settle_failure_reason")).toString();
    r.seq = json.value(QStringLiteral("_seq")).toInteger();
    return r;
}

} // namespace cs::paysim
