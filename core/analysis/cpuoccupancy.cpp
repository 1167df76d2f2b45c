// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/cpuoccupancy.h"

#include "util/bytereader.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cstring>

namespace ringside {

std::optional<RecordTap> CpuOccupancy::tap(tep_handle* tep)
{
    tep_event* event = tep_find_event_by_name(tep, "sched", "sched_switch");
    if (!event) return std::nullopt;
    tep_format_field* prev = tep_find_field(event, "prev_pid");
    tep_format_field* next = tep_find_field(event, "next_pid");
    tep_format_field* comm = tep_find_field(event, "next_comm");
    if (!prev || !next || prev->size > 8 || next->size > 8) return std::nullopt;
    RecordTap tap;
    tap.eventType = static_cast<uint16_t>(event->id);
    tap.fields = {{prev->offset, prev->size}, {next->offset, next->size}};
    if (comm && comm->size > 0 && comm->size <= 64) tap.fields.push_back({comm->offset, comm->size});
    return tap;
}

CpuOccupancy CpuOccupancy::fromTap(const EventStore& store, const RecordTap& tap, const std::vector<TapColumn>& columns)
{
    CpuOccupancy out;
    out.m_available = true;
    out.m_runs.resize(store.streamCount());
    const bool bigEndian = store.layout().bigEndian;
    const size_t stride = tap.bytesPerHit();
    const int prevSize = tap.fields[0].second, nextSize = tap.fields[1].second;
    const int commSize = tap.fields.size() > 2 ? tap.fields[2].second : 0;
    for (size_t s = 0; s < columns.size() && s < store.streamCount(); ++s) {
        const TapColumn& column = columns[s];
        const auto& timestamps = store.stream(StreamId(static_cast<uint16_t>(s))).columns.timestamp;
        auto& runs = out.m_runs[s];
        runs.reserve(column.events.size() + 1);
        for (size_t hit = 0; hit < column.events.size(); ++hit) {
            const uint8_t* bytes = column.bytes.data() + hit * stride;
            const auto nextPid = static_cast<int32_t>(ByteReader::decode(bytes + prevSize, nextSize, bigEndian));
            if (runs.empty())
                runs.push_back({timestamps[0], static_cast<int32_t>(ByteReader::decode(bytes, prevSize, bigEndian))});
            runs.push_back({timestamps[column.events[hit]], nextPid});
            if (commSize) {
                const char* text = reinterpret_cast<const char*>(bytes + prevSize + nextSize);
                const size_t length = strnlen(text, size_t(commSize));
                if (length) out.m_names[nextPid].assign(text, length);
            }
        }
    }
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
    if (stream.value >= m_runs.size()) return -1;
    const auto& runs = m_runs[stream.value];
    auto it = std::upper_bound(runs.begin(), runs.end(), ts, [](uint64_t t, const Run& r) { return t < r.start; });
    if (it == runs.begin()) return -1;
    return (it - 1)->pid;
}

} // namespace ringside
