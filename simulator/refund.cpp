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

QJsonObject Refund::toApiJson() const
{
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("object"), QStringLiteral("refund")},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("balance_transaction"), QJsonValue::Null},
        {QStringLiteral("charge"), charge},
        {QStringLiteral("created"), created},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("livemode"), false},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("payment_intent"), orNull(paymentIntent)},
        {QStringLiteral("reason"), orNull(reason)},
        {QStringLiteral("receipt_number"), QJsonValue::Null},
        {QStringLiteral("source_transfer_reversal"), QJsonValue::Null},
        {QStringLiteral("status"), status},
        {QStringLiteral("transfer_reversal"), QJsonValue::Null},
    };
}

QJsonObject Refund::toOracleJson() const
{
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("charge"), charge},
        {QStringLiteral("payment_intent"), orNull(paymentIntent)},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("idempotency_key"), orNull(idempotencyKey)},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("created"), created},
        {QStringLiteral("status"), status},
        {QStringLiteral("request_id"), requestId},
        {QStringLiteral("visible_at_ms"), visibleAtMs},
    };
}

QJsonObject Refund::toStorageJson() const
{
    QJsonObject o = toApiJson();
    o.insert(QStringLiteral("_idempotency_key"), idempotencyKey);
    o.insert(QStringLiteral("_request_id"), requestId);
    o.insert(QStringLiteral("_visible_at_ms"), visibleAtMs);
    o.insert(QStringLiteral("_seq"), seq);
    return o;
}

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
    r.metadata = json.value(QStringLiteral("metadata")).toObject();
    r.idempotencyKey = json.value(QStringLiteral("_idempotency_key")).toString();
    r.requestId = json.value(QStringLiteral("_request_id")).toString();
    r.visibleAtMs = json.value(QStringLiteral("_visible_at_ms")).toInteger();
    r.seq = json.value(QStringLiteral("_seq")).toInteger();
    return r;
}

} // namespace cs::paysim
