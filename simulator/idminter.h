#pragma once

#include <QString>

namespace cs::paysim {

// Mints Stripe-looking ids ("re_…", "ch_…", "req_…") deterministically from the seed and a
// counter: the same seed and the same request sequence give the same ids. The counter is
// persisted with the state, so a restarted simulator never mints an id twice.
class IdMinter
{
public:
    explicit IdMinter(quint64 seed = 0);

    QString mint(const QString &prefix, int length = 24);
    quint64 counter() const { return m_counter; }
    void setCounter(quint64 counter) { m_counter = counter; }

private:
    quint64 m_seed;
    quint64 m_counter = 0;
};

} // namespace cs::paysim
