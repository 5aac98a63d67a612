#pragma once

#include <QJsonObject>
#include <QString>

namespace cs::paysim {

// An event object of GET /v1/events and of webhooks: refund.created, refund.updated,
// charge.refunded, charge.succeeded.
struct StripeEvent
{
    static constexpr const char *ApiVersion = "2024-06-20";

    QString id; // evt_…
    QString type;
    qint64 created = 0; // unix seconds, simulator clock
    QJsonObject object; // data.object: a snapshot at the time of the event
    QJsonObject previousAttributes;
    QString requestId;
    QString idempotencyKey;
    int pendingWebhooks = 0;
    qint64 visibleAtMs = 0; // hidden from GET /v1/events while its refund is (lookup lag)
    qint64 seq = 0;

    QJsonObject toApiJson() const;
    QJsonObject toStorageJson() const;
    static StripeEvent fromStorageJson(const QJsonObject &json);
};

} // namespace cs::paysim
