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
        // Every pid read names a task (EventRequest::tasks): the core makes it beforehand.
        {"sched", "sched_switch", {"prev_pid", "prev_state", "next_pid", "next_comm"}, false, {}, {"prev_pid", "next_pid"}},
        {"sched", "sched_wakeup", {"pid"}, false, {}, {"pid"}},
        {"sched", "sched_waking", {"pid"}, false, {}, {"pid"}},
        {"sched", "sched_wakeup_new", {"pid"}, false, {}, {"pid"}},
        {"sched", "sched_migrate_task", {"pid"}, false, {}, {"pid"}},
        {"sched", "sched_process_fork", {"child_pid"}, false, {}, {"child_pid"}},
        {"sched", "sched_process_exec", {"pid"}, false, {}, {"pid"}},
        {"sched", "sched_process_exit", {"pid"}, false, {}, {"pid"}},
    };
}

void SchedPlugin::setTables(TableSink& tables)
{
    m_states = &tables.intervals({"task_states",
                                  "Task states",
                                  RowOwner::Task,
                                  {{"running", 0x2e9e44},
                                   {"runnable", 0xf0a030},
                                   {"sleeping", 0xc8ccd4},
                                   {"blocked (D)", 0xd01c28},
                                   {"stopped", 0x8c5ac8},
                                   {"dead", 0x303030}},
                                  false,
                                  "thread_state"});
    m_wakeups = &tables.flows({"wakeups", "Wakeups", RowOwner::Task, "latency"});
    m_marks = &tables.instants({"task_events", "Task events", RowOwner::Task,
                                {"migrated", "forked", "exec", "exited", "renamed"}});
}

