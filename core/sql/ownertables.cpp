// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/ownertables.h"

#include "sql/perfettotracks.h"

#include "trace.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <optional>
#include <vector>

namespace ringside::sql {

namespace {

using T = ColumnType;

// Owners a constraint on a table's owner column (`utid` or `cpu`) leaves: for tasks, the ids
// in its range; for CPUs, the streams of the CPUs in it. `ids` narrows the owners' own values
// (a task's utid, a CPU's stream) further: those of the tracks a constraint on track_id names.
class OwnerFilter {
public:
    OwnerFilter(const EventStore& store, RowOwner owner, Range range, Range ids = {})
        : m_store(store), m_owner(owner), m_range(range), m_ids(ids)
    {
        if (owner == RowOwner::Task) {
            m_range.low = std::max(m_range.low, ids.low), m_range.high = std::min(m_range.high, ids.high);
            m_ids = Range{};
        }
    }
    bool wants(uint32_t owner) const
    {
        if (int64_t(owner) < m_ids.low || int64_t(owner) > m_ids.high) return false;
        if (m_owner == RowOwner::Cpu) return ownerWanted(m_store, m_owner, owner, m_range);
        if (m_owner == RowOwner::Recording) return !narrowed(); // its owner column is NULL
        return int64_t(owner) >= m_range.low && int64_t(owner) <= m_range.high;
    }
    // The first and past-the-last owner worth visiting among `owners`.
    uint32_t first() const
    {
        const int64_t low = m_owner == RowOwner::Task ? m_range.low : m_ids.low;
        return uint32_t(std::clamp<int64_t>(low, 0, UINT32_MAX));
    }
    uint32_t end(size_t owners) const
    {
        const int64_t high = m_owner == RowOwner::Task ? m_range.high : m_ids.high;
        if (high >= int64_t(owners)) return uint32_t(owners);
        return uint32_t(std::max<int64_t>(0, high + 1));
    }
    // The tasks named, when few enough to visit their events rather than the whole table's.
    std::optional<std::pair<uint32_t, uint32_t>> fewTasks(size_t tasks) const
    {
        constexpr int64_t kFew = 256;
        if (m_owner != RowOwner::Task || m_range.low < 0 || m_range.high - m_range.low >= kFew) return std::nullopt;
        return std::pair{first(), end(tasks)};
    }

private:
    bool narrowed() const { return m_range.low != INT64_MIN || m_range.high != INT64_MAX; }

    const EventStore& m_store;
    RowOwner m_owner;
    Range m_range, m_ids;
};

// A slice table's rows, by SliceTable::forEach's order (explicit rows, then those anchored at
// events, stream by stream), a window of events at a time. Narrowed to a few tasks, the
// anchored rows are read in those tasks' runs of events only (in the same order).
class SliceSource : public RowSource {
public:
    SliceSource(SqlContext& context, const SliceTable& table, size_t block, Range owners, Range tracks)
        : m_context(context), m_table(table), m_block(block),
          m_owners(context.store(), table.owner(), owners, SliceTracks::ownersOf(block, tracks)),
          m_owner(m_owners.first())
    {
        if (const auto few = m_owners.fewTasks(context.trace().taskIndex().size())) {
            const TaskIndex& index = context.trace().taskIndex();
            m_runs.emplace();
            for (uint32_t task = few->first; task < few->second; ++task)
                index.forEachRun(TaskId(task), [&](StreamId stream, uint32_t begin, uint32_t end) {
                    if (begin < end) m_runs->push_back({stream.value, begin, end});
                });
            std::sort(m_runs->begin(), m_runs->end());
        }
    }
    bool fill(std::vector<Value>& cells, size_t rows) override
    {
        const auto& explicitRows = m_table.explicitRows();
        size_t made = 0;
        // An owner is left only once its rows are all made: a fill may end inside its lane.
        for (const uint32_t end = m_owners.end(explicitRows.owners()); m_owner < end; ++m_owner, m_row = 0)
            if (const GrowingList<SliceRow>* lane = explicitRows.of(m_owner); lane && m_owners.wants(m_owner))
                for (; m_row < lane->size(); ++m_row, ++made) {
                    if (made == rows) return true;
                    add(cells, SliceTable::viewOf((*lane)[m_row], m_owner));
                }
        return m_runs ? fillRuns(cells, rows) : fillStreams(cells, rows);
    }

