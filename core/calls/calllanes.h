// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "calls/callslices.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ringside {

// One task's calls laid out for a flame-chart track: a lane per depth the kernel recorded,
// each holding its calls in start order (calls of one depth of one task never overlap), and
// for zoomed-out views the lane's coverage merged at coarser and coarser grains, so that a
// frame draws about as many boxes as it has pixels, however many calls the range holds.
class CallLanes {
public:
    // A box to draw: one call (count 1), or `count` calls merged because the gaps between
    // them were under the grain asked for and each was narrower than kNarrowGrains grains
    // (wider calls stay boxes of their own). `call` is the first of them.
    struct Span {
        uint64_t start = 0;
        uint64_t end = 0;
        uint32_t call = 0;
        uint32_t count = 1;
    };

    // The calls of `pid`; a call without an exit runs to `endOfTrace`, or to the next call at
    // its depth. Depths past kMaxLanes (damaged records) are left out.
    static CallLanes build(const CallSlices& calls, int32_t pid, uint64_t endOfTrace);
    // The calls that began on a CPU (a stream), whichever task made them; a call that migrated
    // shows on the CPU it began on.
    static CallLanes buildForStream(const CallSlices& calls, StreamId stream, uint64_t endOfTrace);

    int laneCount() const { return int(m_lanes.size()); }
    size_t callCount() const { return m_calls; }
    // Appends to `out` the spans of `lane` that overlap [from, to), merging narrow ones closer
    // than `grain` ns (0: every call on its own). Two boxes in a row are a grain apart, or one
    // is a call at least kNarrowGrains grains wide: under 1.5 boxes per grain of the range.
    void spans(int lane, uint64_t from, uint64_t to, uint64_t grain, std::vector<Span>& out) const;
    // The call of `lane` that holds `t`, or else the nearest one within `slack` ns.
    std::optional<uint32_t> callAt(int lane, uint64_t t, uint64_t slack) const;
    size_t memoryBytes() const;

    static constexpr int kMaxLanes = 256;
    static constexpr uint64_t kNarrowGrains = 4;

private:
    template <typename Selected>
    static CallLanes buildWhere(const CallSlices& calls, uint64_t endOfTrace, Selected selected);

    struct Level {
        uint64_t grain = 0; // spans closer than this were merged
        std::vector<Span> spans;
    };
    struct Lane {
        std::vector<Level> levels; // levels[0]: the calls themselves; then coarser
    };
    std::vector<Lane> m_lanes;
    size_t m_calls = 0;
};

} // namespace ringside