void SchedPlugin::bind(const std::vector<bool>& bound)
{
    m_bound = bound;
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

void SchedPlugin::enter(uint32_t id, TaskState state, uint64_t t)
{
    Task& task = m_tasks[id];
    if (task.state != TaskState::Unknown && task.since != 0 && t >= task.since) {
        TaskStats& s = m_stats[id];
        const uint64_t d = t - task.since;
        switch (task.state) {
        case TaskState::Running: s.run += d; break;
        case TaskState::Runnable: s.runnable += d; break;
        case TaskState::Sleeping: s.sleep += d; break;
        case TaskState::Blocked: s.blocked += d; break;
        default: break;
        }
        if (m_states && task.state <= TaskState::Dead && d > 0) m_states->add(task.since, t, id, uint32_t(task.state));
    }
    task.state = state;
    task.since = t;
    if (state != TaskState::Running) task.stream = kNone;
    if (m_states && state <= TaskState::Dead) m_states->open(t, id, uint32_t(state));
}

void SchedPlugin::switched(const ConsumedRecord& record)
{
    const int32_t prevPid = int32_t(record.field(0).asSigned());
    const int32_t nextPid = int32_t(record.field(2).asSigned());
    const uint64_t t = record.timestamp;
    const uint32_t stream = record.stream.value;
    if (m_running.size() <= stream) m_running.resize(stream + 1u, kNone);
    // The switch is recorded by prev itself, mostly: its task is the record's, already known.
    const uint32_t prev = prevPid == 0                                   ? kNone
                          : record.pid == prevPid && record.task.valid() ? record.task.value
                                                                         : taskOf(prevPid, t);
    const uint32_t next = nextPid != 0 ? taskOf(nextPid, t) : kNone;
    // Whatever the CPU's last switch ran stops running here, whatever prev says.
    const uint32_t ran = m_running[stream];
    if (ran != kNone && ran != prev) {
        ++m_mismatches;
        Task& task = m_tasks[ran];
        if (task.state == TaskState::Running && task.stream == stream) enter(ran, TaskState::Unknown, t);
    }
    m_running[stream] = next;
    if (prev != kNone) {
        const TaskState after = stateAfterSwitch(record.field(1).asSigned());
        TaskStats& s = m_stats[prev];
        ++s.switchesOut;
        if (after == TaskState::Runnable) ++s.preempted;
        // A task whose start of its run here was not recorded was running until now: its time
        // so far is not counted (enter() counts whole intervals only).
        Task& task = m_tasks[prev];
        if (task.state != TaskState::Running || task.stream != stream) {
            task.since = 0, task.state = TaskState::Running;
            if (!s.unstartedRuns++) s.firstUnstartedEnd = {record.stream, record.index};
        }
        enter(prev, after, t);
    }
    if (next != kNone) {
        TaskStats& s = m_stats[next];
        ++s.switchesIn;
        Task& task = m_tasks[next];
        if (task.wokenAt != 0 && t >= task.wokenAt) {
            const uint64_t latency = t - task.wokenAt;
            s.latencyTotal += latency;
            if (latency >= s.latencyMax) s.latencyMax = latency, s.latencyMaxAt = {record.stream, record.index};
            ++s.latencies;
            ++m_latencyBuckets[std::min<size_t>(31, size_t(std::bit_width(latency / 1000)))];
            // Every latency measured is a flow, from its waker (none for a wakeup from an interrupt
            // on an idle CPU): the wakeups' table holds each one the statistics count.
            if (m_wakeups) m_wakeups->add(task.wokenAt, task.waker, t, next, int64_t(latency));
            task.wokenAt = 0;
        }
        // Running elsewhere still (its switch-out there was not seen, nor a switch on that CPU
        // since): a task runs on one CPU at a time, so that run ends here, at the latest.
        enter(next, TaskState::Running, t);
        m_tasks[next].stream = stream;
        if (record.valueCount > 3) named(next, record.field(3).asText(), record);
    }
}

void SchedPlugin::named(uint32_t id, std::string_view comm, const ConsumedRecord& record)
{
    Task& task = m_tasks[id];
    comm = comm.substr(0, sizeof task.comm - 1);
    if (comm == task.comm) return;
    if (task.comm[0]) {
        m_renames.push_back({id, {record.stream, record.index}, std::string(comm)});
        mark(record.timestamp, id, kRenamed);
    }
    std::fill(std::begin(task.comm), std::end(task.comm), '\0');
    std::copy(comm.begin(), comm.end(), task.comm);
}

void SchedPlugin::woken(const ConsumedRecord& record, int32_t pid)
{
    if (pid == 0) return;
    const uint32_t id = taskOf(pid, record.timestamp);
    if (id == kNone) return;
    Task& task = m_tasks[id];
    if (task.state == TaskState::Running) return; // a wakeup of a running task changes nothing
    ++m_stats[id].wakeups;
    task.wokenAt = record.timestamp;
    task.waker = record.task.valid() ? record.task.value : taskOf(record.pid, record.timestamp);
    enter(id, TaskState::Runnable, record.timestamp);
}

void SchedPlugin::mark(uint64_t t, uint32_t task, uint32_t label)
{
    if (m_marks && task != kNone) m_marks->add(t, task, label);
}

void SchedPlugin::consume(const ConsumedRecord& record)
{
    const auto pid = [&] { return int32_t(record.field(0).asSigned()); };
    const auto task = [&] { return taskOf(pid(), record.timestamp); };
    switch (record.request) {
    case kSwitch: switched(record); break;
    // The wakeup that makes a task runnable: sched_wakeup, or sched_waking when the recording
    // has no sched_wakeup.
    case kWakeup: woken(record, pid()); break;
    case kWaking:
        if (!m_bound[kWakeup]) woken(record, pid());
        break;
    case kWakeupNew: woken(record, pid()); break;
    case kMigrate: mark(record.timestamp, task(), kMigrated); break;
    case kFork: mark(record.timestamp, task(), kForked); break;
    case kExec: mark(record.timestamp, task(), kExecuted); break;
    case kExit: mark(record.timestamp, task(), kExited); break;
    default: break;
    }
}

void SchedPlugin::finish()
{
    // A task running on a CPU whose events stop early (a cut file, a stopped load) ran until
    // the CPU's last event at least; its state after that is not known.
    for (size_t s = 0; s < m_running.size() && s < m_streams.size(); ++s) {
        const auto task = m_tasks.find(m_running[s]);
        if (!m_streams[s].endsEarly || task == m_tasks.end() || task->second.state != TaskState::Running) continue;
        if (m_states && m_streams[s].lastTimestamp > task->second.since)
            m_states->add(task->second.since, m_streams[s].lastTimestamp, task->first, uint32_t(TaskState::Running));
    }
    m_lives.clear(); // asked no more
}

std::string SchedPlugin::nothingToShow() const
{
    if (m_bound.empty() || !m_bound[kSwitch]) return "the recording has no sched/sched_switch events";
    if (m_stats.empty()) return "the recording's sched_switch events have no records";
    return {};
}

std::vector<StatsTable> SchedPlugin::statistics() const
{
    using Kind = StatsTable::Kind;
    StatsTable tasks{"tasks", "Scheduling per task", {}, false};
    auto& task = tasks.column("task", "Task", Kind::Task);
    auto& out = tasks.column("switches_out", "Switches out", Kind::Count);
    auto& preempted = tasks.column("preempted", "Preempted", Kind::Count);
    auto& in = tasks.column("switches_in", "Switches in", Kind::Count);
    auto& run = tasks.column("run_ns", "Running", Kind::Duration);
    auto& runnable = tasks.column("runnable_ns", "Runnable", Kind::Duration);
    auto& sleep = tasks.column("sleep_ns", "Sleeping", Kind::Duration);
    auto& blocked = tasks.column("blocked_ns", "Blocked", Kind::Duration);
    auto& wakeups = tasks.column("wakeups", "Wakeups", Kind::Count);
    auto& maxLatency = tasks.column("max_wakeup_latency_ns", "Max wakeup latency", Kind::Duration);
    auto& maxAt = tasks.column("max_wakeup_latency_at", "Max wakeup latency at", Kind::Event);
    maxAt.spanKey = "max_wakeup_latency_ns"; // the switch ends the wait
    auto& avgLatency = tasks.column("avg_wakeup_latency_ns", "Avg wakeup latency", Kind::Duration);
    maxLatency.description = maxAt.description = avgLatency.description = kWakeupLatency;
    run.description = "Running time of whole runs: from a recorded switch in to the switch out (see Runs whose "
                      "start was not recorded)";
    const std::map<uint32_t, TaskStats> sorted(m_stats.begin(), m_stats.end());
    for (const auto& [id, s] : sorted) {
        task.numbers.push_back(id);
        out.numbers.push_back(int64_t(s.switchesOut));
        preempted.numbers.push_back(int64_t(s.preempted));
        in.numbers.push_back(int64_t(s.switchesIn));
        run.numbers.push_back(int64_t(s.run));
        runnable.numbers.push_back(int64_t(s.runnable));
        sleep.numbers.push_back(int64_t(s.sleep));
        blocked.numbers.push_back(int64_t(s.blocked));
        wakeups.numbers.push_back(int64_t(s.wakeups));
        maxLatency.numbers.push_back(s.latencies ? int64_t(s.latencyMax) : StatsTable::kUnknown);
        maxAt.numbers.push_back(s.latencies ? StatsTable::eventCell(s.latencyMaxAt) : StatsTable::kUnknown);
        avgLatency.numbers.push_back(s.latencies ? int64_t(s.latencyTotal / s.latencies) : StatsTable::kUnknown);
    }
    StatsTable histogram{"wakeup_latency", "Wakeup latency histogram", {}, false};
    auto& from = histogram.column("from_us", "From (µs)", Kind::Count);
    auto& to = histogram.column("to_us", "To (µs)", Kind::Count);
    auto& count = histogram.column("count", "Wakeups", Kind::Count);
    histogram.barColumn = 2;
    for (auto& c : histogram.columns) c.description = kWakeupLatency;
    for (size_t b = 0; b < m_latencyBuckets.size(); ++b)
        if (m_latencyBuckets[b]) {
            from.numbers.push_back(b ? int64_t(1) << (b - 1) : 0);
            to.numbers.push_back(int64_t(1) << b);
            count.numbers.push_back(int64_t(m_latencyBuckets[b]));
        }
    StatsTable names{"names", "Task names over time", {}, false};
    auto& at = names.column("at", "Renamed at", Kind::Event);
    auto& renamed = names.column("task", "Task", Kind::Task);
    auto& comm = names.column("comm", "New name", Kind::Text);
    for (const Name& n : m_renames) {
        at.numbers.push_back(StatsTable::eventCell(n.at));
        renamed.numbers.push_back(n.task);
        comm.texts.push_back(n.comm);
    }
    StatsTable unstarted{"unstarted_runs", "Runs whose start was not recorded", {}, false};
    auto& unstartedTask = unstarted.column("task", "Task", Kind::Task);
    auto& runs = unstarted.column("runs", "Runs", Kind::Count);
    auto& firstEnd = unstarted.column("first_end_at", "First ended at", Kind::Event);
    runs.description = "Switches out of the task on a CPU where its switch in was not recorded: the run's time is "
                       "not counted";
    uint64_t unstartedRuns = 0;
    for (const auto& [id, s] : sorted)
        if (s.unstartedRuns) {
            unstartedTask.numbers.push_back(id);
            runs.numbers.push_back(int64_t(s.unstartedRuns));
            firstEnd.numbers.push_back(StatsTable::eventCell(s.firstUnstartedEnd));
            unstartedRuns += s.unstartedRuns;
        }
    if (unstarted.rows()) {
        unstarted.note = std::to_string(unstarted.rows()) + (unstarted.rows() == 1 ? " task" : " tasks") +
                         " switched out without a recorded switch in (" + std::to_string(unstartedRuns) +
                         (unstartedRuns == 1 ? " run" : " runs") +
                         ": the recording began inside them, or their switch was filtered or lost): their running "
                         "time counts only runs whose start was recorded";
        if (m_mismatches)
            unstarted.note +=
                "; " + std::to_string(m_mismatches) + " switches named a prev that was not the task the CPU last ran";
        unstarted.note += ".";
    }
    std::vector<StatsTable> all;
    all.push_back(std::move(tasks));
    all.push_back(std::move(histogram));
    all.push_back(std::move(names));
    all.push_back(std::move(unstarted));
    if (m_mismatches) {
        StatsTable checks{"mismatches", "Switches whose prev did not run there", {}, false};
        checks.column("count", "Switches", Kind::Count).numbers.push_back(int64_t(m_mismatches));
        checks.column("meaning", "What it means", Kind::Text)
            .texts.push_back("the CPU's last switch ran another task (its switch-out was filtered or lost): that "
                             "task's run ended there");
        all.push_back(std::move(checks));
    }
    return all;
}

} // namespace ringside::sched
