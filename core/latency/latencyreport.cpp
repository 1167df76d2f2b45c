// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/latencyreport.h"

#include <algorithm>
#include <numeric>

namespace ringside {

LatencyReport makeLatencyReport(const EventPairs& pairs, size_t slowestKept)
{
    LatencyReport report;
    const PairMatcher::Pairs& p = pairs.matcher().pairs();
    {
        std::vector<uint64_t> durations = p.duration;
        report.histogram = log2Histogram(durations);
        report.overall = summarize(durations);
    }
    std::vector<std::vector<uint64_t>> byGroup(pairs.groups().size());
    for (size_t i = 0; i < p.size(); ++i) byGroup[p.group[i]].push_back(p.duration[i]);
    for (size_t g = 0; g < byGroup.size(); ++g) {
        if (byGroup[g].empty()) continue;
        report.groups.push_back({pairs.groups()[g], summarize(byGroup[g])});
        std::vector<uint64_t>().swap(byGroup[g]);
    }
    std::stable_sort(
        report.groups.begin(), report.groups.end(),
        [](const LatencyReport::Group& a, const LatencyReport::Group& b) { return a.summary.count > b.summary.count; });
    std::vector<uint32_t>& order = report.slowest;
    order.resize(p.size());
    std::iota(order.begin(), order.end(), 0u);
    const auto slower = [&p](uint32_t a, uint32_t b) {
        return p.duration[a] != p.duration[b] ? p.duration[a] > p.duration[b] : p.start[a] < p.start[b];
    };
    const size_t kept = std::min(slowestKept, order.size());
    if (kept == order.size())
        std::sort(order.begin(), order.end(), slower);
    else
        std::partial_sort(order.begin(), order.begin() + long(kept), order.end(), slower);
    order.resize(kept);
    return report;
}

std::pair<size_t, size_t> slowestInRange(const LatencyReport& report, const PairMatcher::Pairs& pairs, uint64_t from,
                                         uint64_t to)
{
    const auto& order = report.slowest;
    // Longest first: the durations below `to` begin at the first, those below `from` after.
    const auto below = [&pairs](uint64_t limit) {
        return [&pairs, limit](uint32_t i) { return pairs.duration[i] >= limit; };
    };
    const auto first = std::partition_point(order.begin(), order.end(), below(to));
    const auto last = std::partition_point(first, order.end(), below(from));
    return {size_t(first - order.begin()), size_t(last - order.begin())};
}

} // namespace ringside
