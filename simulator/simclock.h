#pragma once

#include <QtGlobal>

namespace cs::paysim {

// The simulator's notion of "now": wall-clock time plus an offset that only moves forward
// (POST /_sim/clock, clock_advance faults). Object timestamps, key expiry and lookup lag all
// read this clock, so a test can jump past a 24 h key window in a millisecond.
class SimClock
{
public:
    qint64 nowMs() const;
    qint64 nowSeconds() const { return nowMs() / 1000; }
    qint64 offsetMs() const { return m_offsetMs; }
    void setOffsetMs(qint64 offsetMs) { m_offsetMs = offsetMs; }
    // Negative steps are ignored: the simulated clock never goes back.
    void advance(qint64 ms);

private:
    qint64 m_offsetMs = 0;
};

} // namespace cs::paysim
