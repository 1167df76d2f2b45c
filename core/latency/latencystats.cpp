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

// The durations at ascending `indices` (each < n), by rank buckets: two passes, no copy.
std::vector<uint64_t> durationsAtRanks(const uint64_t* durations, size_t n, const std::vector<size_t>& indices)
{
    std::vector<uint64_t> counts(kRankBuckets, 0);
    for (size_t i = 0; i < n; ++i) ++counts[rankBucketOf(durations[i])];
    struct Wanted {
        size_t bucket, within;
    };
    std::vector<Wanted> wanted;
    size_t bucket = 0, below = 0; // durations in the buckets before `bucket`
    for (size_t index : indices) {
        while (below + counts[bucket] <= index) below += counts[bucket++];
        wanted.push_back({bucket, index - below});
    }
    std::vector<uint64_t> values(indices.size());
    // A bucket below 512 ns holds one duration; the others' durations are selected from.
    std::vector<std::vector<uint64_t>> members(indices.size());
    std::vector<size_t> collected; // buckets to collect, each once
    for (size_t w = 0; w < wanted.size(); ++w) {
        if (wanted[w].bucket < kExactBelow) {
            values[w] = wanted[w].bucket;
        } else if (collected.empty() || collected.back() != wanted[w].bucket) {
            collected.push_back(wanted[w].bucket);
            members[collected.size() - 1].reserve(counts[wanted[w].bucket]);
        }
    }
    if (!collected.empty()) {
        constexpr uint8_t kNot = 0xff;
        std::vector<uint8_t> memberOf(kRankBuckets, kNot);
        for (size_t c = 0; c < collected.size(); ++c) memberOf[collected[c]] = uint8_t(c);
        for (size_t i = 0; i < n; ++i)
            if (const uint8_t c = memberOf[rankBucketOf(durations[i])]; c != kNot) members[c].push_back(durations[i]);
    }
    for (size_t w = 0; w < wanted.size(); ++w) {
        if (wanted[w].bucket < kExactBelow) continue;
        const size_t c = size_t(std::find(collected.begin(), collected.end(), wanted[w].bucket) - collected.begin());
        std::vector<uint64_t>& m = members[c];
        std::nth_element(m.begin(), m.begin() + long(wanted[w].within), m.end());
        values[w] = m[wanted[w].within];
    }
    return values;
}

} // namespace

uint64_t durationAtRank(const uint64_t* durations, size_t count, size_t index)
{
    return durationsAtRanks(durations, count, {index}).front();
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
    const auto slower = [durations, starts](uint32_t a, uint32_t b) {
        if (durations[a] != durations[b]) return durations[a] > durations[b];
        return starts[a] != starts[b] ? starts[a] < starts[b] : a < b;
    };
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
    LatencySummary s;
    s.count = n;
    s.min = UINT64_MAX;
    for (size_t i = 0; i < n; ++i) {
        s.total += durations[i];
        s.min = std::min(s.min, durations[i]);
        s.max = std::max(s.max, durations[i]);
    }
    s.mean = double(s.total) / double(s.count);
    const std::vector<uint64_t> ranks =
        durationsAtRanks(durations, n, {rankIndex(n, 50), rankIndex(n, 90), rankIndex(n, 99), rankIndex(n, 99.9)});
    s.p50 = ranks[0];
    s.p90 = ranks[1];
    s.p99 = ranks[2];
    s.p999 = ranks[3];
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
