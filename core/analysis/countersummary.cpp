// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/countersummary.h"

#include <algorithm>

namespace ringside {

void CounterSummary::update(const GrowingList<CounterRow>& lane)
{
    const size_t n = lane.size();
    if (n <= m_rows) return;
    if (m_rows == 0) m_lowest = m_highest = lane[0].value;
    for (size_t i = m_rows; i < n; ++i) {
        const CounterRow& r = lane[i];
        m_lowest = std::min(m_lowest, r.value), m_highest = std::max(m_highest, r.value);
        const size_t block = i / kBlock;
        if (block == m_min.size()) {
            // Its integral: the one before, plus the values of that block held until this one.
            long double integral = 0;
            if (block > 0) {
                integral = m_integral[block - 1];
                for (size_t k = (block - 1) * kBlock; k < i; ++k)
                    integral += (long double)lane[k].value * (long double)(lane[k + 1].time - lane[k].time);
            }
            m_integral.push_back(integral);
            m_min.push_back(r.value), m_max.push_back(r.value);
        } else {
            m_min[block] = std::min(m_min[block], r.value), m_max[block] = std::max(m_max[block], r.value);
        }
    }
    m_rows = n;
}

size_t CounterSummary::valueAt(const GrowingList<CounterRow>& lane, uint64_t t) const
{
    const size_t k = lane.lowerBound(t + 1, 0, m_rows, [](const CounterRow& r) { return r.time; });
    return k == 0 ? m_rows : k - 1;
}

long double CounterSummary::integralTo(const GrowingList<CounterRow>& lane, uint64_t t) const
{
    const size_t k = valueAt(lane, t);
    if (k == m_rows) return 0;
    const size_t first = k / kBlock * kBlock;
    long double integral = m_integral[k / kBlock];
    for (size_t i = first; i < k; ++i)
        integral += (long double)lane[i].value * (long double)(lane[i + 1].time - lane[i].time);
    return integral + (long double)lane[k].value * (long double)(t - lane[k].time);
}

std::pair<int64_t, int64_t> CounterSummary::extremes(const GrowingList<CounterRow>& lane, size_t first,
                                                     size_t last) const
{
    int64_t lo = lane[first].value, hi = lo;
    size_t i = first;
    // The partial block at the start, whole blocks, then the partial one at the end.
    for (; i < last && i % kBlock != 0; ++i) lo = std::min(lo, lane[i].value), hi = std::max(hi, lane[i].value);
    for (; i + kBlock <= last; i += kBlock) lo = std::min(lo, m_min[i / kBlock]), hi = std::max(hi, m_max[i / kBlock]);
    for (; i < last; ++i) lo = std::min(lo, lane[i].value), hi = std::max(hi, lane[i].value);
    return {lo, hi};
}

CounterSummary::Stats CounterSummary::over(const GrowingList<CounterRow>& lane, uint64_t from, uint64_t to) const
{
    Stats s;
    if (m_rows == 0 || to <= from) return s;
    auto time = [](const CounterRow& r) { return r.time; };
    const size_t end = lane.lowerBound(to, 0, m_rows, time); // values beginning before `to`
    const size_t atFrom = valueAt(lane, from);
    const size_t first = atFrom == m_rows ? 0 : atFrom;
    if (first >= end) return s;
    s.any = true;
    std::tie(s.min, s.max) = extremes(lane, first, end);
    s.changes = end - lane.lowerBound(from, 0, m_rows, time);
    const uint64_t start = std::max(from, lane[first].time);
    if (to > start)
        s.mean = double((integralTo(lane, to) - integralTo(lane, start)) / (long double)(to - start));
    else
        s.mean = double(lane[first].value);
    return s;
}

} // namespace ringside
