#include "simulator/stripeevent.h"

namespace cs::paysim {

QJsonObject StripeEvent::toApiJson() const
{
    QJsonObject data{{QStringLiteral("object"), object}};
    if (!previousAttributes.isEmpty())
        data.insert(QStringLiteral("previous_attributes"), previousAttributes);
    const QJsonObject request{
        {QStringLiteral("id"), requestId.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(requestId)},
        {QStringLiteral("idempotency_key"),
         idempotencyKey.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(idempotencyKey)}};
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("object"), QStringLiteral("event")},
        {QStringLiteral("api_version"), QLatin1String(ApiVersion)},
        {QStringLiteral("created"), created},
        {QStringLiteral("data"), data},
        {QStringLiteral("livemode"), false},
        {QStringLiteral("pending_webhooks"), pendingWebhooks},
        {QStringLiteral("request"), request},
        {QStringLiteral("type"), type},
    };
}

QJsonObject StripeEvent::toStorageJson() const
{
    QJsonObject o = toApiJson();
    o.insert(QStringLiteral("_visible_at_ms"), visibleAtMs);
    o.insert(QStringLiteral("_seq"), seq);
    return o;
}

StripeEvent StripeEvent::fromStorageJson(const QJsonObject &json)
{
    StripeEvent e;
    e.id = json.value(QStringLiteral("id")).toString();
    e.type = json.value(QStringLiteral("type")).toString();
    e.created = json.value(QStringLiteral("created")).toInteger();
    const QJsonObject data = json.value(QStringLiteral("data")).toObject();
    e.object = data.value(QStringLiteral("object")).toObject();
    e.previousAttributes = data.value(QStringLiteral("previous_attributes")).toObject();
    const QJsonObject request = json.value(QStringLiteral("request")).toObject();
    e.requestId = request.value(QStringLiteral("id")).toString();
    e.idempotencyKey = request.value(QStringLiteral("idempotency_key")).toString();
    e.pendingWebhooks = json.value(QStringLiteral("pending_webhooks")).toInt();
    e.visibleAtMs = json.value(QStringLiteral("_visible_at_ms")).toInteger();
    e.seq = json.value(QStringLiteral("_seq")).toInteger();
    return e;
}

} // namespace cs::paysim
