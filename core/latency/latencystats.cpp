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

namespace {

// Durations in rank buckets: each below 512 ns its own, longer ones by their top 9 bits (256
// buckets an octave, each under 0.4% wide), in ascending order. A pass counts them, so that a
// rank's bucket is known; only the few durations of that bucket are then selected from.
constexpr size_t kExactBelow = 512, kRankBuckets = kExactBelow + (64 - 9) * 256;

size_t rankBucketOf(uint64_t d)
{
    if (d < kExactBelow) return size_t(d);
    const int width = std::bit_width(d); // 10 or more
    return kExactBelow + size_t(width - 10) * 256 + size_t((d >> (width - 9)) & 0xff);
}

// The buckets from the first that counts a duration to the last, of the counts per power of
// two (k: [2^(k-1), 2^k), 0: [0, 1)).
std::vector<HistogramBucket> histogramOf(const std::vector<uint64_t>& counts)
{
    std::vector<HistogramBucket> buckets;
    const auto first = std::find_if(counts.begin(), counts.end(), [](uint64_t c) { return c > 0; });
    if (first == counts.end()) return buckets;
    const size_t from = size_t(first - counts.begin());
    size_t last = counts.size() - 1;
    while (counts[last] == 0) --last;
    for (size_t k = from; k <= last; ++k) {
        HistogramBucket b;
        b.from = k == 0 ? 0 : uint64_t(1) << (k - 1);
        b.to = k == 0 ? 1 : (k == 64 ? UINT64_MAX : uint64_t(1) << k);
        b.count = counts[k];
        buckets.push_back(b);
    }
    return buckets;
}

// What summarize() does for few durations: copies them and selects in place.
LatencySummary summarizeFew(const uint64_t* durations, size_t n)
{
    LatencySummary s;
    std::vector<uint64_t> d(durations, durations + n);
    s.count = n;
    for (uint64_t v : d) s.total += v;
    s.mean = double(s.total) / double(s.count);
    // Each rank selected in what is above the previous one.
    auto begin = d.begin();
    uint64_t* ranks[] = {&s.p50, &s.p90, &s.p99, &s.p999};
    const double percents[] = {50, 90, 99, 99.9};
    for (size_t i = 0; i < 4; ++i) {
        const auto at = d.begin() + long(rankIndex(n, percents[i]));
        std::nth_element(begin, at, d.end());
        *ranks[i] = *at;
        begin = at;
    }
    s.min = *std::min_element(d.begin(), d.end());
    s.max = *std::max_element(begin, d.end());
    return s;
}

} // namespace

DurationRanks::DurationRanks(const uint64_t* durations, size_t count)
    : m_durations(durations), m_count(count), m_counts(kRankBuckets, 0)
{
    m_min = count ? UINT64_MAX : 0;
    for (size_t i = 0; i < count; ++i) {
        const uint64_t d = durations[i];
        ++m_counts[rankBucketOf(d)];
        m_total += d;
        m_min = std::min(m_min, d);
        m_max = std::max(m_max, d);
    }
}

std::vector<uint64_t> DurationRanks::at(const std::vector<size_t>& indices) const
{
    // In ascending order, each with its place in `indices`.
    std::vector<std::pair<size_t, size_t>> asked;
    for (size_t k = 0; k < indices.size(); ++k) asked.emplace_back(indices[k], k);
    std::sort(asked.begin(), asked.end());
    struct Wanted {
        size_t bucket, within, place;
    };
    std::vector<Wanted> wanted;
    size_t bucket = 0, below = 0; // durations in the buckets before `bucket`
    for (const auto& [index, place] : asked) {
        while (below + m_counts[bucket] <= index) below += m_counts[bucket++];
        wanted.push_back({bucket, index - below, place});
    }
    std::vector<uint64_t> values(indices.size());
    // A bucket below 512 ns holds one duration; the others' durations are selected from.
    std::vector<size_t> collected; // buckets to collect, each once, ascending
    for (const Wanted& w : wanted) {
        if (w.bucket < kExactBelow)
            values[w.place] = w.bucket;
        else if (collected.empty() || collected.back() != w.bucket)
            collected.push_back(w.bucket);
    }
    if (collected.empty()) return values;
    std::vector<std::vector<uint64_t>> members(collected.size());
    constexpr uint8_t kNot = 0xff;
    std::vector<uint8_t> memberOf(kRankBuckets, kNot);
    for (size_t c = 0; c < collected.size(); ++c) {
        memberOf[collected[c]] = uint8_t(c);
        members[c].reserve(m_counts[collected[c]]);
    }
    for (size_t i = 0; i < m_count; ++i)
        if (const uint8_t c = memberOf[rankBucketOf(m_durations[i])]; c != kNot) members[c].push_back(m_durations[i]);
    for (const Wanted& w : wanted) {
        if (w.bucket < kExactBelow) continue;
        std::vector<uint64_t>& m = members[memberOf[w.bucket]];
        std::nth_element(m.begin(), m.begin() + long(w.within), m.end());
        values[w.place] = m[w.within];
    }
    return values;
}

