#include "simulator/faultengine.h"

namespace cs::paysim {

FaultEngine::FaultEngine(quint64 seed)
    : m_seed(seed)
    , m_prng(seed)
{
}

FaultRule &FaultEngine::add(FaultRule rule)
{
    rule.id = QStringLiteral("flt_%1").arg(m_nextId++);
    rule.matched = 0;
    rule.fired = 0;
    m_rules.append(rule);
    return m_rules.last();
}

bool FaultEngine::remove(const QString &id)
{
    return m_rules.removeIf([&](const FaultRule &r) { return r.id == id; }) > 0;
}

void FaultEngine::clear()
{
    m_rules.clear();
}

void FaultEngine::reseed()
{
    m_prng.seed(m_seed);
}

double FaultEngine::draw()
{
    // 53 random bits -> [0, 1); independent of the standard library's distribution code.
    return static_cast<double>(m_prng() >> 11) * (1.0 / 9007199254740992.0);
}

FaultEngine::Decision FaultEngine::decide(const QString &method, const QString &path)
{
    Decision decision;
    for (FaultRule &rule : m_rules) {
        if (!rule.matches(method, path))
            continue;
        const int k = ++rule.matched;
        std::optional<FaultRule> &lane = rule.isSettlement() ? decision.settlement : decision.fault;
        if (lane)
            continue;
        const bool eligible = k >= rule.nth && (k - rule.nth) % rule.every == 0
            && (rule.times == 0 || rule.fired < rule.times);
        if (!eligible)
            continue;
        bool fires = rule.probability >= 1.0;
        if (!fires && rule.probability > 0.0)
            fires = draw() < rule.probability;
        if (fires) {
            ++rule.fired;
            lane = rule;
        }
    }
    return decision;
}

} // namespace cs::paysim
