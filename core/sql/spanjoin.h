// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <functional>

struct sqlite3;

namespace ringside::sql {

// Perfetto's SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN:
//   CREATE VIRTUAL TABLE name USING SPAN_JOIN(left [PARTITIONED column], right [PARTITIONED column])
// over any two tables or views with `ts` and `dur`: a row for each stretch of time where a row
// of each (SPAN_JOIN), a row of the left one (SPAN_LEFT_JOIN) or a row of either
// (SPAN_OUTER_JOIN) holds, within each value of the partition column (a table without one
// holds in every partition). Columns: ts, dur, the partition column, then the other columns of
// the left table and of the right one (null where that side has no row). As in Perfetto, a
// table's rows must not overlap within a partition; a `dur` of -1 (a run still going at the
// end, as in `sched`) lasts until `end()`. The tables are read when a statement scans it, in
// the order SQLite sorts them, a partition at a time.
int registerSpanJoin(sqlite3* db, std::function<uint64_t()> end);

} // namespace ringside::sql
