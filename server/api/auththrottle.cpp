#include "server/api/auththrottle.h"

#include <QMutexLocker>

#include <algorithm>

namespace cs {

AuthThrottle::AuthThrottle() : AuthThrottle(Options()) {}

AuthThrottle::AuthThrottle(Options options, MonotonicClock clock)
    : m_options(options), m_clock(clock ? std::move(clock) : MonotonicClock([] { return std::chrono::steady_clock::now(); }))
{
    m_options.maxFailures = std::max(1, m_options.maxFailures);
    m_options.maxAddresses = std::max(1, m_options.maxAddresses);
}

QString AuthThrottle::keyFor(const QHostAddress &address)
{
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4); // also for ::ffff:a.b.c.d
    if (isV4)
        return QHostAddress(v4).toString();
    if (address.protocol() != QAbstractSocket::IPv6Protocol)
        return address.toString();
    Q_IPV6ADDR bytes = address.toIPv6Address();
    std::fill(bytes.c + 8, bytes.c + 16, quint8(0));
    return QHostAddress(bytes).toString() + QStringLiteral("/64");
}

// An entry that no longer counts: a locked-out address after its lockout, another after its window.
bool AuthThrottle::isOver(const Entry &entry, TimePoint now) const
{
    if (entry.failures >= m_options.maxFailures)
        return now - entry.lastFailure >= m_options.lockout;
    return now - entry.windowStart >= m_options.window;
}

std::chrono::milliseconds AuthThrottle::retryAfter(const QHostAddress &address) const
{
    const TimePoint now = m_clock();
    QMutexLocker lock(&m_mutex);
    const auto it = m_entries.constFind(keyFor(address));
    if (it == m_entries.constEnd() || it->failures < m_options.maxFailures)
        return std::chrono::milliseconds(0);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(it->lastFailure + m_options.lockout - now);
    return std::max(std::chrono::milliseconds(0), left);
}

void AuthThrottle::recordFailure(const QHostAddress &address)
{
    const TimePoint now = m_clock();
    const QString key = keyFor(address);
    QMutexLocker lock(&m_mutex);
    auto it = m_entries.find(key);
    if (it != m_entries.end() && isOver(*it, now)) {
        m_entries.erase(it);
        it = m_entries.end();
    }
    if (it == m_entries.end()) {
        if (m_entries.size() >= m_options.maxAddresses)
            makeRoom(now);
        it = m_entries.insert(key, Entry{now, now, 0});
    }
    it->failures = std::min(it->failures + 1, m_options.maxFailures);
    it->lastFailure = now;
}

void AuthThrottle::makeRoom(TimePoint now)
{
    for (auto it = m_entries.begin(); it != m_entries.end();)
        it = isOver(*it, now) ? m_entries.erase(it) : std::next(it);
    if (m_entries.size() < m_options.maxAddresses)
        return;
    const auto oldest = std::min_element(m_entries.begin(), m_entries.end(), [](const Entry &a, const Entry &b) {
        return a.lastFailure < b.lastFailure;
    });
    m_entries.erase(oldest);
}

int AuthThrottle::trackedAddresses() const
{
    QMutexLocker lock(&m_mutex);
    return int(m_entries.size());
}

} // namespace cs
