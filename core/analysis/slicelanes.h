// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/tracktables.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ringside {

// One owner's slices of a flame-chart table (SliceTableSpec::flameChart) laid out for drawing:
// a lane per depth, each holding its slices in start order (slices of one depth of one owner
// never overlap), and for zoomed-out views the lane's coverage merged at coarser and coarser
// grains, so that a frame draws about as many boxes as it has pixels, however many slices the
// range holds.
class SliceLanes {
public:
    // A box to draw: one slice (count 1), or `count` slices merged because the gaps between
    // them were under the grain asked for and each was narrower than kNarrowGrains grains
    // (wider ones stay boxes of their own). `id`, `label` and `flags` are the first one's.
    struct Span {
        uint64_t start = 0;
        uint64_t end = 0;
        uint32_t id = SliceTable::kNoId; // in its table, when the table has ids
        uint32_t label = 0;
        uint32_t count = 1;
        uint8_t flags = 0; // Slice::Flag
    };

    // Takes the slices one by one (from SliceTable::forEachOf or forEachOnStream), then lays
    // them out: a slice still open (Slice::kOpen) runs to `endOfTrace`, or to the next slice at
    // its depth. Depths from kMaxLanes up are left out (a source clamps a damaged record's depth
    // to 255).
    class Builder {
    public:
        void add(const SliceTable::View& slice);
        SliceLanes finish(uint64_t endOfTrace) &&;

    private:
        std::vector<std::vector<Span>> m_byDepth;
        size_t m_slices = 0;
    };

    int laneCount() const { return int(m_lanes.size()); }
    size_t sliceCount() const { return m_slices; }
    // Appends to `out` the spans of `lane` that overlap [from, to), merging narrow ones closer
    // than `grain` ns (0: every slice on its own). Two boxes in a row are a grain apart, or one
    // is a slice at least kNarrowGrains grains wide: under 1.5 boxes per grain of the range.
    void spans(int lane, uint64_t from, uint64_t to, uint64_t grain, std::vector<Span>& out) const;
    // The slice of `lane` that holds `t`, or else the nearest one within `slack` ns.
    const Span* sliceAt(int lane, uint64_t t, uint64_t slack) const;
    size_t memoryBytes() const;

    static constexpr int kMaxLanes = 255;
    static constexpr uint64_t kNarrowGrains = 4;

private:
    struct Level {
        uint64_t grain = 0; // spans closer than this were merged
        std::vector<Span> spans;
    };
    struct Lane {
        std::vector<Level> levels; // levels[0]: the slices themselves; then coarser
    };
    std::vector<Lane> m_lanes;
    size_t m_slices = 0;
};

} // namespace ringside
