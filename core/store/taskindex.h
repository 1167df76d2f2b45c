// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/growinglist.h"
#include "store/ids.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ringside {

class IntervalTable;
class EventStore;

// Where each task's events are, so that a task's row, its event count or its k-th event need
// no scan of the trace. A task is one life of a pid: the same pid handed to a new task later
// in the recording (task_newtask creating a pid that already had events) is a second task,
// from the creation on. TaskIds index this table (they are not pids), so two recordings, each
// with its own index, never share a task; tables of analyses own their rows by TaskId.
//
// TaskIds are fixed by the recording, the same in every run on any number of threads: 0 is
// the idle task (pid 0, as Perfetto's utid 0), always there; then each batch's new tasks, those
// with events and those only named by records (a pid switched to or woken: Mention), numbered
// by the time each first appears in the batch, then pid, then life. Only update() makes tasks,
// before the batch's records are fed, so that an analysis asking (taskAt) never makes one and
// the order in which analyses on several threads ask changes nothing.
//
// Per task and stream the index keeps the runs of consecutive events with the task's pid
// (tasks come in runs between context switches, so this is far smaller than an entry per
// event) and the number of the task's events before each run; counts and lookups by time are
// binary searches over the runs and the stream's timestamps.
//
// Threading: one writer (the analysis thread) indexes each batch of the store as it is
// published (update()), while readers on any thread read what is indexed: tasks, their runs
// and running intervals only grow (a run's end may move later, atomically). Lookups of pids
// (taskAt, tasksOf) take a lock.
class TaskIndex {
public:
    struct Task {
        int32_t pid = 0;
        uint64_t firstTime = 0; // of its first event
        uint64_t lastTime = 0;  // of its last event
        uint64_t events = 0;
    };
    // Events [begin, end) of one stream; the last run of a stream may still grow.
    struct Run {
        uint32_t begin = 0;
        std::atomic<uint32_t> end{0};
        uint32_t last() const { return end.load(std::memory_order_acquire); }
    };
    struct StreamRuns {
        StreamId stream;
        GrowingList<Run> runs;        // in stream (time) order
        GrowingList<uint64_t> before; // the task's events in this stream before each run
        uint64_t events() const
        {
            const size_t n = runs.size();
            return n ? before[n - 1] + (runs[n - 1].last() - runs[n - 1].begin) : 0;
        }
    };
    // A stretch of time the task ran on a CPU, from sched_switch.
    struct Interval {
        uint64_t start = 0, end = 0;
        StreamId stream;
    };
    // Where a task's run is kept: a row of the running table's CPU (the table declared
    // sched_slice), or kLastRun, the CPU's run that ended with the recording: the runs are
    // the table's, not copied.
    struct RunRef {
        uint32_t row = 0;
        StreamId stream;
        static constexpr uint32_t kLastRun = UINT32_MAX;
    };
    // A task's running intervals, in time order (their ends too: a task runs on one CPU at a
    // time), read from the running table.
    class Runs {
    public:
        size_t size() const { return m_refs ? m_refs->size() : 0; }
        Interval operator[](size_t i) const { return intervalOf((*m_refs)[i]); }
        // The first run from `from` on that ends at or after `t` (size() when none).
        size_t firstEndingFrom(size_t from, uint64_t t) const;

    private:
        friend class TaskIndex;
        Interval intervalOf(RunRef ref) const;
        const GrowingList<RunRef>* m_refs = nullptr;
        const TaskIndex* m_index = nullptr;
    };
    // A pid given to a task at a time (task_newtask).
    struct Creation {
        int32_t pid = 0;
        uint64_t time = 0;
    };
    // A pid records name (sched_switch's next_pid, a woken pid) from `first` to `last`, all
    // within one of its lives: the task it is then, made when it has none, even without
    // events of its own.
    struct Mention {
        int32_t pid = 0;
        uint64_t first = 0, last = 0;
    };

    TaskIndex(); // with the idle task
    TaskIndex(const TaskIndex&) = delete;
    TaskIndex& operator=(const TaskIndex&) = delete;

    // The writer. Pids created up to the batch being indexed, before update(): a creation of a
    // pid that already had events starts its next life.
    void addCreations(const std::vector<Creation>& creations);
    // Indexes the events of each stream below `counts` (per stream: what the merged order has
    // published) not indexed yet, on up to `threads` threads, makes the tasks they and the
    // batch's `mentions` name that have none yet (numbered in the fixed order above).
    void update(const EventStore& store, const std::vector<size_t>& counts, int threads = 0,
                const std::vector<Mention>& mentions = {});
    // Each task's running intervals from the rows of `running` (RunningTasks::table(), may be
    // null) published since the last call; `final`: the recording ended, each CPU's current
    // run ends with the store (once).
    void addRunning(const EventStore& store, const IntervalTable* running, bool final);
    // The recording ended: no batch will create a pid again.
    void finish();

