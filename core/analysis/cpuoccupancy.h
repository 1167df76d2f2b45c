// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"
#include "store/growinglist.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace ringside {

// Which task ran on each CPU when, from sched_switch: per stream, the times at which a task
// started running. Before the first switch of a CPU its previous task is assumed to run from
// the CPU's first event; a buffer without sched_switch shares the runs of another buffer's
// same CPU. Its table "cpu_tasks" holds the same runs as intervals owned by the CPU
// whose state is the task (the CPU rows' colours); each CPU's current run is open there.
//
// Threading: fed by the registry on the analysis thread; readers on any thread read the runs
// published (they only grow).
class CpuOccupancy : public RecordConsumer {
public:
    struct Run {
        uint64_t start;
        int32_t pid;
    };
    static constexpr const char* kName = "cpu-occupancy";
    // The task of a pid at a time (the trace's task index), for the table's states.
    using TaskOf = std::function<uint32_t(int32_t pid, uint64_t time)>;

    explicit CpuOccupancy(TaskOf taskOf = {}) : m_taskOf(std::move(taskOf)) {}

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override;
    void setTables(TableSink& tables) override;
    void bind(const std::vector<bool>& bound) override { m_available = bound.at(0); }
    void setStreams(const std::vector<StreamInfo>& streams) override;
    void consume(const ConsumedRecord& record) override;
    void flush() override;
    void finish() override;

    bool available() const { return m_available; }
    const GrowingList<Run>& runs(StreamId stream) const;
    // The stream whose runs `stream` shows (itself, or the same CPU of a buffer with switches).
    StreamId sharedStream(StreamId stream) const
    {
        return stream.value < m_runsOf.size() ? StreamId(uint16_t(m_runsOf[stream.value].load(std::memory_order_relaxed)))
                                              : stream;
    }

    // The task running at `ts` on the stream, or -1 when unknown.
    int32_t pidAt(StreamId stream, uint64_t ts) const;

private:
    uint32_t taskOf(int32_t pid, uint64_t time) const { return m_taskOf ? m_taskOf(pid, time) : uint32_t(pid); }
    GrowingList<Run>& runsOf(size_t stream);

    TaskOf m_taskOf;
    bool m_available = false;
    IntervalSink* m_table = nullptr;
    std::vector<StreamInfo> m_streams;
    GrowingList<std::atomic<GrowingList<Run>*>> m_runs; // per stream
    std::deque<GrowingList<Run>> m_runLists;             // owned; never move
    GrowingList<std::atomic<uint32_t>> m_runsOf; // per stream: whose runs it shows (itself, or a sibling buffer's CPU)
};

} // namespace ringside
