#pragma once

#include "server/webhookreceiver.h"

#include <QByteArray>
#include <QString>

#include <functional>

namespace cs {

// What the webhook receiver made of one delivery to POST /webhooks/provider.
struct WebhookResult
{
    int httpStatus = 200;   // 200, or the problem's status (400, 500, 503)
    QString outcome;        // for 200: "recorded", "duplicate" or "ignored"
    QString actionId;       // for "recorded": the action the event was recorded on
    QString problemCode;    // for errors: invalid_signature, malformed_json, invalid_parameter, internal, unavailable
    QString detail;         // for errors, for a human
};

// Verifies the Stripe-Signature of the raw body and feeds the event to the reconciler. Called on a
// worker thread (it may write the ledger), never on the HTTP server's thread; must be thread-safe.
using WebhookHandler = std::function<WebhookResult(const QByteArray &body, const QByteArray &signature)>;

// The one mapping from what the receiver did to what the endpoint answers: 200 recorded /
// duplicate / ignored, 400 invalid_signature / invalid_parameter, 503 unavailable or 500 internal.
WebhookResult toWebhookResult(const WebhookReceiver::Result &result);
// A handler that feeds every delivery to `receiver` (which must outlive it).
WebhookHandler webhookHandlerFor(WebhookReceiver *receiver);

} // namespace cs