    // Everything at once: the index of a whole store (tests, benchmarks).
    static std::unique_ptr<TaskIndex> build(const EventStore& store, const std::vector<Creation>& creations,
                                            int threads = 0, const std::vector<Mention>& mentions = {});

    size_t size() const { return m_tasks.size(); }
    Task task(TaskId id) const;
    // The task `pid` was at time `ts` (its first life before its first event); invalid when the
    // pid has no task there (no events, never mentioned).
    TaskId taskAt(int32_t pid, uint64_t ts) const;
    // When the life of `pid` after the one at `ts` begins (UINT64_MAX: none), so that callers
    // walking a pid's records in time order look it up once per life.
    uint64_t nextLifeAfter(int32_t pid, uint64_t ts) const;
    // Until when taskAt(pid, t) answers as for `ts`: the pid's next life (nextLifeAfter),
    // within the batches indexed so far (a later one may create the pid again; all of it once
    // finished), or `ts` itself while the pid has no task there (a later batch may make it).
    uint64_t lifeEnds(int32_t pid, uint64_t ts) const;
    // Every life of `pid`, in time order.
    std::vector<TaskId> tasksOf(int32_t pid) const;
    // The task of `pid` with the most events (the one a pid names in menus), or invalid.
    TaskId busiestTaskOf(int32_t pid) const;

    const GrowingList<StreamRuns>& streams(TaskId id) const { return slot(id).streams; }
    Runs running(TaskId id) const;
    // Each run of the task's events: (stream, first event, end).
    void forEachRun(TaskId id, const std::function<void(StreamId, uint32_t, uint32_t)>& visit) const;

    // The task's events in `runs` with a timestamp before `t`.
    static uint64_t countBefore(const EventStore& store, const StreamRuns& runs, uint64_t t);
    // Its `k`-th event in `runs` (k < runs.events()).
    static EventRef eventAt(const StreamRuns& runs, uint64_t k);
    // The events of `pid` at exactly time `ts`, in stream order.
    std::vector<EventRef> eventsAt(const EventStore& store, int32_t pid, uint64_t ts) const;

    size_t memoryBytes() const;

private:
    // Consecutive events of one pid in a stream: [begin, end).
    struct PidRun {
        uint32_t begin, end;
        int32_t pid;
    };
    struct Slot {
        int32_t pid = 0;
        std::atomic<uint64_t> firstTime{0}, lastTime{0}, events{0};
        bool timed = false; // by an event or a mention (the idle task is made before either); the writer's
        GrowingList<StreamRuns> streams;
        GrowingList<RunRef> running;
    };
    const Slot& slot(TaskId id) const { return *m_tasks[id.value]; }
    // Which life of `pid` `ts` is in (under m_lock); `nextStart` is when the next one begins.
    size_t lifeNumberLocked(int32_t pid, uint64_t ts, uint64_t* nextStart) const;
    // The task of life `life` of `pid`, or invalid (under m_lock).
    TaskId lifeTaskLocked(int32_t pid, size_t life) const;
    // Makes the task of life `life` of `pid`, first seen at `time` (the writer, under m_lock).
    TaskId makeTaskLocked(int32_t pid, size_t life, uint64_t time);
    // Makes the tasks the batch's runs and mentions name that have none, in the fixed order
    // (the writer, under m_lock); times the mentioned tasks that have no events.
    void makeBatchTasksLocked(const EventStore& store, const std::vector<std::vector<PidRun>>& runs,
                              const std::vector<Mention>& mentions);
    void addRun(const EventStore& store, StreamId stream, uint32_t begin, uint32_t end, int32_t pid);

    GrowingList<Slot*> m_tasks;
    std::deque<Slot> m_slots; // the writer's; never move
    mutable std::mutex m_lock; // the maps below
    std::unordered_map<int32_t, std::vector<TaskId>> m_lives;    // per pid, one per life
    std::unordered_map<int32_t, std::vector<uint64_t>> m_reuses; // per pid: when lives 2, 3... start
    uint64_t m_creationsBefore = 0;                              // the creations before this time are in m_reuses
    std::unordered_map<int32_t, uint64_t> m_firstSeen;           // per pid: its first event's time
    std::vector<Creation> m_pending;                             // creations not yet applied
    std::vector<size_t> m_indexed;                               // events indexed per stream
    std::vector<size_t> m_closedRuns;                            // running rows given to their tasks, per stream
    bool m_runningEnded = false;                                 // each CPU's last run added
    const IntervalTable* m_runningTable = nullptr;               // set before the first ref to it
    std::vector<Interval> m_lastRuns; // per stream (RunRef::kLastRun); filled once, before any ref to it
};

} // namespace ringside
