#include "server/attemptpolicy.h"

#include "models/evidencerule.h"
#include "models/refundstatus.h"

namespace cs {

namespace {

QString answerText(const RefundOutcome &outcome)
{
    if (outcome.httpStatus == 0)
        return outcome.errorExcerpt.isEmpty() ? QStringLiteral("no answer") : outcome.errorExcerpt.left(200);
    QString text = QStringLiteral("HTTP %1").arg(outcome.httpStatus);
    if (!outcome.errorCode.isEmpty())
        text += QLatin1Char(' ') + outcome.errorCode;
    else if (!outcome.errorType.isEmpty())
        text += QLatin1Char(' ') + outcome.errorType;
    return text;
}

} // namespace

ExecutionStore::AttemptResult AttemptPolicy::attemptResult(const RefundOutcome &outcome)
{
    ExecutionStore::AttemptResult result;
    result.outcome = outcome.outcome == Attempt::Outcome::Open ? Attempt::Outcome::Unknown : outcome.outcome;
    result.httpStatus = outcome.httpStatus;
    result.errorCode = outcome.errorCode;
    result.providerRequestId = outcome.providerRequestId;
    result.providerObjectId = outcome.providerObjectId;
    result.replayed = outcome.replayed;
    result.errorExcerpt = outcome.errorExcerpt;
    result.refundStatus = outcome.refundStatus;
    return result;
}

AttemptPolicy::Decision AttemptPolicy::decide(const ActionRecord &action, const RefundOutcome &outcome,
                                              ActionState current, const QList<RefundSighting> &inHand)
{
    Decision d;
    switch (outcome.outcome) {
    case Attempt::Outcome::Succeeded: {
        // The answer is evidence like any other, weighed with what is in hand (issue 33): the
        // one evidence rule decides.
        RefundSighting answer;
        answer.refundId = outcome.providerObjectId;
        answer.status = outcome.refundStatus;
        answer.amount = outcome.amount;
        answer.currency = outcome.currency;
        answer.source = outcome.replayed ? QStringLiteral("the answer, replayed under the same key")
                                         : QStringLiteral("the answer");
        const EvidenceFinding finding = judgeEvidence(action, inHand + QList{answer});
        if (finding.verdict == EvidenceVerdict::Committed) {
            d.trigger = Trigger::ProviderSucceeded;
            d.reason = QStringLiteral("provider answered HTTP %1%2: refund %3 (%4)")
                           .arg(outcome.httpStatus)
                           .arg(outcome.replayed ? QStringLiteral(", replayed under the same key") : QString(),
                                outcome.providerObjectId, outcome.refundStatus);
        } else {
            d.trigger = Trigger::StopForReview;
            d.reason = finding.verdict == EvidenceVerdict::Unsettled
                ? finding.reason
                : QStringLiteral("contradictory answer: ") + finding.reason;
        }
        return d;
    }
    case Attempt::Outcome::Rejected:
        if (outcome.httpStatus == 401 || outcome.httpStatus == 403) {
            d.trigger = Trigger::StopForReview;
            d.reason = QStringLiteral("the provider refused our credentials (%1): this request was not executed;"
                                      " fix the key, then decide")
                           .arg(answerText(outcome));
        } else {
            d.trigger = Trigger::ProviderRejected;
            d.reason = QStringLiteral("provider rejected the refund definitively (%1)").arg(answerText(outcome));
        }
        return d;
    case Attempt::Outcome::IdempotencyMismatch:
        d.trigger = Trigger::StopForReview;
        d.reason = QStringLiteral("provider answered idempotency_error: the key %1 was used for a different request."
                                  " Execution stopped; no new key is minted (invariant 5)")
                       .arg(action.idempotencyKey);
        return d;
    case Attempt::Outcome::RateLimited:
        d.next = Next::WaitAndRetry;
        d.reason = QStringLiteral("rate limited (%1): the same key again after a wait").arg(answerText(outcome));
        return d;
    case Attempt::Outcome::KeyInUse:
        d.next = Next::WaitAndRetry;
        d.reason = QStringLiteral("key in use (%1): a request with this key is still in flight; the same key again"
                                  " after a wait")
                       .arg(answerText(outcome));
        return d;
    case Attempt::Outcome::Open:
    case Attempt::Outcome::Unknown:
        break;
    }
    d.next = Next::Reconcile;
    if (outcome.errorCode == u"charge_already_refunded") {
        d.reason = QStringLiteral("provider answered charge_already_refunded but this action's own refund is not known:"
                                  " ambiguous (an earlier attempt under a pruned key, or a refund made elsewhere)");
    } else {
        d.reason = QStringLiteral("no definitive answer (%1): the request may have reached the provider")
                       .arg(answerText(outcome));
    }
    if (current == ActionState::Executing)
        d.trigger = Trigger::OutcomeUnknown;
    return d;
}

} // namespace cs
