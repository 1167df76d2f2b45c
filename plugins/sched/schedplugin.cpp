// SPDX-License-Identifier: GPL-2.0-or-later
#include "schedplugin.h"

#include <algorithm>
#include <bit>
#include <map>

namespace ringside::sched {

namespace {

enum Request : size_t { kSwitch, kWakeup, kWaking, kWakeupNew, kMigrate, kFork, kExec, kExit };
enum Mark : uint32_t { kMigrated, kForked, kExecuted, kExited, kRenamed };

} // namespace

std::string SchedPlugin::description() const
{
    return "Task states over time (running, runnable, sleeping, blocked), wakeups and their latency, per-task "
           "scheduling statistics";
}

std::vector<EventRequest> SchedPlugin::requests() const
{
    return {
        {"sched", "sched_switch", {"prev_pid", "prev_state", "next_pid", "next_comm"}, false},
        {"sched", "sched_wakeup", {"pid"}, false},
        {"sched", "sched_waking", {"pid"}, false},
        {"sched", "sched_wakeup_new", {"pid"}, false},
        {"sched", "sched_migrate_task", {"pid"}, false},
        {"sched", "sched_process_fork", {"child_pid"}, false},
        {"sched", "sched_process_exec", {"pid"}, false},
        {"sched", "sched_process_exit", {"pid"}, false},
    };
}

void SchedPlugin::bind(const std::vector<bool>& bound)
{
    m_bound = bound;
    m_states.name = "Task states";
    m_states.states = {{"running", 0x2e9e44},     {"runnable", 0xf0a030}, {"sleeping", 0xc8ccd4},
                       {"blocked (D)", 0xd01c28}, {"stopped", 0x8c5ac8},  {"dead", 0x303030}};
    m_wakeups.name = "Wakeups";
    m_marks.name = "Task events";
    m_marks.labels = {"migrated", "forked", "exec", "exited", "renamed"};
    m_latencyBuckets.assign(32, 0);
}

TaskState SchedPlugin::stateAfterSwitch(int64_t prevState)
{
    // The low byte holds the reported state; a preempted task has none of its bits set (the
    // kernel adds TASK_REPORT_MAX above them, printed "R+").
    const int64_t s = prevState & 0xff;
    if (s == 0) return TaskState::Runnable;
    if (s & 0x01) return TaskState::Sleeping;
    if (s & 0x02) return TaskState::Blocked;
    if (s & 0x0c) return TaskState::Stopped;
    if (s & 0x30) return TaskState::Dead;
    return TaskState::Sleeping; // parked, idle (I): not waiting for a CPU
}

void SchedPlugin::enter(int32_t pid, TaskState state, uint64_t t)
{
    Task& task = m_tasks[pid];
    if (task.state != TaskState::Unknown && task.since != 0 && t >= task.since) {
        TaskStats& s = m_stats[pid];
        const uint64_t d = t - task.since;
        switch (task.state) {
        case TaskState::Running: s.run += d; break;
        case TaskState::Runnable: s.runnable += d; break;
        case TaskState::Sleeping: s.sleep += d; break;
        case TaskState::Blocked: s.blocked += d; break;
        default: break;
        }
        if (task.state <= TaskState::Dead && d > 0) m_states.add(task.since, t, pid, uint16_t(task.state));
    }
    task.state = state;
    task.since = t;
}

void SchedPlugin::switched(const ConsumedRecord& record)
{
    const int32_t prev = int32_t(record.field(0).asSigned());
    const int32_t next = int32_t(record.field(2).asSigned());
    const uint64_t t = record.timestamp;
    if (prev != 0) {
        const TaskState after = stateAfterSwitch(record.field(1).asSigned());
        TaskStats& s = m_stats[prev];
        ++s.switchesOut;
        if (after == TaskState::Runnable) ++s.preempted;
        // A task whose start was not recorded was running until now: its time so far is not
        // counted (enter() counts whole intervals only).
        Task& task = m_tasks[prev];
        if (task.state != TaskState::Running) task.since = 0, task.state = TaskState::Running;
        enter(prev, after, t);
    }
    if (next != 0) {
        TaskStats& s = m_stats[next];
        ++s.switchesIn;
        Task& task = m_tasks[next];
        if (task.wokenAt != 0 && t >= task.wokenAt) {
            const uint64_t latency = t - task.wokenAt;
            s.latencyTotal += latency;
            if (latency >= s.latencyMax) s.latencyMax = latency, s.latencyMaxAt = t;
            ++s.latencies;
            ++m_latencyBuckets[std::min<size_t>(31, size_t(std::bit_width(latency / 1000)))];
            m_wakeups.fromTime.push_back(task.wokenAt);
            m_wakeups.fromOwner.push_back(task.waker);
            m_wakeups.toTime.push_back(t);
            m_wakeups.toOwner.push_back(next);
            m_wakeups.value.push_back(int64_t(latency));
            task.wokenAt = 0;
        }
        enter(next, TaskState::Running, t);
        if (record.valueCount > 3) named(next, record.field(3).asText(), t);
    }
}

void SchedPlugin::named(int32_t pid, std::string_view comm, uint64_t t)
{
    Task& task = m_tasks[pid];
    comm = comm.substr(0, sizeof task.comm - 1);
    if (comm == task.comm) return;
    if (task.comm[0]) {
        m_renames.push_back({pid, t, std::string(comm)});
        m_marks.time.push_back(t);
        m_marks.ownerId.push_back(pid);
        m_marks.label.push_back(kRenamed);
    }
    std::fill(std::begin(task.comm), std::end(task.comm), '\0');
    std::copy(comm.begin(), comm.end(), task.comm);
}

void SchedPlugin::woken(const ConsumedRecord& record, int32_t pid)
{
    if (pid == 0) return;
    Task& task = m_tasks[pid];
    if (task.state == TaskState::Running) return; // a wakeup of a running task changes nothing
    ++m_stats[pid].wakeups;
    task.wokenAt = record.timestamp;
    task.waker = record.pid;
    enter(pid, TaskState::Runnable, record.timestamp);
}

void SchedPlugin::mark(const ConsumedRecord& record, int32_t pid, uint32_t label)
{
    m_marks.time.push_back(record.timestamp);
    m_marks.ownerId.push_back(pid);
    m_marks.label.push_back(label);
}

void SchedPlugin::consume(const ConsumedRecord& record)
{
    const auto pid = [&] { return int32_t(record.field(0).asSigned()); };
    switch (record.request) {
    case kSwitch: switched(record); break;
    // The wakeup that makes a task runnable: sched_wakeup, or sched_waking when the recording
    // has no sched_wakeup.
    case kWakeup: woken(record, pid()); break;
    case kWaking:
        if (!m_bound[kWakeup]) woken(record, pid());
        break;
    case kWakeupNew: woken(record, pid()); break;
    case kMigrate: mark(record, pid(), kMigrated); break;
    case kFork: mark(record, pid(), kForked); break;
    case kExec: mark(record, pid(), kExecuted); break;
    case kExit: mark(record, pid(), kExited); break;
    default: break;
    }
}

std::string SchedPlugin::nothingToShow() const
{
    if (m_bound.empty() || !m_bound[kSwitch]) return "the recording has no sched/sched_switch events";
    if (m_stats.empty()) return "the recording's sched_switch events have no records";
    return {};
}

PluginTables SchedPlugin::tables(const RecordingInfo& info) const
{
    PluginTables out;
    out.intervals.push_back(m_states);
    out.flows.push_back(m_wakeups);
    out.instants.push_back(m_marks);
    StatsTable tasks{"tasks", "Scheduling per task", {}, {}};
    tasks.columns = {{"pid", "PID"},
                     {"comm", "Task"},
                     {"switches_out", "Switches out"},
                     {"preempted", "Preempted"},
                     {"switches_in", "Switches in"},
                     {"run_ns", "Running (ns)"},
                     {"runnable_ns", "Runnable (ns)"},
                     {"sleep_ns", "Sleeping (ns)"},
                     {"blocked_ns", "Blocked (ns)"},
                     {"wakeups", "Wakeups"},
                     {"max_wakeup_latency_ns", "Max wakeup latency (ns)"},
                     {"max_wakeup_latency_at", "Max wakeup latency at"},
                     {"avg_wakeup_latency_ns", "Avg wakeup latency (ns)"}};
    const std::map<int32_t, TaskStats> sorted(m_stats.begin(), m_stats.end());
    for (const auto& [pid, s] : sorted)
        tasks.rows.push_back({int64_t(pid), info.taskName ? info.taskName(pid) : std::string(), s.switchesOut,
                              s.preempted, s.switchesIn, s.run, s.runnable, s.sleep, s.blocked, s.wakeups, s.latencyMax,
                              s.latencyMaxAt, s.latencies ? s.latencyTotal / s.latencies : uint64_t(0)});
    StatsTable histogram{"wakeup_latency", "Wakeup latency histogram", {}, {}};
    histogram.columns = {{"from_us", "From (us)"}, {"to_us", "To (us)"}, {"count", "Wakeups"}};
    for (size_t b = 0; b < m_latencyBuckets.size(); ++b)
        if (m_latencyBuckets[b])
            histogram.rows.push_back(
                {uint64_t(b ? uint64_t(1) << (b - 1) : 0), uint64_t(uint64_t(1) << b), m_latencyBuckets[b]});
    StatsTable names{"names", "Task names over time", {}, {}};
    names.columns = {{"time", "Renamed at (ns)"}, {"pid", "PID"}, {"comm", "New name"}};
    for (const Name& n : m_renames) names.rows.push_back({n.since, int64_t(n.pid), n.comm});
    out.statistics.push_back(std::move(tasks));
    out.statistics.push_back(std::move(histogram));
    out.statistics.push_back(std::move(names));
    return out;
}

} // namespace ringside::sched
