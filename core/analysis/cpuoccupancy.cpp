// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/cpuoccupancy.h"

#include <algorithm>

namespace ringside {

std::vector<EventRequest> CpuOccupancy::requests() const
{
    return {{"sched", "sched_switch", {"prev_pid", "next_pid"}, false, {}, {"prev_pid", "next_pid"}}};
}

void CpuOccupancy::setTables(TableSink& tables)
{
    IntervalTableSpec spec;
    spec.key = "cpu_tasks";
    spec.title = "Tasks running";
    spec.owner = RowOwner::Cpu;
    spec.statesAreTasks = true;
    spec.perfettoTable = "sched_slice";
    m_table = &tables.intervals(spec);
}

void CpuOccupancy::setStreams(const std::vector<StreamInfo>& streams)
{
    m_streams = streams;
}

GrowingList<CpuOccupancy::Run>& CpuOccupancy::runsOf(size_t stream)
{
    while (m_runs.staged() <= stream) m_runs.stage();
    GrowingList<Run>* list = m_runs[stream].load(std::memory_order_relaxed);
    if (!list) {
        list = &m_runLists.emplace_back();
        m_runs[stream].store(list, std::memory_order_release);
    }
    return *list;
}

void CpuOccupancy::consume(const ConsumedRecord& record)
{
    const size_t s = record.stream.value;
    GrowingList<Run>& runs = runsOf(s);
    const auto nextPid = static_cast<int32_t>(record.field(1).asSigned());
    if (runs.staged() == 0) {
        const uint64_t first =
            s < m_streams.size() && m_streams[s].firstTimestamp ? m_streams[s].firstTimestamp : record.timestamp;
        runs.stage({std::min(first, record.timestamp), static_cast<int32_t>(record.field(0).asSigned())});
    }
    // The run this switch ends, then the one it begins (open until the next switch).
    const Run& ended = runs[runs.staged() - 1];
    if (m_table && record.timestamp > ended.start)
        m_table->add(ended.start, record.timestamp, uint32_t(s), taskOf(ended.pid, ended.start));
    runs.stage({record.timestamp, nextPid});
}

void CpuOccupancy::flush()
{
    for (size_t s = 0; s < m_runs.staged(); ++s)
        if (GrowingList<Run>* list = m_runs[s].load(std::memory_order_relaxed)) {
            list->publish();
            // Each CPU's current run: its task from the last switch on.
            if (m_table && list->size()) {
                const Run& last = list->back();
                m_table->open(last.start, uint32_t(s), taskOf(last.pid, last.start));
            }
        }
    m_runs.publish();
    // A buffer without sched_switch (an instance tracing irqs, say) shares the CPU with the
    // buffers that have it: the same task runs there.
    while (m_runsOf.staged() < m_streams.size())
        m_runsOf.stage().store(uint32_t(m_runsOf.staged() - 1), std::memory_order_relaxed);
    m_runsOf.publish();
    for (size_t s = 0; s < m_streams.size(); ++s) {
        const size_t own = s < m_runs.size() && m_runs[s].load() ? m_runs[s].load()->size() : 0;
        if (own) continue;
        for (size_t o = 0; o < m_runs.size() && o < m_streams.size(); ++o) {
            const GrowingList<Run>* other = m_runs[o].load();
            if (o != s && other && other->size() && m_streams[o].cpu == m_streams[s].cpu) {
                m_runsOf[s].store(uint32_t(o), std::memory_order_relaxed);
                break;
            }
        }
    }
}

void CpuOccupancy::finish()
{
    flush();
}

const GrowingList<CpuOccupancy::Run>& CpuOccupancy::runs(StreamId stream) const
{
    static const GrowingList<Run> none;
    size_t s = stream.value;
    if (s < m_runsOf.size()) s = m_runsOf[s].load(std::memory_order_relaxed);
    if (s >= m_runs.size()) return none;
    const GrowingList<Run>* list = m_runs[s].load(std::memory_order_acquire);
    return list ? *list : none;
}

int32_t CpuOccupancy::pidAt(StreamId stream, uint64_t ts) const
{
    const auto& r = runs(stream);
    const size_t at = r.lowerBound(ts + 1, 0, r.size(), [](const Run& run) { return run.start; });
    if (at == 0) return -1;
    return r[at - 1].pid;
}

} // namespace ringside
