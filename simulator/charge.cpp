#include "simulator/charge.h"

#include <QCryptographicHash>
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

QString Charge::paymentMethodId() const
{
    return QStringLiteral("pm_") + id.mid(3);
}

namespace {

const QJsonValue Null(QJsonValue::Null);

QJsonValue orNull(const QString &s)
{
    return s.isEmpty() ? Null : QJsonValue(s);
}

// Stripe's card object as a legacy `source` (the token's card); brand in its display spelling.
QString displayBrand(const QString &brand)
{
    if (brand == QLatin1String("visa"))
        return QStringLiteral("Visa");
    if (brand == QLatin1String("mastercard"))
        return QStringLiteral("MasterCard");
    if (brand == QLatin1String("amex"))
        return QStringLiteral("American Express");
    return brand.isEmpty() ? QString() : QString(brand.at(0).toUpper() + brand.mid(1));
}

QJsonObject emptyAddress()
{
    return QJsonObject{{QStringLiteral("city"), Null},        {QStringLiteral("country"), Null},
                       {QStringLiteral("line1"), Null},       {QStringLiteral("line2"), Null},
                       {QStringLiteral("postal_code"), Null}, {QStringLiteral("state"), Null}};
}

} // namespace

// Stripe's Charge object with every top-level property of Stripe's published fixture
// (stripe/openapi openapi/fixtures3.json; tests/data/stripe-fixtures has the copy and the spec's
// nullable list): a card payment captured at once and authorized by the network. Connect, Radar,
// customers, shipping and balance transactions are not simulated, so their properties are null
// (all nullable in the spec). `refunds` is null unless expanded (StripeApi puts the list there).
QJsonObject Charge::toApiJson() const
{
    const QJsonObject checks{{QStringLiteral("address_line1_check"), Null},
                             {QStringLiteral("address_postal_code_check"), Null},
                             {QStringLiteral("cvc_check"), QStringLiteral("pass")}};
    const QJsonObject card{{QStringLiteral("brand"), brand()},
                           {QStringLiteral("checks"), checks},
                           {QStringLiteral("country"), QStringLiteral("US")},
                           {QStringLiteral("exp_month"), 12},
                           {QStringLiteral("exp_year"), 2034},
                           {QStringLiteral("funding"), QStringLiteral("credit")},
                           {QStringLiteral("last4"), last4()},
                           {QStringLiteral("network"), brand()},
                           {QStringLiteral("three_d_secure"), Null},
                           {QStringLiteral("wallet"), Null}};
    const QJsonObject source{{QStringLiteral("id"), QString(QStringLiteral("card_") + id.mid(3))},
                             {QStringLiteral("object"), QStringLiteral("card")},
                             {QStringLiteral("brand"), displayBrand(brand())},
                             {QStringLiteral("country"), QStringLiteral("US")},
                             {QStringLiteral("customer"), Null},
                             {QStringLiteral("cvc_check"), QStringLiteral("pass")},
                             {QStringLiteral("exp_month"), 12},
                             {QStringLiteral("exp_year"), 2034},
                             {QStringLiteral("funding"), QStringLiteral("credit")},
                             {QStringLiteral("last4"), last4()},
                             {QStringLiteral("metadata"), QJsonObject()}};
    // A successful card payment's outcome, as Stripe reports it when the issuer approves.
    const QJsonObject outcome{{QStringLiteral("advice_code"), Null},
                              {QStringLiteral("network_advice_code"), Null},
                              {QStringLiteral("network_decline_code"), Null},
                              {QStringLiteral("network_status"), QStringLiteral("approved_by_network")},
                              {QStringLiteral("reason"), Null},
                              {QStringLiteral("risk_level"), QStringLiteral("normal")},
                              {QStringLiteral("seller_message"), QStringLiteral("Payment complete.")},
                              {QStringLiteral("type"), QStringLiteral("authorized")}};
    const QJsonObject billingDetails{{QStringLiteral("address"), emptyAddress()},
                                     {QStringLiteral("email"), Null},
                                     {QStringLiteral("name"), Null},
                                     {QStringLiteral("phone"), Null},
                                     {QStringLiteral("tax_id"), Null}};
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("object"), QStringLiteral("charge")},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("amount_captured"), amount},
        {QStringLiteral("amount_refunded"), amountRefunded},
        {QStringLiteral("application"), Null},
        {QStringLiteral("application_fee"), Null},
        {QStringLiteral("application_fee_amount"), Null},
        {QStringLiteral("balance_transaction"), Null},
        {QStringLiteral("billing_details"), billingDetails},
        {QStringLiteral("calculated_statement_descriptor"), QStringLiteral("PAYSIM")},
        {QStringLiteral("captured"), true},
        {QStringLiteral("created"), created},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("customer"), Null},
        {QStringLiteral("description"), orNull(description)},
        {QStringLiteral("disputed"), disputed},
        {QStringLiteral("failure_balance_transaction"), Null},
        {QStringLiteral("failure_code"), Null},
        {QStringLiteral("failure_message"), Null},
        {QStringLiteral("fraud_details"), QJsonObject()},
        {QStringLiteral("livemode"), false},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("on_behalf_of"), Null},
        {QStringLiteral("outcome"), outcome},
        {QStringLiteral("paid"), true},
        {QStringLiteral("payment_intent"), paymentIntent},
        {QStringLiteral("payment_method"), paymentMethodId()},
        {QStringLiteral("payment_method_details"),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("card")}, {QStringLiteral("card"), card}}},
        {QStringLiteral("receipt_email"), Null},
        {QStringLiteral("receipt_number"), Null},
        // A receipt paysim does not serve: the reserved .invalid domain says so.
        {QStringLiteral("receipt_url"), QString(QStringLiteral("https://paysim.invalid/receipts/") + id)},
        {QStringLiteral("refunded"), refunded()},
        {QStringLiteral("refunds"), Null},
        {QStringLiteral("review"), Null},
        {QStringLiteral("shipping"), Null},
        {QStringLiteral("source"), source},
        {QStringLiteral("source_transfer"), Null},
        {QStringLiteral("statement_descriptor"), Null},
        {QStringLiteral("statement_descriptor_suffix"), Null},
        {QStringLiteral("status"), QStringLiteral("succeeded")},
        {QStringLiteral("transfer_data"), Null},
        {QStringLiteral("transfer_group"), Null},
    };
}

