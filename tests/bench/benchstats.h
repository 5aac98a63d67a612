#pragma once

// What the benchmark programs share: the median and percentiles of their runs.

#include <QList>

#include <algorithm>
#include <cmath>

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

// The nearest-rank percentile p (0 < p <= 100): the smallest value that at least p % of the
// values do not exceed; 0 for none.
inline double percentile(QList<double> values, double p)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto rank = qsizetype(std::ceil(p / 100.0 * double(values.size())));
    return values.at(std::clamp<qsizetype>(rank - 1, 0, values.size() - 1));
}

} // namespace cs::bench
