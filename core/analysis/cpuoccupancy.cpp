// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/cpuoccupancy.h"

#include <algorithm>

namespace ringside {

std::vector<EventRequest> CpuOccupancy::requests() const
{
    return {{"sched", "sched_switch", {"prev_pid", "next_pid", "next_comm"}}};
}

void CpuOccupancy::setStreams(const std::vector<StreamInfo>& streams)
{
    m_streams = streams;
    if (m_runs.size() < streams.size()) m_runs.resize(streams.size());
}

void CpuOccupancy::consume(const ConsumedRecord& record)
{
    const size_t s = record.stream.value;
    if (s >= m_runs.size()) m_runs.resize(s + 1);
    auto& runs = m_runs[s];
    const auto nextPid = static_cast<int32_t>(record.field(1).asSigned());
    if (runs.empty()) {
        const uint64_t first =
            s < m_streams.size() && m_streams[s].firstTimestamp ? m_streams[s].firstTimestamp : record.timestamp;
        runs.push_back({std::min(first, record.timestamp), static_cast<int32_t>(record.field(0).asSigned())});
    }
    runs.push_back({record.timestamp, nextPid});
    const std::string_view comm = record.field(2).asText();
    if (!comm.empty()) {
        std::string& known = m_names[nextPid];
        if (known != comm) known.assign(comm);
    }
}

void CpuOccupancy::flush()
{
    // A buffer without sched_switch (an instance tracing irqs, say) shares the CPU with the
    // buffers that have it: the same task runs there.
    m_runsOf.resize(m_runs.size());
    for (size_t s = 0; s < m_runs.size(); ++s) {
        m_runsOf[s] = s;
        if (!m_runs[s].empty() || s >= m_streams.size()) continue;
        for (size_t o = 0; o < m_runs.size() && o < m_streams.size(); ++o)
            if (o != s && !m_runs[o].empty() && m_streams[o].cpu == m_streams[s].cpu) {
                m_runsOf[s] = o;
                break;
            }
    }
}

const std::vector<CpuOccupancy::Run>& CpuOccupancy::runs(StreamId stream) const
{
    static const std::vector<Run> none;
    if (stream.value >= m_runs.size()) return none;
    const size_t s = stream.value < m_runsOf.size() ? m_runsOf[stream.value] : stream.value;
    return m_runs[s];
}

const std::string* CpuOccupancy::name(int32_t pid) const
{
    auto it = m_names.find(pid);
    return it == m_names.end() ? nullptr : &it->second;
}

int32_t CpuOccupancy::pidAt(StreamId stream, uint64_t ts) const
{
    const auto& r = runs(stream);
    auto it = std::upper_bound(r.begin(), r.end(), ts, [](uint64_t t, const Run& run) { return t < run.start; });
    if (it == r.begin()) return -1;
    return (it - 1)->pid;
}

} // namespace ringside
