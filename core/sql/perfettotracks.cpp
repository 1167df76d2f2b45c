// SPDX-License-Identifier: GPL-2.0-or-later
// Perfetto's counter and track tables over the analyses' counter and slice tables.
#include "sql/perfettotracks.h"

#include "calls/callslices.h"
#include "sql/ownertables.h"
#include "trace.h"

#include <algorithm>
#include <mutex>

namespace ringside::sql {

namespace {

using T = ColumnType;

struct CounterTrack {
    const CounterTable* table = nullptr;
    uint32_t owner = 0;
    std::shared_ptr<const AnalysisTables> keep; // a table made outside the analyses, kept alive
    // Its values when the list was made, and the `counter.id` of the first: a query reads a
    // consistent list (a capture's lanes grow meanwhile) and finds a track's ids at once.
    size_t rows = 0, firstId = 0;
};
using TrackList = std::vector<CounterTrack>;

// The tracks, by id: the analyses' first, ids given as queries first see them and never taken
// back; then the extra tables' (SqlContext::extraTables), numbered again when those change. The
// list is made again when a track is added or any table grew.
class CounterTracks {
public:
    explicit CounterTracks(const SqlContext& context) : m_context(context) {}

    std::shared_ptr<const TrackList> tracks()
    {
        const std::lock_guard lock(m_lock);
        if (!m_list) {
            m_list = std::make_shared<TrackList>();
            for (const Trace::Analysis& analysis : m_context.trace().analyses())
                if (analysis.tables)
                    for (const auto& tt : analysis.tables->tables())
                        if (tt->kind() == TrackTable::Kind::Counters)
                            m_tables.push_back({static_cast<const CounterTable*>(tt.get()), 0, {}});
        }
        bool changed = m_extraVersion != m_context.extraVersion();
        for (Table& t : m_tables) {
            const size_t rows = t.table->rows();
            if (rows == t.rows) continue;
            t.rows = rows;
            changed = true;
            const OwnerRows<CounterRow>& byOwner = t.table->byOwner();
            for (uint32_t owner = 0; owner < byOwner.owners(); ++owner) {
                const GrowingList<CounterRow>* lane = byOwner.of(owner);
                if (!lane || lane->empty()) continue;
                if (t.known.size() <= owner) t.known.resize(size_t(owner) + 1, false);
                if (t.known[owner]) continue;
                t.known[owner] = true;
                m_analysisTracks.push_back({t.table, owner, {}});
            }
        }
        if (changed) {
            m_extraVersion = m_context.extraVersion();
            auto list = std::make_shared<TrackList>(m_analysisTracks);
            for (const auto& tables : m_context.extraTables())
                for (const auto& tt : tables->tables()) {
                    if (tt->kind() != TrackTable::Kind::Counters) continue;
                    const auto& table = static_cast<const CounterTable&>(*tt);
                    for (uint32_t owner = 0; owner < table.byOwner().owners(); ++owner)
                        if (const GrowingList<CounterRow>* lane = table.byOwner().of(owner); lane && !lane->empty())
                            list->push_back({&table, owner, tables});
                }
            size_t id = 0;
            for (CounterTrack& track : *list) {
                track.firstId = id;
                id += track.rows = track.table->byOwner().of(track.owner)->size();
            }
            m_list = std::move(list);
        }
        return m_list;
    }

private:
    struct Table {
        const CounterTable* table = nullptr;
        size_t rows = 0; // when its owners were last looked at
        std::vector<bool> known;
    };
    const SqlContext& m_context;
    std::mutex m_lock;
    std::vector<Table> m_tables;
    TrackList m_analysisTracks;
    uint64_t m_extraVersion = 0;
    std::shared_ptr<const TrackList> m_list;
};

// `counter`'s columns.
enum CounterColumn : int { kCounterId, kCounterTs, kCounterTrackId, kCounterValue, kCounterArgSetId };

// The values of the tracks whose ids, times and row ids the constraints leave.
class CounterSource : public RowSource {
public:
    CounterSource(std::shared_ptr<const TrackList> tracks, Range trackIds, Range times, Range ids)
        : m_tracks(std::move(tracks)), m_times(times), m_ids(ids)
    {
        const int64_t count = int64_t(m_tracks->size());
        m_track = size_t(std::clamp<int64_t>(trackIds.low, 0, count));
        m_endTrack = size_t(std::clamp<int64_t>(trackIds.high == INT64_MAX ? count : trackIds.high + 1, 0, count));
        enterTrack();
    }
    bool fill(std::vector<Value>& cells, size_t rows) override
    {
        size_t made = 0;
        while (m_track < m_endTrack) {
            const GrowingList<CounterRow>& lane = laneOf(m_track);
            for (; m_row < m_end; ++m_row) {
                if (made == rows) return true;
                const CounterRow& r = lane[m_row];
                cells.push_back(integer(int64_t((*m_tracks)[m_track].firstId + m_row)));
                cells.push_back(integer(int64_t(r.time)));
                cells.push_back(integer(int64_t(m_track)));
                cells.push_back(Value::ofReal(double(r.value)));
                cells.push_back(nullValue());
                ++made;
            }
            ++m_track;
            enterTrack();
        }
        return false;
    }

private:
    const GrowingList<CounterRow>& laneOf(size_t track) const
    {
        const CounterTrack& t = (*m_tracks)[track];
        return *t.table->byOwner().of(t.owner);
    }
    // The rows of the current track the times and ids leave: [m_row, m_end).
    void enterTrack()
    {
        m_row = m_end = 0;
        if (m_track >= m_endTrack) return;
        const GrowingList<CounterRow>& lane = laneOf(m_track);
        size_t begin = 0, end = (*m_tracks)[m_track].rows;
        auto time = [](const CounterRow& r) { return r.time; };
        if (m_times.low > 0) begin = lane.lowerBound(uint64_t(m_times.low), 0, end, time);
        if (m_times.high < INT64_MAX) end = lane.lowerBound(uint64_t(m_times.high) + 1, begin, end, time);
        const int64_t first = int64_t((*m_tracks)[m_track].firstId);
        if (m_ids.low > first) begin = size_t(std::clamp<int64_t>(m_ids.low - first, int64_t(begin), int64_t(end)));
        if (m_ids.high < INT64_MAX)
            end = size_t(std::clamp<int64_t>(m_ids.high - first + 1, int64_t(begin), int64_t(end)));
        m_row = begin, m_end = end;
    }

