// SPDX-License-Identifier: GPL-2.0-or-later
// SQL's `thread` and `process` tables, over the task index.
#include "sql/tasktables.h"

#include "trace.h"

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>

namespace ringside::sql {

namespace {

using T = ColumnType;

// The thread groups: each task's process, and each process's leader and lifetime; the tasks'
// names; by tid and pid. Made once for each size of the task index (a capture's grows), not per
// scan: a join looks a task up by utid for every row of the other table (128k slices, 13.7k
// tasks on 25.65M events: rebuilt per lookup, the join never finished); made again when the
// analyses move on (a capture's names come as its tasks run).
struct TaskRows {
    struct Task {
        int32_t tid = 0;
        uint32_t upid = 0;
        uint64_t start = 0, end = 0;
        bool main = false;
        std::string name;
    };
    struct Process {
        int32_t pid = 0;
        uint64_t start = UINT64_MAX, end = 0;
        std::string name;
        int64_t parent = -1; // the upid of the process whose task created it, -1: not seen
    };
    uint64_t version = 0; // Trace::analysisVersion() when made
    std::vector<Task> tasks;
    std::vector<Process> processes;
    std::multimap<int32_t, uint32_t> utidsOfTid;
    std::map<int32_t, uint32_t> upidOfPid;
    // Each row's place in the table's rows ordered by name (ties by id).
    std::vector<uint32_t> taskRankByName, processRankByName;
};

template <typename Rows>
std::vector<uint32_t> rankByName(const Rows& rows)
{
    std::vector<uint32_t> ids(rows.size());
    for (uint32_t id = 0; id < ids.size(); ++id) ids[id] = id;
    std::stable_sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) { return rows[a].name < rows[b].name; });
    std::vector<uint32_t> rank(rows.size());
    for (uint32_t place = 0; place < ids.size(); ++place) rank[ids[place]] = place;
    return rank;
}

TaskRows taskRowsOf(const Trace& trace)
{
    TaskRows r;
    r.version = trace.analysisVersion();
    const TaskIndex& index = trace.taskIndex();
    const size_t count = index.size();
    for (uint32_t id = 0; id < count; ++id) {
        const TaskIndex::Task task = index.task(TaskId(id));
        const int32_t leader = trace.processes().leader(task.pid);
        auto [it, added] = r.upidOfPid.try_emplace(leader, uint32_t(r.processes.size()));
        if (added) r.processes.push_back({leader, UINT64_MAX, 0, trace.taskName(leader)});
        TaskRows::Process& process = r.processes[it->second];
        process.start = std::min(process.start, task.firstTime);
        process.end = std::max(process.end, task.lastTime);
        r.tasks.push_back(
            {task.pid, it->second, task.firstTime, task.lastTime, task.pid == leader, trace.taskName(TaskId(id))});
        r.utidsOfTid.emplace(task.pid, id);
    }
    // A process's parent: the process of the task that created its leader (a thread's
    // creator is its own process), where the recording saw it made.
    for (uint32_t upid = 0; upid < r.processes.size(); ++upid) {
        TaskRows::Process& process = r.processes[upid];
        const int32_t creator = process.pid > 0 ? trace.processes().creator(process.pid) : -1;
        if (creator < 0) continue;
        if (const auto it = r.upidOfPid.find(trace.processes().leader(creator));
            it != r.upidOfPid.end() && it->second != upid)
            process.parent = it->second;
    }
    r.taskRankByName = rankByName(r.tasks);
    r.processRankByName = rankByName(r.processes);
    return r;
}

// The latest TaskRows, shared by the thread and process tables of one connection.
class TaskRowsCache {
public:
    explicit TaskRowsCache(const Trace& trace) : m_trace(trace) {}
    // Whether `rows` are still what the trace says (a cursor asks at each lookup: no lock).
    bool current(const TaskRows& rows) const
    {
        return rows.tasks.size() == m_trace.taskIndex().size() && rows.version == m_trace.analysisVersion();
    }
    std::shared_ptr<const TaskRows> get()
    {
        const std::lock_guard lock(m_lock);
        if (!m_rows || !current(*m_rows)) m_rows = std::make_shared<const TaskRows>(taskRowsOf(m_trace));
        return m_rows;
    }

private:
    const Trace& m_trace;
    std::mutex m_lock;
    std::shared_ptr<const TaskRows> m_rows;
};

