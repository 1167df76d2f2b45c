// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/analysistables.h"

#include "sql/ownertables.h"
#include "sql/perfettotracks.h"
#include "sql/recordingsql.h"
#include "sql/schedtable.h"
#include "sql/statstables.h"
#include "sql/tasktables.h"
#include "sql/threadstatecolumns.h"

#include "calls/callcontext.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace ringside::sql {

namespace {

using T = ColumnType;

class SourceCursor : public Cursor {
public:
    explicit SourceCursor(const SourceTable& table) : m_table(table), m_width(table.columns().size()) {}
    void begin(const std::vector<Bound>& bounds) override
    {
        m_source = m_table.source(bounds);
        if (m_source) m_source->useColumns(m_used);
        m_more = true;
        m_row = 0;
        refill();
    }
    bool atEnd() const override { return m_at >= m_cells.size(); }
    void next() override
    {
        ++m_row;
        m_at += m_width;
        if (m_at >= m_cells.size()) refill();
    }
    int64_t rowId() override { return m_row; }
    void column(int column, Cell& out) override { out.write(m_cells[m_at + size_t(column)]); }

private:
    void refill()
    {
        m_cells.clear();
        m_at = 0;
        while (m_cells.empty() && m_more && m_source) m_more = m_source->fill(m_cells, kChunkRows);
    }

