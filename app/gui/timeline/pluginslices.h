// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"
#include "timeline/pluginlayers.h"
#include "timeline/timelinemath.h"

#include <QPainter>

#include <unordered_map>
#include <vector>

namespace ringside {

// The plugins' slices of tasks (system calls) on the task rows: a band along the bottom of the
// running bar where the task was inside a slice, failures in red and never thinner than two
// pixels, so a failing call shows at any zoom. A table's slices are grouped by task once; a
// task's search helpers are derived the first time its row is drawn.
class PluginSlices {
public:
    void setSession(const TraceSession* session);
    // Paints `pid`'s slices into `band` (its x range covers `range`).
    void paint(QPainter& p, int32_t pid, const QRect& band, timeline::TimeRange range);
    // The slice of `pid` under time t (within `slack` ns), as "read = 3" text and the events
    // that began it (a system call's entry, with its arguments); empty if none.
    QString describe(int32_t pid, uint64_t t, uint64_t slack);

private:
    struct TaskSlices {
        const std::vector<uint32_t>* order = nullptr; // indexes into the table, by start
        std::vector<uint64_t> ends;                   // running maximum of the ends, for the search
        std::vector<uint32_t> failed;                 // the failed ones, by start (few: drawn one by one)
    };
    const TaskSlices& slicesOf(size_t table, int32_t pid);
    const TraceSession* m_session = nullptr;
    std::vector<const SliceTable*> m_tables; // owned by the session
    std::vector<RowsByTask> m_rows;          // per table
    std::vector<std::unordered_map<int32_t, TaskSlices>> m_byTask;
};

} // namespace ringside