// `thread` (utid, tid, name, start_ts, end_ts, upid, is_main_thread) and `process` (upid, pid,
// name, start_ts, end_ts), read from the TaskRows: by their key (the row), or narrowed by tid or
// upid, pid. A join asks once per row of the other table (23M times for the system calls of
// 25.65M events joined with both): each lookup reuses the cursor's rows and writes its cells
// straight from them.
class TaskTable : public Table {
public:
    enum class Kind { Thread, Process };
    enum ThreadColumn { kUtid, kTid, kThreadName, kThreadStart, kThreadEnd, kUpidOfThread, kMain };
    enum ProcessColumn { kUpid, kPid, kProcessName, kProcessStart, kProcessEnd, kParentUpid };

    TaskTable(Kind kind, const Trace& trace, std::shared_ptr<TaskRowsCache> cache)
        : Table(kind == Kind::Thread ? "thread" : "process", columnsOf(kind)), m_kind(kind), m_trace(trace),
          m_cache(std::move(cache))
    {}
    Plan plan(const std::vector<Constraint>& offered) const override
    {
        // A key's value names one row; a tid or pid a few; a upid its process's threads.
        if (m_kind == Kind::Process) return narrowingPlan(offered, {kUpid, kPid}, {kUpid}, kUpid, rowEstimate(), 0.001);
        const bool byProcessOnly = std::none_of(offered.begin(), offered.end(), [](const Constraint& c) {
            return c.op == Op::Eq && (c.column == kUtid || c.column == kTid);
        });
        const double share =
            byProcessOnly ? 1.0 / double(std::max<size_t>(m_cache->get()->processes.size(), 1)) : 0.001;
        return narrowingPlan(offered, {kUtid, kTid, kUpidOfThread}, {kUtid}, kUtid, rowEstimate(), share);
    }
    // Ordered or grouped by name, the rows come in name order (a sort of the few tasks): a
    // statement grouped by a process's or thread's name over a join from it (each one's
    // system calls read by its utid) then sorts nothing, where SQLite would sort every row
    // of the joined table (11.6M system calls: 2.3 s of a 3.3 s query).
    static constexpr int kByName = 1;
    Plan orderedPlan(const std::vector<Constraint>& offered, const std::vector<OrderBy>& order,
                     Ordering ordering) const override
    {
        Plan plan = this->plan(offered);
        const int name = m_kind == Kind::Thread ? int(kThreadName) : int(kProcessName);
        if (order.size() == 1 && order[0].column == name && (ordering == Ordering::Grouped || !order[0].descending))
            plan.order = kByName;
        return plan;
    }
    double rowEstimate() const override
    {
        return m_kind == Kind::Thread ? double(m_trace.taskIndex().size()) : double(m_cache->get()->processes.size());
    }
    std::unique_ptr<Cursor> open() const override;

private:
    friend class TaskCursor;
    static std::vector<Column> columnsOf(Kind kind)
    {
        if (kind == Kind::Thread)
            return {{"utid", T::Integer},          {"tid", T::Integer},    {"name", T::Text},
                    {"start_ts", T::Integer},      {"end_ts", T::Integer}, {"upid", T::Integer},
                    {"is_main_thread", T::Integer}};
        return {{"upid", T::Integer},     {"pid", T::Integer},    {"name", T::Text},
                {"start_ts", T::Integer}, {"end_ts", T::Integer}, {"parent_upid", T::Integer}};
    }

    Kind m_kind;
    const Trace& m_trace;
    std::shared_ptr<TaskRowsCache> m_cache;
};

