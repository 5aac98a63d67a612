#include "server/backoff.h"

#include <QRandomGenerator>

#include <algorithm>

namespace cs {

std::chrono::milliseconds Backoff::ceiling(int tryNumber) const
{
    const int shift = std::clamp(tryNumber - 1, 0, 30);
    const long long base = std::max<long long>(1, m_base.count());
    const long long max = std::max<long long>(base, m_max.count());
    // base * 2^shift without overflow
    const long long ceil = shift >= 62 || base > (max >> shift) ? max : std::min(max, base << shift);
    return std::chrono::milliseconds(ceil);
}

std::chrono::milliseconds Backoff::delay(int tryNumber, std::chrono::milliseconds retryAfter) const
{
    const long long ceil = ceiling(tryNumber).count();
    const long long half = ceil / 2;
    const long long jitter = ceil - half > 0 ? qint64(QRandomGenerator::global()->bounded(quint64(ceil - half + 1))) : 0;
    long long delay = half + jitter;
    if (retryAfter.count() > delay)
        delay = std::min<long long>(retryAfter.count(), std::max<long long>(m_max.count(), 1));
    return std::chrono::milliseconds(delay);
}

} // namespace cs
