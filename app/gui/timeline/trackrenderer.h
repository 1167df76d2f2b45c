// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/tracktables.h"
#include "state/tracesession.h"
#include "timeline/timelinemath.h"

#include <QColor>
#include <QPainter>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace ringside {

// Draws the analyses' track tables on the timeline's rows, one renderer for every kind and
// every analysis (built-in or plugin), without knowing any of them: on a CPU row the tables a
// CPU owns, on a task row those a task owns.
//
// - intervals fill the bar (a row's first table; others are thin bands along its top),
//   coloured by state (a task's states tint its bar; the CPUs'
//   "which task ran" colours each CPU row by task), the state an owner is in now drawn to the
//   end of the data;
// - slices are lanes by depth along the bar's bottom, labelled where they are wide enough,
//   failures in red and never thinner than two pixels;
// - instants are small marks on top, counters a line in a band, flows arrows between rows.
//
// Every kind is drawn from binary searches per pixel column over an owner's rows, so a frame
// costs pixels, not rows. An owner's slices are laid out (a lane per depth, in start order)
// the first time its row is drawn, and again when its table grew.
class TrackRenderer {
public:
    // The centre y of a task's row, or nullopt when it has none on screen.
    using RowCentre = std::function<std::optional<int>(uint32_t task)>;
    // Above this many flows in view only the selected task's are drawn.
    static constexpr size_t kMaxFlowsDrawn = 400;

    void setSession(const TraceSession* session);
    // The analyses published more rows: what was laid out from fewer is laid out again.
    void tablesGrew();
    // A frame begins: owners' slices laid out for rows not drawn since may be let go (see
    // kLanesBudget), those of the rows drawn now are kept.
    void beginFrame()
    {
        ++m_frame;
        trimLanes();
    }
    // The bytes of slices laid out beyond which those of rows not drawn in the last frame go
    // (a task row of a busy task holds hundreds of thousands of system calls).
    static constexpr size_t kLanesBudget = size_t(96) << 20;
    void setLanesBudget(size_t bytes) { m_lanesBudget = bytes; }
    // What the laid-out slices hold now.
    size_t laidOutBytes() const { return m_laneBytes; }

    // A CPU row (`bar` covers `range`): the tables a CPU owns, intervals filling the bar, then
    // slices along its bottom and marks and counters over the row (`row`).
    void paintCpu(QPainter& p, StreamId stream, const QRect& bar, const QRect& row, timeline::TimeRange range);
    // A task row: its states under the running bar (`bar`); its slices along the bar's bottom
    // and marks and counters over the row with paintSlices and paintMarks.
    void paintTaskStates(QPainter& p, TaskId task, const QRect& bar, timeline::TimeRange range) const;
    // The slices of the tables `kind` of owner owns (a task's or a CPU's), lanes by depth.
    void paintSlices(QPainter& p, RowOwner kind, uint32_t owner, const QRect& bar, timeline::TimeRange range);
    // Its instants as marks on top, its counters as a line in the row's lower half.
    void paintMarks(QPainter& p, RowOwner kind, uint32_t owner, const QRect& row, timeline::TimeRange range);
    // A host's vCPU thread in its guest: the stays of the tables that declare them
    // (isGuestStays), in `color`.
    void paintGuestStays(QPainter& p, TaskId task, const QRect& bar, timeline::TimeRange range,
                         const QColor& color) const;
    // The task's stay in a guest that holds `t` (as a row ending at its kvm_exit; ending at
    // IntervalTable::kOpenEnd when no exit was recorded after it), if any.
    std::optional<IntervalRow> guestStayAt(TaskId task, uint64_t t, uint64_t slack) const;

    // The flows ending or starting in `range` (all when few, or only those of `onlyTask`).
    size_t paintFlows(QPainter& p, timeline::TimeRange range, int left, int width, const RowCentre& centre,
                      std::optional<uint32_t> onlyTask, const QColor& color) const;
    size_t flowsIn(timeline::TimeRange range) const;

    // What a task row shows at time t (within `slack` ns): its state ("runnable for 1.2 ms"),
    // the slices there ("read = 3", with the events that began them), the marks.
    QString describeTask(TaskId task, uint64_t t, uint64_t slack);
    // What the CPU-owned tables say there (which task ran, from when to when; slices, marks).
    QString describeCpu(StreamId stream, uint64_t t, uint64_t slack);

