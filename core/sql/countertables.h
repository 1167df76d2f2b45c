// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/analysistables.h"

#include <functional>
#include <memory>
#include <string>

namespace ringside::sql {

// Perfetto's counter tables over every analysis's counter tables, each owner's values of a
// table being one track:
// - counter (id, ts, track_id, value, arg_set_id): every value, track by track in time order;
//   `value` a REAL as Perfetto's is (`value / 1000` divides as there);
// - track, counter_track (id, name, type, classification, parent_id, unit, description), and
//   cpu_counter_track (+ cpu) and thread_counter_track (+ utid) for the tracks a CPU or a task
//   owns. `name` and `type` are Perfetto's where the analysis names them so (cpufreq,
//   cpu_frequency), else the table's key.
// A track's id is given the first time a query sees it, in the order of the analyses, their
// tables and the owners, and kept: a finished recording's ids are the same in every run, a
// capture's new tracks come after. The window's query tracks (a field plotted per task or CPU:
// RecordingSql::setExtraTables) come after the analyses' tracks, named by their title, type
// `query_track`. `counter.id` is the row's place in that order (a capture's move as its tracks
// grow). A join on track_id reads that track's rows only.
void addCounterTables(SqlContext& context, const std::function<void(std::unique_ptr<Table>, std::string)>& add);

} // namespace ringside::sql
