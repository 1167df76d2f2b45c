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
//
// A CPU's sched_switch ends whatever ran there, whatever its prev says: a switch whose prev is
// not the task the CPU's last switch ran (that task's switch-out was filtered or lost) ends
// that task's run there (its state after is unknown) and is counted as a mismatch; prev's own
// run is not counted, for its start was not seen on that CPU.
class SchedPlugin : public Plugin {
public:
    static constexpr const char* kName = "sched";

    // One task's counts. Times add up whole intervals only: from the event that began one to
    // the event that ended it (a task running when the recording began has no start).
    struct TaskStats {
        uint64_t run = 0, runnable = 0, sleep = 0, blocked = 0;
        uint64_t switchesOut = 0, preempted = 0, switchesIn = 0, wakeups = 0;
        uint64_t latencyTotal = 0, latencyMax = 0, latencies = 0;
        EventRef latencyMaxAt; // the switch-in that ended the longest wait
        // Runs whose switch in was not recorded (the recording began inside them, or the
        // switch was filtered or lost): their time is not in `run`.
        uint64_t unstartedRuns = 0;
        EventRef firstUnstartedEnd; // the switch out that ended the first of them
    };
    // The one definition of wakeup latency, wherever Ringside shows one (the tables' headers,
    // the wakeups' flows and SQL table, the Query pane's examples).
    static constexpr const char* kWakeupLatency =
        "Wakeup latency: from the wakeup that made a task runnable (sched_wakeup or sched_wakeup_new; "
        "sched_waking in a recording without sched_wakeup) to the sched_switch that ran it. Of several "
        "wakeups before it ran, the latest counts; a wakeup of a running task counts none.";
    // A name a task ran under, from the time it was first seen with it.
    struct Name {
        uint32_t task = 0;
        EventRef at;
        std::string comm;
    };

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override;
    void setRecording(const RecordingInfo& info) override { m_info = info; }
    void setTables(TableSink& tables) override;
    void bind(const std::vector<bool>& bound) override;
    void setStreams(const std::vector<StreamInfo>& streams) override { m_streams = streams; }
    void consume(const ConsumedRecord& record) override;
    void finish() override;
    std::string nothingToShow() const override;
    std::vector<StatsTable> statistics() const override;

    // By task (a TaskId's value).
    const std::unordered_map<uint32_t, TaskStats>& stats() const { return m_stats; }
    // Every name change: a task's second and later names, in time order.
    const std::vector<Name>& renames() const { return m_renames; }
    // Switches whose prev was not the task the CPU's last switch ran.
    uint64_t mismatches() const { return m_mismatches; }
    int statisticsVersion() const override { return 2; } // 2: unstarted_runs
    // The state of `prev` after a switch, from prev_state as kernels since 4.14 report it.
    static TaskState stateAfterSwitch(int64_t prevState);

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    struct Task {
        TaskState state = TaskState::Unknown;
        uint64_t since = 0;   // when the state began (0: unknown)
        uint64_t wokenAt = 0; // the wakeup not yet followed by a switch-in
        uint32_t waker = kNone;
        uint32_t stream = kNone; // where it runs, while Running
        char comm[16] = {};      // the name it last ran under
    };
    uint32_t taskOf(int32_t pid, uint64_t t) { return m_lives.at(pid, t); }
    void enter(uint32_t task, TaskState state, uint64_t t);
    void switched(const ConsumedRecord& record);
    void woken(const ConsumedRecord& record, int32_t pid);
    void mark(uint64_t t, uint32_t task, uint32_t label);
    void named(uint32_t task, std::string_view comm, const ConsumedRecord& record);

    RecordingInfo m_info;
    TaskLives m_lives{m_info}; // the switches' and wakeups' tasks
    std::vector<bool> m_bound;
    IntervalSink* m_states = nullptr;
    FlowSink* m_wakeups = nullptr;
    InstantSink* m_marks = nullptr;
    std::unordered_map<uint32_t, Task> m_tasks;
    std::unordered_map<uint32_t, TaskStats> m_stats;
    std::vector<uint32_t> m_running; // per stream: the task its last switch ran
    std::vector<StreamInfo> m_streams;
    std::vector<uint64_t> m_latencyBuckets = std::vector<uint64_t>(32, 0); // by power of two of microseconds
    std::vector<Name> m_renames;
    uint64_t m_mismatches = 0;
};

} // namespace ringside::sched
