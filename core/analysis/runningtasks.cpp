// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/runningtasks.h"

#include "analysis/tracktables.h"
#include "store/eventstore.h"

namespace ringside {

bool RunningTasks::hasRuns(uint32_t owner) const
{
    const GrowingList<IntervalRow>* rows = m_table->byOwner().of(owner);
    return (rows && rows->size()) || m_table->openOf(owner).end != 0;
}

bool RunningTasks::available() const
{
    if (!m_table) return false;
    if (m_table->rows()) return true;
    for (size_t owner = 0; owner < m_table->openOwners(); ++owner)
        if (m_table->openOf(uint32_t(owner)).end) return true;
    return false;
}

StreamId RunningTasks::shownStream(StreamId stream) const
{
    if (!m_table || !m_store || stream.value >= m_store->streamCount() || hasRuns(stream.value)) return stream;
    const int cpu = m_store->stream(stream).cpu;
    for (size_t s = 0; s < m_store->streamCount(); ++s)
        if (s != stream.value && m_store->stream(StreamId(uint16_t(s))).cpu == cpu && hasRuns(uint32_t(s)))
            return StreamId(uint16_t(s));
    return stream;
}

TaskId RunningTasks::taskAt(StreamId stream, uint64_t t) const
{
    if (!m_table) return TaskId();
    const std::optional<IntervalRow> run = m_table->rowAt(shownStream(stream).value, t, t);
    return run ? TaskId(run->state) : TaskId();
}

} // namespace ringside
