// Scenario 2, "Same key, changed amount": $40 is in flight when the agent resumes with $45 under
// the same reference; 409 and REQUIRES_REVIEW with the diff; the supervisor reconciles the $40
// and proposes a $5 follow-up with its own approval and key.
#include "demo/demoscenario.h"
#include "demo/scenarios/scenarios.h"

namespace cs::demo {

class ChangedAmountScenario final : public DemoScenario
{
public:
    using DemoScenario::DemoScenario;

    QList<Step> steps() override
    {
        return {step([this] { return proposeFirst(); }), step([this] { return resubmitChanged(); }),
                step([this] { return showReview(); }), step([this] { return reconcileFirst(); }),
                step([this] { return proposeFollowUp(); }), step([this] { return judge(); })};
    }

private:
    struct State {
        QString charge;
        QString reference; // the agent's client reference, reused for the changed resubmission
        QString action;    // the $40
        QString followUp;  // the $5
    } m;

    static constexpr qint64 First = 4000;
    static constexpr qint64 Changed = 4500;

    Async<bool> proposeFirst()
    {
        // The $40 commits but its answer is lost; the provider then stays unreachable for sends and
        // lookups, so that the outcome stays unknown while the agent comes back.
        const QJsonObject lookups{{QStringLiteral("method"), QStringLiteral("GET")}, {QStringLiteral("path"), QStringLiteral("/v1/refunds*")}};
        const QJsonArray faults{rule(QStringLiteral("drop_response_after_commit"), 1, 1), rule(QStringLiteral("outage_503"), 2, 0),
                                rule(QStringLiteral("outage_503"), 1, 0, lookups)};
        const Proposal p = co_await proposeWithFaults(10000, faults, First);
        m.charge = p.charge;
        m.reference = p.reference;
        m.action = p.action;
        co_return p.ok;
    }

    Async<bool> resubmitChanged()
    {
        const QList<ActionState> sent{ActionState::ConfirmationUnknown};
        const std::optional<ActionSnapshot> unknown = co_await waitForState(m.action, sent, 10000, 30);
        if (!unknown)
            co_return false;
        say(NarrationKind::Problem, QStringLiteral("%1 was sent; the connection was lost before the answer (CONFIRMATION_UNKNOWN). The agent "
                                                   "restarts, re-reasons the amount to %2 and resubmits under the same reference.")
                                        .arg(money(First), money(Changed)));
        const HttpReply r = co_await propose(m.charge, Changed, m.reference);
        say(r.status == 409 ? NarrationKind::Cure : NarrationKind::Problem,
            QStringLiteral("POST /actions with %1 under %2 → HTTP %3 %4")
                .arg(money(Changed), m.reference)
                .arg(r.status)
                .arg(str(r.json(), "code").isEmpty() ? str(r.json(), "error") : str(r.json(), "code")));
        if (r.status != 409)
            co_return fail(QStringLiteral("a changed resubmission must be refused with 409, got %1").arg(r.status));
        co_return true;
    }

    Async<bool> showReview()
    {
        const std::optional<ActionSnapshot> detail = co_await waitForState(m.action, finalStates(), 15000);
        if (!detail)
            co_return false;
        say(detail->is(ActionState::RequiresReview) ? NarrationKind::Cure : NarrationKind::Observation,
            QStringLiteral("%1 is %2: %3").arg(m.action, detail->stateName(), str(detail->json, "review_reason")));
        for (const QJsonValue &value : arr(detail->json, "conflicts")) {
            const QJsonObject c = value.toObject();
            const QJsonObject stored = c.value(QLatin1String("stored_payload")).toObject();
            const QJsonObject conflicting = c.value(QLatin1String("conflicting_payload")).toObject();
            say(NarrationKind::Observation,
                QStringLiteral("Diff kept as evidence (conflict %1 by %2): amount %3 → %4; nothing new was sent, no new key.")
                    .arg(num(c, "seq"))
                    .arg(str(c, "submitted_by"), money(num(stored, "amount")), money(num(conflicting, "amount"))));
        }
        narrateAttempts(detail->json);
        co_return true;
    }

    Async<bool> reconcileFirst()
    {
        const ActionSnapshot current = co_await action(m.action);
        if (!current.is(ActionState::RequiresReview))
            co_return true; // nothing to reconcile
        const bool cleared = co_await setFaults({});
        if (!cleared)
            co_return false;
        say(NarrationKind::Step, QStringLiteral("The provider is reachable again; the supervisor reviews."));
        co_return co_await decideReconciliation(m.action, QStringLiteral("FOUND"), QStringLiteral("the lookup should find the committed $40.00, it says "),
                                            QStringLiteral("committed"), QStringLiteral("the provider holds the $40.00 refund"));
    }

    Async<bool> proposeFollowUp()
    {
        const QString followUp = co_await decideFollowUp(m.action, Changed, Changed - First,
                                                         QStringLiteral("customer is owed $45.00 in total"));
        if (followUp.isEmpty())
            co_return false;
        m.followUp = followUp;
        const ActionSnapshot proposed = co_await action(followUp);
        const bool difference = num(proposed.json, "amount") == Changed - First;
        co_return co_await decideApproval(
            followUp, difference,
            difference ? QStringLiteral("The follow-up is the difference the customer is still owed, with its own key: approve it.")
                       : QStringLiteral("The follow-up is not the difference still owed ($5.00): approving it would send "
                                        "the customer more than the $45.00 they are owed in all. Reject it and propose the "
                                        "difference."));
    }

    Async<bool> judge()
    {
        const std::optional<ActionSnapshot> detail = co_await waitForOutcome(m.followUp, 20000);
        if (!detail)
            co_return false;
        const CheckResult parentChecked = co_await check(m.action, ActionState::Completed, 1);
        const CheckResult followChecked = co_await check(m.followUp, ActionState::Completed, 1);
        const ActionSnapshot parent = co_await action(m.action);
        const QString parentKey = str(parent.json, "idempotency_key");
        const bool keysDiffer = parentKey != str(detail->json, "idempotency_key") && !parentKey.isEmpty();
        const bool reviewed = !arr(parent.json, "reconciliations").isEmpty();
        setVerdict(parentChecked.ok && followChecked.ok && keysDiffer && reviewed && num(detail->json, "amount") == 500,
                   parentChecked.line + QStringLiteral(" | follow-up: ") + followChecked.line
                       + (keysDiffer ? QStringLiteral(" | separate keys") : QStringLiteral(" | SAME KEY")));
        co_return true;
    }
};

std::unique_ptr<Scenario> makeChangedAmountScenario(DemoStack *stack)
{
    return std::make_unique<ChangedAmountScenario>(stack, 2);
}

} // namespace cs::demo