    std::shared_ptr<const TrackList> m_tracks;
    Range m_times, m_ids;
    size_t m_track = 0, m_endTrack = 0;
    size_t m_row = 0, m_end = 0;
};

// Which tracks a track table lists.
enum class TrackKind { Any, Counters, CpuCounters, ThreadCounters, ThreadSlices, CpuSlices };

bool hasCounterColumns(TrackKind kind)
{
    return kind == TrackKind::Counters || kind == TrackKind::CpuCounters || kind == TrackKind::ThreadCounters;
}
// The owner a table of that kind names in its last column (Recording: none).
RowOwner ownerColumnOf(TrackKind kind)
{
    if (kind == TrackKind::CpuCounters || kind == TrackKind::CpuSlices) return RowOwner::Cpu;
    if (kind == TrackKind::ThreadCounters || kind == TrackKind::ThreadSlices) return RowOwner::Task;
    return RowOwner::Recording;
}

// Every track's row, in id order, made once for each state of the recording and its extra
// tables (a join looks a track up for each row of a slice or counter table: 12.4M times for
// the system calls of 25.65M events).
struct TrackRows {
    struct Kind {
        std::string name, type, unit, description;
        RowOwner owner = RowOwner::Recording;
        bool counter = false;
    };
    struct Row {
        int64_t id = 0;
        uint32_t kind = 0;
        Value owner; // the utid or cpu, or null
    };
    RecordingMark mark;
    uint64_t extraVersion = 0;
    std::vector<Kind> kinds; // a counter track's own (its name has its CPU), a slice table's
    std::vector<Row> rows;
};

// The counter tracks' rows, and the slice tracks' when `slices` is given (finding which owners
// have rows is a pass over each slice table: 0.3 s for big23's 12.4M system calls, which a
// query of counters should not wait for).
TrackRows trackRowsOf(const SqlContext& context, CounterTracks& counters, SliceTracks* slices)
{
    TrackRows r;
    r.mark = context.mark(), r.extraVersion = context.extraVersion();
    const std::shared_ptr<const TrackList> list = counters.tracks();
    for (size_t id = 0; id < list->size(); ++id) {
        const CounterTrack& t = (*list)[id];
        const CounterTableSpec& spec = t.table->spec();
        Value owner = ownerValue(context.store(), spec.owner, t.owner);
        std::string name = spec.trackName.empty() ? spec.key : spec.trackName;
        if (const size_t at = name.find("{cpu}"); at != std::string::npos)
            name.replace(at, 5, owner.kind == Value::Kind::Integer ? std::to_string(owner.integer) : "?");
        r.kinds.push_back({std::move(name), spec.trackType.empty() ? spec.key : spec.trackType, spec.unit, spec.title,
                           spec.owner, true});
        r.rows.push_back({int64_t(id), uint32_t(r.kinds.size() - 1), std::move(owner)});
    }
    for (size_t block = 0; slices && block < slices->blocks().size(); ++block) {
        const SliceTracks::Block& b = slices->blocks()[block];
        r.kinds.push_back({b.name, b.type, {}, {}, b.owner, false});
        for (const uint32_t owner : *slices->ownersWithRows(block))
            r.rows.push_back({SliceTracks::trackId(block, owner), uint32_t(r.kinds.size() - 1),
                              ownerValue(context.store(), b.owner, owner)});
    }
    return r;
}

// The latest TrackRows, shared by the track tables of one connection.
class TrackRowsCache {
public:
    TrackRowsCache(const SqlContext& context, std::shared_ptr<SliceTracks> slices)
        : m_context(context), m_counters(context), m_slices(std::move(slices))
    {}
    CounterTracks& counters() { return m_counters; }
    // Whether `rows` still hold (a cursor asks at each lookup: no lock).
    bool current(const TrackRows& rows) const
    {
        return rows.mark == m_context.mark() && rows.extraVersion == m_context.extraVersion();
    }
    // The counter tracks' rows, with the slice tracks' or not.
    std::shared_ptr<const TrackRows> get(bool withSlices)
    {
        const std::lock_guard lock(m_lock);
        std::shared_ptr<const TrackRows>& rows = m_rows[withSlices ? 1 : 0];
        if (!rows || !current(*rows))
            rows = std::make_shared<const TrackRows>(
                trackRowsOf(m_context, m_counters, withSlices ? m_slices.get() : nullptr));
        return rows;
    }
    // About how many tracks there are, for the plans (without a pass over the slice tables).
    double estimate() { return double(m_counters.tracks()->size()) + 1024.0 * double(m_slices->blocks().size()); }

private:
    const SqlContext& m_context;
    CounterTracks m_counters;
    std::shared_ptr<SliceTracks> m_slices;
    std::mutex m_lock;
    std::shared_ptr<const TrackRows> m_rows[2];
};

// A track table: the tracks of its kind, by id (a lookup finds its row by a binary search).
class PerfettoTrackTable : public Table {
public:
    PerfettoTrackTable(std::string name, TrackKind kind, std::shared_ptr<TrackRowsCache> cache)
        : Table(std::move(name), columnsOf(kind)), m_kind(kind), m_cache(std::move(cache))
    {}
    Plan plan(const std::vector<Constraint>& offered) const override
    {
        return narrowingPlan(offered, {0}, {0}, /*key=*/0, rowEstimate(), 0.001);
    }
    Plan orderedPlan(const std::vector<Constraint>& offered, const std::vector<OrderBy>& order,
                     Ordering ordering) const override
    {
        Plan plan = this->plan(offered);
        if (order.size() == 1 && order[0].column == 0 && (ordering == Ordering::Grouped || !order[0].descending))
            plan.order = 1; // by id: GROUP BY t.id over a join sorts nothing
        return plan;
    }
    double rowEstimate() const override
    {
        return listsSlices() ? m_cache->estimate() : double(m_cache->get(false)->rows.size());
    }
    bool listsSlices() const
    {
        return m_kind == TrackKind::Any || m_kind == TrackKind::ThreadSlices || m_kind == TrackKind::CpuSlices;
    }
    std::unique_ptr<Cursor> open() const override;

