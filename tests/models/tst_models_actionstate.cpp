#include "models/actionstate.h"

#include <QTest>

using cs::ActionState;
using cs::StateMachine;
using cs::Trigger;

Q_DECLARE_METATYPE(cs::ActionState)
Q_DECLARE_METATYPE(cs::Trigger)
Q_DECLARE_METATYPE(std::optional<cs::ActionState>)

namespace {

constexpr ActionState AllStates[] = {
    ActionState::Pending,   ActionState::Executing, ActionState::ConfirmationUnknown,
    ActionState::Completed, ActionState::Rejected,  ActionState::RequiresReview,
};

constexpr Trigger AllTriggers[] = {
    Trigger::Claim,          Trigger::HumanReject,   Trigger::ProviderSucceeded,
    Trigger::ProviderRejected, Trigger::OutcomeUnknown, Trigger::StopForReview,
    Trigger::ConfirmCommitted, Trigger::ConfirmNotCommitted,
};

// The expected result of every (state, trigger) pair, written out independently of the
// implementation's table: rows are states in AllStates order, columns triggers in AllTriggers
// order. '-' = refused; otherwise the letter of the target state.
//   P PENDING  E EXECUTING  U CONFIRMATION_UNKNOWN  C COMPLETED  R REJECTED  V REQUIRES_REVIEW
//                                 claim  reject  succ  rej  unknown  review  commit  notcommit
constexpr const char *Expected[] = {
    /* PENDING              */ "E" "R" "-" "-" "-" "V" "-" "-",
    /* EXECUTING            */ "-" "-" "C" "R" "U" "V" "-" "-",
    /* CONFIRMATION_UNKNOWN */ "-" "-" "C" "R" "-" "V" "-" "-",
    /* COMPLETED            */ "-" "-" "-" "-" "-" "-" "-" "-",
    /* REJECTED             */ "-" "-" "-" "-" "-" "-" "-" "-",
    /* REQUIRES_REVIEW      */ "-" "-" "-" "-" "-" "-" "C" "R",
};

std::optional<ActionState> stateFromLetter(char letter)
{
    switch (letter) {
    case 'P': return ActionState::Pending;
    case 'E': return ActionState::Executing;
    case 'U': return ActionState::ConfirmationUnknown;
    case 'C': return ActionState::Completed;
    case 'R': return ActionState::Rejected;
    case 'V': return ActionState::RequiresReview;
    default: return std::nullopt;
    }
}

const char *stateName(ActionState state)
{
    switch (state) {
    case ActionState::Pending: return "PENDING";
    case ActionState::Executing: return "EXECUTING";
    case ActionState::ConfirmationUnknown: return "CONFIRMATION_UNKNOWN";
    case ActionState::Completed: return "COMPLETED";
    case ActionState::Rejected: return "REJECTED";
    case ActionState::RequiresReview: return "REQUIRES_REVIEW";
    }
    return "?";
}

const char *triggerName(Trigger trigger)
{
    switch (trigger) {
    case Trigger::Claim: return "claim";
    case Trigger::HumanReject: return "human_reject";
    case Trigger::ProviderSucceeded: return "provider_succeeded";
    case Trigger::ProviderRejected: return "provider_rejected";
    case Trigger::OutcomeUnknown: return "outcome_unknown";
    case Trigger::StopForReview: return "stop_for_review";
    case Trigger::ConfirmCommitted: return "confirm_committed";
    case Trigger::ConfirmNotCommitted: return "confirm_not_committed";
    }
    return "?";
}

} // namespace

class TestActionState : public QObject
{
    Q_OBJECT

private slots:
    void transitionTable_data();
    void transitionTable();
    void eachTriggerLeadsToOneState();
    void terminalStates_data();
    void terminalStates();
    void stateWire_data();
    void stateWire();
    void triggerWire_data();
    void triggerWire();
    void unknownWireRefused_data();
    void unknownWireRefused();
};

void TestActionState::transitionTable_data()
{
    QTest::addColumn<ActionState>("from");
    QTest::addColumn<Trigger>("trigger");
    QTest::addColumn<std::optional<ActionState>>("expected");

    static_assert(std::size(Expected) == std::size(AllStates));
    int rows = 0;
    for (std::size_t s = 0; s < std::size(AllStates); ++s) {
        QCOMPARE(qstrlen(Expected[s]), std::size(AllTriggers));
        for (std::size_t t = 0; t < std::size(AllTriggers); ++t) {
            const std::optional<ActionState> expected = stateFromLetter(Expected[s][t]);
            QTest::addRow("%s + %s -> %s", stateName(AllStates[s]), triggerName(AllTriggers[t]),
                          expected ? stateName(*expected) : "refused")
                << AllStates[s] << AllTriggers[t] << expected;
            ++rows;
        }
    }
    QCOMPARE(rows, 48);
}

