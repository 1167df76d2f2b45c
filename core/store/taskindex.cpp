// SPDX-License-Identifier: GPL-2.0-or-later
#include "store/taskindex.h"

#include "analysis/tracktables.h"
#include "store/eventstore.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <thread>
#include <tuple>
#include <unordered_map>

namespace ringside {

namespace {

// The runs of equal pids in events [from, to) of one stream.
template <typename PidRun>
std::vector<PidRun> scanRuns(const CpuColumns& columns, size_t from, size_t to)
{
    std::vector<PidRun> runs;
    size_t begin = from;
    while (begin < to) {
        const int32_t pid = columns.pid[begin];
        size_t end = begin + 1;
        while (end < to && columns.pid[end] == pid) ++end;
        runs.push_back({uint32_t(begin), uint32_t(end), pid});
        begin = end;
    }
    return runs;
}

void lowerTo(std::atomic<uint64_t>& value, uint64_t to)
{
    if (to < value.load(std::memory_order_relaxed)) value.store(to, std::memory_order_relaxed);
}

void raiseTo(std::atomic<uint64_t>& value, uint64_t to)
{
    if (to > value.load(std::memory_order_relaxed)) value.store(to, std::memory_order_relaxed);
}

} // namespace

TaskIndex::TaskIndex()
{
    const std::lock_guard lock(m_lock);
    makeTaskLocked(0, 0, 0);
}

std::unique_ptr<TaskIndex> TaskIndex::build(const EventStore& store, const std::vector<Creation>& creations,
                                            int threads, const std::vector<Mention>& mentions)
{
    auto index = std::make_unique<TaskIndex>();
    index->addCreations(creations);
    std::vector<size_t> counts;
    for (size_t s = 0; s < store.streamCount(); ++s) counts.push_back(store.stream(StreamId(uint16_t(s))).columns.size());
    index->update(store, counts, threads, mentions);
    index->finish();
    return index;
}

void TaskIndex::addCreations(const std::vector<Creation>& creations)
{
    m_pending.insert(m_pending.end(), creations.begin(), creations.end());
}

void TaskIndex::update(const EventStore& store, const std::vector<size_t>& counts,
                       int threads, const std::vector<Mention>& mentions)
{
    const size_t streams = std::min(store.streamCount(), counts.size());
    m_indexed.resize(std::max(m_indexed.size(), streams), 0);
    // Scanning the pid columns is the only part that touches every event: streams in parallel.
    std::vector<std::vector<PidRun>> runs(streams);
    const size_t workers =
        std::min<size_t>(streams, threads > 0 ? size_t(threads) : std::max(1u, std::thread::hardware_concurrency()));
    auto scanStream = [&](size_t s) {
        const CpuColumns& columns = store.stream(StreamId(uint16_t(s))).columns;
        const size_t to = std::min(counts[s], columns.size());
        if (to > m_indexed[s]) runs[s] = scanRuns<PidRun>(columns, m_indexed[s], to);
    };
    if (workers > 1) {
        std::vector<std::thread> pool;
        for (size_t w = 0; w < workers; ++w)
            pool.emplace_back([&, w] {
                for (size_t s = w; s < streams; s += workers) scanStream(s);
            });
        for (auto& t : pool) t.join();
    } else {
        for (size_t s = 0; s < streams; ++s) scanStream(s);
    }

    {
        const std::lock_guard lock(m_lock);
        // Each pid's first event, then the creations that make a pid that had events a new task.
        for (size_t s = 0; s < streams; ++s) {
            const auto& ts = store.stream(StreamId(uint16_t(s))).columns.timestamp;
            for (const PidRun& r : runs[s]) {
                auto [it, added] = m_firstSeen.try_emplace(r.pid, ts[r.begin]);
                if (!added) it->second = std::min(it->second, ts[r.begin]);
            }
        }
        // A creation after this batch waits for it: the pid's events before it may come in the
        // next one (a capture hands its records in before their rows are published).
        uint64_t batchEnd = 0;
        for (size_t s = 0; s < streams; ++s) {
            const CpuColumns& columns = store.stream(StreamId(uint16_t(s))).columns;
            if (const size_t to = std::min(counts[s], columns.size())) batchEnd = std::max(batchEnd, columns.timestamp[to - 1]);
        }
        m_creationsBefore = std::max(m_creationsBefore, batchEnd); // at batchEnd itself, more may come
        std::vector<Creation> later;
        for (const Creation& c : m_pending) {
            if (c.time > batchEnd) {
                later.push_back(c);
                continue;
            }
            auto it = m_firstSeen.find(c.pid);
            if (it == m_firstSeen.end() || c.time <= it->second) continue;
            std::vector<uint64_t>& times = m_reuses[c.pid];
            times.insert(std::upper_bound(times.begin(), times.end(), c.time), c.time);
            times.erase(std::unique(times.begin(), times.end()), times.end());
        }
        m_pending = std::move(later);
        makeBatchTasksLocked(store, runs, mentions);
    }
    for (size_t s = 0; s < streams; ++s) {
        for (const PidRun& r : runs[s]) addRun(store, StreamId(uint16_t(s)), r.begin, r.end, r.pid);
        if (!runs[s].empty()) m_indexed[s] = runs[s].back().end;
    }
}

void TaskIndex::finish()
{
    const std::lock_guard lock(m_lock);
    m_creationsBefore = std::numeric_limits<uint64_t>::max(); // no batch will come
}

size_t TaskIndex::lifeNumberLocked(int32_t pid, uint64_t ts, uint64_t* nextStart) const
{
    *nextStart = std::numeric_limits<uint64_t>::max();
    const auto reuses = m_reuses.find(pid);
    if (reuses == m_reuses.end()) return 0;
    const auto& times = reuses->second;
    const size_t life = size_t(std::upper_bound(times.begin(), times.end(), ts) - times.begin());
    if (life < times.size()) *nextStart = times[life];
    return life;
}

TaskId TaskIndex::lifeTaskLocked(int32_t pid, size_t life) const
{
    const auto lives = m_lives.find(pid);
    return lives != m_lives.end() && life < lives->second.size() ? lives->second[life] : TaskId();
}

TaskId TaskIndex::makeTaskLocked(int32_t pid, size_t life, uint64_t time)
{
    std::vector<TaskId>& lives = m_lives[pid];
    if (lives.size() <= life) lives.resize(life + 1);
    if (lives[life].valid()) return lives[life];
    lives[life] = TaskId(uint32_t(m_tasks.size()));
    Slot& slot = m_slots.emplace_back();
    slot.pid = pid;
    slot.firstTime.store(time, std::memory_order_relaxed);
    slot.lastTime.store(time, std::memory_order_relaxed);
    m_tasks.push_back(&slot);
    return lives[life];
}

void TaskIndex::makeBatchTasksLocked(const EventStore& store, const std::vector<std::vector<PidRun>>& runs,
                                     const std::vector<Mention>& mentions)
{
    // Every life the batch names that has no task yet, with the time it first appears.
    struct NewLife {
        uint64_t time;
        int32_t pid;
        uint32_t life;
    };
    std::unordered_map<uint64_t, NewLife> named; // by (pid, life)
    auto name = [&](int32_t pid, size_t life, uint64_t time) {
        if (lifeTaskLocked(pid, life).valid()) return;
        const uint64_t key = (uint64_t(uint32_t(pid)) << 32) | uint32_t(life);
        auto [it, added] = named.try_emplace(key, NewLife{time, pid, uint32_t(life)});
        if (!added) it->second.time = std::min(it->second.time, time);
    };
    for (size_t s = 0; s < runs.size(); ++s) {
        const auto& ts = store.stream(StreamId(uint16_t(s))).columns.timestamp;
        for (const PidRun& r : runs[s]) {
            // A run that reaches into the pid's next life names that life where it starts.
            for (uint32_t begin = r.begin; begin < r.end;) {
                uint64_t nextStart = 0;
                name(r.pid, lifeNumberLocked(r.pid, ts[begin], &nextStart), ts[begin]);
                if (nextStart > ts[r.end - 1]) break;
                begin = uint32_t(std::max<size_t>(begin + 1, ts.lowerBound(nextStart, begin, r.end)));
            }
        }
    }
    uint64_t next = 0;
    for (const Mention& m : mentions) name(m.pid, lifeNumberLocked(m.pid, m.first, &next), m.first);
    std::vector<NewLife> order;
    order.reserve(named.size());
    for (const auto& [key, life] : named) order.push_back(life);
    std::sort(order.begin(), order.end(), [](const NewLife& a, const NewLife& b) {
        return std::tie(a.time, a.pid, a.life) < std::tie(b.time, b.pid, b.life);
    });
    for (const NewLife& life : order) makeTaskLocked(life.pid, life.life, life.time);
    // A task named only by records is timed by the earliest and latest that name it; its
    // events, once it has some, time it instead (addRun).
    for (const Mention& m : mentions) {
        const TaskId id = lifeTaskLocked(m.pid, lifeNumberLocked(m.pid, m.first, &next));
        Slot& slot = *m_tasks[id.value];
        if (slot.events.load(std::memory_order_relaxed)) continue;
        if (!slot.timed) {
            slot.firstTime.store(m.first, std::memory_order_relaxed);
            slot.lastTime.store(m.last, std::memory_order_relaxed);
            slot.timed = true;
        }
        lowerTo(slot.firstTime, m.first);
        raiseTo(slot.lastTime, m.last);
    }
}

void TaskIndex::addRun(const EventStore& store, StreamId stream, uint32_t begin, uint32_t end, int32_t pid)
{
    const auto& ts = store.stream(stream).columns.timestamp;
    while (begin < end) {
        uint64_t nextStart = 0;
        TaskId id;
        {
            const std::lock_guard lock(m_lock);
            // Made by makeBatchTasksLocked for this batch, or by an earlier one.
            const size_t life = lifeNumberLocked(pid, ts[begin], &nextStart);
            id = lifeTaskLocked(pid, life);
            if (!id.valid()) id = makeTaskLocked(pid, life, ts[begin]);
        }
        // A run that reaches into the pid's next life is cut where that life starts.
        uint32_t cut = end;
        if (nextStart <= ts[end - 1]) cut = uint32_t(std::max<size_t>(begin + 1, ts.lowerBound(nextStart, begin, end)));
        Slot& slot = *m_tasks[id.value];
        StreamRuns* list = nullptr;
        for (size_t i = 0; i < slot.streams.size(); ++i)
            if (slot.streams[i].stream == stream) list = &slot.streams[i];
        if (!list) {
            list = &slot.streams.stage();
            list->stream = stream;
            slot.streams.publish();
        }
        const size_t n = list->runs.size();
        if (n && list->runs[n - 1].last() == begin) {
            list->runs[n - 1].end.store(cut, std::memory_order_release); // continues the last run
        } else {
            list->before.push_back(list->events()); // before the run that needs it is published
            Run& run = list->runs.stage();
            run.begin = begin;
            run.end.store(cut, std::memory_order_relaxed);
            list->runs.publish();
        }
        // A life made for a pid that a record named before its events came (a task switched
        // in) is timed by its events once it has some, as when they came first.
        if (slot.events.fetch_add(cut - begin, std::memory_order_relaxed) == 0) {
            slot.firstTime.store(ts[begin], std::memory_order_relaxed);
            slot.lastTime.store(ts[cut - 1], std::memory_order_relaxed);
            slot.timed = true;
        }
        lowerTo(slot.firstTime, ts[begin]);
        raiseTo(slot.lastTime, ts[cut - 1]);
        begin = cut;
    }
}

void TaskIndex::addRunning(const EventStore& store, const IntervalTable* running, bool final)
{
    if (!running || m_runningEnded) return;
    // Written once, before the first reference to it is published: readers read it unlocked.
    if (!m_runningTable) m_runningTable = running;
    // The rows each CPU closed since, then (at the end) its current run, merged in time order
    // so that each task's runs are (a CPU's come in time order; ties go to the lower CPU). No
    // list of them all: on 23M events it was 7 MB, and twice that sorting, at the load's peak.
    const size_t streams = store.streamCount();
    m_closedRuns.resize(std::max(m_closedRuns.size(), streams), 0);
    if (final) m_lastRuns.resize(streams);
    struct Source {
        const GrowingList<IntervalRow>* rows = nullptr;
        size_t end = 0;    // closed rows to give
        bool open = false; // then its current run
        IntervalRow current;
    };
    std::vector<Source> sources(streams);
    for (size_t s = 0; s < streams; ++s) {
        Source& source = sources[s];
        source.rows = running->byOwner().of(uint16_t(s));
        source.end = source.rows ? source.rows->size() : 0;
        const IntervalRow open = running->openOf(uint32_t(s));
        if (final && open.end && store.lastTimestamp() > open.start) {
            m_lastRuns[s] = {open.start, store.lastTimestamp(), StreamId(uint16_t(s))};
            source.open = true, source.current = open;
        }
    }
    m_runningEnded = final;
    struct Run {
        uint64_t start = 0;
        RunRef ref;
        TaskId task;
    };
    auto nextOf = [&](size_t s) -> std::optional<Run> {
        const Source& source = sources[s];
        if (const size_t done = m_closedRuns[s]; done < source.end) {
            const IntervalRow& row = (*source.rows)[done];
            return Run{row.start, {uint32_t(done), StreamId(uint16_t(s))}, TaskId(row.state)};
        }
        if (!source.open) return std::nullopt;
        return Run{source.current.start, {RunRef::kLastRun, StreamId(uint16_t(s))}, TaskId(source.current.state)};
    };
    // Each CPU's next run as (start, CPU), least first.
    std::vector<std::pair<uint64_t, size_t>> heads;
    auto later = [](const auto& a, const auto& b) { return a > b; };
    for (size_t s = 0; s < streams; ++s)
        if (const auto run = nextOf(s)) heads.emplace_back(run->start, s);
    std::make_heap(heads.begin(), heads.end(), later);
    while (!heads.empty()) {
        std::pop_heap(heads.begin(), heads.end(), later);
        const size_t s = heads.back().second;
        heads.pop_back();
        const Run run = *nextOf(s);
        if (run.task.valid() && run.task.value < m_tasks.size()) m_tasks[run.task.value]->running.push_back(run.ref);
        if (run.ref.row == RunRef::kLastRun)
            sources[s].open = false;
        else
            ++m_closedRuns[s];
        if (const auto next = nextOf(s)) {
            heads.emplace_back(next->start, s);
            std::push_heap(heads.begin(), heads.end(), later);
        }
    }
}

TaskIndex::Runs TaskIndex::running(TaskId id) const
{
    Runs runs;
    runs.m_refs = &slot(id).running;
    runs.m_index = this;
    return runs;
}

TaskIndex::Interval TaskIndex::Runs::intervalOf(RunRef ref) const
{
    if (ref.row == RunRef::kLastRun) return m_index->m_lastRuns[ref.stream.value];
    const IntervalRow row = (*m_index->m_runningTable->byOwner().of(ref.stream.value))[ref.row];
    return {row.start, row.end, ref.stream};
}

size_t TaskIndex::Runs::firstEndingFrom(size_t from, uint64_t t) const
{
    return m_refs->lowerBound(t, from, size(), [this](RunRef ref) { return intervalOf(ref).end; });
}

TaskIndex::Task TaskIndex::task(TaskId id) const
{
    const Slot& s = slot(id);
    return {s.pid, s.firstTime.load(std::memory_order_relaxed), s.lastTime.load(std::memory_order_relaxed),
            s.events.load(std::memory_order_relaxed)};
}

TaskId TaskIndex::taskAt(int32_t pid, uint64_t ts) const
{
    const std::lock_guard lock(m_lock);
    uint64_t next = 0;
    return lifeTaskLocked(pid, lifeNumberLocked(pid, ts, &next));
}

uint64_t TaskIndex::nextLifeAfter(int32_t pid, uint64_t ts) const
{
    const std::lock_guard lock(m_lock);
    uint64_t next = 0;
    lifeNumberLocked(pid, ts, &next);
    return next;
}

uint64_t TaskIndex::lifeEnds(int32_t pid, uint64_t ts) const
{
    const std::lock_guard lock(m_lock);
    uint64_t next = 0;
    const size_t life = lifeNumberLocked(pid, ts, &next);
    if (!lifeTaskLocked(pid, life).valid()) return ts;
    return std::min(next, m_creationsBefore);
}

std::vector<TaskId> TaskIndex::tasksOf(int32_t pid) const
{
    const std::lock_guard lock(m_lock);
    std::vector<TaskId> out;
    if (auto lives = m_lives.find(pid); lives != m_lives.end())
        for (TaskId id : lives->second)
            if (id.valid()) out.push_back(id);
    return out;
}

TaskId TaskIndex::busiestTaskOf(int32_t pid) const
{
    TaskId best;
    for (TaskId id : tasksOf(pid))
        if (!best.valid() || task(id).events > task(best).events) best = id;
    return best;
}

void TaskIndex::forEachRun(TaskId id, const std::function<void(StreamId, uint32_t, uint32_t)>& visit) const
{
    if (!id.valid() || id.value >= size()) return;
    const GrowingList<StreamRuns>& lists = streams(id);
    for (size_t l = 0, n = lists.size(); l < n; ++l) {
        const StreamRuns& list = lists[l];
        for (size_t r = 0, runs = list.runs.size(); r < runs; ++r)
            visit(list.stream, list.runs[r].begin, list.runs[r].last());
    }
}

uint64_t TaskIndex::countBefore(const EventStore& store, const StreamRuns& list, uint64_t t)
{
    const auto& ts = store.stream(list.stream).columns.timestamp;
    const size_t n = list.runs.size();
    // The first run whose last event is at or after t.
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (ts[list.runs[mid].last() - 1] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n) return list.events();
    const Run& run = list.runs[lo];
    return list.before[lo] + (ts.lowerBound(t, run.begin, run.last()) - run.begin);
}

EventRef TaskIndex::eventAt(const StreamRuns& list, uint64_t k)
{
    // The last run with no more than k events before it.
    size_t lo = 0, hi = list.runs.size();
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (list.before[mid] <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    const size_t i = lo - 1;
    return {list.stream, uint32_t(list.runs[i].begin + (k - list.before[i]))};
}

std::vector<EventRef> TaskIndex::eventsAt(const EventStore& store, int32_t pid, uint64_t ts) const
{
    std::vector<EventRef> out;
    const TaskId id = taskAt(pid, ts);
    if (!id.valid()) return out;
    const GrowingList<StreamRuns>& lists = streams(id);
    for (size_t l = 0, n = lists.size(); l < n; ++l) {
        const StreamRuns& runs = lists[l];
        for (uint64_t k = countBefore(store, runs, ts), events = runs.events(); k < events; ++k) {
            const EventRef e = eventAt(runs, k);
            if (store.timestamp(e) != ts) break;
            out.push_back(e);
        }
    }
    return out;
}

size_t TaskIndex::memoryBytes() const
{
    size_t bytes = m_tasks.memoryBytes();
    for (size_t t = 0, n = size(); t < n; ++t) {
        const Slot& s = *m_tasks[t];
        bytes += sizeof s + s.streams.memoryBytes() + s.running.memoryBytes();
        for (size_t l = 0; l < s.streams.size(); ++l)
            bytes += s.streams[l].runs.memoryBytes() + s.streams[l].before.memoryBytes();
    }
    const std::lock_guard lock(m_lock);
    return bytes + (m_lives.size() + m_reuses.size() + m_firstSeen.size()) * 48;
}

} // namespace ringside
