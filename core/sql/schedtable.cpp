// SPDX-License-Identifier: GPL-2.0-or-later
// SQL's `sched` (and its alias `sched_slice`), read from the sched_switch events themselves.
#include "sql/schedtable.h"

#include "analysis/tracktables.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

namespace ringside::sql {

namespace schedrows {

using T = ColumnType;

enum SchedColumn { kId, kTs, kDur, kTsEnd, kCpu, kUcpu, kUtid, kEndState, kPriority };
// The order a plan promises: the rows task after task, each task's in time order.
constexpr int kByTask = 1;

// sched_switch's prev_state in the letters its format prints: the __print_flags table of the
// recording's kernel (bits moved between kernel versions), "R" for none, "+" for the bit above
// the table (the kernel's TASK_REPORT_MAX: preempted). Letters of several bits are joined, as
// Perfetto joins them ("DK").
class StateLetters {
public:
    explicit StateLetters(const tep_event* event)
    {
        if (event) find(event->print_fmt.args, false);
        if (m_flags.empty()) // the table of kernels since 4.14
            m_flags = {{0x01, "S"}, {0x02, "D"}, {0x04, "T"}, {0x08, "t"},
                       {0x10, "X"}, {0x20, "Z"}, {0x40, "P"}, {0x80, "I"}};
        uint64_t highest = 0;
        for (const auto& flag : m_flags) highest = std::max(highest, flag.first);
        m_preempt = highest << 1;
    }
    std::string operator()(int64_t state) const
    {
        uint64_t bits = uint64_t(state) & (m_preempt - 1);
        std::string letters;
        for (const auto& [value, text] : m_flags)
            if (value && (bits & value) == value) letters += text, bits &= ~value;
        if (letters.empty()) letters = "R";
        if (uint64_t(state) & m_preempt) letters += "+";
        return letters;
    }

private:
    static bool namesPrevState(const tep_print_arg* arg)
    {
        for (; arg; arg = arg->next) {
            if (arg->type == TEP_PRINT_FIELD && arg->field.name && std::strcmp(arg->field.name, "prev_state") == 0)
                return true;
            if (arg->type == TEP_PRINT_OP && (namesPrevState(arg->op.left) || namesPrevState(arg->op.right)))
                return true;
            if (arg->type == TEP_PRINT_TYPE && namesPrevState(arg->typecast.item)) return true;
        }
        return false;
    }
    void find(const tep_print_arg* arg, bool nested)
    {
        for (; arg && m_flags.empty(); arg = nested ? nullptr : arg->next) {
            switch (arg->type) {
            case TEP_PRINT_FLAGS:
                if (!namesPrevState(arg->flags.field)) break;
                for (const tep_print_flag_sym* f = arg->flags.flags; f; f = f->next)
                    if (f->value && f->str) m_flags.emplace_back(std::strtoull(f->value, nullptr, 0), f->str);
                break;
            case TEP_PRINT_OP:
                find(arg->op.left, true);
                find(arg->op.right, true);
                break;
            case TEP_PRINT_TYPE: find(arg->typecast.item, true); break;
            default: break;
            }
        }
    }

