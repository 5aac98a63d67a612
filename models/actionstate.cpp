#include "models/actionstate.h"
#include "models/wirenames.h"

#include <QStringList>

namespace cs {

namespace {

constexpr wire::Name<ActionState> StateNames[] = {
    { ActionState::Pending, QLatin1String("PENDING") },
    { ActionState::Executing, QLatin1String("EXECUTING") },
    { ActionState::ConfirmationUnknown, QLatin1String("CONFIRMATION_UNKNOWN") },
    { ActionState::Completed, QLatin1String("COMPLETED") },
    { ActionState::Rejected, QLatin1String("REJECTED") },
    { ActionState::RequiresReview, QLatin1String("REQUIRES_REVIEW") },
};

struct TriggerName
{
    Trigger trigger;
    QLatin1String wire;
    QLatin1String refusal; // "cannot ..." with %1 for the state
};

constexpr TriggerName TriggerNames[] = {
    { Trigger::Claim, QLatin1String("claim"), QLatin1String("claim an action in %1") },
    { Trigger::HumanReject, QLatin1String("human_reject"), QLatin1String("reject an action in %1") },
    { Trigger::ProviderSucceeded, QLatin1String("provider_succeeded"),
      QLatin1String("record a provider success for an action in %1") },
    { Trigger::ProviderRejected, QLatin1String("provider_rejected"),
      QLatin1String("record a provider rejection for an action in %1") },
    { Trigger::OutcomeUnknown, QLatin1String("outcome_unknown"),
      QLatin1String("mark the outcome unknown for an action in %1") },
    { Trigger::StopForReview, QLatin1String("stop_for_review"),
      QLatin1String("stop an action in %1 for review") },
    { Trigger::ConfirmCommitted, QLatin1String("confirm_committed"),
      QLatin1String("confirm an action in %1 as committed") },
    { Trigger::ConfirmNotCommitted, QLatin1String("confirm_not_committed"),
      QLatin1String("confirm an action in %1 as not committed") },
};

struct Transition
{
    ActionState from;
    Trigger trigger;
    ActionState to;
};

// THE table of legal transitions (DESIGN.md, "States"). Anything not listed here is refused.
constexpr Transition Transitions[] = {
    { ActionState::Pending, Trigger::Claim, ActionState::Executing },
    { ActionState::Pending, Trigger::HumanReject, ActionState::Rejected },
    { ActionState::Executing, Trigger::ProviderSucceeded, ActionState::Completed },
    { ActionState::ConfirmationUnknown, Trigger::ProviderSucceeded, ActionState::Completed },
    { ActionState::Executing, Trigger::ProviderRejected, ActionState::Rejected },
    { ActionState::ConfirmationUnknown, Trigger::ProviderRejected, ActionState::Rejected },
    { ActionState::Executing, Trigger::OutcomeUnknown, ActionState::ConfirmationUnknown },
    { ActionState::Pending, Trigger::StopForReview, ActionState::RequiresReview },
    { ActionState::Executing, Trigger::StopForReview, ActionState::RequiresReview },
    { ActionState::ConfirmationUnknown, Trigger::StopForReview, ActionState::RequiresReview },
    { ActionState::RequiresReview, Trigger::ConfirmCommitted, ActionState::Completed },
    { ActionState::RequiresReview, Trigger::ConfirmNotCommitted, ActionState::Rejected },
};

// A terminal state must have no way out; checked at compile time against the table.
constexpr bool terminalStatesHaveNoExit()
{
    for (const Transition &t : Transitions) {
        if (t.from == ActionState::Completed || t.from == ActionState::Rejected)
            return false;
    }
    return true;
}
static_assert(terminalStatesHaveNoExit(), "COMPLETED and REJECTED are terminal");

const TriggerName &triggerName(Trigger trigger)
{
    for (const TriggerName &name : TriggerNames) {
        if (name.trigger == trigger)
            return name;
    }
    Q_UNREACHABLE();
    return TriggerNames[0];
}

} // namespace

QString toWire(ActionState state)
{
    return wire::nameOf(StateNames, state);
}

std::optional<ActionState> stateFromWire(QStringView wire)
{
    return wire::valueOf(StateNames, wire);
}

QString toWire(Trigger trigger)
{
    return triggerName(trigger).wire;
}

std::optional<Trigger> triggerFromWire(QStringView wire)
{
    for (const TriggerName &name : TriggerNames) {
        if (wire == name.wire)
            return name.trigger;
    }
    return std::nullopt;
}

bool isTerminal(ActionState state)
{
    return state == ActionState::Completed || state == ActionState::Rejected;
}

std::optional<ActionState> StateMachine::apply(ActionState from, Trigger trigger, QString *reason)
{
    QStringList legalFrom;
    for (const Transition &t : Transitions) {
        if (t.trigger != trigger)
            continue;
        if (t.from == from)
            return t.to;
        legalFrom.append(toWire(t.from));
    }
    if (reason) {
        const TriggerName &name = triggerName(trigger);
        const QString where = QLatin1String("cannot ") + QString(name.refusal).arg(toWire(from));
        QString states = legalFrom.isEmpty() ? QStringLiteral("no state") : legalFrom.takeLast();
        if (!legalFrom.isEmpty())
            states = legalFrom.join(QLatin1String(", ")) + QLatin1String(" or ") + states;
        const QString rule = QStringLiteral("%1 is legal only from %2").arg(name.wire, states);
        *reason = isTerminal(from) ? QStringLiteral("%1: it is terminal (%2)").arg(where, rule)
                                   : QStringLiteral("%1: %2").arg(where, rule);
    }
    return std::nullopt;
}

} // namespace cs