class TaskCursor : public Cursor {
public:
    explicit TaskCursor(const TaskTable& table) : m_table(table) {}
    void begin(const std::vector<Bound>& bounds) override
    {
        if (!m_rows || !m_table.m_cache->current(*m_rows)) {
            // The names a statement holds (static texts) stay valid until it ends.
            if (m_rows) m_retired.push_back(std::move(m_rows));
            m_rows = m_table.m_cache->get();
        }
        m_ids.clear();
        m_at = 0;
        if (m_table.m_kind == TaskTable::Kind::Thread) {
            const Range upids = rangeOf(bounds, TaskTable::kUpidOfThread);
            wanted(rangeOf(bounds, TaskTable::kUtid), m_rows->tasks.size(), rangeOf(bounds, TaskTable::kTid),
                   m_rows->utidsOfTid, [&](uint32_t id) {
                       const uint32_t upid = m_rows->tasks[id].upid;
                       return upid >= upids.low && upid <= upids.high;
                   });
        } else {
            wanted(rangeOf(bounds, TaskTable::kUpid), m_rows->processes.size(), rangeOf(bounds, TaskTable::kPid),
                   m_rows->upidOfPid, [](uint32_t) { return true; });
        }
        if (m_order == TaskTable::kByName) {
            const std::vector<uint32_t>& rank =
                m_table.m_kind == TaskTable::Kind::Thread ? m_rows->taskRankByName : m_rows->processRankByName;
            std::sort(m_ids.begin(), m_ids.end(), [&](uint32_t a, uint32_t b) { return rank[a] < rank[b]; });
        }
    }
    bool atEnd() const override { return m_at >= m_ids.size(); }
    void next() override { ++m_at; }
    int64_t rowId() override { return m_ids[m_at]; }
    void column(int column, Cell& out) override
    {
        const uint32_t id = m_ids[m_at];
        if (m_table.m_kind == TaskTable::Kind::Thread) {
            const TaskRows::Task& t = m_rows->tasks[id];
            switch (column) {
            case TaskTable::kUtid: return out.integer(id);
            case TaskTable::kTid: return out.integer(t.tid);
            case TaskTable::kThreadName: return out.staticText(t.name);
            case TaskTable::kThreadStart: return out.integer(int64_t(t.start));
            case TaskTable::kThreadEnd: return out.integer(int64_t(t.end));
            case TaskTable::kUpidOfThread: return out.integer(t.upid);
            case TaskTable::kMain: return out.integer(t.main);
            default: return out.null();
            }
        }
        const TaskRows::Process& p = m_rows->processes[id];
        switch (column) {
        case TaskTable::kUpid: return out.integer(id);
        case TaskTable::kPid: return out.integer(p.pid);
        case TaskTable::kProcessName: return out.staticText(p.name);
        case TaskTable::kProcessStart: return out.integer(int64_t(p.start));
        case TaskTable::kProcessEnd: return out.integer(int64_t(p.end));
        case TaskTable::kParentUpid: return p.parent < 0 ? out.null() : out.integer(p.parent);
        default: return out.null();
        }
    }

private:
    // The ids in `ids` (a key's range, clipped to [0, count)) that an equality on another
    // column leaves (`byValue`'s ids of that value) and `keep` keeps, in order.
    template <typename Map, typename Keep>
    void wanted(Range ids, size_t count, const Range& value, const Map& byValue, Keep keep)
    {
        const int64_t low = std::max<int64_t>(ids.low, 0), high = std::min<int64_t>(ids.high, int64_t(count) - 1);
        if (low > high || value.empty()) return;
        if (value.low == value.high) {
            if (value.low < INT32_MIN || value.low > INT32_MAX) return;
            const auto [from, to] = byValue.equal_range(int32_t(value.low));
            for (auto it = from; it != to; ++it)
                if (it->second >= low && it->second <= high && keep(it->second)) m_ids.push_back(it->second);
            std::sort(m_ids.begin(), m_ids.end());
            return;
        }
        for (int64_t id = low; id <= high; ++id)
            if (keep(uint32_t(id))) m_ids.push_back(uint32_t(id));
    }

    const TaskTable& m_table;
    std::shared_ptr<const TaskRows> m_rows;
    std::vector<std::shared_ptr<const TaskRows>> m_retired; // rows replaced while the cursor lives
    std::vector<uint32_t> m_ids;
    size_t m_at = 0;
};

std::unique_ptr<Cursor> TaskTable::open() const
{
    return std::make_unique<TaskCursor>(*this);
}

} // namespace

TaskTables makeTaskTables(const Trace& trace)
{
    const auto cache = std::make_shared<TaskRowsCache>(trace);
    return {std::make_unique<TaskTable>(TaskTable::Kind::Thread, trace, cache),
            std::make_unique<TaskTable>(TaskTable::Kind::Process, trace, cache)};
}

} // namespace ringside::sql
