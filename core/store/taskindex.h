// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/ids.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ringside {

class CpuOccupancy;
class EventStore;

// Where each task's events are, so that a task's row, its event count or its k-th event need
// no scan of the trace. A task is one life of a pid: the same pid handed to a new task later
// in the recording (task_newtask creating a pid that already had events) is a second task,
// from the creation on. TaskIds index this table (they are not pids), so two recordings, each
// with its own index, never share a task.
//
// Per task and stream the index keeps the runs of consecutive events with the task's pid
// (tasks come in runs between context switches, so this is far smaller than an entry per
// event) and the number of the task's events before each run; counts and lookups by time are
// binary searches over the runs and the stream's timestamps. Built once after the load, the
// streams in parallel; extend() indexes events a live capture appends. Read-only in between.
class TaskIndex {
public:
    struct Task {
        int32_t pid = 0;
        uint64_t firstTime = 0; // of its first event
        uint64_t lastTime = 0;  // of its last event
        uint64_t events = 0;
    };
    // Events [begin, end) of one stream.
    struct Run {
        uint32_t begin = 0, end = 0;
    };
    struct StreamRuns {
        StreamId stream;
        std::vector<Run> runs;        // in stream (time) order
        std::vector<uint64_t> before; // the task's events in this stream before each run
        uint64_t events() const { return runs.empty() ? 0 : before.back() + (runs.back().end - runs.back().begin); }
    };
    // A stretch of time the task ran on a CPU, from sched_switch.
    struct Interval {
        uint64_t start = 0, end = 0;
        StreamId stream;
    };
    // A pid given to a task at a time (task_newtask).
    struct Creation {
        int32_t pid = 0;
        uint64_t time = 0;
    };

    // Indexes every event of `store` on up to `threads` threads (0: one per core). Creations
    // split reused pids; `occupancy` (may be null) gives the running intervals.
    static TaskIndex build(const EventStore& store, const std::vector<Creation>& creations,
                           const CpuOccupancy* occupancy, int threads = 0);

    // The same in two steps: the scan of every event's pid, which needs nothing else (a load
    // runs it beside the consumers), then the index from what it found.
    struct PidRun {
        uint32_t begin, end;
        int32_t pid;
    };
    using Scan = std::vector<std::vector<PidRun>>; // per stream
    static Scan scan(const EventStore& store, int threads = 0);
    static TaskIndex build(const EventStore& store, const Scan& scanned, const std::vector<Creation>& creations,
                           const CpuOccupancy* occupancy);

    // Indexes the events a stream gained since it was last indexed (live capture), and the
    // running intervals anew from `occupancy`.
    void extend(const EventStore& store, const CpuOccupancy* occupancy);

    size_t size() const { return m_tasks.size(); }
    const Task& task(TaskId id) const { return m_tasks[id.value]; }
    const std::vector<Task>& tasks() const { return m_tasks; }
    // The task `pid` was at time `ts` (its first life before its first event); invalid when the
    // pid has no events.
    TaskId taskAt(int32_t pid, uint64_t ts) const;
    // Every life of `pid`, in time order.
    std::vector<TaskId> tasksOf(int32_t pid) const;
    // The task of `pid` with the most events (the one a pid names in menus), or invalid.
    TaskId busiestTaskOf(int32_t pid) const;

    const std::vector<StreamRuns>& streams(TaskId id) const { return m_streams[id.value]; }
    const std::vector<Interval>& running(TaskId id) const { return m_running[id.value]; }

    // The task's events in `runs` with a timestamp before `t`.
    static uint64_t countBefore(const EventStore& store, const StreamRuns& runs, uint64_t t);
    // Its `k`-th event in `runs` (k < runs.events()).
    static EventRef eventAt(const StreamRuns& runs, uint64_t k);
    // The events of `pid` at exactly time `ts` (what began a plugin's slice: a system call's
    // entry), in stream order.
    std::vector<EventRef> eventsAt(const EventStore& store, int32_t pid, uint64_t ts) const;

    size_t memoryBytes() const;

private:
    // The task of `pid`'s life at `ts`, made when first needed; `nextStart` is when its next
    // life begins (or the end of time).
    TaskId lifeFor(int32_t pid, uint64_t ts, uint64_t* nextStart);
    void addRun(const EventStore& store, StreamId stream, uint32_t begin, uint32_t end, int32_t pid);
    void buildRunning(const EventStore& store, const CpuOccupancy* occupancy);

    std::vector<Task> m_tasks;
    std::vector<std::vector<StreamRuns>> m_streams;              // per task
    std::vector<std::vector<Interval>> m_running;                // per task
    std::unordered_map<int32_t, std::vector<TaskId>> m_lives;    // per pid, one per life
    std::unordered_map<int32_t, std::vector<uint64_t>> m_reuses; // per pid: when lives 2, 3... start
    std::vector<size_t> m_indexed;                               // events indexed per stream
};

} // namespace ringside
