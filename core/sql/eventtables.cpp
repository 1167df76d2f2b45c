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
#include <span>
#include <unordered_map>

namespace ringside::sql {

namespace {

// ftrace_event's columns after the leading ones.
enum : int { kName = EventTable::kLeading, kSystem, kArgSetId };

class EventCursor : public Cursor {
public:
    explicit EventCursor(const EventTable& table)
        : m_table(table), m_context(table.context()), m_store(m_context.store()), m_tasks(m_context.trace())
    {}
    ~EventCursor() override { m_context.countRows(m_uncounted); }

    void begin(const std::vector<Bound>& bounds) override
    {
        m_byType = m_counted = false;
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
        if (m_order != 0 && m_table.type() == EventTable::kAnyType) return beginByType(ids, times, !bounds.empty());
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
        if (m_counted) {
            --m_left;
            return settleCounted();
        }
        if (m_byType) {
            ++m_index;
            return settleByType();
        }
        m_walk->next();
        settle();
    }
    int64_t rowId() override
    {
        if (m_counted) leaveCounted();
        if (!m_byType) return int64_t(m_walk->row());
        if (m_row < 0) m_row = int64_t(m_store.rowOf(m_event));
        return m_row;
    }

    void column(int column, Cell& out) override
    {
        if (m_byType && column == kName) return out.staticText(*m_typeNames[m_typeAt]);
        if (m_counted) leaveCounted();
        const CpuColumns& columns = m_store.stream(m_event.stream).columns;
        if (!m_known) {
            m_pidValue = columns.pid[m_event.index];
            m_ts = columns.timestamp[m_event.index];
            m_known = true;
        }
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

    // The orders a plan may promise (EventTable::orderedPlan): by name, ascending or
    // descending, or grouped by name in any order.
    enum Order : int { kNoOrder, kByName, kByNameDescending, kGroupedByName };

private:
    void finish() { m_atEnd = true; }

    // Type after type (their names in order), each type's events stream by stream: what a
    // GROUP BY or ORDER BY on name reads without SQLite sorting 25M rows. An id range is the
    // time range of its rows (SQLite checks the ids again). A statement that reads nothing but
    // the name of every event (SELECT name, count(*) ... GROUP BY name) is given each type's
    // count of rows, the store's counts, with no event looked for: its rows differ in nothing
    // else it reads.
    void beginByType(const Range& ids, Range times, bool narrowed)
    {
        m_byType = true;
        if (ids.low > 0 && uint64_t(ids.low) < m_store.eventCount())
            times.low = std::max<int64_t>(times.low, int64_t(m_store.timestamp(m_store.eventAt(size_t(ids.low)))));
        if (uint64_t(ids.high) < m_store.eventCount())
            times.high = std::min<int64_t>(times.high, int64_t(m_store.timestamp(m_store.eventAt(size_t(ids.high)))));
        m_times = times;
        m_types.clear();
        const std::vector<uint64_t>& counts = m_store.eventTypeCounts();
        std::vector<std::pair<std::string, uint16_t>> named;
        for (size_t type = 0; type < counts.size(); ++type)
            if (m_store.eventTypeCount(uint16_t(type))) named.emplace_back(nameOf(uint16_t(type)), uint16_t(type));
        std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        if (m_order == kByNameDescending) std::reverse(named.begin(), named.end());
        m_typeNames.clear();
        for (const auto& n : named) {
            m_types.push_back(n.second);
            // Kept for the cursor's life: SQLite holds the static texts until the statement ends.
            m_typeNames.push_back(&m_nameOf.try_emplace(n.second, n.first).first->second);
        }
        m_typeAt = m_streamAt = 0;
        m_streamReady = false;
        m_atEnd = false;
        m_counted = !narrowed && (m_used & ~(uint64_t(1) << kName)) == 0;
        if (!m_counted) return settleByType();
        m_left = m_types.empty() ? 0 : m_store.eventTypeCount(m_types.front());
        settleCounted();
    }
    // SQLite asks for the rowid (or a column) after all, which its plan does not say: the walk
    // takes over at this row, found among its type's events from the first.
    void leaveCounted()
    {
        const uint64_t given = m_store.eventTypeCount(m_types[m_typeAt]) - m_left;
        m_counted = false;
        m_streamAt = 0;
        m_streamReady = false;
        // Rows counted as they were given, not again.
        settleByType(false);
        for (uint64_t i = 0; i < given && !m_atEnd; ++i) {
            ++m_index;
            settleByType(false);
        }
    }
    // The current row is of m_types[m_typeAt] while m_left (its rows from this one) is not 0.
    void settleCounted()
    {
        while (m_left == 0 && m_typeAt < m_types.size())
            if (++m_typeAt < m_types.size()) m_left = m_store.eventTypeCount(m_types[m_typeAt]);
        if (m_typeAt >= m_types.size()) return finish();
        if (++m_uncounted == kRowsCountedEvery) m_context.countRows(m_uncounted), m_uncounted = 0;
    }
    std::string nameOf(uint16_t type)
    {
        tep_event* event = m_context.decoder().event(type);
        return event && event->name ? std::string(event->name) : "unknown type " + std::to_string(type);
    }
    // Moves to the first event from here (m_typeAt, m_streamAt, m_index) that may match.
    void settleByType(bool counted = true)
    {
        m_row = -1;
        for (; m_typeAt < m_types.size(); ++m_typeAt, m_streamAt = 0, m_streamReady = false) {
            const uint16_t type = m_types[m_typeAt];
            for (; m_streamAt < m_store.streamCount(); ++m_streamAt, m_streamReady = false) {
                const StreamId stream{uint16_t(m_streamAt)};
                const CpuColumns& columns = m_store.stream(stream).columns;
                if (!m_streamReady) {
                    if (columns.cpu < m_cpu.low || columns.cpu > m_cpu.high) continue;
                    const size_t size = columns.size();
                    m_index = m_times.low > 0 ? columns.timestamp.lowerBound(uint64_t(m_times.low), 0, size) : 0;
                    m_indexEnd = m_times.high == INT64_MAX
                                     ? size
                                     : columns.timestamp.lowerBound(uint64_t(m_times.high) + 1, m_index, size);
                    m_streamReady = true;
                    m_block = SIZE_MAX;
                }
                m_index = firstBlockWith(stream, columns, m_index, m_indexEnd, type);
                const bool byPid = m_pid.low != INT64_MIN || m_pid.high != INT64_MAX || m_utid >= 0;
                for (m_index = nextOfType(columns, m_index, m_indexEnd, type); m_index < m_indexEnd;
                     m_index = nextOfType(columns, m_index + 1, m_indexEnd, type)) {
                    m_event = {stream, uint32_t(m_index)};
                    m_known = false; // its pid and time are read when asked for
                    if (byPid) {
                        const int32_t pid = columns.pid[m_index];
                        if (pid < m_pid.low || pid > m_pid.high) continue;
                        if (m_utid >= 0 && m_tasks(stream, pid, columns.timestamp[m_index]) != uint64_t(m_utid))
                            continue;
                    }
                    if (counted && ++m_uncounted == kRowsCountedEvery)
                        m_context.countRows(m_uncounted), m_uncounted = 0;
                    return;
                }
            }
        }
        m_atEnd = true;
    }
    // `from`, or the start of the first block from there whose shapes hold `type` (`end` when
    // none): the blocks' types are listed once per stream, so that a type's pass skips the
    // blocks without it.
    size_t firstBlockWith(StreamId stream, const CpuColumns& columns, size_t from, size_t end, uint16_t type)
    {
        constexpr int kBlockBits = DictionaryColumn<uint32_t>::kBlockBits;
        if (m_blockTypes.size() <= stream.value) m_blockTypes.resize(size_t(stream.value) + 1);
        std::vector<std::vector<bool>>& blocks = m_blockTypes[stream.value];
        const size_t size = columns.size();
        if (blocks.empty() && size) {
            // Each block's distinct codes, each looked up once.
            blocks.resize(((size - 1) >> kBlockBits) + 1);
            std::vector<bool> seen;
            for (size_t block = 0; block < blocks.size(); ++block) {
                seen.assign(size_t(1) << 16, false);
                const size_t first = block << kBlockBits, last = std::min(size, first + (size_t(1) << kBlockBits));
                for (size_t i = first; i < last;) {
                    const std::span<const uint16_t> codes = columns.shapes.codes(i, last);
                    for (uint16_t code : codes) {
                        if (seen[code]) continue;
                        seen[code] = true;
                        const uint16_t t = uint16_t(columns.shapes.valueOf(block, code));
                        if (blocks[block].size() <= t) blocks[block].resize(size_t(t) + 1, false);
                        blocks[block][t] = true;
                    }
                    i += codes.size();
                }
            }
        }
        for (size_t block = from >> kBlockBits; from < end && block < blocks.size();
             ++block, from = std::max(from, block << kBlockBits))
            if (type < blocks[block].size() && blocks[block][type]) return from;
        return end;
    }
    // The first event of `type` in [from, end) of the stream (end when none): the shapes' codes
    // a block at a time, each code of a block looked up once.
    size_t nextOfType(const CpuColumns& columns, size_t from, size_t end, uint16_t type)
    {
        constexpr int kBlockBits = DictionaryColumn<uint32_t>::kBlockBits;
        if (m_matches.empty()) m_matches.resize(size_t(1) << 16);
        while (from < end) {
            const size_t block = from >> kBlockBits;
            if (block != m_block) m_block = block, std::fill(m_matches.begin(), m_matches.end(), kUnknown);
            const std::span<const uint16_t> codes = columns.shapes.codes(from, end);
            const uint16_t* code = codes.data();
            const uint16_t* const last = code + codes.size();
            for (; code != last; ++code) {
                int8_t& match = m_matches[*code];
                if (match == kNo) continue;
                if (match == kUnknown) match = uint16_t(columns.shapes.valueOf(block, *code)) == type ? kYes : kNo;
                if (match == kYes) return from + size_t(code - codes.data());
            }
            from += codes.size();
        }
        return end;
    }
    // Moves to the first row from here that may match.
    void settle()
    {
        const int type = m_table.type();
        for (; m_walk->row() < m_end && !m_walk->atEnd(); m_walk->next()) {
            if (++m_uncounted == kRowsCountedEvery) m_context.countRows(m_uncounted), m_uncounted = 0;
            const EventRef e = m_walk->event();
            const CpuColumns& columns = m_store.stream(e.stream).columns;
            if (type != EventTable::kAnyType && columns.eventType[e.index] != type) continue;
            if (columns.cpu < m_cpu.low || columns.cpu > m_cpu.high) continue;
            const int32_t pid = columns.pid[e.index];
            if (pid < m_pid.low || pid > m_pid.high) continue;
            m_event = e;
            m_pidValue = pid;
            m_ts = columns.timestamp[e.index];
            m_known = true;
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
    // The walk type by type.
    static constexpr int8_t kUnknown = -1, kNo = 0, kYes = 1;
    bool m_byType = false;
    bool m_counted = false; // the rows are the store's counts per type (beginByType)
    uint64_t m_left = 0;    // of the type's rows, from the current one
    std::vector<uint16_t> m_types;
    std::vector<const std::string*> m_typeNames; // of m_types, in m_nameOf
    std::map<uint16_t, std::string> m_nameOf;
    bool m_known = true; // m_ts and m_pidValue are the current event's
    size_t m_typeAt = 0, m_streamAt = 0, m_index = 0, m_indexEnd = 0;
    bool m_streamReady = false;
    Range m_times;
    size_t m_block = SIZE_MAX;
    std::vector<int8_t> m_matches; // by code of m_block (all 2^16): whether it is the type walked
    std::vector<std::vector<std::vector<bool>>> m_blockTypes; // per stream, per block: its types
    mutable int64_t m_row = -1;
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

Plan EventTable::orderedPlan(const std::vector<Constraint>& offered, const std::vector<OrderBy>& order,
                             Ordering ordering) const
{
    Plan plan = this->plan(offered);
    // ftrace_event by name: type after type, names in order.
    if (m_type == kAnyType && order.size() == 1 && order[0].column == kName)
        plan.order = ordering == Ordering::Grouped ? EventCursor::kGroupedByName
                     : order[0].descending         ? EventCursor::kByNameDescending
                                                   : EventCursor::kByName;
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

std::string eventTableName(const std::string& system, const std::string& name, bool nameShared)
{
    return nameShared ? system + "_" + name : name;
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
                std::make_unique<EventTable>(context, eventTableName(system, name, types.size() > 1), type));
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
