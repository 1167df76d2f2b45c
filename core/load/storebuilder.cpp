// SPDX-License-Identifier: GPL-2.0-or-later
#include "load/storebuilder.h"

#include "store/timemerge.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <thread>
#include <unordered_map>

namespace ringside {

Stream& StoreBuilder::addStream(uint16_t buffer, int cpu, std::unique_ptr<PageSource> pages)
{
    auto stream = std::make_unique<Stream>();
    stream->buffer = buffer;
    stream->cpu = cpu;
    stream->columns.cpu = cpu;
    stream->pages = std::move(pages);
    m_store.m_streams.push_back(std::move(stream));
    m_store.m_streamTable.push_back(m_store.m_streams.back().get());
    return *m_store.m_streams.back();
}

namespace {

// Merges [begin[s], end[s]) of every stream into out starting at `at`, smallest
// (timestamp, stream) first.
void mergeRange(const std::vector<const TimestampColumn*>& streams, const std::vector<size_t>& begin,
                const std::vector<size_t>& end, MergedOrder& out, size_t at)
{
    std::vector<size_t> next = begin;
    mergeByTime(
        streams.size(),
        [&](uint32_t s, uint64_t& ts) {
            if (next[s] >= end[s]) return false;
            ts = (*streams[s])[next[s]++];
            return true;
        },
        [&](uint32_t s, uint64_t) {
            out.set(at++, StreamId(static_cast<uint16_t>(s)));
            return true;
        });
}

} // namespace

void StoreBuilder::mergeStreams(const std::vector<const TimestampColumn*>& streams, bool sorted, int threads,
                                MergedOrder& out)
{
    size_t total = 0, largest = 0;
    for (size_t s = 0; s < streams.size(); ++s) {
        total += streams[s]->size();
        if (streams[s]->size() > streams[largest]->size()) largest = s;
    }
    out.setStreamCount(streams.size());
    out.resize(total);
    const size_t zero = 0;
    std::vector<size_t> starts(streams.size(), zero), ends(streams.size());
    for (size_t s = 0; s < streams.size(); ++s) ends[s] = streams[s]->size();
    const int pieces = (sorted && total >= (1u << 20)) ? std::max(1, threads) : 1;
    if (pieces == 1) {
        mergeRange(streams, starts, ends, out, 0);
        out.rebuildCheckpoints();
        return;
    }
    // Cut points: every piece takes the events with cut[k-1] <= ts < cut[k].
    std::vector<std::vector<size_t>> bounds(static_cast<size_t>(pieces) + 1, starts);
    bounds.back() = ends;
    const auto& big = *streams[largest];
    for (int k = 1; k < pieces; ++k) {
        const uint64_t cut = big[big.size() * static_cast<size_t>(k) / static_cast<size_t>(pieces)];
        for (size_t s = 0; s < streams.size(); ++s)
            bounds[static_cast<size_t>(k)][s] = streams[s]->lowerBound(cut, 0, streams[s]->size());
    }
    std::vector<std::thread> workers;
    for (int k = 0; k < pieces; ++k) {
        size_t at = 0;
        for (size_t s = 0; s < streams.size(); ++s) at += bounds[static_cast<size_t>(k)][s];
        workers.emplace_back(mergeRange, std::cref(streams), std::cref(bounds[static_cast<size_t>(k)]),
                             std::cref(bounds[static_cast<size_t>(k) + 1]), std::ref(out), at);
    }
    for (auto& w : workers) w.join();
    out.rebuildCheckpoints();
}

void StoreBuilder::finalize(std::vector<uint64_t> typeCounts, bool sorted, int threads, tep_handle* tep)
{
    EventStore& s = m_store;
    std::vector<const TimestampColumn*> columns;
    for (const auto& stream : s.m_streams) columns.push_back(&stream->columns.timestamp);
    mergeStreams(columns, sorted, threads, s.m_order);
    if (s.m_order.size() > 0) {
        s.m_first.store(s.timestamp(s.eventAt(0)), std::memory_order_release);
        s.m_last.store(s.timestamp(s.eventAt(s.m_order.size() - 1)), std::memory_order_release);
    }

    s.m_typeCounts = std::move(typeCounts);

    // Tasks, interned in order of first appearance per stream; counts per pid.
    std::unordered_map<int32_t, uint64_t> perPid;
    for (const auto& stream : s.m_streams) {
        const auto& pids = stream->columns.pid;
        int32_t last = 0;
        uint64_t* slot = nullptr;
        for (size_t i = 0; i < pids.size(); ++i) {
            if (!slot || pids[i] != last) {
                last = pids[i];
                slot = &perPid[last];
            }
            ++*slot;
        }
    }
    std::vector<std::pair<int32_t, uint64_t>> byPid(perPid.begin(), perPid.end());
    std::sort(byPid.begin(), byPid.end());
    for (const auto& [pid, count] : byPid) {
        const char* comm = tep ? tep_data_comm_from_pid(tep, pid) : nullptr;
        TaskId id = s.m_tasks.intern(pid, comm ? comm : "<...>");
        s.m_tasks[id].events = count;
    }
}

} // namespace ringside