    // The value read from its event (a system call's return) is the slow column: left out
    // when the statement does not read it.
    void useColumns(uint64_t columns) override
    {
        m_usesName = (columns >> 4) & 1;
        m_usesValue = (columns >> 5) & 1;
    }

private:
    static constexpr uint32_t kWindow = 16384;
    struct Run {
        uint16_t stream = 0;
        uint32_t begin = 0, end = 0;
        auto operator<=>(const Run&) const = default;
    };

    // The anchored rows: a window of each stream's events per step.
    bool fillStreams(std::vector<Value>& cells, size_t rows)
    {
        const EventStore& store = m_context.store();
        TaskOfEvents tasks(m_context.trace());
        for (; m_stream < store.streamCount(); ++m_stream, m_event = 0) {
            const StreamId stream{uint16_t(m_stream)};
            if (!m_table.anchored(stream)) continue;
            if (m_table.owner() == RowOwner::Cpu && !m_owners.wants(uint32_t(m_stream))) continue;
            const auto size = uint32_t(store.stream(stream).columns.size());
            while (m_event < size) {
                const uint32_t to = std::min<uint64_t>(size, uint64_t(m_event) + kWindow);
                addAnchored(cells, tasks, stream, m_event, to);
                m_event = to;
                if (cells.size() >= rows * width()) return true;
            }
        }
        return false;
    }
    // ... or, narrowed to a few tasks, in their runs of events only.
    bool fillRuns(std::vector<Value>& cells, size_t rows)
    {
        TaskOfEvents tasks(m_context.trace());
        for (; m_run < m_runs->size(); ++m_run, m_event = 0) {
            const Run& run = (*m_runs)[m_run];
            const StreamId stream{run.stream};
            if (!m_table.anchored(stream)) continue;
            m_event = std::max(m_event, run.begin);
            while (m_event < run.end) {
                const uint32_t to = std::min<uint64_t>(run.end, uint64_t(m_event) + kWindow);
                addAnchored(cells, tasks, stream, m_event, to);
                m_event = to;
                if (cells.size() >= rows * width()) return true;
            }
        }
        return false;
    }
    void addAnchored(std::vector<Value>& cells, TaskOfEvents& tasks, StreamId stream, uint32_t from, uint32_t to)
    {
        const EventStore& store = m_context.store();
        const CpuColumns& columns = store.stream(stream).columns;
        m_table.forEachAnchored(store, stream, from, to, stream.value, [&](const SliceTable::View& anchored) {
            SliceTable::View v = anchored;
            if (m_table.owner() == RowOwner::Task) {
                v.owner = tasks(stream, columns.pid[v.endEvent.index], v.end);
                if (!m_owners.wants(v.owner)) return;
            }
            add(cells, v);
        });
    }
    size_t width() const { return 9; }
    void add(std::vector<Value>& cells, const SliceTable::View& v)
    {
        const EventStore& store = m_context.store();
        cells.push_back(integer(int64_t(v.start)));
        cells.push_back(integer(int64_t(v.end - v.start)));
        cells.push_back(ownerValue(store, m_table.owner(), v.owner));
        cells.push_back(integer(v.depth));
        cells.push_back(m_usesName ? text(m_table.labelText(v.label)) : nullValue());
        if (!m_usesValue) {
            cells.push_back(nullValue());
        } else if (m_table.valueFromEvent(v)) {
            const uint16_t type = store.stream(v.endEvent.stream).columns.eventType[v.endEvent.index];
            const tep_format_field* field = m_context.field(type, m_table.spec().valueField);
            Value value;
            if (field) value = readValue(v.endEvent, field);
            cells.push_back(std::move(value));
        } else {
            cells.push_back((v.flags & Slice::kNoValue) ? nullValue() : integer(v.value));
        }
        cells.push_back(integer((v.flags & Slice::kError) != 0));
        cells.push_back(integer((v.flags & Slice::kOpen) != 0));
        const bool owned = m_table.owner() != RowOwner::Task || TaskId(v.owner).valid();
        cells.push_back(owned ? integer(SliceTracks::trackId(m_block, v.owner)) : nullValue());
    }
    Value readValue(EventRef e, const tep_format_field* field)
    {
        ValueCell cell;
        m_context.writeField(e, field, cell);
        return cell.value;
    }

