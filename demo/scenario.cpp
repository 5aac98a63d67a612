#include "demo/scenario.h"

namespace cs::demo {

Scenario::~Scenario() = default;

void Scenario::cleanup(std::function<void()> done)
{
    done();
}

bool Scenario::setExercise(Exercise *, const QString &)
{
    return false;
}

bool Scenario::fail(const QString &reason)
{
    m_failReason = reason;
    return false;
}

void Scenario::setVerdict(bool pass, const QString &text)
{
    m_verdictPass = pass;
    m_verdictText = (pass ? QStringLiteral("VERDICT PASS: ") : QStringLiteral("VERDICT FAIL: ")) + text;
}

void Scenario::say(NarrationKind kind, const QString &text)
{
    if (onNarration)
        onNarration(text, kind);
}

void Scenario::focus(const QString &actionId)
{
    if (onFocus)
        onFocus(actionId);
}

} // namespace cs::demo
