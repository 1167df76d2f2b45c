// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/cpuoccupancy.h"

#include "decode/recordwalker.h"
#include "util/bytereader.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cstring>
#include <thread>

namespace ringside {

CpuOccupancy CpuOccupancy::build(const EventStore& store, tep_handle* tep)
{
    CpuOccupancy out;
    out.m_runs.resize(store.streamCount());
    tep_event* event = tep_find_event_by_name(tep, "sched", "sched_switch");
    tep_format_field* next = event ? tep_find_field(event, "next_pid") : nullptr;
    tep_format_field* prev = event ? tep_find_field(event, "prev_pid") : nullptr;
    tep_format_field* nextComm = event ? tep_find_field(event, "next_comm") : nullptr;
    if (!next || !prev) return out;
    std::vector<std::unordered_map<int32_t, std::string>> names(store.streamCount());
    out.m_available = true;
    std::vector<bool> types(65536, false);
    types[static_cast<size_t>(event->id)] = true;
    const bool bigEndian = store.layout().bigEndian;
    auto build = [&](size_t s) {
        auto& runs = out.m_runs[s];
        const auto& columns = store.stream(StreamId(static_cast<uint16_t>(s))).columns;
        walkRecords(store, StreamId(static_cast<uint16_t>(s)), types,
                    [&](uint32_t index, const uint8_t* data, int size) {
                        if (next->offset + next->size > size || prev->offset + prev->size > size) return;
                        const auto nextPid = static_cast<int32_t>(ByteReader::decode(data + next->offset, next->size, bigEndian));
                        if (runs.empty()) {
                            const auto prevPid = static_cast<int32_t>(ByteReader::decode(data + prev->offset, prev->size, bigEndian));
                            runs.push_back({columns.timestamp[0], prevPid});
                        }
                        runs.push_back({columns.timestamp[index], nextPid});
                        if (nextComm && nextComm->offset + nextComm->size <= size) {
                            const char* text = reinterpret_cast<const char*>(data + nextComm->offset);
                            names[s][nextPid].assign(text, strnlen(text, size_t(nextComm->size)));
                        }
                    });
    };
    std::vector<std::thread> workers;
    for (size_t s = 0; s < store.streamCount(); ++s) workers.emplace_back(build, s);
    for (auto& w : workers) w.join();
    for (auto& perStream : names)
        for (auto& [pid, name] : perStream)
            if (!name.empty()) out.m_names[pid] = std::move(name);
    // A buffer without sched_switch (an instance tracing irqs, say) shares the CPU with the
    // buffers that have it: the same task runs there.
    for (size_t s = 0; s < store.streamCount(); ++s) {
        if (!out.m_runs[s].empty()) continue;
        const int cpu = store.stream(StreamId(static_cast<uint16_t>(s))).cpu;
        for (size_t o = 0; o < store.streamCount(); ++o)
            if (o != s && !out.m_runs[o].empty() && store.stream(StreamId(static_cast<uint16_t>(o))).cpu == cpu) {
                out.m_runs[s] = out.m_runs[o];
                break;
            }
    }
    return out;
}

const std::string* CpuOccupancy::name(int32_t pid) const
{
    auto it = m_names.find(pid);
    return it == m_names.end() ? nullptr : &it->second;
}

int32_t CpuOccupancy::pidAt(StreamId stream, uint64_t ts) const
{
    const auto& runs = m_runs[stream.value];
    auto it = std::upper_bound(runs.begin(), runs.end(), ts, [](uint64_t t, const Run& r) { return t < r.start; });
    if (it == runs.begin()) return -1;
    return (it - 1)->pid;
}

} // namespace ringside