    const SourceTable& m_table;
    size_t m_width;
    std::unique_ptr<RowSource> m_source;
    std::vector<Value> m_cells;
    size_t m_at = 0;
    int64_t m_row = 0;
    bool m_more = false;
};

// Rows made all at once: the small tables (tasks, processes, statistics).
class ListSource : public RowSource {
public:
    explicit ListSource(std::vector<Value> cells) : m_cells(std::move(cells)) {}
    bool fill(std::vector<Value>& cells, size_t) override
    {
        cells = std::move(m_cells);
        return false;
    }

private:
    std::vector<Value> m_cells;
};

// The event types recorded and their counts, from the store's counts (no scan).
std::unique_ptr<Table> eventTypeTable(SqlContext& context)
{
    return std::make_unique<SourceTable>(
        "event_type",
        std::vector<Column>{{"type", T::Integer}, {"name", T::Text}, {"system", T::Text}, {"events", T::Integer}},
        [] { return 100.0; },
        [&context](const std::vector<Bound>&) {
            std::vector<Value> cells;
            const std::vector<uint64_t>& counts = context.store().eventTypeCounts();
            for (size_t type = 0; type < counts.size(); ++type) {
                if (!counts[type]) continue;
                tep_event* event = context.decoder().event(uint16_t(type));
                cells.push_back(integer(int64_t(type)));
                cells.push_back(text(event && event->name ? event->name : "unknown type " + std::to_string(type)));
                cells.push_back(text(event && event->system ? event->system : ""));
                cells.push_back(integer(int64_t(counts[type])));
            }
            return std::make_unique<ListSource>(std::move(cells));
        });
}

// Perfetto's metadata table (name, key_type, int_value, str_value): the SQL tables' version
// (ringside_sql_schema), then the machine the recording names in its uname (system_name,
// system_release, system_machine, as Perfetto's rows for the same).
std::unique_ptr<Table> metadataTable(SqlContext& context)
{
    return std::make_unique<SourceTable>(
        "metadata",
        std::vector<Column>{
            {"name", T::Text}, {"key_type", T::Text}, {"int_value", T::Integer}, {"str_value", T::Text}},
        [] { return 10.0; },
        [&context](const std::vector<Bound>&) {
            std::vector<Value> cells;
            const auto add = [&cells](const char* name, std::string value) {
                if (value.empty()) return;
                cells.push_back(text(name));
                cells.push_back(text("single"));
                cells.push_back(nullValue());
                cells.push_back(text(std::move(value)));
            };
            add("ringside_sql_schema", kSqlSchema);
            // trace-cmd writes "sysname nodename release machine".
            std::vector<std::string> uname;
            std::istringstream words(context.trace().file().info().uname);
            for (std::string word; words >> word;) uname.push_back(word);
            if (uname.size() == 4) {
                add("system_name", uname[0]);
                add("system_release", uname[2]);
                add("system_machine", uname[3]);
            }
            return std::make_unique<ListSource>(std::move(cells));
        });
}

// Perfetto's trace_bounds: the first and the last event's time.
std::unique_ptr<Table> traceBoundsTable(SqlContext& context)
{
    return std::make_unique<SourceTable>(
        "trace_bounds", std::vector<Column>{{"start_ts", T::Integer}, {"end_ts", T::Integer}}, [] { return 1.0; },
        [&context](const std::vector<Bound>&) {
            const EventStore& store = context.store();
            std::vector<Value> cells;
            if (store.eventCount()) {
                cells.push_back(integer(int64_t(store.firstTimestamp())));
                cells.push_back(integer(int64_t(store.lastTimestamp())));
            }
            return std::make_unique<ListSource>(std::move(cells));
        });
}

// Perfetto's letters for the sched plugin's states.
std::string perfettoState(const std::string& name)
{
    static const std::map<std::string, std::string> letters = {{"running", "Running"}, {"runnable", "R"},
                                                               {"sleeping", "S"},      {"blocked (D)", "D"},
                                                               {"stopped", "T"},       {"dead", "X"}};
    auto it = letters.find(name);
    return it == letters.end() ? name : it->second;
}

// An interval table's rows, owner by owner; the states still open at the end last, ending at
// the recording's last event. ts is the start: `times` narrows each owner's rows by binary search.
class IntervalSource : public RowSource {
public:
    enum class Style { Generic, ThreadState };
    // `tasks`: the utids wanted, of a table whose rows a task owns (each task's rows are a lane:
    // a join on utid reads that lane alone).
    IntervalSource(SqlContext& context, const IntervalTable& table, Style style, Range cpus, Range times, Range tasks,
                   Range ids = {}, std::shared_ptr<ThreadStateColumns::Shared> shared = {})
        : m_store(context.store()), m_table(table), m_style(style), m_cpus(cpus), m_times(times), m_tasks(tasks)
    {
        if (style == Style::ThreadState) {
            m_extra.emplace(context, table, std::move(shared));
            // An id names a task's row: read that one alone.
            if (ids.low == ids.high) {
                m_tasks.low = std::max<int64_t>(m_tasks.low, ids.low >> 32);
                m_tasks.high = std::min<int64_t>(m_tasks.high, ids.low >> 32);
                m_place = uint64_t(ids.low) & 0xffffffffu;
            }
        }
        const int64_t first = std::max<int64_t>(m_tasks.low, 0);
        m_owner = m_openOwner = uint32_t(std::min<int64_t>(first, UINT32_MAX));
    }
    void useColumns(uint64_t columns) override
    {
        if (m_extra) m_extra->useColumns(columns >> kThreadStateExtras);
    }
    bool fill(std::vector<Value>& cells, size_t rows) override
    {
        const auto& byOwner = m_table.byOwner();
        const uint64_t last = m_store.lastTimestamp();
        if (m_place) return fillPlace(cells, last);
        for (size_t made = 0; made < rows;) {
            if (int64_t(m_owner) > m_tasks.high) m_owner = uint32_t(byOwner.owners());
            if (int64_t(m_openOwner) > m_tasks.high) m_openOwner = uint32_t(m_table.openOwners());
            if (m_owner < byOwner.owners()) {
                const GrowingList<IntervalRow>* lane = byOwner.of(m_owner);
                if (!lane || !ownerWanted(m_store, m_table.owner(), m_owner, m_cpus)) {
                    ++m_owner, m_row = 0;
                    continue;
                }
                if (m_row == 0 && m_times.low > 0)
                    m_row = lane->lowerBound(uint64_t(m_times.low), 0, lane->size(),
                                             [](const IntervalRow& r) { return r.start; });
                if (m_row >= lane->size() || int64_t((*lane)[m_row].start) > m_times.high) {
                    ++m_owner, m_row = 0;
                    continue;
                }
                add(cells, (*lane)[m_row], m_owner, false, m_row);
                ++m_row;
                ++made;
            } else if (m_openOwner < m_table.openOwners()) {
                const uint32_t owner = m_openOwner++;
                IntervalRow open = m_table.openOf(owner);
                if (open.end == 0 || !ownerWanted(m_store, m_table.owner(), owner, m_cpus)) continue;
                if (int64_t(open.start) < m_times.low || int64_t(open.start) > m_times.high) continue;
                open.end = std::max(open.start, last);
                const GrowingList<IntervalRow>* lane = byOwner.of(owner);
                add(cells, open, owner, true, lane ? lane->size() : 0);
                ++made;
            } else {
                return false;
            }
        }
        return true;
    }