    SqlContext& m_context;
    const SliceTable& m_table;
    size_t m_block = 0;
    OwnerFilter m_owners;
    uint32_t m_owner = 0;
    size_t m_row = 0;
    size_t m_stream = 0;
    std::optional<std::vector<Run>> m_runs; // narrowed to a few tasks: their runs of events
    size_t m_run = 0;
    uint32_t m_event = 0;
    bool m_usesName = true, m_usesValue = true;
};

// A slice table's owner is its third column, its track id its last.
constexpr int kOwnerOfSlices = 2, kTrackOfSlices = 8;

// Rows kept per owner (instants, counters): owner by owner, those the owner column's
// constraint leaves, `make` writing one row's cells.
template <typename Row, typename Make>
class OwnerRowSource : public RowSource {
public:
    OwnerRowSource(const OwnerRows<Row>& rows, OwnerFilter owners, Make make)
        : m_rows(rows), m_owners(owners), m_make(std::move(make)), m_owner(m_owners.first())
    {}
    bool fill(std::vector<Value>& cells, size_t rows) override
    {
        size_t made = 0;
        // An owner is left only once its rows are all made: a fill may end inside its lane.
        for (const uint32_t end = m_owners.end(m_rows.owners()); m_owner < end; ++m_owner, m_row = 0)
            if (const GrowingList<Row>* lane = m_rows.of(m_owner); lane && m_owners.wants(m_owner))
                for (; m_row < lane->size(); ++m_row, ++made) {
                    if (made == rows) return true;
                    m_make(cells, (*lane)[m_row], m_owner);
                }
        return false;
    }

private:
    const OwnerRows<Row>& m_rows;
    OwnerFilter m_owners;
    Make m_make;
    uint32_t m_owner = 0;
    size_t m_row = 0;
};

// Tables of rows kept per owner: the owner is their second column.
constexpr int kOwnerOfInstants = 1;

template <typename Row, typename Make>
std::unique_ptr<RowSource> ownerRowSource(SqlContext& context, RowOwner owner, const OwnerRows<Row>& rows,
                                          const std::vector<Bound>& bounds, Make make)
{
    return std::make_unique<OwnerRowSource<Row, Make>>(
        rows, OwnerFilter(context.store(), owner, rangeOf(bounds, kOwnerOfInstants)), std::move(make));
}

// A flow table's rows by owner, at either end (from and to): made on first use, kept with the
// table's SQL and grown as the table grows (a capture).
class FlowIndex {
public:
    // The rows, in table order, whose owner at `end` (0: from, 1: to) is in [first, last).
    std::vector<uint32_t> rowsOf(const FlowTable& table, int end, uint32_t first, uint32_t last)
    {
        const std::lock_guard lock(m_lock);
        const GrowingList<FlowRow>& flows = table.flows();
        for (const size_t n = flows.size(); m_indexed < n; ++m_indexed) {
            const FlowRow& f = flows[m_indexed];
            m_rows[0][f.fromOwner].push_back(uint32_t(m_indexed));
            m_rows[1][f.toOwner].push_back(uint32_t(m_indexed));
        }
        std::vector<uint32_t> rows;
        for (uint32_t owner = first; owner < last; ++owner)
            if (auto it = m_rows[end].find(owner); it != m_rows[end].end())
                rows.insert(rows.end(), it->second.begin(), it->second.end());
        std::sort(rows.begin(), rows.end());
        return rows;
    }

private:
    std::mutex m_lock;
    size_t m_indexed = 0;
    std::unordered_map<uint32_t, std::vector<uint32_t>> m_rows[2];
};

// A flow table's rows in table order; narrowed to a few tasks at either end, their rows only.
class FlowSource : public RowSource {
public:
    FlowSource(const SqlContext& context, const FlowTable& table, FlowIndex& index, Range from, Range to)
        : m_store(context.store()), m_table(table), m_from(context.store(), table.owner(), from),
          m_to(context.store(), table.owner(), to)
    {
        const size_t tasks = context.trace().taskIndex().size();
        if (const auto few = m_from.fewTasks(tasks))
            m_rows = index.rowsOf(table, 0, few->first, few->second);
        else if (const auto fewTo = m_to.fewTasks(tasks))
            m_rows = index.rowsOf(table, 1, fewTo->first, fewTo->second);
    }
    bool fill(std::vector<Value>& cells, size_t rows) override
    {
        const GrowingList<FlowRow>& flows = m_table.flows();
        const size_t end = m_rows ? m_rows->size() : flows.size();
        for (size_t made = 0; m_row < end && made < rows; ++m_row) {
            const FlowRow& f = flows[m_rows ? (*m_rows)[m_row] : m_row];
            if (!m_from.wants(f.fromOwner) || !m_to.wants(f.toOwner)) continue;
            cells.push_back(integer(int64_t(f.fromTime)));
            cells.push_back(ownerValue(m_store, m_table.owner(), f.fromOwner));
            cells.push_back(integer(int64_t(f.toTime)));
            cells.push_back(ownerValue(m_store, m_table.owner(), f.toOwner));
            cells.push_back(integer(f.value));
            ++made;
        }
        return m_row < end;
    }

private:
    const EventStore& m_store;
    const FlowTable& m_table;
    OwnerFilter m_from, m_to;
    std::optional<std::vector<uint32_t>> m_rows; // narrowed: the rows to read
    size_t m_row = 0;
};

// A flow table's owners are its second and fourth columns.
constexpr int kFromOwnerOfFlows = 1, kToOwnerOfFlows = 3;

} // namespace

Value ownerValue(const EventStore& store, RowOwner owner, uint32_t value)
{
    if (owner == RowOwner::Task) return TaskId(value).valid() ? integer(value) : nullValue();
    if (owner == RowOwner::Recording) return nullValue();
    return value < store.streamCount() ? integer(store.stream(StreamId(uint16_t(value))).columns.cpu) : nullValue();
}

bool ownerWanted(const EventStore& store, RowOwner owner, uint32_t value, const Range& cpus)
{
    if (owner != RowOwner::Cpu || (cpus.low == INT64_MIN && cpus.high == INT64_MAX)) return true;
    if (value >= store.streamCount()) return false;
    const int cpu = store.stream(StreamId(uint16_t(value))).columns.cpu;
    return cpu >= cpus.low && cpu <= cpus.high;
}

std::string ownerColumn(RowOwner owner)
{
    // The recording's rows have no owner to name: a column of NULLs keeps the tables' shape.
    return owner == RowOwner::Task ? "utid" : owner == RowOwner::Cpu ? "cpu" : "owner";
}

namespace {

// An owner's share of a table's rows, for the plans: one over the owners it may have. A join
// from `thread` then reads each task's rows by its utid (0.93 s for big23's 11.6M system calls,
// against 0.87 s for the scan) where a plan that took an owner's rows for 5% of the table
// scanned it and looked a task up per row.
template <typename Made>
std::unique_ptr<Table> withOwnerShare(const SqlContext& context, RowOwner owner, std::unique_ptr<Made> table)
{
    table->setEqualityShare([&context, owner] {
        const size_t owners = owner == RowOwner::Task  ? context.trace().taskIndex().size()
                              : owner == RowOwner::Cpu ? context.store().streamCount()
                                                       : 1;
        return 1.0 / double(std::max<size_t>(owners, 1));
    });
    return table;
}

} // namespace

std::unique_ptr<Table> sliceTable(SqlContext& context, const SliceTable& table, std::string name, size_t block)
{
    const SliceTableSpec& spec = table.spec();
    const std::string value = !spec.valueField.empty()   ? spec.valueField
                              : !spec.valueLabel.empty() ? identifier(spec.valueLabel)
                                                         : "value";
    return withOwnerShare(
        context, table.owner(),
        std::make_unique<SourceTable>(
            std::move(name),
            std::vector<Column>{{"ts", T::Integer},
                                {"dur", T::Integer},
                                {ownerColumn(table.owner()), T::Integer},
                                {"depth", T::Integer},
                                {"name", T::Text},
                                {value, T::Integer},
                                {"failed", T::Integer},
                                {"open", T::Integer},
                                {"track_id", T::Integer}},
            [&table] { return double(table.rows()); },
            [&context, &table, block](const std::vector<Bound>& bounds) {
                return std::make_unique<SliceSource>(context, table, block, rangeOf(bounds, kOwnerOfSlices),
                                                     rangeOf(bounds, kTrackOfSlices));
            },
            std::vector<int>{kOwnerOfSlices, kTrackOfSlices}, std::vector<int>{kOwnerOfSlices, kTrackOfSlices}));
}

std::unique_ptr<Table> instantTable(SqlContext& context, const InstantTable& table, std::string name)
{
    return withOwnerShare(
        context, table.owner(),
        std::make_unique<SourceTable>(
            std::move(name),
            std::vector<Column>{{"ts", T::Integer}, {ownerColumn(table.owner()), T::Integer}, {"name", T::Text}},
            [&table] { return double(table.rows()); },
            [&context, &table](const std::vector<Bound>& bounds) {
                return ownerRowSource(
                    context, table.owner(), table.byOwner(), bounds,
                    [&context, &table](std::vector<Value>& cells, const InstantRow& r, uint32_t owner) {
                        const auto& labels = table.spec().labels;
                        cells.push_back(integer(int64_t(r.time)));
                        cells.push_back(ownerValue(context.store(), table.owner(), owner));
                        cells.push_back(text(r.label < labels.size() ? labels[r.label] : std::to_string(r.label)));
                    });
            },
            std::vector<int>{kOwnerOfInstants}, std::vector<int>{kOwnerOfInstants}));
}

std::unique_ptr<Table> counterTable(SqlContext& context, const CounterTable& table, std::string name)
{
    return withOwnerShare(
        context, table.owner(),
        std::make_unique<SourceTable>(
            std::move(name),
            std::vector<Column>{{"ts", T::Integer}, {ownerColumn(table.owner()), T::Integer}, {"value", T::Integer}},
            [&table] { return double(table.rows()); },
            [&context, &table](const std::vector<Bound>& bounds) {
                return ownerRowSource(
                    context, table.owner(), table.byOwner(), bounds,
                    [&context, &table](std::vector<Value>& cells, const CounterRow& r, uint32_t owner) {
                        cells.push_back(integer(int64_t(r.time)));
                        cells.push_back(ownerValue(context.store(), table.owner(), owner));
                        cells.push_back(integer(r.value));
                    });
            },
            std::vector<int>{kOwnerOfInstants}, std::vector<int>{kOwnerOfInstants}));
}

std::unique_ptr<Table> flowTable(SqlContext& context, const FlowTable& table, std::string name)
{
    const std::string owner = ownerColumn(table.owner());
    const std::string value = table.spec().valueLabel.empty() ? "value" : identifier(table.spec().valueLabel);
    auto index = std::make_shared<FlowIndex>();
    return std::make_unique<SourceTable>(
        std::move(name),
        std::vector<Column>{{"ts", T::Integer},
                            {owner, T::Integer},
                            {"to_ts", T::Integer},
                            {"to_" + owner, T::Integer},
                            {value, T::Integer}},
        [&table] { return double(table.rows()); },
        [&context, &table, index](const std::vector<Bound>& bounds) {
            return std::make_unique<FlowSource>(context, table, *index, rangeOf(bounds, kFromOwnerOfFlows),
                                                rangeOf(bounds, kToOwnerOfFlows));
        },
        std::vector<int>{kFromOwnerOfFlows, kToOwnerOfFlows}, std::vector<int>{kFromOwnerOfFlows, kToOwnerOfFlows});
}

} // namespace ringside::sql