// A PaymentIntent with every top-level property of Stripe's fixture: paysim's charges are created
// and captured at once, so every intent has succeeded, received its whole amount, paid with the
// charge's card and has this charge as its latest_charge.
QJsonObject Charge::toPaymentIntentJson() const
{
    // Stripe's client secrets are "<pi id>_secret_<random>"; paysim derives the tail from the id.
    const QString secretTail = QString::fromLatin1(
        QCryptographicHash::hash(paymentIntent.toUtf8(), QCryptographicHash::Sha256).toHex().left(24));
    const QJsonObject cardOptions{{QStringLiteral("installments"), Null},
                                  {QStringLiteral("mandate_options"), Null},
                                  {QStringLiteral("network"), Null},
                                  {QStringLiteral("request_three_d_secure"), QStringLiteral("automatic")}};
    return QJsonObject{
        {QStringLiteral("id"), paymentIntent},
        {QStringLiteral("object"), QStringLiteral("payment_intent")},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("amount_capturable"), 0},
        {QStringLiteral("amount_details"), QJsonObject{{QStringLiteral("tip"), QJsonObject()}}},
        {QStringLiteral("amount_received"), amount},
        {QStringLiteral("application"), Null},
        {QStringLiteral("application_fee_amount"), Null},
        {QStringLiteral("automatic_payment_methods"), Null},
        {QStringLiteral("canceled_at"), Null},
        {QStringLiteral("cancellation_reason"), Null},
        {QStringLiteral("capture_method"), QStringLiteral("automatic")},
        {QStringLiteral("client_secret"), QString(paymentIntent + QStringLiteral("_secret_") + secretTail)},
        {QStringLiteral("confirmation_method"), QStringLiteral("automatic")},
        {QStringLiteral("created"), created},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("customer"), Null},
        {QStringLiteral("customer_account"), Null},
        {QStringLiteral("description"), orNull(description)},
        {QStringLiteral("excluded_payment_method_types"), Null},
        {QStringLiteral("last_payment_error"), Null},
        {QStringLiteral("latest_charge"), id},
        {QStringLiteral("livemode"), false},
        {QStringLiteral("managed_payments"), Null},
        {QStringLiteral("metadata"), metadata},
        {QStringLiteral("next_action"), Null},
        {QStringLiteral("on_behalf_of"), Null},
        {QStringLiteral("payment_method"), paymentMethodId()},
        {QStringLiteral("payment_method_configuration_details"), Null},
        {QStringLiteral("payment_method_options"), QJsonObject{{QStringLiteral("card"), cardOptions}}},
        {QStringLiteral("payment_method_types"), QJsonArray{QStringLiteral("card")}},
        {QStringLiteral("processing"), Null},
        {QStringLiteral("receipt_email"), Null},
        {QStringLiteral("review"), Null},
        {QStringLiteral("setup_future_usage"), Null},
        {QStringLiteral("shipping"), Null},
        {QStringLiteral("source"), Null},
        {QStringLiteral("statement_descriptor"), Null},
        {QStringLiteral("statement_descriptor_suffix"), Null},
        {QStringLiteral("status"), QStringLiteral("succeeded")},
        {QStringLiteral("transfer_data"), Null},
        {QStringLiteral("transfer_group"), Null},
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
