// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/countersummary.h"
#include "analysis/slicelanes.h"
#include "analysis/tracktables.h"
#include "state/tracesession.h"
#include "timeline/countergroups.h"
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
//   failures in red and never thinner than two pixels; a flame chart's (function calls) are
//   lanes in a row of their own under the owner's, each label in a colour of its own;
// - instants are small marks on top, counters a line in a band, flows arrows between rows.
//
// Every kind is drawn from binary searches per pixel column over an owner's rows, so a frame
// costs pixels, not rows. An owner's slices are laid out (a lane per depth, in start order)
// the first time its row is drawn, and again when its table grew.
class TrackRenderer {
public:
    TrackRenderer();
    ~TrackRenderer();
    TrackRenderer(TrackRenderer&&) noexcept;
    TrackRenderer& operator=(TrackRenderer&&) noexcept;

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
    // Its instants as marks on top.
    void paintMarks(QPainter& p, RowOwner kind, uint32_t owner, const QRect& row, timeline::TimeRange range);
    // A counter group's row (countergroups.h): each counter a step line, the first filled, on
    // one scale from 0 (or the lowest, when below) to the group's highest value; zoomed out,
    // each pixel column spans the lowest and highest values that began in it.
    void paintCounters(QPainter& p, const CounterGroup& group, uint32_t owner, const QRect& area,
                       timeline::TimeRange range);
    // The row's readout: each counter's value at `cursor` (when given) and the lowest, mean
    // (weighted by time) and highest of the view, in its unit.
    QStringList counterReadout(const CounterGroup& group, uint32_t owner, timeline::TimeRange range,
                               std::optional<uint64_t> cursor);
    // The colour of a group's n-th counter.
    static QColor counterColor(size_t n);
    // Every owner's slices of a table, as one (a query track's own row).
    static constexpr uint32_t kEveryOwner = UINT32_MAX;
    static constexpr size_t kMaxPackedLanes = 3;
    // A slice table drawn in a row of its own (SliceTableSpec::ownRow: the idle states under
    // each CPU; a query track, `owner` kEveryOwner): a lane per depth (every owner's: a lane
    // per overlap) filling `area`, the labels inside.
    void paintSliceRow(QPainter& p, const SliceTable& table, uint32_t owner, const QRect& area,
                       timeline::TimeRange range);
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

    // Flame charts (SliceTableSpec::flameChart): an owner's slices in a row of their own. A
    // task's row shows the task's; a CPU's row the CPU's own and those of tasks' slices that
    // began on it. Laid out on a worker thread the first time a row asks, and again when its
    // tables grew (the old layout drawn meanwhile); `ready` runs on the GUI thread then.
    void setFlameReady(std::function<void()> ready);
    bool hasFlameCharts() const;
    struct FlameExtent {
        int lanes = 0;
        size_t slices = 0;
    };
    // Nullopt while the row's slices are laid out the first time.
    std::optional<FlameExtent> flameExtent(RowOwner kind, uint32_t owner);
    // Lays a row out now, on this thread (tests and benchmarks).
    void layOutFlameNow(RowOwner kind, uint32_t owner);
    // `area`: the lanes' rectangle (lane 0 at its top), covering `range`. Slices closer than a
    // pixel are one box ("N calls"), so a frame paints about one box per pixel column and lane.
    void paintFlame(QPainter& p, RowOwner kind, uint32_t owner, const QRect& area, timeline::TimeRange range);
    // What is under a point of a flame row: a slice, or slices merged at this zoom.
    struct FlameHit {
        const SliceTable* table = nullptr;
        uint32_t id = SliceTable::kNoId; // the one under the point (the nearest, in a merged box)
        uint32_t label = 0;
        uint8_t flags = 0;
        uint32_t merged = 1;
        uint64_t start = 0, end = 0; // of the box
        int lane = 0;                // its depth
    };
    std::optional<FlameHit> flameAt(RowOwner kind, uint32_t owner, const QRect& area, timeline::TimeRange range,
                                    QPoint pos);
    // Where the slice `id` of `table` is drawn in the flame row's `area`; empty when not there.
    QRect flameRect(RowOwner kind, uint32_t owner, const SliceTable& table, uint32_t id, const QRect& area,
                    timeline::TimeRange range);
    QString flameLabel(const FlameHit& hit) const;
    // `where`: the task and CPU, as the row knows them.
    QString flameToolTip(const FlameHit& hit, const QString& where) const;
    // The flame-chart table of this key, if the recording has one.
    const SliceTable* flameTable(std::string_view key) const;
    static constexpr int kMinLabelWidth = 28;

