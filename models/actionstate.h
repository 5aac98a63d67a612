#pragma once

#include <QString>
#include <QStringView>

#include <optional>

namespace cs {

// The six execution states of an action (DESIGN.md). Nothing else may change an action's state
// than StateMachine::apply: it is the single table of legal transitions.
enum class ActionState {
    Pending,             // awaiting approval, or approved and queued; nothing sent
    Executing,           // claimed by one executor under a lease; a request may be in flight
    ConfirmationUnknown, // a request may have reached the provider; outcome not known
    Completed,           // provider evidence says the refund exists (terminal)
    Rejected,            // provider or human refused; no refund exists (terminal)
    RequiresReview,      // execution stopped; a supervisor must decide with evidence
};

// Why a state changes. Each trigger is legal only from the states listed in StateMachine.
enum class Trigger {
    Claim,               // PENDING -> EXECUTING (the ledger also requires a current approval)
    HumanReject,         // PENDING -> REJECTED
    ProviderSucceeded,   // EXECUTING | CONFIRMATION_UNKNOWN -> COMPLETED (2xx, replay or lookup found)
    ProviderRejected,    // EXECUTING | CONFIRMATION_UNKNOWN -> REJECTED (definitive 4xx)
    OutcomeUnknown,      // EXECUTING -> CONFIRMATION_UNKNOWN (timeout, reset, 5xx, crash)
    StopForReview,       // PENDING | EXECUTING | CONFIRMATION_UNKNOWN -> REQUIRES_REVIEW
                         // (idempotency mismatch, changed resubmission, fingerprint drift,
                         //  key window passed, inconclusive evidence)
    ConfirmCommitted,    // REQUIRES_REVIEW -> COMPLETED (supervisor, with evidence)
    ConfirmNotCommitted, // REQUIRES_REVIEW -> REJECTED (supervisor, with evidence)
};

QString toWire(ActionState state);                 // "PENDING", "CONFIRMATION_UNKNOWN", ...
std::optional<ActionState> stateFromWire(QStringView wire);
QString toWire(Trigger trigger);                   // "claim", "provider_succeeded", ...
std::optional<Trigger> triggerFromWire(QStringView wire);
bool isTerminal(ActionState state);                // COMPLETED, REJECTED

class StateMachine
{
public:
    // The state reached by applying trigger in from, or nothing with *reason saying why the
    // transition is illegal ("cannot claim an action in COMPLETED: it is terminal").
    static std::optional<ActionState> apply(ActionState from, Trigger trigger,
                                            QString *reason = nullptr);
    static bool isLegal(ActionState from, Trigger trigger) { return apply(from, trigger).has_value(); }
};

} // namespace cs