    // thread_state's columns after state_name.
    static constexpr int kThreadStateExtras = 5;

private:
    // The one row an id names (thread_state): a row of its task's lane, or its open state.
    bool fillPlace(std::vector<Value>& cells, uint64_t last)
    {
        const uint64_t place = *m_place;
        m_place.reset();
        m_owner = uint32_t(m_table.byOwner().owners()); // nothing after it
        m_openOwner = uint32_t(m_table.openOwners());
        if (m_tasks.empty() || m_tasks.low < 0 || m_tasks.low > UINT32_MAX) return false;
        const uint32_t owner = uint32_t(m_tasks.low);
        const GrowingList<IntervalRow>* lane = m_table.byOwner().of(owner);
        const size_t rows = lane ? lane->size() : 0;
        if (place < rows) {
            add(cells, (*lane)[place], owner, false, place);
        } else if (place == rows && owner < m_table.openOwners()) {
            IntervalRow open = m_table.openOf(owner);
            if (!open.end) return false;
            open.end = std::max(open.start, last);
            add(cells, open, owner, true, place);
        }
        return false;
    }
    void add(std::vector<Value>& cells, const IntervalRow& r, uint32_t owner, bool open, uint64_t place)
    {
        cells.push_back(integer(int64_t(r.start)));
        cells.push_back(integer(int64_t(r.end - r.start)));
        cells.push_back(ownerValue(m_store, m_table.owner(), owner));
        const IntervalTableSpec& spec = m_table.spec();
        if (spec.statesAreTasks) {
            cells.push_back(TaskId(r.state).valid() ? integer(r.state) : nullValue());
        } else {
            const std::string name = r.state < spec.states.size() ? spec.states[r.state].name : std::to_string(r.state);
            cells.push_back(text(m_style == Style::ThreadState ? perfettoState(name) : name));
            if (m_style == Style::ThreadState) {
                cells.push_back(text(name));
                m_extra->add(cells, r, owner, place, name);
            }
        }
        if (m_style == Style::Generic) cells.push_back(integer(open));
    }