    // A slice under a row's point, for selecting it.
    struct SliceHit {
        const SliceTable* table = nullptr;
        SliceTable::View slice;
    };
    std::optional<SliceHit> sliceAt(RowOwner kind, uint32_t owner, uint64_t t, uint64_t slack);
    // What a click on a task row between its events picks: the slice there (the deepest), or
    // else the state the task was in; its ends, the events that began and ended it when the
    // table knows them, and one line saying what it is.
    struct Span {
        uint64_t start = 0, end = 0;
        EventRef startEvent, endEvent;
        QString text;
    };
    std::optional<Span> spanAt(TaskId task, uint64_t t, uint64_t slack);

private:
    // A slice as a lane holds it: what painting needs (the rest is read from the table for
    // the one slice a tooltip or a click asks about: resolve()).
    struct LaneSlice {
        uint64_t start = 0, end = 0;
        uint32_t label = 0;
        uint8_t flags = 0;
    };
    // One owner's slices of one table, laid out: a lane per depth in start order, with the
    // running maximum of their ends for the search where a slice holds another of its depth,
    // and the failed ones apart.
    struct Lanes {
        size_t rows = 0; // the table's rows when laid out
        uint64_t frame = 0; // last drawn or asked in
        size_t bytes = 0;
        std::vector<std::vector<LaneSlice>> lanes;
        std::vector<std::vector<uint64_t>> maxEnd; // per lane; empty when its ends are in order
        std::vector<LaneSlice> failed;             // by start
        // The first slice of lane d that may end at or after t.
        size_t firstEndingFrom(size_t d, uint64_t t) const;
    };
    const Lanes& lanesOf(const SliceTable& table, uint32_t owner);
    // Lets go of the laid-out slices of rows not drawn in the last frame, least recently used
    // first, while they hold more than kLanesBudget.
    void trimLanes();
    using LanesMap = std::map<std::pair<const SliceTable*, uint32_t>, Lanes>;
    // Forgets one owner's laid-out slices and their bytes; the next one's place.
    LanesMap::iterator dropLanes(LanesMap::iterator it);
    // The slice of a lane as the table has it.
    std::optional<SliceTable::View> resolve(const SliceTable& table, uint32_t owner, size_t depth,
                                            const LaneSlice& slice) const;
    // A counter owner's lowest and highest value, found once per size of its table.
    struct Extent {
        size_t rows = 0;
        int64_t lo = 0, hi = 0;
    };
    const Extent& extentOf(const CounterTable& table, uint32_t owner);
    // The state an owner of `table` is in at t (the open one runs to the end of the data).
    std::optional<IntervalRow> intervalAt(const IntervalTable& table, uint32_t owner, uint64_t t) const;
    // A slice as the tooltip says it: its table, name, value or error, duration, and the
    // event that began it on a second line.
    QString sliceText(const SliceHit& hit) const;
    // The slice and marks lines of describeTask and describeCpu.
    void describeSlicesAndMarks(RowOwner kind, uint32_t owner, uint64_t t, uint64_t slack, QStringList& lines);
    QColor stateColor(const IntervalTable& table, uint32_t state) const;
    void fill(QPainter& p, const IntervalTable& table, uint32_t owner, const QRect& bar, timeline::TimeRange range,
              std::optional<QColor> color) const;
    template <typename Table>
    std::vector<const Table*> tables(TrackTable::Kind kind, RowOwner owner) const;

    const TraceSession* m_session = nullptr;
    std::vector<const TrackTable*> m_tables;
    LanesMap m_lanes;
    size_t m_laneBytes = 0;
    size_t m_lanesBudget = kLanesBudget;
    uint64_t m_frame = 1;
    std::map<std::pair<const CounterTable*, uint32_t>, Extent> m_extents;
    // Flows by their target's time, laid out once per version of the tables.
    struct FlowIndex {
        const FlowTable* table = nullptr;
        size_t rows = 0;
        std::vector<uint32_t> byEnd;
    };
    mutable std::vector<FlowIndex> m_flows;
    void indexFlows() const;
};

} // namespace ringside
