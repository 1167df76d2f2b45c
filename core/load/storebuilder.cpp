// SPDX-License-Identifier: GPL-2.0-or-later
#include "load/storebuilder.h"

#include <traceevent/event-parse.h>

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
    return *m_store.m_streams.back();
}

void StoreBuilder::mergeStreams(const std::vector<const ChunkedColumn<uint64_t>*>& streams,
                                const std::vector<uint32_t>& base, ChunkedColumn<uint32_t>& out)
{
    struct Head {
        uint64_t ts;
        uint32_t stream;
        uint32_t index;
        bool operator<(const Head& o) const { return ts != o.ts ? ts < o.ts : stream < o.stream; }
    };
    std::vector<Head> heap;
    for (uint32_t s = 0; s < streams.size(); ++s)
        if (!streams[s]->empty()) heap.push_back({(*streams[s])[0], s, 0});
    auto after = [](const Head& a, const Head& b) { return b < a; }; // min-heap
    std::make_heap(heap.begin(), heap.end(), after);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), after);
        Head& h = heap.back();
        out.push_back(base[h.stream] + h.index);
        const auto& column = *streams[h.stream];
        if (++h.index < column.size()) {
            h.ts = column[h.index];
            std::push_heap(heap.begin(), heap.end(), after);
        } else {
            heap.pop_back();
        }
    }
}

void StoreBuilder::finalize(const std::vector<CpuLoadStats>& stats, tep_handle* tep)
{
    EventStore& s = m_store;
    s.m_streamBase.clear();
    uint64_t total = 0;
    std::vector<const ChunkedColumn<uint64_t>*> columns;
    for (const auto& stream : s.m_streams) {
        s.m_streamBase.push_back(static_cast<uint32_t>(total));
        total += stream->columns.size();
        columns.push_back(&stream->columns.timestamp);
    }
    mergeStreams(columns, s.m_streamBase, s.m_merged);
    if (s.m_merged.size() > 0) {
        s.m_first = s.timestamp(s.eventAt(0));
        s.m_last = s.timestamp(s.eventAt(s.m_merged.size() - 1));
    }

    s.m_typeCounts.assign(65536, 0);
    for (const auto& st : stats)
        for (size_t t = 0; t < st.perType.size(); ++t) s.m_typeCounts[t] += st.perType[t];

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
    std::vector<std::pair<int32_t, uint64_t>> sorted(perPid.begin(), perPid.end());
    std::sort(sorted.begin(), sorted.end());
    for (const auto& [pid, count] : sorted) {
        const char* comm = tep ? tep_data_comm_from_pid(tep, pid) : nullptr;
        TaskId id = s.m_tasks.intern(pid, comm ? comm : "<...>");
        s.m_tasks[id].events = count;
    }
}

} // namespace ringside