std::vector<size_t> DurationRanks::percentileIndices(size_t count)
{
    return {rankIndex(count, 50), rankIndex(count, 90), rankIndex(count, 99), rankIndex(count, 99.9)};
}

LatencySummary DurationRanks::summary(const std::vector<uint64_t>& atPercentiles) const
{
    LatencySummary s;
    if (m_count == 0) return s;
    s.count = m_count;
    s.min = m_min;
    s.max = m_max;
    s.total = m_total;
    s.mean = double(s.total) / double(s.count);
    s.p50 = atPercentiles[0];
    s.p90 = atPercentiles[1];
    s.p99 = atPercentiles[2];
    s.p999 = atPercentiles[3];
    return s;
}

std::vector<HistogramBucket> DurationRanks::histogram() const
{
    // A rank bucket lies in one power of two: the log-scale buckets are their sums.
    std::vector<uint64_t> counts(65, 0);
    for (size_t b = 0; b < kRankBuckets; ++b) {
        const size_t octave = b < kExactBelow ? size_t(std::bit_width(b)) : (b - kExactBelow) / 256 + 10;
        counts[octave] += m_counts[b];
    }
    return histogramOf(counts);
}

uint64_t durationAtRank(const uint64_t* durations, size_t count, size_t index)
{
    return DurationRanks(durations, count).at({index}).front();
}

std::vector<uint32_t> longestFirst(const uint64_t* durations, const uint64_t* starts, size_t n)
{
    // A counting sort by rank bucket, longest bucket first: stable, so each bucket's indices
    // ascend and its durations and starts are read nearly in order when it is sorted.
    std::vector<size_t> at(kRankBuckets + 1, 0);
    for (size_t i = 0; i < n; ++i) ++at[kRankBuckets - rankBucketOf(durations[i])];
    for (size_t b = 1; b < at.size(); ++b) at[b] += at[b - 1];
    std::vector<uint32_t> order(n);
    std::vector<size_t> next(at.begin(), at.end() - 1);
    for (size_t i = 0; i < n; ++i) order[next[kRankBuckets - 1 - rankBucketOf(durations[i])]++] = uint32_t(i);
    const SlowerFirst slower{durations, starts};
    for (size_t b = 0; b < kRankBuckets; ++b) {
        const auto from = order.begin() + long(at[b]), to = order.begin() + long(at[b + 1]);
        // Pairs come as they end: of one duration, mostly in order of their starts already.
        if (!std::is_sorted(from, to, slower)) std::sort(from, to, slower);
    }
    return order;
}

LatencySummary summarize(const uint64_t* durations, size_t n)
{
    if (n == 0) return {};
    // Below a rank-bucket table's size, a copy is cheaper than the table.
    if (n < 4 * kRankBuckets) return summarizeFew(durations, n);
    const DurationRanks ranks(durations, n);
    return ranks.summary(ranks.at(DurationRanks::percentileIndices(n)));
}

std::vector<HistogramBucket> log2Histogram(const std::vector<uint64_t>& durations)
{
    // Bucket k holds [2^(k-1), 2^k); bucket 0 holds 0.
    std::vector<uint64_t> counts(65, 0);
    for (uint64_t d : durations) ++counts[size_t(std::bit_width(d))];
    return histogramOf(counts);
}

} // namespace ringside
