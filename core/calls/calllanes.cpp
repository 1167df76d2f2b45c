// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/calllanes.h"

#include <algorithm>

namespace ringside {

namespace {

constexpr uint64_t kFirstGrain = 1000; // 1 us; each coarser level merges gaps 8 times wider
constexpr uint64_t kGrainStep = 8;

// Whether `next` joins the box `last` at `grain`: they are under a grain apart and neither is
// a call wide enough to show on its own. Such calls stay boxes of their own however close the
// next one is; clusters of small calls become one box.
bool joins(const CallLanes::Span& last, const CallLanes::Span& next, uint64_t grain)
{
    const uint64_t narrow = grain * CallLanes::kNarrowGrains;
    auto mergeable = [narrow](const CallLanes::Span& s) { return s.count > 1 || s.end - s.start < narrow; };
    return next.start < last.end + grain && mergeable(last) && mergeable(next);
}

// Appends `s` to `out`, merged into the last box when it joins it.
void append(std::vector<CallLanes::Span>& out, size_t first, const CallLanes::Span& s, uint64_t grain)
{
    if (out.size() > first && grain > 0 && joins(out.back(), s, grain)) {
        out.back().end = std::max(out.back().end, s.end);
        out.back().count += s.count;
    } else {
        out.push_back(s);
    }
}

std::vector<CallLanes::Span> merged(const std::vector<CallLanes::Span>& spans, uint64_t grain)
{
    std::vector<CallLanes::Span> out;
    for (const CallLanes::Span& s : spans) append(out, 0, s, grain);
    return out;
}

} // namespace

CallLanes CallLanes::build(const CallSlices& calls, int32_t pid, uint64_t endOfTrace)
{
    return buildWhere(calls, endOfTrace, [&](size_t i) { return calls.pid(i) == pid; });
}

CallLanes CallLanes::buildForStream(const CallSlices& calls, StreamId stream, uint64_t endOfTrace)
{
    return buildWhere(calls, endOfTrace, [&](size_t i) { return calls.stream(i) == stream; });
}

template <typename Selected>
CallLanes CallLanes::buildWhere(const CallSlices& calls, uint64_t endOfTrace, Selected selected)
{
    CallLanes lanes;
    std::vector<std::vector<Span>> byDepth;
    for (size_t i = 0; i < calls.size(); ++i) {
        if (!selected(i)) continue;
        const int64_t depth = calls.depth(i);
        if (depth < 0 || depth >= kMaxLanes) continue;
        if (size_t(depth) >= byDepth.size()) byDepth.resize(size_t(depth) + 1);
        const uint64_t start = calls.start(i);
        const uint64_t end = (calls.flags(i) & kCallOpen) ? std::max(start, endOfTrace) : calls.end(i);
        byDepth[size_t(depth)].push_back({start, end, uint32_t(i), 1});
        ++lanes.m_calls;
    }
    lanes.m_lanes.resize(byDepth.size());
    for (size_t d = 0; d < byDepth.size(); ++d) {
        std::vector<Span>& spans = byDepth[d];
        // Mostly in order already: calls are stored as their entries arrive.
        std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
        // A call ended before the next one at its depth began: one closed without its exit (it
        // has no end of its own) or a damaged duration ends there, so the lane never overlaps.
        for (size_t k = 0; k + 1 < spans.size(); ++k) spans[k].end = std::min(spans[k].end, spans[k + 1].start);
        Lane& lane = lanes.m_lanes[d];
        lane.levels.push_back({0, std::move(spans)});
        // Coarser levels until one adds little: each is at most as long as the one before. No
        // view draws the lane's whole extent in fewer than 16 pixels, so no grain is coarser.
        const std::vector<Span>& calls0 = lane.levels.back().spans;
        const uint64_t extent = calls0.empty() ? 0 : calls0.back().end - calls0.front().start;
        for (uint64_t grain = kFirstGrain; lane.levels.back().spans.size() > 64 && grain <= extent / 16;
             grain *= kGrainStep) {
            std::vector<Span> coarser = merged(lane.levels.back().spans, grain);
            if (coarser.size() * 10 > lane.levels.back().spans.size() * 9) {
                // Under 10% fewer: keep merging from the same level with a wider grain.
                if (grain > (uint64_t(1) << 50)) break;
                continue;
            }
            lane.levels.push_back({grain, std::move(coarser)});
        }
    }
    return lanes;
}

void CallLanes::spans(int lane, uint64_t from, uint64_t to, uint64_t grain, std::vector<Span>& out) const
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

std::optional<uint32_t> CallLanes::callAt(int lane, uint64_t t, uint64_t slack) const
{
    if (lane < 0 || lane >= laneCount()) return std::nullopt;
    const std::vector<Span>& spans = m_lanes[size_t(lane)].levels.front().spans;
    // The first call ending after t holds it, or is the nearest after; the one before it is
    // the nearest before.
    auto it = std::upper_bound(spans.begin(), spans.end(), t, [](uint64_t v, const Span& s) { return v < s.end; });
    std::optional<uint32_t> best;
    uint64_t bestDistance = slack + 1;
    if (it != spans.end()) {
        const uint64_t d = it->start > t ? it->start - t : 0;
        if (d < bestDistance) best = it->call, bestDistance = d;
    }
    if (it != spans.begin() && t - (it - 1)->end < bestDistance) best = (it - 1)->call;
    return best;
}

size_t CallLanes::memoryBytes() const
{
    size_t bytes = 0;
    for (const Lane& lane : m_lanes)
        for (const Level& level : lane.levels) bytes += level.spans.capacity() * sizeof(Span);
    return bytes;
}

} // namespace ringside
