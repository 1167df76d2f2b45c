// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/tracktables.h"
#include "state/tracesession.h"

#include <QString>

#include <vector>

namespace ringside {

// The counter rows an owner (a CPU's stream, a task) gets: its drawn counter tables with
// values, those of one unit sharing a row and a scale (a frequency and its limits, in kHz), a
// counter of no unit in a row of its own (a field plotted per task). In the order the analyses
// declared them, then the session's query tracks. `shareByUnit` false: each counter a row.
struct CounterGroup {
    std::vector<const CounterTable*> tables;
    QString label() const;
};
// The slice tables drawn in rows of their own (SliceTableSpec::ownRow: idle states) an owner
// has slices in, in the order declared.
std::vector<const SliceTable*> ownRowSliceTables(const TraceSession& session, RowOwner kind, uint32_t owner);

// `withQueryTracks` false: the analyses' only (the recording's own counters leave the
// session's query tracks to the "query tracks" group, which lists every one).
std::vector<CounterGroup> counterGroups(const TraceSession& session, RowOwner kind, uint32_t owner,
                                        bool shareByUnit = true, bool withQueryTracks = true);

// The table the view's query track `index` made (keyed query_<index>), or null while it is
// being made or when its query failed.
const TrackTable* queryTrackTable(const TraceSession& session, int index);

} // namespace ringside
