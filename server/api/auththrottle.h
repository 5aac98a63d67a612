#pragma once

#include <QHash>
#include <QHostAddress>
#include <QMutex>

#include <chrono>
#include <functional>

namespace cs {

// Failed-authentication rate limiting per client address, in memory. An address that fails
// `maxFailures` times within `window` (counted from its first failure) is refused for `lockout`
// from its last failure — every authenticated request, even with a good token, so that guessing
// does not pay off — and the refusal says when to come back (Retry-After). Public endpoints
// (health, webhooks) never ask. IPv6 addresses count per /64 (one host usually owns a whole /64);
// IPv4-mapped IPv6 addresses count as their IPv4 address.
//
// Bounded memory: at most `maxAddresses` entries; a new address in a full table first drops the
// entries that no longer count (window or lockout over), then the one with the oldest last failure.
//
// Thread-safe (one mutex). The clock is injectable (tests); it must be monotonic.
class AuthThrottle
{
public:
    using TimePoint = std::chrono::steady_clock::time_point;
    using MonotonicClock = std::function<TimePoint()>;

    struct Options
    {
        int maxFailures = 20;
        std::chrono::milliseconds window = std::chrono::minutes(1);
        std::chrono::milliseconds lockout = std::chrono::minutes(1);
        int maxAddresses = 10000;
    };

    AuthThrottle();
    explicit AuthThrottle(Options options, MonotonicClock clock = {});

    // Zero when the address may try now; otherwise how long it must wait (> 0).
    std::chrono::milliseconds retryAfter(const QHostAddress &address) const;
    void recordFailure(const QHostAddress &address);

    int trackedAddresses() const;
    const Options &options() const { return m_options; }

    // The key an address is counted under (its /64 for IPv6), for tests and logs.
    static QString keyFor(const QHostAddress &address);

private:
    struct Entry
    {
        TimePoint windowStart;
        TimePoint lastFailure;
        int failures = 0;
    };

    bool isOver(const Entry &entry, TimePoint now) const;
    void makeRoom(TimePoint now);

    Options m_options;
    MonotonicClock m_clock;
    mutable QMutex m_mutex;
    QHash<QString, Entry> m_entries;
};

} // namespace cs