    // A slice under a row's point, for selecting it.
    struct SliceHit {
        const SliceTable* table = nullptr;
        SliceTable::View slice;
    };
    std::optional<SliceHit> sliceAt(RowOwner kind, uint32_t owner, uint64_t t, uint64_t slack);
    // How many lanes paintSliceRow draws the owner's slices in (kEveryOwner: as many as
    // overlap at once, kMaxPackedLanes at most).
    // Lays them out now, on this thread, if not yet (tests and benchmarks).
    size_t laneCount(const SliceTable& table, uint32_t owner)
    {
        return m_session ? lanesOf(table, owner, true).lanes.size() : 0;
    }
    // A query track of more slices than this is laid out on a worker (its row drawn when it is
    // ready: the ready callback of setFlameReady runs then); fewer, at once (~30 ms).
    static constexpr size_t kPackNowSlices = 200000;
    void setPackNowSlices(size_t slices) { m_packNowSlices = slices; }
    // Whether the slices of a query track's row are being laid out on a worker.
    bool layingOut(const SliceTable& table) const;
    // The same in one table (`owner` may be kEveryOwner).
    std::optional<SliceHit> sliceAt(const SliceTable& table, uint32_t owner, uint64_t t, uint64_t slack);
    // A slice as the tooltip says it: its table, name, value or error, duration, and the
    // event that began it on a second line.
    QString sliceText(const SliceHit& hit) const;

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
    // Laid out when first asked; kEveryOwner's of more than m_packNowSlices on a worker
    // (empty until then, unless `now`).
    const Lanes& lanesOf(const SliceTable& table, uint32_t owner, bool now = false);
    // On any thread: the owner's slices laid out; kEveryOwner's packed by overlap, not by depth.
    static void layOut(const Trace& trace, const SliceTable& table, uint32_t owner, Lanes& lanes);
    static void packEveryOwner(const Trace& trace, const SliceTable& table, Lanes& lanes);
    // The owner's slices, or every owner's (kEveryOwner).
    static void forEachSliceOf(const Trace& trace, const SliceTable& table, uint32_t owner,
                               const std::function<void(const SliceTable::View&)>& visit);
    struct PackState;
    PackState& packState();
    void setPackReady(std::function<void()> ready);
    void resetPacking();
    void startPacking();
    // The slices of lane d in view, one a pixel column at most: visit(slice, x0, x1, from),
    // `from` the first pixel not drawn yet (past the last slice drawn).
    template <typename Visit>
    static void forEachDrawnSlice(const Lanes& lanes, size_t d, timeline::TimeRange range, int w, Visit visit);
    // Lets go of the laid-out slices of rows not drawn in the last frame, least recently used
    // first, while they hold more than kLanesBudget.
    void trimLanes();
    using LanesMap = std::map<std::pair<const SliceTable*, uint32_t>, Lanes>;
    // Forgets one owner's laid-out slices and their bytes; the next one's place.
    LanesMap::iterator dropLanes(LanesMap::iterator it);
    // The slice of a lane as the table has it.
    std::optional<SliceTable::View> resolve(const SliceTable& table, uint32_t owner, size_t depth,
                                            const LaneSlice& slice) const;
    // An owner's counter values summarised (its lowest and highest, per-block extremes and
    // integrals), brought up to the table's size when asked.
    const CounterSummary& summaryOf(const CounterTable& table, uint32_t owner);
    // The state an owner of `table` is in at t (the open one runs to the end of the data).
    std::optional<IntervalRow> intervalAt(const IntervalTable& table, uint32_t owner, uint64_t t) const;
    // The slice and marks lines of describeTask and describeCpu.
    void describeSlicesAndMarks(RowOwner kind, uint32_t owner, uint64_t t, uint64_t slack, QStringList& lines);
    QColor stateColor(const IntervalTable& table, uint32_t state) const;
    void fill(QPainter& p, const IntervalTable& table, uint32_t owner, const QRect& bar, timeline::TimeRange range,
              std::optional<QColor> color) const;
    template <typename Table>
    std::vector<const Table*> tables(TrackTable::Kind kind, RowOwner owner) const;

    // One flame row's tables laid out, lane 0 of each under the last lane of the one before.
    struct FlameRow {
        std::vector<std::pair<const SliceTable*, std::shared_ptr<const SliceLanes>>> tables;
        std::vector<size_t> rows; // each table's rows when laid out
        int lanes = 0;
        size_t slices = 0;
    };
    using FlameKey = std::pair<RowOwner, uint32_t>;
    // Lives on the heap: the worker's delivery finds it there however the renderer moves.
    struct FlameState;
    std::shared_ptr<const FlameRow> flameRow(RowOwner kind, uint32_t owner);
    static std::shared_ptr<const FlameRow> layOutFlame(const TraceSession& session,
                                                       const std::vector<const TrackTable*>& tables, FlameKey key);
    void resetFlames();
    void startFlameLayouts();
    // A flame row's lanes of one table, from its first lane.
    template <typename Visit>
    static void forEachFlameTable(const FlameRow& row, Visit visit);
    QColor flameColor(const SliceTable& table, uint32_t label, uint8_t flags) const;
    // Failed slices (Slice::kError), along a bar or in a flame chart.
    static QColor failedColor() { return QColor(0xd0, 0x1c, 0x28); }

    const TraceSession* m_session = nullptr;
    std::unique_ptr<FlameState> m_flame;
    std::shared_ptr<PackState> m_pack; // made when first needed
    size_t m_packNowSlices = kPackNowSlices;
    std::vector<const TrackTable*> m_tables;
    LanesMap m_lanes;
    size_t m_laneBytes = 0;
    size_t m_lanesBudget = kLanesBudget;
    uint64_t m_frame = 1;
    std::map<std::pair<const CounterTable*, uint32_t>, CounterSummary> m_counters;
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
