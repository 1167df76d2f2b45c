// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/latencystats.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ringside {

namespace {

// The index nearestRank reads.
size_t rankIndex(size_t n, double percent)
{
    const auto rank = size_t(std::ceil(percent * double(n) / 100.0 - 1e-9));
    return std::clamp<size_t>(rank, 1, n) - 1;
}

} // namespace

uint64_t nearestRank(const std::vector<uint64_t>& sorted, double percent)
{
    return sorted[rankIndex(sorted.size(), percent)];
}

LatencySummary summarize(std::vector<uint64_t>& durations)
{
    LatencySummary s;
    if (durations.empty()) return s;
    const size_t n = durations.size();
    s.count = n;
    for (uint64_t d : durations) s.total += d;
    s.mean = double(s.total) / double(s.count);
    // Each rank selected in what is above the previous one: linear, where a sort of millions
    // of durations is not.
    auto begin = durations.begin();
    uint64_t* ranks[] = {&s.p50, &s.p90, &s.p99, &s.p999};
    const double percents[] = {50, 90, 99, 99.9};
    for (size_t i = 0; i < 4; ++i) {
        const auto at = durations.begin() + long(rankIndex(n, percents[i]));
        std::nth_element(begin, at, durations.end());
        *ranks[i] = *at;
        begin = at;
    }
    s.min = *std::min_element(durations.begin(), durations.end());
    s.max = *std::max_element(begin, durations.end());
    return s;
}

std::vector<HistogramBucket> log2Histogram(const std::vector<uint64_t>& durations)
{
    if (durations.empty()) return {};
    // Bucket k holds [2^(k-1), 2^k); bucket 0 holds 0.
    auto bucketOf = [](uint64_t d) { return size_t(std::bit_width(d)); };
    std::vector<uint64_t> counts(65, 0);
    for (uint64_t d : durations) ++counts[bucketOf(d)];
    size_t first = 0, last = counts.size() - 1;
    while (counts[first] == 0) ++first;
    while (counts[last] == 0) --last;
    std::vector<HistogramBucket> buckets;
    for (size_t k = first; k <= last; ++k) {
        HistogramBucket b;
        b.from = k == 0 ? 0 : uint64_t(1) << (k - 1);
        b.to = k == 0 ? 1 : (k == 64 ? UINT64_MAX : uint64_t(1) << k);
        b.count = counts[k];
        buckets.push_back(b);
    }
    return buckets;
}

} // namespace ringside
