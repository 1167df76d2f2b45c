// SPDX-License-Identifier: GPL-2.0-or-later
// The track renderer's lanes: a slice table's slices of one owner laid out a lane per depth
// (a query track's of every owner packed by overlap, on a worker when they are many), kept
// within a budget, and read back for a tooltip or a click.
#include "jobs/jobtracker.h"
#include "timeline/trackrenderer.h"

#include <algorithm>
#include <array>
#include <set>

namespace ringside {

size_t TrackRenderer::Lanes::firstEndingFrom(size_t d, uint64_t t) const
{
    if (!maxEnd[d].empty()) return size_t(std::lower_bound(maxEnd[d].begin(), maxEnd[d].end(), t) - maxEnd[d].begin());
    const auto& lane = lanes[d];
    return size_t(
        std::lower_bound(lane.begin(), lane.end(), t, [](const LaneSlice& s, uint64_t at) { return s.end < at; }) -
        lane.begin());
}

TrackRenderer::LanesMap::iterator TrackRenderer::dropLanes(LanesMap::iterator it)
{
    m_laneBytes -= it->second.bytes;
    return m_lanes.erase(it);
}

void TrackRenderer::trimLanes()
{
    if (m_laneBytes <= m_lanesBudget) return;
    std::vector<std::pair<uint64_t, LanesMap::iterator>> idle;
    for (auto it = m_lanes.begin(); it != m_lanes.end(); ++it)
        if (it->second.frame + 1 < m_frame) idle.emplace_back(it->second.frame, it);
    std::sort(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [frame, it] : idle) {
        if (m_laneBytes <= m_lanesBudget) break;
        dropLanes(it);
    }
}

// Query tracks' packed lanes (kEveryOwner) of many slices, laid out on a worker: the row
// is drawn when they are ready. Lives on the heap: the worker's delivery finds it there
// however the renderer moves.
struct TrackRenderer::PackState {
    std::function<void()> ready;
    std::map<const SliceTable*, std::shared_ptr<Lanes>> done;
    std::set<const SliceTable*> wanted; // asked for, not laid out yet
    JobTracker jobs;
};

TrackRenderer::PackState& TrackRenderer::packState()
{
    if (!m_pack) m_pack = std::make_shared<PackState>();
    return *m_pack;
}

void TrackRenderer::setPackReady(std::function<void()> ready)
{
    packState().ready = std::move(ready);
}

void TrackRenderer::resetPacking()
{
    if (!m_pack) return;
    // A worker may still read the previous tables: it ends before they can go away.
    m_pack->jobs.cancel();
    m_pack->jobs.waitForThreads();
    m_pack->done.clear();
    m_pack->wanted.clear();
}

bool TrackRenderer::layingOut(const SliceTable& table) const
{
    return m_pack && m_pack->wanted.count(&table);
}

void TrackRenderer::startPacking()
{
    // One job for every table still waiting: starting a job cancels the one before.
    PackState* state = m_pack.get();
    const std::vector<const SliceTable*> tables(state->wanted.begin(), state->wanted.end());
    using Built = std::vector<std::pair<const SliceTable*, std::shared_ptr<Lanes>>>;
    state->jobs.start(
        [trace = m_session->trace.get(), tables](JobTracker::Context& context) {
            Built built;
            for (const SliceTable* table : tables) {
                if (context.isCancelled()) break;
                auto lanes = std::make_shared<Lanes>();
                layOut(*trace, *table, kEveryOwner, *lanes);
                built.emplace_back(table, std::move(lanes));
            }
            return built;
        },
        [state](Built built) {
            for (auto& [table, lanes] : built) {
                state->done[table] = std::move(lanes);
                state->wanted.erase(table);
            }
            if (state->ready) state->ready();
        });
}

const TrackRenderer::Lanes& TrackRenderer::lanesOf(const SliceTable& table, uint32_t owner, bool now)
{
    const size_t rows = table.rows();
    auto found = m_lanes.find({&table, owner});
    if (found != m_lanes.end() && found->second.rows == rows) {
        found->second.frame = m_frame;
        return found->second;
    }
    if (found != m_lanes.end()) dropLanes(found);
    std::shared_ptr<Lanes> packed;
    if (owner == kEveryOwner && rows > m_packNowSlices && !now) {
        PackState& state = packState();
        auto done = state.done.find(&table);
        if (done != state.done.end() && done->second->rows == rows) packed = std::move(done->second);
        if (done != state.done.end()) state.done.erase(done);
        if (!packed) {
            static const Lanes none;
            if (state.wanted.insert(&table).second) startPacking();
            return none;
        }
    }
    // Others go first (never the one asked for: its caller holds it).
    trimLanes();
    Lanes& lanes = m_lanes[{&table, owner}];
    if (packed)
        lanes = std::move(*packed);
    else
        layOut(*m_session->trace, table, owner, lanes);
    lanes.frame = m_frame;
    m_laneBytes += lanes.bytes;
    return lanes;
}

void TrackRenderer::layOut(const Trace& trace, const SliceTable& table, uint32_t owner, Lanes& lanes)
{
    lanes = Lanes();
    lanes.rows = table.rows();
    auto byStart = [](const LaneSlice& a, const LaneSlice& b) { return a.start < b.start; };
    if (owner == kEveryOwner) {
        packEveryOwner(trace, table, lanes);
    } else {
        forEachSliceOf(trace, table, owner, [&](const SliceTable::View& v) {
            if (lanes.lanes.size() <= v.depth) lanes.lanes.resize(v.depth + 1u);
            const LaneSlice slice{v.start, v.end, v.label, v.flags};
            lanes.lanes[v.depth].push_back(slice);
            if (v.flags & Slice::kError) lanes.failed.push_back(slice);
        });
    }
    lanes.maxEnd.resize(lanes.lanes.size());
    for (size_t d = 0; d < lanes.lanes.size(); ++d) {
        auto& lane = lanes.lanes[d];
        if (!std::is_sorted(lane.begin(), lane.end(), byStart)) std::stable_sort(lane.begin(), lane.end(), byStart);
        if (owner != kEveryOwner) lane.shrink_to_fit(); // packed lanes are sized; the first's rest is not worth a copy
        // Slices of one depth seldom overlap: their ends are in order then, and searched as they are.
        if (std::is_sorted(lane.begin(), lane.end(),
                           [](const LaneSlice& a, const LaneSlice& b) { return a.end < b.end; }))
            continue;
        uint64_t running = 0;
        lanes.maxEnd[d].reserve(lane.size());
        for (const LaneSlice& v : lane) lanes.maxEnd[d].push_back(running = std::max(running, v.end));
        lanes.bytes += lanes.maxEnd[d].size() * sizeof(uint64_t);
    }
    std::sort(lanes.failed.begin(), lanes.failed.end(), byStart);
    lanes.failed.shrink_to_fit();
    for (const auto& lane : lanes.lanes) lanes.bytes += lane.capacity() * sizeof(LaneSlice);
    lanes.bytes += lanes.failed.size() * sizeof(LaneSlice) + sizeof(Lanes);
}

void TrackRenderer::packEveryOwner(const Trace& trace, const SliceTable& table, Lanes& lanes)
{
    // Every task's slices on one row overlap one another: each goes to the first lane free at
    // its start (the last lane takes what does not fit), so none hides another.
    std::vector<LaneSlice> all;
    all.reserve(table.rows());
    // A query's slices are rows of their owners: read as they are (millions of them, a view
    // each would take seconds).
    const OwnerRows<SliceRow>& rows = table.explicitRows();
    for (uint32_t owner = 0; owner < rows.owners(); ++owner)
        if (const GrowingList<SliceRow>* list = rows.of(owner))
            for (size_t i = 0, n = list->size(); i < n; ++i) {
                const SliceRow& r = (*list)[i];
                all.push_back({r.start, r.end, r.label, r.flags});
            }
    if (table.source() || all.size() != table.rows()) {
        all.clear();
        forEachSliceOf(trace, table, kEveryOwner, [&](const SliceTable::View& v) {
            all.push_back({v.start, v.end, v.label, v.flags});
        });
    }
    // In one order however the owners were read (ties by end, then label).
    std::sort(all.begin(), all.end(), [](const LaneSlice& a, const LaneSlice& b) {
        return a.start != b.start ? a.start < b.start : a.end != b.end ? a.end < b.end : a.label < b.label;
    });
    for (const LaneSlice& slice : all)
        if (slice.flags & Slice::kError) lanes.failed.push_back(slice);
    // Each slice's lane first, then the lanes filled at their sizes; the first, which holds
    // most, in place (new memory is slow to touch: millions of slices copied took longer than
    // their sort).
    std::vector<uint8_t> laneOf(all.size());
    std::array<uint64_t, kMaxPackedLanes> freeFrom{}; // per lane: the end of its last slice
    std::array<size_t, kMaxPackedLanes> sizes{};
    size_t used = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        size_t lane = 0;
        while (lane < used && freeFrom[lane] > all[i].start) ++lane;
        if (lane == kMaxPackedLanes) lane = kMaxPackedLanes - 1;
        used = std::max(used, lane + 1);
        freeFrom[lane] = std::max(freeFrom[lane], all[i].end);
        laneOf[i] = uint8_t(lane);
        ++sizes[lane];
    }
    lanes.lanes.resize(used);
    for (size_t lane = 1; lane < used; ++lane) lanes.lanes[lane].reserve(sizes[lane]);
    size_t kept = 0;
    for (size_t i = 0; i < all.size(); ++i)
        if (laneOf[i] == 0)
            all[kept++] = all[i];
        else
            lanes.lanes[laneOf[i]].push_back(all[i]);
    all.resize(kept);
    if (used) lanes.lanes[0] = std::move(all);
}

void TrackRenderer::forEachSliceOf(const Trace& trace, const SliceTable& table, uint32_t owner,
                                   const std::function<void(const SliceTable::View&)>& visit)
{
    if (owner == kEveryOwner)
        table.forEach(trace.store(), &trace.taskIndex(), visit);
    else
        table.forEachOf(owner, trace.store(), &trace.taskIndex(), visit);
}

std::optional<SliceTable::View> TrackRenderer::resolve(const SliceTable& table, uint32_t owner, size_t depth,
                                                       const LaneSlice& slice) const
{
    std::optional<SliceTable::View> found;
    forEachSliceOf(*m_session->trace, table, owner, [&](const SliceTable::View& v) {
        if (!found && (v.depth == depth || owner == kEveryOwner) && v.start == slice.start && v.end == slice.end &&
            v.label == slice.label)
            found = v;
    });
    return found;
}

} // namespace ringside
