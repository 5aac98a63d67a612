#include "webhookhandler.h"

namespace cs {

WebhookResult toWebhookResult(const WebhookReceiver::Result &result)
{
    WebhookResult out;
    out.httpStatus = result.httpStatus;
    out.actionId = result.actionId;
    out.detail = result.message;
    switch (result.status) {
    case WebhookReceiver::Status::Accepted:
        out.httpStatus = 200;
        out.outcome = QStringLiteral("recorded");
        break;
    case WebhookReceiver::Status::Duplicate:
        out.httpStatus = 200;
        out.outcome = QStringLiteral("duplicate");
        out.actionId.clear();
        break;
    case WebhookReceiver::Status::Ignored:
        out.httpStatus = 200;
        out.outcome = QStringLiteral("ignored");
        out.actionId.clear();
        break;
    case WebhookReceiver::Status::BadSignature:
        out.httpStatus = 400;
        out.problemCode = QStringLiteral("invalid_signature");
        break;
    case WebhookReceiver::Status::Malformed:
        out.httpStatus = 400;
        out.problemCode = QStringLiteral("invalid_parameter");
        break;
    case WebhookReceiver::Status::Failed:
        // The provider delivers again on 5xx; 503 tells it the ledger is only busy.
        out.problemCode = result.httpStatus == 503 ? QStringLiteral("unavailable") : QStringLiteral("internal");
        out.httpStatus = result.httpStatus == 503 ? 503 : 500;
        break;
    }
    return out;
}

WebhookHandler webhookHandlerFor(WebhookReceiver *receiver)
{
    return [receiver](const QByteArray &body, const QByteArray &signature) {
        return toWebhookResult(receiver->handle(signature, body));
    };
}

} // namespace cs
