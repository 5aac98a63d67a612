#pragma once

#include "simulator/faultrule.h"

#include <QList>

#include <optional>
#include <random>

namespace cs::paysim {

// Holds the fault rules and decides, request by request, which one (if any) applies.
// Probabilities draw from std::mt19937_64 seeded with --seed, so the same seed and the same
// request sequence give the same firing pattern. Not thread-safe.
class FaultEngine
{
public:
    explicit FaultEngine(quint64 seed = 0);

    // Assigns an id and appends.
    FaultRule &add(FaultRule rule);
    bool remove(const QString &id);
    void clear();
    // Restarts the PRNG from the seed (POST /_sim/reset).
    void reseed();
    const QList<FaultRule> &rules() const { return m_rules; }

    // What applies to one request: at most one fault, and at most one refund_settles rule (a lane
    // of its own: it changes the refund the request creates, not how the request is answered).
    struct Decision
    {
        std::optional<FaultRule> fault;
        std::optional<FaultRule> settlement;
    };

    // Counts the request against every matching rule; returns the rules that fire.
    Decision decide(const QString &method, const QString &path);

private:
    double draw();

    quint64 m_seed;
    std::mt19937_64 m_prng;
    QList<FaultRule> m_rules;
    int m_nextId = 1;
};

} // namespace cs::paysim