    std::vector<std::pair<uint64_t, std::string>> m_flags;
    uint64_t m_preempt = 0x100;
};

// What the table reads of the recording: the sched_switch type and its fields.
struct SwitchType {
    int type = -1;
    const tep_format_field *nextPid = nullptr, *prevState = nullptr, *nextPrio = nullptr;
    std::shared_ptr<const StateLetters> letters;
};

SwitchType switchTypeOf(SqlContext& context)
{
    SwitchType s;
    const std::optional<uint16_t> type = context.typeNamed("sched", "sched_switch");
    if (!type) return s;
    s.type = int(*type);
    s.nextPid = context.field(*type, "next_pid");
    s.prevState = context.field(*type, "prev_state");
    s.nextPrio = context.field(*type, "next_prio");
    s.letters = std::make_shared<const StateLetters>(context.decoder().event(*type));
    return s;
}

// The task a switch begins a run of: the running table's row that begins there (no record to
// read), or the switch's next_pid where the run has no length (that table leaves it out).
uint32_t runTask(SqlContext& context, const SwitchType& type, TaskOfEvents& tasks, StreamId stream, size_t at,
                 size_t next)
{
    const CpuColumns& columns = context.store().stream(stream).columns;
    const uint64_t ts = columns.timestamp[at];
    if (next >= columns.size() || columns.timestamp[next] > ts)
        if (const IntervalTable* running = context.trace().runningTasks().table())
            if (const std::optional<IntervalRow> row = running->rowAt(stream.value, ts, ts); row && row->start == ts)
                return row->state;
    const std::optional<int64_t> pid = context.integerField({stream, uint32_t(at)}, type.nextPid);
    return pid ? tasks(stream, int32_t(*pid), ts) : TaskId().value;
}

// Each task's switches (those that begin its runs), made by one pass over the switches on first
// use and kept while the recording and its tasks stay as they were: a join asks once per task.
struct SwitchesByTask {
    RecordingMark made; // what it was made from
    size_t tasks = 0;
    std::vector<uint32_t> offsets; // utid -> its first entry in `switches`; one more at the end
    std::vector<EventRef> switches;
};

class SchedTable : public Table {
public:
    SchedTable(SqlContext& context, std::string name, SwitchType type)
        : Table(std::move(name), {{"id", T::Integer},
                                  {"ts", T::Integer},
                                  {"dur", T::Integer},
                                  {"ts_end", T::Integer},
                                  {"cpu", T::Integer},
                                  {"ucpu", T::Integer},
                                  {"utid", T::Integer},
                                  {"end_state", T::Text},
                                  {"priority", T::Integer}}),
          m_context(context), m_type(std::move(type))
    {}
    Plan plan(const std::vector<Constraint>& offered) const override
    {
        Plan plan;
        plan.uses.assign(offered.size(), false);
        double rows = rowEstimate();
        bool byId = false, byTask = false;
        for (size_t i = 0; i < offered.size(); ++i) {
            const Constraint& c = offered[i];
            const bool equal = c.op == Op::Eq;
            if (c.column == kId || c.column == kTs) {
                plan.uses[i] = true;
                if (c.column == kId && equal) byId = true;
                rows *= equal ? 0.01 : 0.5;
            } else if (equal && (c.column == kCpu || c.column == kUcpu)) {
                plan.uses[i] = true;
                rows /= double(std::max<size_t>(1, m_context.store().streamCount()));
            } else if (equal && c.column == kUtid && !byTask) {
                // A task's runs, from the task index.
                plan.uses[i] = true;
                byTask = true;
                rows /= double(std::max<size_t>(1, m_context.trace().taskIndex().size()));
            }
        }
        plan.rows = byId ? 1 : std::max(1.0, rows);
        plan.cost = plan.rows * (byTask ? 20 : 2) + 10;
        return plan;
    }
    double rowEstimate() const override
    {
        return m_type.type < 0 ? 0 : double(m_context.store().eventTypeCount(uint16_t(m_type.type)));
    }
    // Task after task, each in time order: GROUP BY utid, ORDER BY utid[, ts] and the windows
    // partitioned by utid without a sort.
    Plan orderedPlan(const std::vector<Constraint>& offered, const std::vector<OrderBy>& order,
                     Ordering ordering) const override
    {
        Plan p = plan(offered);
        const bool byTask = !order.empty() && order[0].column == kUtid && !order[0].descending;
        const bool thenTime = order.size() == 1 || (order.size() == 2 && order[1].column == kTs &&
                                                    !order[1].descending && ordering == Ordering::Sorted);
        if (byTask && thenTime) p.order = kByTask;
        return p;
    }
    std::unique_ptr<Cursor> open() const override;
    std::shared_ptr<const SwitchesByTask> taskIndex() const
    {
        const std::lock_guard lock(m_lock);
        if (!m_byTask || !(m_byTask->made == m_context.mark()))
            m_byTask = std::make_shared<const SwitchesByTask>(switchesByTask());
        return m_byTask;
    }

private:
    friend class SchedCursor;
    SwitchesByTask switchesByTask() const
    {
        const EventStore& store = m_context.store();
        const Trace& trace = m_context.trace();
        SwitchesByTask r;
        r.made = m_context.mark();
        r.tasks = r.made.tasks;
        struct Found {
            uint32_t task;
            uint64_t ts;
            EventRef event;
        };
        std::vector<Found> found;
        TaskOfEvents tasks(trace);
        const uint16_t type = uint16_t(m_type.type);
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const StreamId stream{uint16_t(s)};
            const CpuColumns& columns = store.stream(stream).columns;
            const size_t size = columns.size();
            size_t at = 0;
            while (at < size && columns.eventType[at] != type) ++at;
            while (at < size) {
                size_t next = at + 1;
                while (next < size && columns.eventType[next] != type) ++next;
                const uint32_t task = runTask(m_context, m_type, tasks, stream, at, next);
                if (task < r.tasks) found.push_back({task, columns.timestamp[at], EventRef{stream, uint32_t(at)}});
                at = next;
            }
            m_context.countRows(size);
        }
        // A task's switches in time order (a task runs on one CPU at a time): the order of a
        // PARTITION BY utid ORDER BY ts.
        std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
            return a.task != b.task ? a.task < b.task : a.ts < b.ts;
        });
        r.offsets.assign(r.tasks + 1, 0);
        for (const Found& f : found) ++r.offsets[f.task + 1];
        for (size_t t = 0; t < r.tasks; ++t) r.offsets[t + 1] += r.offsets[t];
        r.switches.reserve(found.size());
        for (const Found& f : found) r.switches.push_back(f.event);
        return r;
    }

    SqlContext& m_context;
    SwitchType m_type;
    mutable std::mutex m_lock;
    mutable std::shared_ptr<const SwitchesByTask> m_byTask;
};

