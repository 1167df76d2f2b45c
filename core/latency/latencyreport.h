// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "latency/eventpairs.h"
#include "latency/latencystats.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ringside {

// What an event-pair analysis found, as the CLI prints it and the window shows it: the
// distribution of every pair, its histogram, each group's distribution (most pairs first) and
// the pairs slowest first.
struct LatencyReport {
    struct Group {
        std::string label;
        LatencySummary summary;
    };
    LatencySummary overall;
    std::vector<HistogramBucket> histogram;
    std::vector<Group> groups;
    // Indices into the pairs, longest first, equal durations in time order (pairs that start
    // together in the order they ended): the first
    // `slowestKept` of them (all when asked for all: a histogram bucket's pairs are then one
    // stretch of this list).
    std::vector<uint32_t> slowest;
};

// `slowestKept`: how many of the slowest pairs to order (SIZE_MAX: every pair).
LatencyReport makeLatencyReport(const EventPairs& pairs, size_t slowestKept);

// The stretch of `slowest` (every pair, longest first) whose durations are in [from, to).
std::pair<size_t, size_t> slowestInRange(const LatencyReport& report, const PairMatcher::Pairs& pairs, uint64_t from,
                                         uint64_t to);

} // namespace ringside
