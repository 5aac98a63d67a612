#pragma once

#include <chrono>

namespace cs {

// Exponential backoff with equal jitter: for try n (1, 2, ...) the ceiling is
// min(max, base * 2^(n-1)); the delay is half the ceiling plus a uniformly random part of the
// other half, so concurrent retries spread out but never wait less than half the ceiling.
// A provider's Retry-After, when given, is honoured as a floor (still capped at max).
// Thread-safe (randomness from QRandomGenerator::global()).
class Backoff
{
public:
    Backoff(std::chrono::milliseconds base, std::chrono::milliseconds max) : m_base(base), m_max(max) {}

    std::chrono::milliseconds ceiling(int tryNumber) const;
    std::chrono::milliseconds delay(int tryNumber,
                                    std::chrono::milliseconds retryAfter = std::chrono::milliseconds(0)) const;

private:
    std::chrono::milliseconds m_base;
    std::chrono::milliseconds m_max;
};

} // namespace cs