    const EventStore& m_store;
    const IntervalTable& m_table;
    Style m_style;
    Range m_cpus, m_times, m_tasks;
    uint32_t m_owner = 0;
    size_t m_row = 0;
    uint32_t m_openOwner = 0;
    std::optional<ThreadStateColumns> m_extra;
    std::optional<uint64_t> m_place;
};

std::unique_ptr<Table> intervalTable(SqlContext& context, const IntervalTable& table, std::string name,
                                     IntervalSource::Style style)
{
    std::vector<Column> columns = {{"ts", T::Integer}, {"dur", T::Integer}, {ownerColumn(table.owner()), T::Integer}};
    if (table.spec().statesAreTasks)
        columns.push_back({"utid", T::Integer});
    else
        columns.push_back({"state", T::Text});
    if (style == IntervalSource::Style::ThreadState) {
        columns.push_back({"state_name", T::Text});
        for (const Column& c : ThreadStateColumns::columns()) columns.push_back(c);
    }
    if (style == IntervalSource::Style::Generic) columns.push_back({"open", T::Integer});
    const int cpuColumn = table.owner() == RowOwner::Cpu ? 2 : -1;
    const int taskColumn = table.owner() == RowOwner::Task ? 2 : -1;
    std::vector<int> ranged{0};
    if (taskColumn >= 0) ranged.push_back(taskColumn);
    std::vector<int> pushed;
    if (cpuColumn >= 0) pushed.push_back(cpuColumn);
    const int idColumn = style == IntervalSource::Style::ThreadState ? IntervalSource::kThreadStateExtras : -1;
    if (idColumn >= 0) pushed.push_back(idColumn);
    const auto shared = std::make_shared<ThreadStateColumns::Shared>();
    return std::make_unique<SourceTable>(
        std::move(name), std::move(columns), [&table] { return double(table.rows()); },
        [&context, &table, style, cpuColumn, taskColumn, idColumn, shared](const std::vector<Bound>& bounds) {
            return std::make_unique<IntervalSource>(
                context, table, style, cpuColumn >= 0 ? rangeOf(bounds, cpuColumn) : Range(), rangeOf(bounds, 0),
                taskColumn >= 0 ? rangeOf(bounds, taskColumn) : Range(),
                idColumn >= 0 ? rangeOf(bounds, idColumn) : Range(), shared);
        },
        pushed, ranged, idColumn);
}

// function_graph calls: each call's id is its index, parent_id its caller's.
class CallSource : public RowSource {
public:
    CallSource(SqlContext& context, size_t block, Range ids)
        : m_calls(context.trace().callSlices()), m_tasks(context.trace()), m_block(block)
    {
        m_call = size_t(std::clamp<int64_t>(ids.low, 0, int64_t(m_calls.size())));
        m_end = ids.empty() ? m_call : size_t(std::clamp<int64_t>(ids.high, -1, int64_t(m_calls.size()) - 1) + 1);
        m_end = std::max(m_end, m_call);
    }
    bool fill(std::vector<Value>& cells, size_t rows) override
    {
        for (size_t made = 0; m_call < m_end && made < rows; ++m_call, ++made) {
            const size_t i = m_call;
            const uint32_t function = m_calls.function(i);
            const uint32_t task = m_tasks(m_calls.stream(i), m_calls.pid(i), m_calls.start(i));
            cells.push_back(integer(int64_t(i)));
            cells.push_back(integer(int64_t(m_calls.start(i))));
            cells.push_back(integer(int64_t(m_calls.duration(i))));
            cells.push_back(TaskId(task).valid() ? integer(SliceTracks::trackId(m_block, task)) : nullValue());
            cells.push_back(integer(m_calls.cpu(i)));
            cells.push_back(TaskId(task).valid() ? integer(task) : nullValue());
            cells.push_back(integer(m_calls.depth(i)));
            cells.push_back(text(m_calls.functionName(function)));
            const uint32_t parent = m_calls.parent(i);
            cells.push_back(parent == CallSlices::kNoParent ? nullValue() : integer(parent));
            cells.push_back(m_calls.hasRetval(i) ? integer(m_calls.retval(i)) : nullValue());
        }
        return m_call < m_end;
    }

private:
    const CallSlices& m_calls;
    TaskOfEvents m_tasks;
    size_t m_block = 0; // among SliceTracks'
    size_t m_call = 0, m_end = 0;
};

// `id` is the call's index: a join on it (c.parent_id = p.id) reads one row, not the table.
// `track_id` is the task's (a thread_track): worked out per row, not narrowed by (a join from
// thread_track reads each track's calls in one pass of the table, as SQLite plans it).
std::unique_ptr<Table> callTable(SqlContext& context, size_t block)
{
    return std::make_unique<SourceTable>(
        "slice",
        std::vector<Column>{{"id", T::Integer},
                            {"ts", T::Integer},
                            {"dur", T::Integer},
                            {"track_id", T::Integer},
                            {"cpu", T::Integer},
                            {"utid", T::Integer},
                            {"depth", T::Integer},
                            {"name", T::Text},
                            {"parent_id", T::Integer},
                            {"ret", T::Integer}},
        [&context] { return double(context.trace().callSlices().size()); },
        [&context, block](const std::vector<Bound>& bounds) {
            return std::make_unique<CallSource>(context, block, rangeOf(bounds, 0));
        },
        std::vector<int>{0}, std::vector<int>{0}, /*key=*/0);
}

} // namespace

std::string identifier(const std::string& text)
{
    std::string out;
    for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '_';
    return out.empty() ? "value" : out;
}

SourceTable::SourceTable(std::string name, std::vector<Column> columns, std::function<double()> rows, MakeSource make,
                         std::vector<int> pushed, std::vector<int> ranged, int key)
    : Table(std::move(name), std::move(columns)), m_rows(std::move(rows)), m_make(std::move(make)),
      m_pushed(std::move(pushed)), m_ranged(std::move(ranged)), m_key(key)
{}

Plan SourceTable::plan(const std::vector<Constraint>& offered) const
{
    return narrowingPlan(offered, m_pushed, m_ranged, m_key, rowEstimate(), m_equalityShare ? m_equalityShare() : 0.05);
}

