// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/eventtables.h"

#include "sql/argstable.h"

#include "trace.h"

#include <sqlite3.h>
#include <traceevent/event-parse.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace ringside::sql {

namespace {

// ftrace_event's columns after the leading ones.
enum : int { kName = EventTable::kLeading, kSystem, kArgSetId };

// Rows counted towards progress in batches: the counter is shared with other threads.
constexpr uint64_t kCountEvery = 4096;

class EventCursor : public Cursor {
public:
    explicit EventCursor(const EventTable& table)
        : m_table(table), m_context(table.context()), m_store(m_context.store()), m_tasks(m_context.trace())
    {}
    ~EventCursor() override { m_context.countRows(m_uncounted); }

    void begin(const std::vector<Bound>& bounds) override
    {
        const size_t rows = m_store.eventCount();
        size_t first = 0, last = rows; // [first, last)
        Range ids = rangeOf(bounds, EventTable::kId);
        Range times = rangeOf(bounds, EventTable::kTs);
        m_cpu = rangeOf(bounds, EventTable::kCpu);
        m_pid = rangeOf(bounds, EventTable::kPid);
        const Range utid = rangeOf(bounds, EventTable::kUtid);
        m_utid = -1;
        if (utid.low == utid.high) {
            // A task: its pid, within its lifetime.
            const TaskIndex& index = m_context.trace().taskIndex();
            if (utid.low < 0 || uint64_t(utid.low) >= index.size()) return finish();
            const TaskIndex::Task task = index.task(TaskId(uint32_t(utid.low)));
            m_utid = utid.low;
            m_pid.low = std::max<int64_t>(m_pid.low, task.pid);
            m_pid.high = std::min<int64_t>(m_pid.high, task.pid);
            times.low = std::max<int64_t>(times.low, int64_t(task.firstTime));
            times.high = std::min<int64_t>(times.high, int64_t(task.lastTime));
        }
        if (m_pid.low == m_pid.high && m_utid < 0) {
            // A pid: from its first life's first event to its last life's last (the task index).
            const std::vector<TaskId> lives = m_context.trace().taskIndex().tasksOf(int32_t(m_pid.low));
            if (lives.empty()) return finish();
            const TaskIndex& index = m_context.trace().taskIndex();
            times.low = std::max<int64_t>(times.low, int64_t(index.task(lives.front()).firstTime));
            times.high = std::min<int64_t>(times.high, int64_t(index.task(lives.back()).lastTime));
        }
        if (ids.empty() || times.empty() || m_cpu.empty() || m_pid.empty() || ids.high < 0 || times.high < 0)
            return finish();
        first = std::max<int64_t>(0, ids.low);
        if (uint64_t(ids.high) < last) last = size_t(ids.high) + 1;
        if (times.low > 0) first = std::max(first, m_store.firstRowAtOrAfter(uint64_t(times.low)));
        if (times.high < INT64_MAX) last = std::min(last, m_store.firstRowAtOrAfter(uint64_t(times.high) + 1));
        if (first >= last) return finish();
        m_walk.emplace(m_store.order(), first);
        m_end = last;
        m_atEnd = false;
        settle();
    }
    bool atEnd() const override { return m_atEnd; }
    void next() override
    {
        m_walk->next();
        settle();
    }
    int64_t rowId() const override { return int64_t(m_walk->row()); }

