// SPDX-License-Identifier: GPL-2.0-or-later
#include "store/taskindex.h"

#include "analysis/cpuoccupancy.h"
#include "store/eventstore.h"

#include <algorithm>
#include <limits>
#include <thread>
#include <unordered_set>

namespace ringside {

namespace {

using PidRun = TaskIndex::PidRun;

// The runs of equal pids in events [from, size) of one stream.
std::vector<PidRun> scanRuns(const CpuColumns& columns, size_t from)
{
    std::vector<PidRun> runs;
    const size_t size = columns.size();
    size_t begin = from;
    while (begin < size) {
        const int32_t pid = columns.pid[begin];
        size_t end = begin + 1;
        while (end < size && columns.pid[end] == pid) ++end;
        runs.push_back({uint32_t(begin), uint32_t(end), pid});
        begin = end;
    }
    return runs;
}

} // namespace

TaskIndex TaskIndex::build(const EventStore& store, const std::vector<Creation>& creations,
                           const CpuOccupancy* occupancy, int threads)
{
    return build(store, scan(store, threads), creations, occupancy);
}

TaskIndex::Scan TaskIndex::scan(const EventStore& store, int threads)
{
    const size_t streams = store.streamCount();
    // Scanning the pid columns is the only part that touches every event: streams in parallel.
    Scan runs(streams);
    const size_t workers =
        std::min<size_t>(streams, threads > 0 ? size_t(threads) : std::max(1u, std::thread::hardware_concurrency()));
    {
        std::vector<std::thread> pool;
        for (size_t w = 0; w < workers; ++w)
            pool.emplace_back([&, w] {
                for (size_t s = w; s < streams; s += workers)
                    runs[s] = scanRuns(store.stream(StreamId(uint16_t(s))).columns, 0);
            });
        for (auto& t : pool) t.join();
    }
    return runs;
}

TaskIndex TaskIndex::build(const EventStore& store, const Scan& runs, const std::vector<Creation>& creations,
                           const CpuOccupancy* occupancy)
{
    TaskIndex index;
    const size_t streams = std::min(store.streamCount(), runs.size());
    // A creation of a pid that already had events starts its next life.
    std::unordered_map<int32_t, uint64_t> firstSeen;
    for (size_t s = 0; s < streams; ++s) {
        const auto& ts = store.stream(StreamId(uint16_t(s))).columns.timestamp;
        std::unordered_set<int32_t> seenHere;
        for (const PidRun& r : runs[s])
            if (seenHere.insert(r.pid).second) {
                auto [it, added] = firstSeen.try_emplace(r.pid, ts[r.begin]);
                if (!added) it->second = std::min(it->second, ts[r.begin]);
            }
    }
    for (const Creation& c : creations) {
        auto it = firstSeen.find(c.pid);
        if (it != firstSeen.end() && c.time > it->second) index.m_reuses[c.pid].push_back(c.time);
    }
    for (auto& [pid, times] : index.m_reuses) {
        std::sort(times.begin(), times.end());
        times.erase(std::unique(times.begin(), times.end()), times.end());
    }

    for (size_t s = 0; s < streams; ++s)
        for (const PidRun& r : runs[s]) index.addRun(store, StreamId(uint16_t(s)), r.begin, r.end, r.pid);
    index.m_indexed.resize(streams);
    for (size_t s = 0; s < streams; ++s) index.m_indexed[s] = store.stream(StreamId(uint16_t(s))).columns.size();
    index.buildRunning(store, occupancy);
    return index;
}

void TaskIndex::extend(const EventStore& store, const CpuOccupancy* occupancy)
{
    m_indexed.resize(store.streamCount(), 0);
    for (size_t s = 0; s < store.streamCount(); ++s) {
        const CpuColumns& columns = store.stream(StreamId(uint16_t(s))).columns;
        if (columns.size() <= m_indexed[s]) continue;
        for (const PidRun& r : scanRuns(columns, m_indexed[s]))
            addRun(store, StreamId(uint16_t(s)), r.begin, r.end, r.pid);
        m_indexed[s] = columns.size();
    }
    buildRunning(store, occupancy);
}

TaskId TaskIndex::lifeFor(int32_t pid, uint64_t ts, uint64_t* nextStart)
{
    const auto reuses = m_reuses.find(pid);
    size_t life = 0;
    *nextStart = std::numeric_limits<uint64_t>::max();
    if (reuses != m_reuses.end()) {
        const auto& times = reuses->second;
        life = size_t(std::upper_bound(times.begin(), times.end(), ts) - times.begin());
        if (life < times.size()) *nextStart = times[life];
    }
    std::vector<TaskId>& lives = m_lives[pid];
    if (lives.size() <= life) lives.resize(life + 1);
    if (!lives[life].valid()) {
        lives[life] = TaskId(uint32_t(m_tasks.size()));
        m_tasks.push_back({pid, ts, ts, 0});
        m_streams.emplace_back();
        m_running.emplace_back();
    }
    return lives[life];
}

void TaskIndex::addRun(const EventStore& store, StreamId stream, uint32_t begin, uint32_t end, int32_t pid)
{
    const auto& ts = store.stream(stream).columns.timestamp;
    while (begin < end) {
        uint64_t nextStart = 0;
        const TaskId id = lifeFor(pid, ts[begin], &nextStart);
        // A run that reaches into the pid's next life is cut where that life starts.
        uint32_t cut = end;
        if (nextStart <= ts[end - 1]) cut = uint32_t(std::max<size_t>(begin + 1, ts.lowerBound(nextStart, begin, end)));
        std::vector<StreamRuns>& lists = m_streams[id.value];
        auto list = std::find_if(lists.begin(), lists.end(), [&](const StreamRuns& r) { return r.stream == stream; });
        if (list == lists.end()) {
            lists.push_back({stream, {}, {}});
            list = lists.end() - 1;
        }
        if (!list->runs.empty() && list->runs.back().end == begin) {
            list->runs.back().end = cut; // continues the last run (events appended live)
        } else {
            list->before.push_back(list->events());
            list->runs.push_back({begin, cut});
        }
        Task& task = m_tasks[id.value];
        task.events += cut - begin;
        task.firstTime = std::min(task.firstTime, ts[begin]);
        task.lastTime = std::max(task.lastTime, ts[cut - 1]);
        begin = cut;
    }
}

void TaskIndex::buildRunning(const EventStore& store, const CpuOccupancy* occupancy)
{
    for (auto& intervals : m_running) intervals.clear();
    if (!occupancy || !occupancy->available()) return;
    std::unordered_set<const void*> seen; // a buffer without sched_switch shows another's runs
    for (size_t s = 0; s < store.streamCount(); ++s) {
        const StreamId stream{static_cast<uint16_t>(s)};
        const auto& runs = occupancy->runs(stream);
        if (runs.empty() || !seen.insert(&runs).second) continue;
        for (size_t r = 0; r < runs.size(); ++r) {
            const uint64_t end = r + 1 < runs.size() ? runs[r + 1].start : store.lastTimestamp();
            if (end <= runs[r].start) continue;
            const TaskId id = taskAt(runs[r].pid, runs[r].start);
            if (id.valid()) m_running[id.value].push_back({runs[r].start, end, stream});
        }
    }
    for (auto& intervals : m_running)
        std::sort(intervals.begin(), intervals.end(),
                  [](const Interval& a, const Interval& b) { return a.start < b.start; });
}

TaskId TaskIndex::taskAt(int32_t pid, uint64_t ts) const
{
    const auto lives = m_lives.find(pid);
    if (lives == m_lives.end()) return TaskId();
    size_t life = 0;
    if (auto reuses = m_reuses.find(pid); reuses != m_reuses.end())
        life = size_t(std::upper_bound(reuses->second.begin(), reuses->second.end(), ts) - reuses->second.begin());
    return life < lives->second.size() ? lives->second[life] : TaskId();
}

std::vector<TaskId> TaskIndex::tasksOf(int32_t pid) const
{
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

uint64_t TaskIndex::countBefore(const EventStore& store, const StreamRuns& list, uint64_t t)
{
    const auto& ts = store.stream(list.stream).columns.timestamp;
    // The first run whose last event is at or after t.
    auto run =
        std::partition_point(list.runs.begin(), list.runs.end(), [&](const Run& r) { return ts[r.end - 1] < t; });
    if (run == list.runs.end()) return list.events();
    const size_t i = size_t(run - list.runs.begin());
    return list.before[i] + (ts.lowerBound(t, run->begin, run->end) - run->begin);
}

EventRef TaskIndex::eventAt(const StreamRuns& list, uint64_t k)
{
    const size_t i = size_t(std::upper_bound(list.before.begin(), list.before.end(), k) - list.before.begin()) - 1;
    return {list.stream, uint32_t(list.runs[i].begin + (k - list.before[i]))};
}

std::vector<EventRef> TaskIndex::eventsAt(const EventStore& store, int32_t pid, uint64_t ts) const
{
    std::vector<EventRef> out;
    const TaskId id = taskAt(pid, ts);
    if (!id.valid()) return out;
    for (const StreamRuns& runs : m_streams[id.value])
        for (uint64_t k = countBefore(store, runs, ts); k < runs.events(); ++k) {
            const EventRef e = eventAt(runs, k);
            if (store.timestamp(e) != ts) break;
            out.push_back(e);
        }
    return out;
}

size_t TaskIndex::memoryBytes() const
{
    size_t bytes = m_tasks.capacity() * sizeof(Task);
    for (const auto& lists : m_streams)
        for (const StreamRuns& l : lists)
            bytes += l.runs.capacity() * sizeof(Run) + l.before.capacity() * sizeof(uint64_t);
    for (const auto& r : m_running) bytes += r.capacity() * sizeof(Interval);
    return bytes + (m_lives.size() + m_reuses.size()) * 48;
}

} // namespace ringside
