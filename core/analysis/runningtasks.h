// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/ids.h"

#include <cstdint>

namespace ringside {

class EventStore;
class IntervalTable;

// Which task ran on each CPU when, as the table that declares itself sched_slice says
// (isSchedSlice): what the timeline, the task index and the exports ask, found by what a
// table declares rather than by the name of the analysis that fills it. A view, cheap to
// make; valid while the trace is. Between batches it answers from the rows published.
class RunningTasks {
public:
    RunningTasks() = default;
    RunningTasks(const IntervalTable* table, const EventStore* store) : m_table(table), m_store(store) {}

    // Whether any CPU has a task running in the table (the recording has context switches).
    bool available() const;
    const IntervalTable* table() const { return m_table; }
    // The stream whose runs `stream` shows: itself, or, when it has none (a buffer without
    // sched_switch, an instance tracing irqs), the same CPU of another buffer that has them:
    // the same task runs there.
    StreamId shownStream(StreamId stream) const;
    // The task running on the stream's CPU at `t`, invalid when not known (before its first
    // event, no switches).
    TaskId taskAt(StreamId stream, uint64_t t) const;

private:
    bool hasRuns(uint32_t owner) const;

    const IntervalTable* m_table = nullptr;
    const EventStore* m_store = nullptr;
};

} // namespace ringside
