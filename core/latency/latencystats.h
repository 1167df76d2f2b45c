// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringside {

// The distribution of a set of durations (nanoseconds). Percentiles are exact, by nearest
// rank on the sorted durations: the p-th percentile is the smallest duration with at least p%
// of the durations at or below it (the ceil(p/100 * n)-th smallest), so it is always one of
// the durations measured.
struct LatencySummary {
    uint64_t count = 0;
    uint64_t min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
    uint64_t total = 0;
    double mean = 0;
};

// A power-of-two bucket: durations in [from, to). A duration of 0 has the bucket [0, 1).
struct HistogramBucket {
    uint64_t from = 0, to = 0;
    uint64_t count = 0;
};

// `sorted` ascending, not empty; `percent` in (0, 100].
uint64_t nearestRank(const std::vector<uint64_t>& sorted, double percent);
// Read only: millions of durations are not copied, nor sorted.
LatencySummary summarize(const uint64_t* durations, size_t count);
inline LatencySummary summarize(const std::vector<uint64_t>& durations)
{
    return summarize(durations.data(), durations.size());
}
// The duration at `index` (from 0) of the durations in ascending order; `index` < `count`.
uint64_t durationAtRank(const uint64_t* durations, size_t count, size_t index);

// Durations counted once in rank buckets (each below 512 ns its own, longer ones by their top
// 9 bits), with their minimum, maximum and total: any rank is then found in one more pass,
// over the durations of its bucket only, and the log-scale histogram from the counts alone.
// Reads the durations, which outlive it; copies and sorts nothing.
class DurationRanks {
public:
    DurationRanks(const uint64_t* durations, size_t count);
    // The durations at `indices` (from 0 in ascending order, each < count; in any order), in
    // one pass.
    std::vector<uint64_t> at(const std::vector<size_t>& indices) const;
    // The indices of p50, p90, p99 and p99.9, for summary().
    static std::vector<size_t> percentileIndices(size_t count);
    LatencySummary summary(const std::vector<uint64_t>& atPercentiles) const;
    std::vector<HistogramBucket> histogram() const; // as log2Histogram()

private:
    const uint64_t* m_durations;
    size_t m_count;
    std::vector<uint64_t> m_counts; // per rank bucket
    uint64_t m_min = 0, m_max = 0, m_total = 0;
};

// The order of pairs slowest first: by duration longest first, equal durations by start
// earliest first, then by index (pairs that started together, in the order they ended).
struct SlowerFirst {
    const uint64_t* durations;
    const uint64_t* starts;
    bool operator()(uint32_t a, uint32_t b) const
    {
        if (durations[a] != durations[b]) return durations[a] > durations[b];
        return starts[a] != starts[b] ? starts[a] < starts[b] : a < b;
    }
};
// Every index in [0, count) in SlowerFirst's order: bucketed by duration in one pass, then
// each bucket's few ordered.
std::vector<uint32_t> longestFirst(const uint64_t* durations, const uint64_t* starts, size_t count);

// Every bucket from the shortest duration's to the longest's, empty ones included (a log-scale
// axis shows gaps).
std::vector<HistogramBucket> log2Histogram(const std::vector<uint64_t>& durations);

} // namespace ringside