    // Whether a track of `kind` is one this table lists.
    bool lists(const TrackRows::Kind& kind) const
    {
        switch (m_kind) {
        case TrackKind::Any: return true;
        case TrackKind::Counters: return kind.counter;
        case TrackKind::CpuCounters:
        case TrackKind::ThreadCounters: return kind.counter && kind.owner == ownerColumnOf(m_kind);
        case TrackKind::ThreadSlices:
        case TrackKind::CpuSlices: return !kind.counter && kind.owner == ownerColumnOf(m_kind);
        }
        return false;
    }
    TrackKind kind() const { return m_kind; }
    TrackRowsCache& cache() const { return *m_cache; }

private:
    static std::vector<Column> columnsOf(TrackKind kind)
    {
        std::vector<Column> columns{{"id", T::Integer},
                                    {"name", T::Text},
                                    {"type", T::Text},
                                    {"classification", T::Text},
                                    {"parent_id", T::Integer}};
        if (hasCounterColumns(kind)) columns.insert(columns.end(), {{"unit", T::Text}, {"description", T::Text}});
        if (ownerColumnOf(kind) == RowOwner::Cpu) columns.push_back({"cpu", T::Integer});
        if (ownerColumnOf(kind) == RowOwner::Task) columns.push_back({"utid", T::Integer});
        return columns;
    }

