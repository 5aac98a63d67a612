#include "simulator/charge.h"

#include <QJsonArray>

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

QString Charge::brand() const
{
    return cardBrand.isEmpty() ? brandOf(source) : cardBrand;
}

QString Charge::last4() const
{
    return cardLast4.isEmpty() ? last4Of(source) : cardLast4;
}

// Stripe's Charge object as docs.stripe.com/api/charges/object shows it (read 2026-12): amount,
// amount_captured, amount_refunded, created, disputed, payment_intent, payment_method_details
// {type, card {brand, last4, …}}. `refunds` is not part of it unless expanded (StripeApi adds it).
QJsonObject Charge::toApiJson() const
{
    const QJsonObject card{{QStringLiteral("brand"), brand()},
                           {QStringLiteral("last4"), last4()},
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
        {QStringLiteral("disputed"), disputed},
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

// A PaymentIntent as docs.stripe.com/api/payment_intents/object lists its attributes (read
// 2026-12): paysim's charges are created and captured at once, so every intent has succeeded,
// received its whole amount and has this charge as its latest_charge.
QJsonObject Charge::toPaymentIntentJson() const
{
    return QJsonObject{
        {QStringLiteral("id"), paymentIntent},
        {QStringLiteral("object"), QStringLiteral("payment_intent")},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("amount_capturable"), 0},
        {QStringLiteral("amount_received"), amount},
        {QStringLiteral("capture_method"), QStringLiteral("automatic")},
        {QStringLiteral("confirmation_method"), QStringLiteral("automatic")},
        {QStringLiteral("created"), created},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("customer"), QJsonValue::Null},
        {QStringLiteral("description"), description.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(description)},
        {QStringLiteral("last_payment_error"), QJsonValue::Null},
        {QStringLiteral("latest_charge"), id},
        {QStringLiteral("livemode"), false},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("payment_method"), QJsonValue::Null},
        {QStringLiteral("payment_method_types"), QJsonArray{QStringLiteral("card")}},
        {QStringLiteral("status"), QStringLiteral("succeeded")},
    };
}

QJsonObject Charge::toStorageJson() const
{
    QJsonObject o = toApiJson();
    o.insert(QStringLiteral("_source"), source);
    o.insert(QStringLiteral("_card_brand"), cardBrand);
    o.insert(QStringLiteral("_card_last4"), cardLast4);
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
    c.cardBrand = json.value(QStringLiteral("_card_brand")).toString();
    c.cardLast4 = json.value(QStringLiteral("_card_last4")).toString();
    c.disputed = json.value(QStringLiteral("disputed")).toBool();
    c.metadata = json.value(QStringLiteral("metadata")).toObject();
    c.seq = json.value(QStringLiteral("_seq")).toInteger();
    return c;
}

} // namespace cs::paysim
