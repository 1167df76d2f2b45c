// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"
#include "timeline/timelinemath.h"

#include <QPainter>

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ringside {

// The rows of a plugin table grouped by task, each group in time order: one pass over the
// table the first time any of its tasks is drawn (never a scan per task row).
class RowsByTask {
public:
    void build(const std::vector<int32_t>& owner, const std::vector<uint64_t>& time);
    bool built() const { return m_built; }
    const std::vector<uint32_t>& of(int32_t pid) const;

private:
    bool m_built = false;
    std::unordered_map<int32_t, std::vector<uint32_t>> m_rows;
};

// The plugins' interval tables on the task rows (the sched plugin's task states): the running
// bar's background tinted by the state the task was in, so a task row shows when it waited
// for a CPU (runnable), slept or was blocked.
class PluginStates {
public:
    void setSession(const TraceSession* session);
    // Paints `pid`'s states into `bar`, whose x range covers `range`.
    void paint(QPainter& p, int32_t pid, const QRect& bar, timeline::TimeRange range);
    // The state of `pid` at time t, as "runnable for 1.2 ms"; empty if none.
    QString describe(int32_t pid, uint64_t t);

private:
    std::vector<const IntervalTable*> m_tables; // owned by the session
    std::vector<RowsByTask> m_byTask;
};

// The plugins' instants on the task rows (fork, exec, exit, migration, renames, work never
// run): a small triangle at the top of the row, at most one per pixel column.
class PluginMarks {
public:
    void setSession(const TraceSession* session);
    void paint(QPainter& p, int32_t pid, const QRect& row, timeline::TimeRange range);
    // The marks of `pid` within `slack` ns of t, as "forked, exec"; empty if none.
    QString describe(int32_t pid, uint64_t t, uint64_t slack);

private:
    std::vector<const InstantTable*> m_tables;
    std::vector<RowsByTask> m_byTask;
};

// The plugins' flows between task rows (a wakeup to the switch that ran the task, a work
// item's queuing to its run): an arrow from the source event to the target, drawn where both
// rows are shown; a source whose task has no row gets a tail on the target's row, as long as
// the wait.
class PluginFlows {
public:
    // The centre y of a task's row, or nullopt when it has none on screen.
    using RowCentre = std::function<std::optional<int>(int32_t pid)>;
    // Above this many flows in view only the selected task's are drawn: arrows everywhere say
    // nothing.
    static constexpr size_t kMaxDrawn = 400;

    void setSession(const TraceSession* session);
    // Draws the flows ending or starting in `range` into the data area (x from `left`, `width`
    // wide): all of them when few, or only those of `onlyPid`. Returns how many it drew.
    size_t paint(QPainter& p, timeline::TimeRange range, int left, int width, const RowCentre& centre,
                 std::optional<int32_t> onlyPid, const QColor& color);
    // How many flows end within `range`.
    size_t countIn(timeline::TimeRange range) const;

private:
    struct Table {
        const FlowTable* flows;
        std::vector<uint32_t> byEnd; // in toTime order
    };
    std::vector<Table> m_tables;
};

} // namespace ringside
