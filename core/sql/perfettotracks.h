// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/tracktables.h"
#include "sql/analysistables.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ringside::sql {

// The slice tables' tracks (Perfetto's thread_track and cpu_track): each owner's rows of a
// slice table are one track, its id the table's base, (place + 1) << 32, plus the owner (a
// utid, or a CPU's stream). A row's track_id is worked out, not looked up, and a track keeps
// its id however many tasks a capture meets; the counter tracks' ids are below every base.
class SliceTracks {
public:
    struct Block {
        const SliceTable* table = nullptr; // null: the function_graph calls (`slice`)
        RowOwner owner = RowOwner::Task;
        std::string type; // its SQL table's name
        std::string name; // what the timeline calls it
    };
    static int64_t base(size_t block) { return int64_t(block + 1) << 32; }
    static int64_t trackId(size_t block, uint32_t owner) { return base(block) + owner; }

    explicit SliceTracks(const SqlContext& context) : m_context(context) {}
    // Registered before any query runs; the place is the block's.
    size_t add(Block block);
    const std::vector<Block>& blocks() const { return m_blocks; }
    // The owners of `block` whose track ids fall in `ids`: an empty range when none do.
    static Range ownersOf(size_t block, Range ids);
    // The owners of `block` that have rows, ascending: found by a pass over the table on first
    // use, again once the recording moved on (a capture).
    std::shared_ptr<const std::vector<uint32_t>> ownersWithRows(size_t block);

private:
    struct Found {
        RecordingMark mark;
        size_t rows = 0;
        std::shared_ptr<const std::vector<uint32_t>> owners;
    };
    std::vector<uint32_t> findOwners(const Block& block) const;

    const SqlContext& m_context;
    std::vector<Block> m_blocks;
    std::mutex m_lock;
    std::vector<Found> m_found;
};

// Perfetto's counter and track tables:
// - counter (id, ts, track_id, value, arg_set_id): every value of every analysis's counter
//   tables, track by track in time order; `value` a REAL as Perfetto's is (`value / 1000`
//   divides as there);
// - track (id, name, type, classification, parent_id): every track, the counter tracks first;
// - counter_track (+ unit, description), and cpu_counter_track (+ cpu) and
//   thread_counter_track (+ utid) for the counter tracks a CPU or a task owns;
// - thread_track (+ utid) and cpu_track (+ cpu): the slice tables' tracks (`slices`) with rows.
// A counter track is a counter table's values of one owner. `name` and `type` are Perfetto's
// where the analysis names them so (cpufreq, cpu_frequency), else the table's key. Its id is
// given the first time a query sees it, in the order of the analyses, their tables and the
// owners, and kept: a finished recording's ids are the same in every run, a capture's new
// tracks come after. The window's query tracks (a field plotted per task or CPU:
// RecordingSql::setExtraTables) come after the analyses' tracks, named by their title, type
// `query_track`. `counter.id` is the row's place in that order (a capture's move as its
// tracks grow). A join on track_id reads that track's rows only.
void addTrackTables(SqlContext& context, std::shared_ptr<SliceTracks> slices,
                    const std::function<void(std::unique_ptr<Table>, std::string)>& add);

} // namespace ringside::sql