    TrackKind m_kind;
    std::shared_ptr<TrackRowsCache> m_cache;
};

class PerfettoTrackCursor : public Cursor {
public:
    explicit PerfettoTrackCursor(const PerfettoTrackTable& table) : m_table(table) {}
    void begin(const std::vector<Bound>& bounds) override
    {
        if (!m_rows || !m_table.cache().current(*m_rows)) {
            // The names a statement holds (static texts) stay valid until it ends.
            if (m_rows) m_retired.push_back(std::move(m_rows));
            m_rows = m_table.cache().get(m_table.listsSlices());
        }
        const Range ids = rangeOf(bounds, 0);
        const auto& rows = m_rows->rows;
        m_at = size_t(std::lower_bound(rows.begin(), rows.end(), ids.low,
                                       [](const TrackRows::Row& r, int64_t id) { return r.id < id; }) -
                      rows.begin());
        m_high = ids.high;
        skip();
    }
    bool atEnd() const override { return m_at >= m_rows->rows.size() || m_rows->rows[m_at].id > m_high; }
    void next() override
    {
        ++m_at;
        skip();
    }
    int64_t rowId() override { return m_rows->rows[m_at].id; }
    void column(int column, Cell& out) override
    {
        const TrackRows::Row& row = m_rows->rows[m_at];
        const TrackRows::Kind& kind = m_rows->kinds[row.kind];
        const bool counterColumns = hasCounterColumns(m_table.kind());
        switch (column) {
        case 0: return out.integer(row.id);
        case 1: return out.staticText(kind.name);
        case 2:
        case 3: return out.staticText(kind.type);
        case 4: return out.null();
        case 5:
            if (counterColumns) return kind.unit.empty() ? out.null() : out.staticText(kind.unit);
            return out.write(row.owner);
        case 6: return counterColumns ? out.staticText(kind.description) : out.null();
        case 7: return out.write(row.owner);
        default: return out.null();
        }
    }

private:
    void skip()
    {
        const auto& rows = m_rows->rows;
        while (m_at < rows.size() && rows[m_at].id <= m_high && !m_table.lists(m_rows->kinds[rows[m_at].kind])) ++m_at;
    }