// Walks the switches of each wanted stream in stream order: a row is a switch and the next one
// on its stream. A task's rows are read at the switches before its runs of events (the task
// index), not by a scan.
class SchedCursor : public Cursor {
public:
    explicit SchedCursor(const SchedTable& table)
        : m_table(table), m_context(table.m_context), m_store(m_context.store()), m_tasks(m_context.trace())
    {}
    ~SchedCursor() override { m_context.countRows(m_uncounted); }

    void begin(const std::vector<Bound>& bounds) override
    {
        m_segments.clear();
        m_segment = 0;
        Range times = rangeOf(bounds, kTs);
        Range cpus = rangeOf(bounds, kCpu);
        const Range ucpus = rangeOf(bounds, kUcpu);
        cpus.low = std::max(cpus.low, ucpus.low), cpus.high = std::min(cpus.high, ucpus.high);
        const Range ids = rangeOf(bounds, kId);
        const Range utids = rangeOf(bounds, kUtid);
        if (m_table.m_type.type < 0 || times.empty() || cpus.empty() || ids.empty()) return;
        if (ids.low == ids.high) {
            // One switch: its event, if it is one.
            if (ids.low < 0 || uint64_t(ids.low) >= m_store.eventCount()) return;
            const EventRef e = m_store.eventAt(size_t(ids.low));
            const CpuColumns& columns = m_store.stream(e.stream).columns;
            if (columns.cpu >= cpus.low && columns.cpu <= cpus.high)
                m_segments.push_back({e.stream, e.index, e.index + 1});
            return settle(false);
        }
        // An id range is a time range of the merged order (SQLite checks the ids again).
        if (ids.low > 0 && uint64_t(ids.low) < m_store.eventCount())
            times.low = std::max<int64_t>(times.low, int64_t(m_store.timestamp(m_store.eventAt(size_t(ids.low)))));
        if (ids.high < 0) return;
        if (uint64_t(ids.high) < m_store.eventCount())
            times.high = std::min<int64_t>(times.high, int64_t(m_store.timestamp(m_store.eventAt(size_t(ids.high)))));
        if (times.empty()) return;
        if (utids.low == utids.high || m_order == kByTask) {
            if (utids.high < 0 || utids.low >= INT32_MAX) return;
            // From the table's index of switches by task, made on first use: one task's, or all
            // of them task after task (the order a statement asked for).
            const auto index = m_table.taskIndex();
            const uint32_t first = uint32_t(std::max<int64_t>(utids.low, 0));
            if (first + size_t(1) >= index->offsets.size()) return;
            const uint32_t last = uint32_t(std::min<int64_t>(utids.high, int64_t(index->offsets.size()) - 2));
            for (uint32_t k = index->offsets[first]; k < index->offsets[last + 1]; ++k) {
                const EventRef e = index->switches[k];
                const CpuColumns& columns = m_store.stream(e.stream).columns;
                const int64_t ts = int64_t(columns.timestamp[e.index]);
                if (columns.cpu < cpus.low || columns.cpu > cpus.high || ts < times.low || ts > times.high) continue;
                m_segments.push_back({e.stream, e.index, e.index + 1});
            }
        } else {
            for (size_t s = 0; s < m_store.streamCount(); ++s) addSegment(StreamId(uint16_t(s)), cpus, times);
        }
        settle(false);
    }
    bool atEnd() const override { return m_segment >= m_segments.size(); }
    void next() override { settle(true); }
    int64_t rowId() override
    {
        if (m_id < 0) m_id = int64_t(m_store.rowOf(current()));
        return m_id;
    }
    void column(int column, Cell& out) override
    {
        const Segment& segment = m_segments[m_segment];
        const CpuColumns& columns = m_store.stream(segment.stream).columns;
        const uint64_t ts = columns.timestamp[m_at];
        const bool ended = m_next < columns.size();
        const int64_t dur = ended ? int64_t(columns.timestamp[m_next] - ts) : -1;
        const SwitchType& type = m_table.m_type;
        switch (column) {
        case kId: return out.integer(rowId());
        case kTs: return out.integer(int64_t(ts));
        case kDur: return out.integer(dur);
        case kTsEnd: return out.integer(int64_t(ts) + dur);
        case kCpu:
        case kUcpu: return out.integer(columns.cpu);
        case kUtid: {
            const uint32_t task = runTask(m_context, type, m_tasks, segment.stream, m_at, m_next);
            return TaskId(task).valid() ? out.integer(task) : out.null();
        }
        case kEndState: {
            const std::optional<int64_t> state =
                ended ? m_context.integerField({segment.stream, uint32_t(m_next)}, type.prevState) : std::nullopt;
            return state ? out.text((*type.letters)(*state)) : out.null();
        }
        case kPriority: {
            const std::optional<int64_t> prio = m_context.integerField(current(), type.nextPrio);
            return prio ? out.integer(*prio) : out.null();
        }
        default: return out.null();
        }
    }

private:
    // Events [begin, end) of a stream whose switches begin rows.
    struct Segment {
        StreamId stream;
        uint32_t begin = 0, end = 0;
    };
    void addSegment(StreamId stream, const Range& cpus, const Range& times)
    {
        const CpuColumns& columns = m_store.stream(stream).columns;
        if (columns.cpu < cpus.low || columns.cpu > cpus.high) return;
        const size_t size = columns.size();
        const size_t begin = times.low > 0 ? columns.timestamp.lowerBound(uint64_t(times.low), 0, size) : 0;
        const size_t end =
            times.high == INT64_MAX ? size : columns.timestamp.lowerBound(uint64_t(times.high) + 1, begin, size);
        if (begin < end) m_segments.push_back({stream, uint32_t(begin), uint32_t(end)});
    }
    EventRef current() const { return {m_segments[m_segment].stream, uint32_t(m_at)}; }
    // The first switch of the stream at or after `from` (the stream's size when none).
    size_t nextSwitch(const CpuColumns& columns, size_t from)
    {
        const size_t size = columns.size();
        const uint16_t type = uint16_t(m_table.m_type.type);
        for (; from < size; ++from) {
            if (++m_uncounted == kRowsCountedEvery) m_context.countRows(m_uncounted), m_uncounted = 0;
            if (columns.eventType[from] == type) return from;
        }
        return size;
    }
    // Moves to the first row from the current one (after it, with `advance`).
    void settle(bool advance)
    {
        m_id = -1;
        for (; m_segment < m_segments.size(); ++m_segment, advance = false) {
            const Segment& segment = m_segments[m_segment];
            const CpuColumns& columns = m_store.stream(segment.stream).columns;
            size_t at = advance ? m_next : nextSwitch(columns, segment.begin);
            for (; at < segment.end; at = nextSwitch(columns, at + 1)) {
                m_at = at;
                m_next = nextSwitch(columns, at + 1);
                return;
            }
        }
    }
    const SchedTable& m_table;
    SqlContext& m_context;
    const EventStore& m_store;
    TaskOfEvents m_tasks;
    std::vector<Segment> m_segments;
    size_t m_segment = 0;
    size_t m_at = 0, m_next = 0;
    mutable int64_t m_id = -1;
    uint64_t m_uncounted = 0;
};

std::unique_ptr<Cursor> SchedTable::open() const
{
    return std::make_unique<SchedCursor>(*this);
}

} // namespace schedrows

std::unique_ptr<Table> makeSchedTable(SqlContext& context, std::string name)
{
    schedrows::SwitchType type = schedrows::switchTypeOf(context);
    if (type.type < 0) return nullptr;
    return std::make_unique<schedrows::SchedTable>(context, std::move(name), std::move(type));
}

} // namespace ringside::sql
