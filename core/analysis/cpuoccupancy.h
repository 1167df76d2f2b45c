// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ringside {

// Which task ran on each CPU when, from sched_switch: the table "cpu_tasks" (sched_slice in
// SQL), intervals owned by the CPU whose state is the task that ran (the CPU rows' colours),
// each CPU's current run open there (at the end, closed at the CPU's last event if its events
// stop early: a cut file, a stopped load). Before the first switch of a CPU its previous task
// is assumed to run from the CPU's first event. Readers ask the table (RunningTasks), which keeps
// the runs; this keeps only each CPU's current one.
//
// Threading: fed by the registry on the analysis thread.
class CpuOccupancy : public RecordConsumer {
public:
    static constexpr const char* kName = "cpu-occupancy";
    // The task of a pid at a time (the trace's task index), for the table's states.
    using TaskOf = std::function<uint32_t(int32_t pid, uint64_t time)>;

    explicit CpuOccupancy(TaskOf taskOf = {}) : m_taskOf(std::move(taskOf)) {}

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override;
    void setTables(TableSink& tables) override;
    void setStreams(const std::vector<StreamInfo>& streams) override;
    void consume(const ConsumedRecord& record) override;
    void flush() override;
    void finish() override;

private:
    struct Run {
        uint64_t start = 0;
        int32_t pid = 0;
        bool started = false;
    };
    uint32_t taskOf(int32_t pid, uint64_t time) const { return m_taskOf ? m_taskOf(pid, time) : uint32_t(pid); }

    TaskOf m_taskOf;
    IntervalSink* m_table = nullptr;
    std::vector<StreamInfo> m_streams;
    std::vector<Run> m_current; // per stream: the run its last switch began
};

} // namespace ringside