Plan SourceTable::orderedPlan(const std::vector<Constraint>& offered, const std::vector<OrderBy>& order,
                              Ordering ordering) const
{
    Plan plan = this->plan(offered);
    if (order.size() == 1 && (ordering == Ordering::Grouped || !order[0].descending) &&
        std::find(m_inOrderOf.begin(), m_inOrderOf.end(), order[0].column) != m_inOrderOf.end())
        plan.order = 1; // as the rows come
    return plan;
}

std::unique_ptr<Cursor> SourceTable::open() const
{
    return std::make_unique<SourceCursor>(*this);
}

std::vector<NamedTable> makeAnalysisTables(SqlContext& context, std::vector<std::string> taken)
{
    std::set<std::string> names(taken.begin(), taken.end());
    std::vector<NamedTable> tables;
    auto add = [&](std::unique_ptr<Table> table, std::string kind) {
        if (!table || !names.insert(table->name()).second) return;
        tables.push_back({std::move(table), std::move(kind)});
    };
    auto unique = [&](std::string name, const char* suffix = "_table") {
        if (names.count(name)) name += suffix;
        while (names.count(name)) name += "_";
        return name;
    };
    const Trace& trace = context.trace();
    add(eventTypeTable(context), "event types recorded, with their counts");
    add(metadataTable(context), "the SQL tables' version and the recording's machine");
    add(traceBoundsTable(context), "the recording's first and last event times");
    TaskTables tasks = makeTaskTables(trace);
    add(std::move(tasks.thread), "tasks (lives of a pid)");
    add(std::move(tasks.process), "thread groups");
    // The slice tables' tracks: the calls' first, then the analyses' in the order made below.
    auto slices = std::make_shared<SliceTracks>(context);
    if (trace.callSlices().size())
        add(callTable(context, slices->add({nullptr, RowOwner::Task, "slice", "function_graph calls"})),
            "function_graph calls");
    addTrackTables(context, slices, add);
    add(makeSchedTable(context, unique("sched")), "runs on each CPU, from sched_switch");
    add(makeSchedTable(context, unique("sched_slice")), "runs on each CPU (sched)");
    for (const Trace::Analysis& analysis : trace.analyses()) {
        if (!analysis.tables) continue;
        const std::string kind = analysis.plugin ? "plugin " + analysis.name : "analysis " + analysis.name;
        for (const auto& tt : analysis.tables->tables()) {
            const std::string base = identifier(analysis.name);
            const std::string key = identifier(tt->key());
            const std::string name = unique(key == base ? key : base + "_" + key);
            switch (tt->kind()) {
            case TrackTable::Kind::Intervals: {
                const auto& table = static_cast<const IntervalTable&>(*tt);
                add(intervalTable(context, table, name, IntervalSource::Style::Generic), kind);
                // Perfetto's tables, where an analysis says its rows are one (and they fit).
                const IntervalTableSpec& spec = table.spec();
                if (isThreadState(spec))
                    add(intervalTable(context, table, unique("thread_state"), IntervalSource::Style::ThreadState),
                        kind);
                break;
            }
            case TrackTable::Kind::Slices: {
                // Rows read from their maker's columns (function_graph calls) are `slice`.
                const auto& table = static_cast<const SliceTable&>(*tt);
                if (table.source()) break;
                const size_t block = slices->add({&table, table.owner(), name, table.spec().title});
                add(sliceTable(context, table, name, block), kind);
                break;
            }
            case TrackTable::Kind::Instants:
                add(instantTable(context, static_cast<const InstantTable&>(*tt), name), kind);
                break;
            case TrackTable::Kind::Counters:
                add(counterTable(context, static_cast<const CounterTable&>(*tt), name), kind);
                break;
            case TrackTable::Kind::Flows:
                add(flowTable(context, static_cast<const FlowTable&>(*tt), name), kind);
                break;
            }
        }
        if (!analysis.plugin) continue;
        const auto statistics = trace.statistics(*analysis.plugin);
        if (!statistics) continue;
        for (size_t i = 0; i < statistics->size(); ++i) {
            const StatsTable& st = (*statistics)[i];
            const std::string base = identifier(analysis.name);
            const std::string key = identifier(st.key);
            add(makeStatsTable(context, *analysis.plugin, i, unique(key == base ? key : base + "_" + key, "_stats"),
                               st),
                kind + " statistics");
        }
    }
    return tables;
}

} // namespace ringside::sql
