#pragma once

#include <QByteArray>

namespace cs::paysim {

// Stripe's webhook signature scheme: header `Stripe-Signature: t=<unix>,v1=<hex>` where the hex is
// HMAC-SHA256 keyed with the endpoint secret (the whole "whsec_…" string) over "<t>.<payload>".
class WebhookSignature
{
public:
    static QByteArray sign(const QByteArray &secret, qint64 timestamp, const QByteArray &payload);
    static QByteArray header(const QByteArray &secret, qint64 timestamp, const QByteArray &payload);
};

} // namespace cs::paysim