    void column(int column, Cell& out) override
    {
        const CpuColumns& columns = m_store.stream(m_event.stream).columns;
        switch (column) {
        case EventTable::kId: return out.integer(rowId());
        case EventTable::kTs: return out.integer(int64_t(m_ts));
        case EventTable::kCpu: return out.integer(columns.cpu);
        case EventTable::kUtid: return utid(out);
        case EventTable::kPid: return out.integer(m_pidValue);
        case EventTable::kComm: return out.text(comm(m_pidValue));
        case EventTable::kFlags: return out.integer(columns.flags[m_event.index]);
        case EventTable::kPreempt: return out.integer(columns.preemptCount[m_event.index]);
        default: break;
        }
        const uint16_t type = columns.eventType[m_event.index];
        if (m_table.type() == EventTable::kAnyType) {
            if (column == kArgSetId) return out.integer(rowId());
            tep_event* event = m_context.decoder().event(type);
            if (!event) return out.text(column == kName ? "unknown type " + std::to_string(type) : "");
            return out.text(column == kName ? event->name : event->system ? event->system : "");
        }
        const auto& fields = m_context.fieldsOf(type);
        const size_t field = size_t(column - EventTable::kLeading);
        if (field >= fields.size()) return out.null();
        m_context.writeField(m_event, fields[field], out);
    }

private:
    void finish() { m_atEnd = true; }
    // Moves to the first row from here that may match.
    void settle()
    {
        const int type = m_table.type();
        for (; m_walk->row() < m_end && !m_walk->atEnd(); m_walk->next()) {
            if (++m_uncounted == kCountEvery) m_context.countRows(m_uncounted), m_uncounted = 0;
            const EventRef e = m_walk->event();
            const CpuColumns& columns = m_store.stream(e.stream).columns;
            if (type != EventTable::kAnyType && columns.eventType[e.index] != type) continue;
            if (columns.cpu < m_cpu.low || columns.cpu > m_cpu.high) continue;
            const int32_t pid = columns.pid[e.index];
            if (pid < m_pid.low || pid > m_pid.high) continue;
            m_event = e;
            m_pidValue = pid;
            m_ts = columns.timestamp[e.index];
            if (m_utid >= 0 && m_tasks(e.stream, pid, m_ts) != uint64_t(m_utid)) continue;
            return;
        }
        m_atEnd = true;
    }
    // Names looked up once per pid: the trace's lookup takes locks.
    const std::string& comm(int32_t pid)
    {
        auto [it, added] = m_comms.try_emplace(pid);
        if (added) it->second = m_context.trace().taskName(pid);
        return it->second;
    }
    void utid(Cell& out)
    {
        const uint32_t task = m_tasks(m_event.stream, m_pidValue, m_ts);
        if (TaskId(task).valid())
            out.integer(task);
        else
            out.null();
    }

    const EventTable& m_table;
    SqlContext& m_context;
    const EventStore& m_store;
    TaskOfEvents m_tasks;
    std::optional<MergedOrder::Cursor> m_walk;
    size_t m_end = 0;
    bool m_atEnd = true;
    Range m_cpu, m_pid;
    int64_t m_utid = -1;
    EventRef m_event;
    uint64_t m_ts = 0;
    int32_t m_pidValue = 0;
    uint64_t m_uncounted = 0;
    std::unordered_map<int32_t, std::string> m_comms;
};

} // namespace

EventTable::EventTable(SqlContext& context, std::string name, int type)
    : Table(std::move(name), columnsFor(context, type)), m_context(context), m_type(type)
{}

