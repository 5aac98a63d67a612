#pragma once

#include <QJsonObject>
#include <QString>

namespace cs::paysim {

// A captured card charge. Amounts are integer minor units of `currency` (lowercase ISO 4217).
struct Charge
{
    QString id;            // ch_…
    QString paymentIntent; // pi_… created with the charge, so refunds can target either
    qint64 amount = 0;
    qint64 amountRefunded = 0;
    QString currency;
    qint64 created = 0; // unix seconds, simulator clock
    QString description;
    QString source; // tok_visa, …
    QJsonObject metadata;
    QString cardBrand; // payment_method_details.card.brand; empty: the source token's (tok_visa: visa)
    QString cardLast4; // payment_method_details.card.last4; empty: the source token's (tok_visa: 4242)
    bool disputed = false; // set by POST /_sim/charges/{id}/dispute or on seeding; never cleared
    qint64 seq = 0; // creation order

    bool refunded() const { return amountRefunded >= amount; }
    qint64 refundable() const { return amount - amountRefunded; }

    QString brand() const;
    QString last4() const;
    // The charge's PaymentMethod (pm_…), derived from its id: the card the refunds go back to.
    QString paymentMethodId() const;

    QJsonObject toApiJson() const;     // Stripe's charge object (`refunds` null: not expanded)
    QJsonObject toPaymentIntentJson() const; // the succeeded PaymentIntent paysim keeps for it
    QJsonObject toStorageJson() const; // everything, for the SQLite file
    static Charge fromStorageJson(const QJsonObject &json);
};

} // namespace cs::paysim
