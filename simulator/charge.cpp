#include "simulator/charge.h"

namespace cs::paysim {

namespace {

QString brandOf(const QString &source)
{
    if (source == QLatin1String("tok_mastercard"))
        return QStringLiteral("mastercard");
    if (source == QLatin1String("tok_amex"))
        return QStringLiteral("amex");
    return QStringLiteral("visa");
}

QString last4Of(const QString &source)
{
    if (source == QLatin1String("tok_mastercard"))
        return QStringLiteral("4444");
    if (source == QLatin1String("tok_amex"))
        return QStringLiteral("8431");
    return QStringLiteral("4242");
}

} // namespace

QJsonObject Charge::toApiJson() const
{
    const QJsonObject card{{QStringLiteral("brand"), brandOf(source)},
                           {QStringLiteral("last4"), last4Of(source)},
                           {QStringLiteral("exp_month"), 12},
                           {QStringLiteral("exp_year"), 2034},
                           {QStringLiteral("funding"), QStringLiteral("credit")}};
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("object"), QStringLiteral("charge")},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("amount_captured"), amount},
        {QStringLiteral("amount_refunded"), amountRefunded},
        {QStringLiteral("balance_transaction"), QJsonValue::Null},
        {QStringLiteral("captured"), true},
        {QStringLiteral("created"), created},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("description"), description.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(description)},
        {QStringLiteral("failure_code"), QJsonValue::Null},
        {QStringLiteral("failure_message"), QJsonValue::Null},
        {QStringLiteral("livemode"), false},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("paid"), true},
        {QStringLiteral("payment_intent"), paymentIntent},
        {QStringLiteral("payment_method_details"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("card")}, {QStringLiteral("card"), card}}},
        {QStringLiteral("refunded"), refunded()},
        {QStringLiteral("status"), QStringLiteral("succeeded")},
    };
}

QJsonObject Charge::toStorageJson() const
{
    QJsonObject o = toApiJson();
    o.insert(QStringLiteral("_source"), source);
    o.insert(QStringLiteral("_seq"), seq);
    return o;
}

Charge Charge::fromStorageJson(const QJsonObject &json)
{
    Charge c;
    c.id = json.value(QStringLiteral("id")).toString();
    c.paymentIntent = json.value(QStringLiteral("payment_intent")).toString();
    c.amount = json.value(QStringLiteral("amount")).toInteger();
    c.amountRefunded = json.value(QStringLiteral("amount_refunded")).toInteger();
    c.currency = json.value(QStringLiteral("currency")).toString();
    c.created = json.value(QStringLiteral("created")).toInteger();
    c.description = json.value(QStringLiteral("description")).toString();
    c.source = json.value(QStringLiteral("_source")).toString();
    c.metadata = json.value(QStringLiteral("metadata")).toObject();
    c.seq = json.value(QStringLiteral("_seq")).toInteger();
    return c;
}

} // namespace cs::paysim