    const PerfettoTrackTable& m_table;
    std::shared_ptr<const TrackRows> m_rows;
    std::vector<std::shared_ptr<const TrackRows>> m_retired; // rows replaced while the cursor lives
    size_t m_at = 0;
    int64_t m_high = INT64_MAX;
};

std::unique_ptr<Cursor> PerfettoTrackTable::open() const
{
    return std::make_unique<PerfettoTrackCursor>(*this);
}

} // namespace

size_t SliceTracks::add(Block block)
{
    m_blocks.push_back(std::move(block));
    m_found.emplace_back();
    return m_blocks.size() - 1;
}

Range SliceTracks::ownersOf(size_t block, Range ids)
{
    const int64_t first = base(block), last = base(block + 1) - 1;
    const int64_t low = std::max(ids.low, first), high = std::min(ids.high, last);
    if (low > high) return Range{1, 0};
    return Range{low - first, high - first};
}

std::shared_ptr<const std::vector<uint32_t>> SliceTracks::ownersWithRows(size_t block)
{
    const std::lock_guard lock(m_lock);
    Found& found = m_found[block];
    const Block& b = m_blocks[block];
    const size_t rows = b.table ? b.table->rows() : m_context.trace().callSlices().size();
    if (!found.owners || found.mark != m_context.mark() || found.rows != rows) {
        found.owners = std::make_shared<const std::vector<uint32_t>>(findOwners(b));
        found.mark = m_context.mark(), found.rows = rows;
    }
    return found.owners;
}

std::vector<uint32_t> SliceTracks::findOwners(const Block& block) const
{
    const Trace& trace = m_context.trace();
    const EventStore& store = m_context.store();
    std::vector<bool> seen;
    auto see = [&](uint32_t owner) {
        if (block.owner == RowOwner::Task && !TaskId(owner).valid()) return;
        if (seen.size() <= owner) seen.resize(size_t(owner) + 1, false);
        seen[owner] = true;
    };
    TaskOfEvents tasks(trace);
    if (!block.table) {
        const CallSlices& calls = trace.callSlices();
        for (size_t i = 0; i < calls.size(); ++i) see(tasks(calls.stream(i), calls.pid(i), calls.start(i)));
    } else {
        const OwnerRows<SliceRow>& explicitRows = block.table->explicitRows();
        for (uint32_t owner = 0; owner < explicitRows.owners(); ++owner)
            if (const GrowingList<SliceRow>* lane = explicitRows.of(owner); lane && !lane->empty()) see(owner);
        for (uint16_t s = 0; s < store.streamCount(); ++s) {
            const StreamId stream{s};
            if (!block.table->anchored(stream)) continue;
            const CpuColumns& columns = store.stream(stream).columns;
            block.table->forEachAnchored(store, stream, 0, uint32_t(columns.size()), s, [&](const SliceTable::View& v) {
                see(block.owner == RowOwner::Task ? tasks(stream, columns.pid[v.endEvent.index], v.end) : v.owner);
            });
        }
    }
    std::vector<uint32_t> owners;
    for (uint32_t owner = 0; owner < seen.size(); ++owner)
        if (seen[owner]) owners.push_back(owner);
    return owners;
}

void addTrackTables(SqlContext& context, std::shared_ptr<SliceTracks> slices,
                    const std::function<void(std::unique_ptr<Table>, std::string)>& add)
{
    auto cache = std::make_shared<TrackRowsCache>(context, std::move(slices));
    auto counter = std::make_unique<SourceTable>(
        "counter",
        std::vector<Column>{{"id", T::Integer},
                            {"ts", T::Integer},
                            {"track_id", T::Integer},
                            {"value", T::Real},
                            {"arg_set_id", T::Integer}},
        [cache] {
            const std::shared_ptr<const TrackList> list = cache->counters().tracks();
            return list->empty() ? 0.0 : double(list->back().firstId + list->back().rows);
        },
        [cache](const std::vector<Bound>& bounds) {
            return std::make_unique<CounterSource>(cache->counters().tracks(), rangeOf(bounds, kCounterTrackId),
                                                   rangeOf(bounds, kCounterTs), rangeOf(bounds, kCounterId));
        },
        std::vector<int>{kCounterId, kCounterTrackId, kCounterTs},
        std::vector<int>{kCounterId, kCounterTrackId, kCounterTs}, /*key=*/kCounterId);
    counter->setRowsInOrderOf({kCounterId, kCounterTrackId}); // track by track, in time order
    add(std::move(counter), "counters' values (Perfetto's counter)");
    auto table = [&](std::string name, TrackKind kind) {
        return std::make_unique<PerfettoTrackTable>(std::move(name), kind, cache);
    };
    add(table("track", TrackKind::Any), "tracks: the counter tracks, then the slice tracks");
    add(table("counter_track", TrackKind::Counters), "counter tracks");
    add(table("cpu_counter_track", TrackKind::CpuCounters), "counter tracks of a CPU");
    add(table("thread_counter_track", TrackKind::ThreadCounters), "counter tracks of a task");
    add(table("thread_track", TrackKind::ThreadSlices), "slice tracks of a task");
    add(table("cpu_track", TrackKind::CpuSlices), "slice tracks of a CPU");
}

} // namespace ringside::sql
