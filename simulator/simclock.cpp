#include "simulator/simclock.h"

#include <QDateTime>

namespace cs::paysim {

qint64 SimClock::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch() + m_offsetMs;
}

void SimClock::advance(qint64 ms)
{
    if (ms > 0)
        m_offsetMs += ms;
}

} // namespace cs::paysim
