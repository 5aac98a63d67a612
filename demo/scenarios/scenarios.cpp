#include "demo/scenarios/scenarios.h"

#include "demo/scenario.h"

namespace cs::demo {

QList<ScenarioInfo> scenarioCatalogue()
{
    return {
        {1, QStringLiteral("retry-refunded-twice"), QStringLiteral("The retry that refunded twice"),
         QStringLiteral("The provider commits an $89 refund but the response is lost. A naive agent retries and refunds twice; "
                        "Countersign records CONFIRMATION_UNKNOWN, looks it up, and completes with one refund.")},
        {2, QStringLiteral("same-key-changed-amount"), QStringLiteral("Same key, changed amount"),
         QStringLiteral("$40 is in flight when the agent resumes with $45 under the same reference: 409, REQUIRES_REVIEW with "
                        "the diff; the supervisor reconciles the $40 and proposes a $5 follow-up with its own approval and key.")},
        {3, QStringLiteral("key-reused"), QStringLiteral("Provider says the key was reused"),
         QStringLiteral("The provider answers idempotency_error: execution stops in REQUIRES_REVIEW, no new key is minted.")},
        {4, QStringLiteral("two-workers"), QStringLiteral("Two workers, one refund"),
         QStringLiteral("Two countersignd processes with two workers each execute from one ledger: every action is sent once.")},
        {5, QStringLiteral("crash-mid-flight"), QStringLiteral("Crash mid-flight"),
         QStringLiteral("The backend is killed after sending; after a restart the action is honestly unknown, then reconciled "
                        "to COMPLETED with one refund.")},
        {6, QStringLiteral("outage-rate-limit"), QStringLiteral("Provider outage and rate limiting"),
         QStringLiteral("429s and 503s: backoff and retries with the same key; one refund.")},
        {7, QStringLiteral("key-window-expired"), QStringLiteral("Key window expired"),
         QStringLiteral("The outcome stays unknown past the provider's key window: no blind retry; lookup and human review.")},
        {8, QStringLiteral("two-agents-one-charge"), QStringLiteral("Two agents, one charge"),
         QStringLiteral("Two agents each propose 60% of one $99 charge: the second is refused at the proposal with the "
                        "charge's budget (captured − refunded − held in Countersign); the first is approved and sent.")},
        {9, QStringLiteral("mcp-lost-answer"), QStringLiteral("An agent on MCP retries after a lost answer"),
         QStringLiteral("An LLM agent on MCP loses propose_refund's answer; as the server's instructions say, it calls again "
                        "with the same client_reference and gets the same action, then waits for the decision: one refund.")},
        {10, QStringLiteral("refund-failed-thursday"), QStringLiteral("The refund that failed on Thursday"),
         QStringLiteral("A $120 refund is approved on Monday and accepted pending: COMPLETED, the money not yet there. On "
                        "Thursday it fails (card lost or stolen) and refund.failed arrives: the supervisor's Refund failed "
                        "queue shows it, nothing is resent; the follow-up for the whole amount gets its own approval and "
                        "key and succeeds. One refund per action at the provider.")},
    };
}

std::unique_ptr<Scenario> makeScenario(int id, DemoStack *stack)
{
    switch (id) {
    case 1: return makeRetryTwiceScenario(stack);
    case 2: return makeChangedAmountScenario(stack);
    case 3: return makeKeyReusedScenario(stack);
    case 4: return makeTwoWorkersScenario(stack);
    case 5: return makeCrashMidFlightScenario(stack);
    case 6: return makeOutageScenario(stack);
    case 7: return makeKeyWindowScenario(stack);
    case 8: return makeTwoAgentsScenario(stack);
    case 9: return makeMcpRetryScenario(stack);
    case 10: return makeRefundFailedScenario(stack);
    default: return nullptr;
    }
}

} // namespace cs::demo
