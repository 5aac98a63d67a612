#pragma once

// What the benchmark programs share: the median of their runs.

#include <QList>

#include <algorithm>

namespace cs::bench {

// The middle value (the mean of the two middle ones for an even count); 0 for none.
inline double median(QList<double> values)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const qsizetype m = values.size() / 2;
    return values.size() % 2 ? values.at(m) : (values.at(m - 1) + values.at(m)) / 2;
}

} // namespace cs::bench