void TestActionState::transitionTable()
{
    QFETCH(ActionState, from);
    QFETCH(Trigger, trigger);
    QFETCH(std::optional<ActionState>, expected);

    QString reason;
    const std::optional<ActionState> to = StateMachine::apply(from, trigger, &reason);
    QCOMPARE(to.has_value(), expected.has_value());
    QCOMPARE(StateMachine::isLegal(from, trigger), expected.has_value());
    QCOMPARE(StateMachine::apply(from, trigger).has_value(), expected.has_value()); // no reason pointer
    if (expected) {
        QCOMPARE(int(*to), int(*expected));
        return;
    }
    // A refusal explains itself: which trigger, which state, and whether the state is terminal.
    QVERIFY(!reason.isEmpty());
    QVERIFY2(reason.contains(QLatin1String(triggerName(trigger))), qPrintable(reason));
    QVERIFY2(reason.contains(QLatin1String(" in ") + QLatin1String(stateName(from))), qPrintable(reason));
    QCOMPARE(reason.contains(QLatin1String("terminal")), cs::isTerminal(from));
}

// Given where an action is, a trigger is either refused or always leads to the same state, and
// no trigger leaves the state unchanged (every transition is a real change the audit log records).
void TestActionState::eachTriggerLeadsToOneState()
{
    for (ActionState from : AllStates) {
        for (Trigger trigger : AllTriggers) {
            const std::optional<ActionState> to = StateMachine::apply(from, trigger);
            if (to)
                QVERIFY2(*to != from, stateName(from));
        }
    }
}

void TestActionState::terminalStates_data()
{
    QTest::addColumn<ActionState>("state");
    QTest::addColumn<bool>("terminal");
    for (ActionState state : AllStates) {
        const bool terminal = state == ActionState::Completed || state == ActionState::Rejected;
        QTest::addRow("%s", stateName(state)) << state << terminal;
    }
}

void TestActionState::terminalStates()
{
    QFETCH(ActionState, state);
    QFETCH(bool, terminal);
    QCOMPARE(cs::isTerminal(state), terminal);
    int exits = 0;
    for (Trigger trigger : AllTriggers)
        exits += StateMachine::isLegal(state, trigger) ? 1 : 0;
    QCOMPARE(exits == 0, terminal);
}

void TestActionState::stateWire_data()
{
    QTest::addColumn<ActionState>("state");
    QTest::addColumn<QString>("wire");
    for (ActionState state : AllStates)
        QTest::addRow("%s", stateName(state)) << state << QString::fromLatin1(stateName(state));
}

void TestActionState::stateWire()
{
    QFETCH(ActionState, state);
    QFETCH(QString, wire);
    QCOMPARE(cs::toWire(state), wire);
    const std::optional<ActionState> back = cs::stateFromWire(wire);
    QVERIFY(back);
    QCOMPARE(int(*back), int(state));
}

void TestActionState::triggerWire_data()
{
    QTest::addColumn<Trigger>("trigger");
    QTest::addColumn<QString>("wire");
    for (Trigger trigger : AllTriggers)
        QTest::addRow("%s", triggerName(trigger)) << trigger << QString::fromLatin1(triggerName(trigger));
}

void TestActionState::triggerWire()
{
    QFETCH(Trigger, trigger);
    QFETCH(QString, wire);
    QCOMPARE(cs::toWire(trigger), wire);
    const std::optional<Trigger> back = cs::triggerFromWire(wire);
    QVERIFY(back);
    QCOMPARE(int(*back), int(trigger));
}

void TestActionState::unknownWireRefused_data()
{
    QTest::addColumn<QString>("wire");
    QTest::newRow("empty") << QString();
    QTest::newRow("lower-case state") << QStringLiteral("pending");
    QTest::newRow("upper-case trigger") << QStringLiteral("CLAIM");
    QTest::newRow("trailing space") << QStringLiteral("PENDING ");
    QTest::newRow("leading space") << QStringLiteral(" claim");
    QTest::newRow("truncated") << QStringLiteral("COMPLETE");
    QTest::newRow("camel case") << QStringLiteral("RequiresReview");
    QTest::newRow("hyphen") << QStringLiteral("CONFIRMATION-UNKNOWN");
    QTest::newRow("enum name of trigger") << QStringLiteral("HumanReject");
    QTest::newRow("dash trigger") << QStringLiteral("provider-succeeded");
    QTest::newRow("not a state") << QStringLiteral("FAILED");
}

void TestActionState::unknownWireRefused()
{
    QFETCH(QString, wire);
    QVERIFY(!cs::stateFromWire(wire));
    QVERIFY(!cs::triggerFromWire(wire));
}

QTEST_GUILESS_MAIN(TestActionState)
#include "tst_models_actionstate.moc"