std::vector<Column> EventTable::columnsFor(SqlContext& context, int type)
{
    using T = ColumnType;
    if (type == kAnyType)
        return {{"id", T::Integer},
                {"ts", T::Integer},
                {"cpu", T::Integer},
                {"utid", T::Integer},
                {"pid", T::Integer},
                {"comm", T::Text},
                {"common_flags", T::Integer},
                {"common_preempt_count", T::Integer},
                {"name", T::Text},
                {"system", T::Text},
                {"arg_set_id", T::Integer}};
    std::vector<Column> columns = {{"id", T::Integer},           {"ts", T::Integer},
                                   {"cpu", T::Integer},          {"utid", T::Integer},
                                   {"common_pid", T::Integer},   {"comm", T::Text},
                                   {"common_flags", T::Integer}, {"common_preempt_count", T::Integer}};
    std::set<std::string> fieldNames;
    for (tep_format_field* f : context.fieldsOf(uint16_t(type))) fieldNames.insert(f->name);
    for (Column& c : columns)
        if (fieldNames.count(c.name) && c.name.rfind("common_", 0) != 0) c.name = "common_" + c.name;
    for (tep_format_field* f : context.fieldsOf(uint16_t(type))) {
        const bool number = !(f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
                            f->size > 0 && f->size <= 8;
        columns.push_back({f->name, number ? T::Integer : T::Text});
    }
    return columns;
}

Plan EventTable::plan(const std::vector<Constraint>& offered) const
{
    Plan plan;
    plan.uses.assign(offered.size(), false);
    const double events = double(std::max<size_t>(1, m_context.store().eventCount()));
    double scanned = 1, matching = 1;
    bool lowTime = false, highTime = false, lowId = false, highId = false;
    for (size_t i = 0; i < offered.size(); ++i) {
        const Constraint& c = offered[i];
        const bool equal = c.op == Op::Eq;
        const bool low = equal || c.op == Op::Gt || c.op == Op::Ge;
        const bool high = equal || c.op == Op::Lt || c.op == Op::Le;
        if (c.column == kTs || c.column == kId) {
            bool& l = c.column == kTs ? lowTime : lowId;
            bool& h = c.column == kTs ? highTime : highId;
            if ((low && !l) || (high && !h)) scanned *= equal ? 1e-6 : 0.1;
            l = l || low;
            h = h || high;
            plan.uses[i] = true;
        } else if (equal && c.column == kUtid) {
            scanned *= 0.01;
            plan.uses[i] = true;
        } else if (equal && c.column == kPid) {
            scanned *= 0.1; // its lifetimes
            matching *= 0.1;
            plan.uses[i] = true;
        } else if (equal && c.column == kCpu) {
            matching *= 0.5;
            plan.uses[i] = true;
        }
    }
    plan.cost = events * scanned * (0.2 + matching) + 10;
    plan.rows = std::max(1.0, rowEstimate() * scanned * matching);
    return plan;
}

double EventTable::rowEstimate() const
{
    return double(m_type == kAnyType ? m_context.store().eventCount()
                                     : m_context.store().eventTypeCount(uint16_t(m_type)));
}

std::unique_ptr<Cursor> EventTable::open() const
{
    return std::make_unique<EventCursor>(*this);
}

std::vector<std::unique_ptr<Table>> makeEventTables(SqlContext& context)
{
    std::vector<std::unique_ptr<Table>> tables;
    tables.push_back(std::make_unique<EventTable>(context, "ftrace_event", EventTable::kAnyType));
    // Types with events, by name: a name two systems share is given with its system.
    std::map<std::string, std::vector<std::pair<uint16_t, std::string>>> byName;
    const std::vector<uint64_t>& counts = context.store().eventTypeCounts();
    for (size_t type = 0; type < counts.size(); ++type) {
        if (!counts[type]) continue;
        tep_event* event = context.decoder().event(uint16_t(type));
        if (!event || !event->name) continue;
        byName[event->name].emplace_back(uint16_t(type), event->system ? event->system : "");
    }
    for (const auto& [name, types] : byName)
        for (const auto& [type, system] : types)
            tables.push_back(
                std::make_unique<EventTable>(context, types.size() > 1 ? system + "_" + name : name, type));
    if (!byName.count("args")) tables.push_back(makeArgsTable(context));
    return tables;
}

namespace {

void extractArg(sqlite3_context* call, int argc, sqlite3_value** argv)
{
    auto& context = *static_cast<SqlContext*>(sqlite3_user_data(call));
    if (argc != 2 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER || sqlite3_value_type(argv[1]) != SQLITE_TEXT)
        return sqlite3_result_null(call);
    const int64_t row = sqlite3_value_int64(argv[0]);
    const EventStore& store = context.store();
    if (row < 0 || uint64_t(row) >= store.eventCount()) return sqlite3_result_null(call);
    std::string_view key(reinterpret_cast<const char*>(sqlite3_value_text(argv[1])));
    if (key.rfind("args.", 0) == 0) key.remove_prefix(5);
    const EventRef e = store.eventAt(size_t(row));
    const uint16_t type = store.stream(e.stream).columns.eventType[e.index];
    const tep_format_field* field = context.field(type, key);
    if (!field) return sqlite3_result_null(call);
    SqliteCell out(call);
    context.writeField(e, field, out);
}

} // namespace

void registerEventFunctions(sqlite3* db, SqlContext& context)
{
    sqlite3_create_function_v2(db, "EXTRACT_ARG", 2, SQLITE_UTF8, &context, extractArg, nullptr, nullptr, nullptr);
}

} // namespace ringside::sql
