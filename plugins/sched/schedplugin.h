// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugin.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ringside::sched {

// What a task was doing, from sched_switch and the wakeups.
enum class TaskState : uint16_t { Running, Runnable, Sleeping, Blocked, Stopped, Dead, Unknown };

// Each task's state over time (running, runnable, sleeping S, uninterruptible D, stopped,
// dead), its wakeups as flows from the waker to the switch that ran it, and per-task
// statistics: run, runnable, sleep and blocked time, switches out (voluntary or preempted) and
// in, wakeups and their latency. The idle tasks (pid 0, one per CPU) are left out.
class SchedPlugin : public Plugin {
public:
    static constexpr const char* kName = "sched";

    // One task's counts. Times add up whole intervals only: from the event that began one to
    // the event that ended it (a task running when the recording began has no start).
    struct TaskStats {
        uint64_t run = 0, runnable = 0, sleep = 0, blocked = 0;
        uint64_t switchesOut = 0, preempted = 0, switchesIn = 0, wakeups = 0;
        uint64_t latencyTotal = 0, latencyMax = 0, latencies = 0;
        uint64_t latencyMaxAt = 0; // the switch-in that ended the longest wait
    };
    // A name a task ran under, from the time it was first seen with it.
    struct Name {
        int32_t pid = 0;
        uint64_t since = 0;
        std::string comm;
    };

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override;
    void bind(const std::vector<bool>& bound) override;
    void consume(const ConsumedRecord& record) override;
    std::string nothingToShow() const override;
    PluginTables tables(const RecordingInfo& info) const override;

    const std::unordered_map<int32_t, TaskStats>& stats() const { return m_stats; }
    // Every name change: a task's second and later names, in time order.
    const std::vector<Name>& renames() const { return m_renames; }
    // The state of `prev` after a switch, from prev_state as kernels since 4.14 report it.
    static TaskState stateAfterSwitch(int64_t prevState);

private:
    struct Task {
        TaskState state = TaskState::Unknown;
        uint64_t since = 0;   // when the state began (0: unknown)
        uint64_t wokenAt = 0; // the wakeup not yet followed by a switch-in
        int32_t waker = -1;
        char comm[16] = {}; // the name it last ran under
    };
    void enter(int32_t pid, TaskState state, uint64_t t);
    void switched(const ConsumedRecord& record);
    void woken(const ConsumedRecord& record, int32_t pid);
    void mark(const ConsumedRecord& record, int32_t pid, uint32_t label);
    void named(int32_t pid, std::string_view comm, uint64_t t);

    std::vector<bool> m_bound;
    std::unordered_map<int32_t, Task> m_tasks;
    std::unordered_map<int32_t, TaskStats> m_stats;
    IntervalTable m_states;
    FlowTable m_wakeups;
    InstantTable m_marks;
    std::vector<uint64_t> m_latencyBuckets; // by power of two of microseconds
    std::vector<Name> m_renames;
};

} // namespace ringside::sched
