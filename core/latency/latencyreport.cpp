// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/latencyreport.h"

#include <algorithm>
#include <future>

namespace ringside {

namespace {

// Pairs worth a thread of their own for the groups' statistics.
constexpr size_t kManyPairs = 1 << 20;

} // namespace

LatencyReport makeLatencyReport(const EventPairs& pairs, size_t slowestKept)
{
    LatencyReport report;
    const PairMatcher::Pairs& p = pairs.matcher().pairs();
    const size_t n = p.size();
    // The groups on another thread (for millions of pairs): they read what the rest reads.
    auto summarizeGroups = [&p, &pairs, n] {
        std::vector<LatencyReport::Group> groups;
        // Each group's durations side by side, in one pass (a counting sort by group).
        std::vector<size_t> at(pairs.groups().size() + 1, 0);
        for (uint32_t g : p.group) ++at[g + 1];
        for (size_t g = 1; g < at.size(); ++g) at[g] += at[g - 1];
        std::vector<uint64_t> grouped(n);
        std::vector<size_t> next(at.begin(), at.end() - 1);
        for (size_t i = 0; i < n; ++i) grouped[next[p.group[i]]++] = p.duration[i];
        for (size_t g = 0; g + 1 < at.size(); ++g)
            if (at[g + 1] > at[g])
                groups.push_back({pairs.groups()[g], summarize(grouped.data() + at[g], at[g + 1] - at[g])});
        return groups;
    };
    std::future<std::vector<LatencyReport::Group>> groups =
        std::async(n > kManyPairs ? std::launch::async : std::launch::deferred, summarizeGroups);
    // One count of every duration: the histogram, the percentiles and the kept-th longest.
    const DurationRanks ranks(p.duration.data(), n);
    report.histogram = ranks.histogram();
    const size_t kept = std::min(slowestKept, n);
    std::vector<size_t> indices = DurationRanks::percentileIndices(n);
    if (kept > 0 && kept < n) indices.push_back(n - kept);
    const std::vector<uint64_t> values = n ? ranks.at(indices) : std::vector<uint64_t>();
    report.overall = ranks.summary(values);
    report.groups = groups.get();
    std::stable_sort(
        report.groups.begin(), report.groups.end(),
        [](const LatencyReport::Group& a, const LatencyReport::Group& b) { return a.summary.count > b.summary.count; });
    std::vector<uint32_t>& order = report.slowest;
    const SlowerFirst slower{p.duration.data(), p.start.data()};
    if (kept == n) {
        order = longestFirst(p.duration.data(), p.start.data(), n);
        return report;
    }
    if (kept == 0) return report;
    // The few slowest: those at least as long as the kept-th longest, then ordered.
    const uint64_t shortest = values.back();
    for (size_t i = 0; i < n; ++i)
        if (p.duration[i] >= shortest) order.push_back(uint32_t(i));
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
