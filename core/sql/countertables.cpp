// SPDX-License-Identifier: GPL-2.0-or-later
// Perfetto's counter and track tables over the analyses' counter tables.
#include "sql/countertables.h"

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
enum class TrackKind { Any, Cpu, Thread };

// The track tables' rows, all made at once (a track per table and owner: few).
class TrackSource : public RowSource {
public:
    TrackSource(const SqlContext& context, std::shared_ptr<const TrackList> tracks, TrackKind kind, Range ids,
                bool counterColumns)
    {
        const int64_t count = int64_t(tracks->size());
        const size_t first = size_t(std::clamp<int64_t>(ids.low, 0, count));
        const size_t end = size_t(std::clamp<int64_t>(ids.high == INT64_MAX ? count : ids.high + 1, 0, count));
        for (size_t id = first; id < end; ++id) {
            const CounterTrack& t = (*tracks)[id];
            const CounterTableSpec& spec = t.table->spec();
            const RowOwner owner = spec.owner;
            if ((kind == TrackKind::Cpu && owner != RowOwner::Cpu) ||
                (kind == TrackKind::Thread && owner != RowOwner::Task))
                continue;
            const Value ownerCell = ownerValue(context.store(), owner, t.owner);
            std::string name = spec.trackName.empty() ? spec.key : spec.trackName;
            if (const size_t at = name.find("{cpu}"); at != std::string::npos)
                name.replace(at, 5, ownerCell.kind == Value::Kind::Integer ? std::to_string(ownerCell.integer) : "?");
            const std::string type = spec.trackType.empty() ? spec.key : spec.trackType;
            m_cells.push_back(integer(int64_t(id)));
            m_cells.push_back(text(name));
            m_cells.push_back(text(type));
            m_cells.push_back(text(type));
            m_cells.push_back(nullValue());
            if (counterColumns) {
                m_cells.push_back(spec.unit.empty() ? nullValue() : text(spec.unit));
                m_cells.push_back(text(spec.title));
            }
            if (kind != TrackKind::Any) m_cells.push_back(ownerCell);
        }
    }
    bool fill(std::vector<Value>& cells, size_t) override
    {
        cells = std::move(m_cells);
        return false;
    }

private:
    std::vector<Value> m_cells;
};

std::unique_ptr<Table> trackTable(SqlContext& context, std::shared_ptr<CounterTracks> tracks, std::string name,
                                  TrackKind kind, bool counterColumns)
{
    std::vector<Column> columns{{"id", T::Integer},
                                {"name", T::Text},
                                {"type", T::Text},
                                {"classification", T::Text},
                                {"parent_id", T::Integer}};
    if (counterColumns) columns.insert(columns.end(), {{"unit", T::Text}, {"description", T::Text}});
    if (kind == TrackKind::Cpu) columns.push_back({"cpu", T::Integer});
    if (kind == TrackKind::Thread) columns.push_back({"utid", T::Integer});
    auto table = std::make_unique<SourceTable>(
        std::move(name), std::move(columns), [tracks] { return double(tracks->tracks()->size()); },
        [&context, tracks, kind, counterColumns](const std::vector<Bound>& bounds) {
            return std::make_unique<TrackSource>(context, tracks->tracks(), kind, rangeOf(bounds, 0), counterColumns);
        },
        std::vector<int>{0}, std::vector<int>{0}, /*key=*/0);
    table->setRowsInOrderOf({0}); // by id: GROUP BY t.id over a join sorts nothing
    return table;
}

} // namespace

void addCounterTables(SqlContext& context, const std::function<void(std::unique_ptr<Table>, std::string)>& add)
{
    auto tracks = std::make_shared<CounterTracks>(context);
    auto counter = std::make_unique<SourceTable>(
        "counter",
        std::vector<Column>{{"id", T::Integer},
                            {"ts", T::Integer},
                            {"track_id", T::Integer},
                            {"value", T::Real},
                            {"arg_set_id", T::Integer}},
        [tracks] {
            const std::shared_ptr<const TrackList> list = tracks->tracks();
            return list->empty() ? 0.0 : double(list->back().firstId + list->back().rows);
        },
        [tracks](const std::vector<Bound>& bounds) {
            return std::make_unique<CounterSource>(tracks->tracks(), rangeOf(bounds, kCounterTrackId),
                                                   rangeOf(bounds, kCounterTs), rangeOf(bounds, kCounterId));
        },
        std::vector<int>{kCounterId, kCounterTrackId, kCounterTs},
        std::vector<int>{kCounterId, kCounterTrackId, kCounterTs}, /*key=*/kCounterId);
    counter->setRowsInOrderOf({kCounterId, kCounterTrackId}); // track by track, in time order
    add(std::move(counter), "counters' values (Perfetto's counter)");
    add(trackTable(context, tracks, "track", TrackKind::Any, false), "tracks: the counter tracks (Perfetto's track)");
    add(trackTable(context, tracks, "counter_track", TrackKind::Any, true), "counter tracks");
    add(trackTable(context, tracks, "cpu_counter_track", TrackKind::Cpu, true), "counter tracks of a CPU");
    add(trackTable(context, tracks, "thread_counter_track", TrackKind::Thread, true), "counter tracks of a task");
}

} // namespace ringside::sql
