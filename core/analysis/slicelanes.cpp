// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/slicelanes.h"

#include <algorithm>

namespace ringside {

namespace {

constexpr uint64_t kFirstGrain = 1000; // 1 us; each coarser level merges gaps 8 times wider
constexpr uint64_t kGrainStep = 8;

// Whether `next` joins the box `last` at `grain`: they are under a grain apart and neither is
// a slice wide enough to show on its own. Such slices stay boxes of their own however close
// the next one is; clusters of small slices become one box.
bool joins(const SliceLanes::Span& last, const SliceLanes::Span& next, uint64_t grain)
{
    const uint64_t narrow = grain * SliceLanes::kNarrowGrains;
    auto mergeable = [narrow](const SliceLanes::Span& s) { return s.count > 1 || s.end - s.start < narrow; };
    return next.start < last.end + grain && mergeable(last) && mergeable(next);
}

// Appends `s` to `out`, merged into the last box when it joins it.
void append(std::vector<SliceLanes::Span>& out, size_t first, const SliceLanes::Span& s, uint64_t grain)
{
    if (out.size() > first && grain > 0 && joins(out.back(), s, grain)) {
        out.back().end = std::max(out.back().end, s.end);
        out.back().count += s.count;
    } else {
        out.push_back(s);
    }
}

std::vector<SliceLanes::Span> merged(const std::vector<SliceLanes::Span>& spans, uint64_t grain)
{
    std::vector<SliceLanes::Span> out;
    for (const SliceLanes::Span& s : spans) append(out, 0, s, grain);
    return out;
}

} // namespace

void SliceLanes::Builder::add(const SliceTable::View& slice)
{
    if (slice.depth >= kMaxLanes) return;
    if (slice.depth >= m_byDepth.size()) m_byDepth.resize(size_t(slice.depth) + 1);
    Span span;
    span.start = slice.start;
    span.end = std::max(slice.start, slice.end);
    span.id = slice.id;
    span.label = slice.label;
    span.flags = slice.flags;
    m_byDepth[slice.depth].push_back(span);
    ++m_slices;
}

SliceLanes SliceLanes::Builder::finish(uint64_t endOfTrace) &&
{
    SliceLanes lanes;
    lanes.m_slices = m_slices;
    lanes.m_lanes.resize(m_byDepth.size());
    for (size_t d = 0; d < m_byDepth.size(); ++d) {
        std::vector<Span> spans = std::move(m_byDepth[d]);
        for (Span& s : spans)
            if (s.flags & Slice::kOpen) s.end = std::max(s.start, endOfTrace);
        // In place (a CPU's calls come task by task: millions out of order); ties by id, so
        // that a layout is the same every time.
        std::sort(spans.begin(), spans.end(),
                  [](const Span& a, const Span& b) { return a.start != b.start ? a.start < b.start : a.id < b.id; });
        // A slice ended before the next one at its depth began: one closed without its end (it
        // has no end of its own) or a damaged duration ends there, so the lane never overlaps.
        for (size_t k = 0; k + 1 < spans.size(); ++k) spans[k].end = std::min(spans[k].end, spans[k + 1].start);
        spans.shrink_to_fit(); // kept for the recording's life: no growth slack
        Lane& lane = lanes.m_lanes[d];
        lane.levels.push_back({0, std::move(spans)});
        // Coarser levels, each at most half as long as the one before. No
        // view draws the lane's whole extent in fewer than 16 pixels, so no grain is coarser.
        const std::vector<Span>& slices0 = lane.levels.back().spans;
        const uint64_t extent = slices0.empty() ? 0 : slices0.back().end - slices0.front().start;
        for (uint64_t grain = kFirstGrain; lane.levels.back().spans.size() > 64 && grain <= extent / 16;
             grain *= kGrainStep) {
            std::vector<Span> coarser = merged(lane.levels.back().spans, grain);
            if (coarser.size() * 2 > lane.levels.back().spans.size()) {
                // Not half as many: keep merging from the same level with a wider grain. So the
                // levels together hold under twice the slices (a lane of a CPU's calls holds
                // millions); the spans a frame walks stay within twice the boxes it draws.
                if (grain > (uint64_t(1) << 50)) break;
                continue;
            }
            coarser.shrink_to_fit();
            lane.levels.push_back({grain, std::move(coarser)});
        }
    }
    m_byDepth.clear();
    m_slices = 0;
    return lanes;
}

void SliceLanes::spans(int lane, uint64_t from, uint64_t to, uint64_t grain, std::vector<Span>& out) const
{
    if (lane < 0 || lane >= laneCount() || from >= to) return;
    const std::vector<Level>& levels = m_lanes[size_t(lane)].levels;
    // The coarsest level whose merging is still finer than asked; then merge the rest here.
    size_t level = 0;
    while (level + 1 < levels.size() && levels[level + 1].grain <= grain) ++level;
    const std::vector<Span>& spans = levels[level].spans;
    // Spans are in start order and do not overlap, so their ends are in order too.
    auto first =
        std::upper_bound(spans.begin(), spans.end(), from, [](uint64_t t, const Span& s) { return t < s.end; });
    const size_t before = out.size();
    for (auto it = first; it != spans.end() && it->start < to; ++it) append(out, before, *it, grain);
}

const SliceLanes::Span* SliceLanes::sliceAt(int lane, uint64_t t, uint64_t slack) const
{
    if (lane < 0 || lane >= laneCount()) return nullptr;
    const std::vector<Span>& spans = m_lanes[size_t(lane)].levels.front().spans;
    // The first slice ending after t holds it, or is the nearest after; the one before it is
    // the nearest before.
    auto it = std::upper_bound(spans.begin(), spans.end(), t, [](uint64_t v, const Span& s) { return v < s.end; });
    const Span* best = nullptr;
    uint64_t bestDistance = slack + 1;
    if (it != spans.end()) {
        const uint64_t d = it->start > t ? it->start - t : 0;
        if (d < bestDistance) best = &*it, bestDistance = d;
    }
    if (it != spans.begin() && t - (it - 1)->end < bestDistance) best = &*(it - 1);
    return best;
}

size_t SliceLanes::memoryBytes() const
{
    size_t bytes = 0;
    for (const Lane& lane : m_lanes)
        for (const Level& level : lane.levels) bytes += level.spans.capacity() * sizeof(Span);
    return bytes;
}

} // namespace ringside
