#include "server/api/webhookhandler.h"

namespace cs {

namespace {

// What each receiver status answers (200 with an outcome, or a problem with its code).
struct Answer
{
    WebhookReceiver::Status status;
    int httpStatus;
    const char *outcome;     // for 200
    const char *problemCode; // for errors
    bool namesAction;        // whether the answer carries the action id
};

constexpr Answer kAnswers[] = {
    {WebhookReceiver::Status::Accepted, 200, "recorded", nullptr, true},
    {WebhookReceiver::Status::Duplicate, 200, "duplicate", nullptr, false},
    {WebhookReceiver::Status::Ignored, 200, "ignored", nullptr, false},
    {WebhookReceiver::Status::Unmatched, 200, "unmatched", nullptr, false},
    {WebhookReceiver::Status::BadSignature, 400, nullptr, "invalid_signature", true},
    {WebhookReceiver::Status::Malformed, 400, nullptr, "invalid_parameter", true},
};

} // namespace

WebhookResult toWebhookResult(const WebhookReceiver::Result &result)
{
    WebhookResult out;
    out.httpStatus = result.httpStatus;
    out.actionId = result.actionId;
    out.detail = result.message;
    for (const Answer &answer : kAnswers) {
        if (answer.status != result.status)
            continue;
        out.httpStatus = answer.httpStatus;
        out.outcome = answer.outcome ? QString::fromLatin1(answer.outcome) : QString();
        out.problemCode = answer.problemCode ? QString::fromLatin1(answer.problemCode) : QString();
        if (!answer.namesAction)
            out.actionId.clear();
        return out;
    }
    // Failed: the provider delivers again on 5xx; 503 tells it the ledger is only busy. The
    // ledger's own words (which name the database) stay in the log (WebhookReceiver logs them).
    const bool busy = result.httpStatus == 503;
    out.problemCode = busy ? QStringLiteral("unavailable") : QStringLiteral("internal");
    out.httpStatus = busy ? 503 : 500;
    out.detail = busy ? QStringLiteral("the ledger is busy, cannot be reached or cannot write; nothing was recorded: deliver"
                                       " the event again")
                      : QStringLiteral("an unexpected ledger failure; nothing was recorded: deliver the event again");
    return out;
}

WebhookHandler webhookHandlerFor(WebhookReceiver *receiver)
{
    return [receiver](const QByteArray &body, const QByteArray &signature) {
        return toWebhookResult(receiver->handle(signature, body));
    };
}

} // namespace cs
