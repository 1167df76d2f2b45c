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

void CpuOccupancy::consume(const ConsumedRecord& record)
{
    const size_t s = record.stream.value;
    if (m_current.size() <= s) m_current.resize(s + 1);
    Run& run = m_current[s];
    if (!run.started) {
        const uint64_t first =
            s < m_streams.size() && m_streams[s].firstTimestamp ? m_streams[s].firstTimestamp : record.timestamp;
        run = {std::min(first, record.timestamp), static_cast<int32_t>(record.field(0).asSigned()), true};
    }
    // The run this switch ends, then the one it begins (open until the next switch).
    if (m_table && record.timestamp > run.start)
        m_table->add(run.start, record.timestamp, uint32_t(s), taskOf(run.pid, run.start));
    run = {record.timestamp, static_cast<int32_t>(record.field(1).asSigned()), true};
}

void CpuOccupancy::flush()
{
    // Each CPU's current run: its task from the last switch on.
    for (size_t s = 0; s < m_current.size(); ++s)
        if (m_current[s].started && m_table)
            m_table->open(m_current[s].start, uint32_t(s), taskOf(m_current[s].pid, m_current[s].start));
}

void CpuOccupancy::finish()
{
    // A CPU whose events stop early (a cut file, a stopped load) ran its task at least until
    // its last event; what ran after is not known.
    for (size_t s = 0; s < m_current.size(); ++s) {
        const Run& run = m_current[s];
        if (!run.started || !m_table) continue;
        if (s < m_streams.size() && m_streams[s].endsEarly) {
            if (m_streams[s].lastTimestamp > run.start)
                m_table->add(run.start, m_streams[s].lastTimestamp, uint32_t(s), taskOf(run.pid, run.start));
        } else {
            m_table->open(run.start, uint32_t(s), taskOf(run.pid, run.start));
        }
    }
}

} // namespace ringside
