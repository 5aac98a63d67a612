#pragma once

#include <QDateTime>

#include <functional>

namespace cs {

// The ledger's source of "now" (UTC). Injectable so tests control time for leases and key windows.
// A Clock may be called from several threads at once: it must be thread-safe.
using Clock = std::function<QDateTime()>;

inline Clock systemClock()
{
    return [] { return QDateTime::currentDateTimeUtc(); };
}

} // namespace cs
