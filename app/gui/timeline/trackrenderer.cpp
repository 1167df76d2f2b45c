// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/trackrenderer.h"

#include "calls/calltree.h"
#include "timeline/taskcolors.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

namespace ringside {

using timeline::TimeRange;

namespace {

// Where the n-th interval table of a row is drawn: the first fills the bar, the others are
// thin bands along its top, one under another, so that none hides another.
QRect bandOf(const QRect& bar, int n)
{
    constexpr int kBand = 4;
    if (n == 0) return bar;
    return QRect(bar.left(), bar.top() + (n - 1) * (kBand + 1), bar.width(), std::min(kBand, bar.height()));
}

} // namespace

void TrackRenderer::setSession(const TraceSession* session)
{
    resetFlames();
    resetPacking();
    m_session = session;
    m_tables.clear();
    m_lanes.clear();
    m_laneBytes = 0;
    m_counters.clear();
    m_flows.clear();
    if (!session || !session->trace) return;
    for (const Trace::Analysis& analysis : session->trace->analyses())
        for (const auto& table : analysis.tables->tables()) m_tables.push_back(table.get());
    for (const auto& tables : session->queryTracks)
        for (const auto& table : tables->tables()) m_tables.push_back(table.get());
}

void TrackRenderer::tablesGrew()
{
    // Lanes are laid out again when next drawn if their table has more rows now.
    for (auto it = m_lanes.begin(); it != m_lanes.end();)
        it = it->first.first->rows() != it->second.rows ? dropLanes(it) : std::next(it);
    m_flows.clear(); // extents look at their table's size when asked

}

template <typename Table>
std::vector<const Table*> TrackRenderer::tables(TrackTable::Kind kind, RowOwner owner) const
{
    std::vector<const Table*> out;
    for (const TrackTable* t : m_tables) {
        if (t->kind() != kind || t->owner() != owner) continue;
        // A flame chart has a row of its own (the Calls rows), not lanes along the bar.
        if (kind == TrackTable::Kind::Slices && static_cast<const SliceTable*>(t)->spec().flameChart) continue;
        out.push_back(static_cast<const Table*>(t));
    }
    return out;
}

QColor TrackRenderer::stateColor(const IntervalTable& table, uint32_t state) const
{
    if (table.spec().statesAreTasks) {
        const TaskIndex& index = m_session->trace->taskIndex();
        return state < index.size() ? taskColor(index.task(TaskId(state)).pid) : QColor();
    }
    const auto& states = table.spec().states;
    return state < states.size() ? QColor::fromRgb(states[state].rgb) : QColor(0x80, 0x80, 0x80);
}

void TrackRenderer::fill(QPainter& p, const IntervalTable& table, uint32_t owner, const QRect& bar, TimeRange range,
                         std::optional<QColor> color) const
{
    const GrowingList<IntervalRow>* rows = table.byOwner().of(owner);
    const IntervalRow open = table.openOf(owner);
    const uint64_t dataEnd = m_session->store().lastTimestamp();
    const size_t n = rows ? rows->size() : 0;
    const int w = bar.width();
    // The idle tasks (pid 0) run where nothing else does: left blank.
    auto skipped = [&](const IntervalRow& r) {
        return table.spec().statesAreTasks && r.state < m_session->trace->taskIndex().size() &&
               m_session->trace->taskIndex().task(TaskId(r.state)).pid == 0;
    };
    int lastX = -1;
    auto paintRow = [&](const IntervalRow& r, uint64_t end) {
        // Not a pixel for what ended before the view (a recording over before it: its CPU's
        // last task held to the recording's end).
        if (skipped(r) || end <= range.start) return;
        const int x0 = std::max(0, int(timeline::timeToX(r.start, range, w)));
        const int x1 = std::min(w, std::max(x0 + 1, int(timeline::timeToX(end, range, w))));
        if (x1 <= lastX) return;
        const QColor c = color ? *color : stateColor(table, r.state);
        if (c.isValid())
            p.fillRect(bar.left() + std::max(x0, lastX), bar.top(), x1 - std::max(x0, lastX), bar.height(), c);
        lastX = x1;
    };
    // Intervals of one owner do not overlap, so their ends are in order: once a pixel column is
    // painted, skip straight to the first interval that ends past it.
    auto endsBefore = [](const IntervalRow& r) { return r.end; };
    size_t k = rows ? rows->lowerBound(range.start + 1, 0, n, endsBefore) : 0;
    while (k < n && (*rows)[k].start < range.end) {
        paintRow((*rows)[k], (*rows)[k].end);
        k = std::max(k + 1, rows->lowerBound(timeline::xToTime(std::max(lastX, 0), range, w) + 1, k + 1, n, endsBefore));
    }
    if (open.end && open.start < range.end && open.start < dataEnd) paintRow(open, dataEnd);
}

void TrackRenderer::paintGuestStays(QPainter& p, TaskId task, const QRect& bar, TimeRange range,
                                    const QColor& color) const
{
    for (const IntervalTable* t : tables<IntervalTable>(TrackTable::Kind::Intervals, RowOwner::Task))
        if (isGuestStays(t->spec())) fill(p, *t, task.value, bar, range, color);
}

std::optional<IntervalRow> TrackRenderer::guestStayAt(TaskId task, uint64_t t, uint64_t slack) const
{
    // Within the slack: a stay narrower than a pixel is drawn a pixel wide. One still open
    // (in the guest when the recording ended, or when the capture got this far) ends at kOpenEnd.
    const uint64_t from = t > slack ? t - slack - 1 : 0; // a stay ending at t - slack counts
    for (const IntervalTable* table : tables<IntervalTable>(TrackTable::Kind::Intervals, RowOwner::Task))
        if (isGuestStays(table->spec()))
            if (std::optional<IntervalRow> stay = table->rowAt(task.value, from, t + slack)) return stay;
    return std::nullopt;
}

void TrackRenderer::paintCpu(QPainter& p, StreamId stream, const QRect& bar, const QRect& row, TimeRange range)
{
    if (!m_session) return;
    // A buffer without sched_switch (an instance) shows who ran on its CPU in another buffer.
    const StreamId shown = m_session->trace->runningTasks().shownStream(stream);
    int band = 0;
    for (const IntervalTable* t : tables<IntervalTable>(TrackTable::Kind::Intervals, RowOwner::Cpu))
        fill(p, *t, t->spec().statesAreTasks ? shown.value : stream.value, bandOf(bar, band++), range, std::nullopt);
    paintSlices(p, RowOwner::Cpu, stream.value, bar, range);
    paintMarks(p, RowOwner::Cpu, stream.value, row, range);
}

void TrackRenderer::paintTaskStates(QPainter& p, TaskId task, const QRect& bar, TimeRange range) const
{
    if (!m_session || !task.valid()) return;
    int band = 0;
    for (const IntervalTable* t : tables<IntervalTable>(TrackTable::Kind::Intervals, RowOwner::Task))
        fill(p, *t, task.value, bandOf(bar, band++), range, std::nullopt);
}

template <typename Visit>
void TrackRenderer::forEachDrawnSlice(const Lanes& lanes, size_t d, TimeRange range, int w, Visit visit)
{
    const auto& lane = lanes.lanes[d];
    size_t k = lanes.firstEndingFrom(d, range.start + 1);
    int lastX = -1;
    while (k < lane.size() && lane[k].start < range.end) {
        const int x0 = std::max(0, int(timeline::timeToX(lane[k].start, range, w)));
        const int x1 = std::min(w, std::max(x0 + 1, int(timeline::timeToX(lane[k].end, range, w))));
        if (x1 > lastX) {
            visit(lane[k], x0, x1, std::max(x0, lastX));
            lastX = x1;
        }
        // Past this pixel: the next slice starting at or after it.
        const uint64_t next = timeline::xToTime(lastX, range, w);
        k = size_t(std::lower_bound(lane.begin() + long(k) + 1, lane.end(), next,
                                    [](const LaneSlice& v, uint64_t t) { return v.start < t; }) -
                   lane.begin());
    }
}

void TrackRenderer::paintSlices(QPainter& p, RowOwner kind, uint32_t owner, const QRect& bar, TimeRange range)
{
    if (!m_session) return;
    const int w = bar.width();
    // Lanes grow with the bar (a CPU row shares the window's height): an idle state or a
    // system call reads at a glance in a tall row, and never takes a short one's bar.
    const int kLane = std::clamp(bar.height() / 6, 4, 8);
    int bottom = bar.bottom() + 1; // lanes go up from the bar's bottom, depth 0 lowest
    for (const SliceTable* table : tables<SliceTable>(TrackTable::Kind::Slices, kind)) {
        if (table->spec().ownRow) continue; // paintSliceRow
        const Lanes& lanes = lanesOf(*table, owner);
        if (lanes.lanes.empty()) continue;
        const QColor color = QColor::fromRgb(table->spec().rgb);
        for (size_t d = 0; d < lanes.lanes.size(); ++d) {
            const int top = bottom - kLane * int(d + 1);
            forEachDrawnSlice(lanes, d, range, w, [&](const LaneSlice& slice, int x0, int x1, int from) {
                p.fillRect(bar.left() + from, top, x1 - from, kLane - 1, color);
                // A label where the slice is wide enough to read one, white on a dark
                // backdrop: readable over a task's colour and over the white of an idle CPU.
                if (x1 - x0 <= 40) return;
                const QString label = p.fontMetrics().elidedText(QString::fromStdString(table->labelText(slice.label)),
                                                                 Qt::ElideRight, x1 - x0 - 8);
                const int textWidth = p.fontMetrics().horizontalAdvance(label);
                if (textWidth <= 0) return;
                const QRect box(bar.left() + x0 + 2, top - 12, textWidth + 4, 12);
                p.fillRect(box, QColor(0, 0, 0, 120));
                p.setPen(Qt::white);
                p.drawText(box, Qt::AlignCenter, label);
            });
        }
        // Failures over the lanes, each at least two pixels wide: a failing call shows at any zoom.
        auto startsBefore = [](const LaneSlice& v, uint64_t t) { return v.start < t; };
        for (auto f = std::lower_bound(lanes.failed.begin(), lanes.failed.end(), range.start, startsBefore);
             f != lanes.failed.end() && f->start < range.end; ++f) {
            const int x0 = std::max(0, int(timeline::timeToX(f->start, range, w)));
            const int x1 = std::min(w, int(timeline::timeToX(f->end, range, w)));
            p.fillRect(bar.left() + x0, bottom - kLane - 3, std::max(2, x1 - x0), kLane + 3, failedColor());
        }
        bottom -= kLane * int(lanes.lanes.size()) + 1;
    }
}

const CounterSummary& TrackRenderer::summaryOf(const CounterTable& table, uint32_t owner)
{
    if (const CounterSummary* made = table.summaryOf(owner)) return *made; // by its maker
    CounterSummary& summary = m_counters[{&table, owner}];
    if (const GrowingList<CounterRow>* rows = table.byOwner().of(owner)) summary.update(*rows);
    return summary;
}

QColor TrackRenderer::counterColor(size_t n)
{
    // The first (a frequency) in blue; its companions (limits) in colours that stand apart.
    static const QColor colors[] = {QColor(0x2a, 0x5d, 0xb0), QColor(0x2e, 0x8b, 0x57), QColor(0xc0, 0x39, 0x2b),
                                    QColor(0x8e, 0x44, 0xad), QColor(0xd3, 0x84, 0x00)};
    return colors[n % std::size(colors)];
}

void TrackRenderer::paintCounters(QPainter& p, const CounterGroup& group, uint32_t owner, const QRect& area,
                                  TimeRange range)
{
    if (!m_session || group.tables.empty()) return;
    const int w = area.width();
    // One scale for the group: from 0 (or the lowest value, when below 0) to the highest.
    int64_t lo = 0, hi = 0;
    for (const CounterTable* t : group.tables) {
        const CounterSummary& s = summaryOf(*t, owner);
        if (!s.rows()) continue;
        lo = std::min(lo, s.lowest()), hi = std::max(hi, s.highest());
    }
    if (hi == lo) hi = lo + 1;
    const int top = area.top() + 3, bottom = area.bottom();
    auto y = [&](int64_t v) {
        return bottom - int(std::lround(double(v - lo) * (bottom - 1 - top) / double(hi - lo)));
    };
    // Values drawn up to the data's end, not to the view's edge beyond it.
    const uint64_t dataEnd = m_session->store().lastTimestamp();
    p.save();
    p.setClipRect(area);
    // Rectangles only (runs of a level, the span of a pixel column): a frame costs the value
    // changes in view, at most a few per pixel column, each a fill the raster engine does fast.
    for (size_t n = group.tables.size(); n-- > 0;) {
        const CounterTable& table = *group.tables[n];
        const GrowingList<CounterRow>* rows = table.byOwner().of(owner);
        const CounterSummary& summary = summaryOf(table, owner);
        const size_t count = summary.rows();
        if (!rows || !count) continue;
        auto time = [](const CounterRow& r) { return r.time; };
        size_t k = summary.valueAt(*rows, range.start);
        if (k == count) k = 0; // nothing in force at the start: from the first value on
        if ((*rows)[k].time >= range.end) continue;
        const QColor color = counterColor(n);
        QColor fill = color;
        fill.setAlpha(50);
        const bool filled = n == 0; // the first counter's level reads at a glance
        const int thick = n == 0 ? 2 : 1;
        auto run = [&](int x0, int x1, int level) {
            if (x1 <= x0) return;
            if (filled) p.fillRect(area.left() + x0, level, x1 - x0, bottom - level + 1, fill);
            p.fillRect(area.left() + x0, level - thick / 2, x1 - x0, thick, color);
        };
        int x = std::max(0, int(timeline::timeToX((*rows)[k].time, range, w)));
        int level = y((*rows)[k].value);
        while (k + 1 < count && (*rows)[k + 1].time < range.end) {
            // The next change, and every value that begins in its pixel column: drawn as one
            // span from the lowest to the highest, then the last of them held.
            const int px = std::clamp(int(timeline::timeToX((*rows)[k + 1].time, range, w)), x, w);
            const size_t end =
                std::max(k + 2, rows->lowerBound(timeline::xToTime(px + 1, range, w), k + 1, count, time));
            const auto [mn, mx] = summary.extremes(*rows, k + 1, end);
            run(x, px, level);
            const int next = y((*rows)[end - 1].value);
            const int spanTop = std::min({level, y(mx), next}), spanBottom = std::max({level, y(mn), next});
            if (filled) p.fillRect(area.left() + px, next, 1, bottom - next + 1, fill);
            p.fillRect(area.left() + px, spanTop - thick / 2, thick, spanBottom - spanTop + thick, color);
            k = end - 1;
            level = next;
            x = px + 1;
        }
        const int endX = std::min(w, int(timeline::timeToX(std::max(dataEnd, (*rows)[k].time), range, w)));
        run(x, endX, level);
    }
    p.restore();
}

void TrackRenderer::paintSliceRow(QPainter& p, const SliceTable& table, uint32_t owner, const QRect& area,
                                  TimeRange range)
{
    if (!m_session) return;
    const Lanes& lanes = lanesOf(table, owner);
    if (lanes.lanes.empty()) return;
    const int w = area.width();
    const int laneHeight = std::max(4, (area.height() - 4) / int(lanes.lanes.size()));
    const QColor color = QColor::fromRgb(table.spec().rgb);
    const QColor text = color.lightness() > 140 ? QColor(0x20, 0x20, 0x20) : Qt::white;
    p.save();
    p.setClipRect(area);
    for (size_t d = 0; d < lanes.lanes.size(); ++d) {
        const int top = area.top() + 2 + int(d) * laneHeight;
        forEachDrawnSlice(lanes, d, range, w, [&](const LaneSlice& slice, int x0, int x1, int from) {
            p.fillRect(area.left() + from, top, x1 - from, laneHeight - 1,
                       slice.flags & Slice::kError ? failedColor() : color);
            // The label inside, where the slice is wide enough to read one.
            if (x1 - x0 <= 30 || laneHeight < 12) return;
            p.setPen(text);
            p.drawText(QRect(area.left() + x0 + 3, top, x1 - x0 - 6, laneHeight - 1), Qt::AlignLeft | Qt::AlignVCenter,
                       p.fontMetrics().elidedText(QString::fromStdString(table.labelText(slice.label)), Qt::ElideRight,
                                                  x1 - x0 - 6));
        });
    }
    p.restore();
}

QStringList TrackRenderer::counterReadout(const CounterGroup& group, uint32_t owner, TimeRange range,
                                          std::optional<uint64_t> cursor)
{
    QStringList lines;
    if (!m_session) return lines;
    const uint64_t end = std::min(range.end, m_session->store().lastTimestamp() + 1);
    for (const CounterTable* table : group.tables) {
        const GrowingList<CounterRow>* rows = table->byOwner().of(owner);
        const CounterSummary& summary = summaryOf(*table, owner);
        if (!rows || !summary.rows()) continue;
        const std::string& unit = table->spec().unit;
        QString line = QString::fromStdString(table->spec().title);
        if (cursor) {
            const size_t k = summary.valueAt(*rows, *cursor);
            line += QStringLiteral(" %1").arg(
                k == summary.rows() ? QStringLiteral("-") : timeline::formatCounterValue((*rows)[k].value, unit));
        }
        const CounterSummary::Stats s = summary.over(*rows, range.start, std::max(end, range.start + 1));
        if (s.any)
            line += QStringLiteral("  (view: min %1 · mean %2 · max %3)")
                        .arg(timeline::formatCounterValue(s.min, unit),
                             timeline::formatCounterValue(int64_t(std::llround(s.mean)), unit),
                             timeline::formatCounterValue(s.max, unit));
        lines << line;
    }
    return lines;
}

void TrackRenderer::paintMarks(QPainter& p, RowOwner kind, uint32_t owner, const QRect& row, TimeRange range)
{
    if (!m_session) return;
    const int w = row.width();
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x30, 0x30, 0x40));
    for (const InstantTable* t : tables<InstantTable>(TrackTable::Kind::Instants, kind)) {
        const GrowingList<InstantRow>* rows = t->byOwner().of(owner);
        if (!rows) continue;
        const size_t n = rows->size();
        auto time = [](const InstantRow& r) { return r.time; };
        size_t k = rows->lowerBound(range.start, 0, n, time);
        while (k < n && (*rows)[k].time < range.end) {
            const int x = int(timeline::timeToX((*rows)[k].time, range, w));
            const QPointF tip(row.left() + x + 0.5, row.top() + 6);
            const QPointF triangle[] = {tip, tip + QPointF(-3.5, -6), tip + QPointF(3.5, -6)};
            p.drawPolygon(triangle, 3);
            k = rows->lowerBound(timeline::xToTime(x + 4, range, w), k + 1, n, time);
        }
    }
    p.restore();
}

void TrackRenderer::indexFlows() const
{
    if (!m_flows.empty()) return;
    for (const FlowTable* t : tables<FlowTable>(TrackTable::Kind::Flows, RowOwner::Task)) {
        FlowIndex index{t, t->rows(), {}};
        const GrowingList<FlowRow>& flows = t->flows();
        index.byEnd.resize(index.rows);
        for (uint32_t i = 0; i < index.byEnd.size(); ++i) index.byEnd[i] = i;
        auto byEnd = [&](uint32_t a, uint32_t b) { return flows[a].toTime < flows[b].toTime; };
        if (!std::is_sorted(index.byEnd.begin(), index.byEnd.end(), byEnd))
            std::stable_sort(index.byEnd.begin(), index.byEnd.end(), byEnd);
        m_flows.push_back(std::move(index));
    }
}

size_t TrackRenderer::flowsIn(TimeRange range) const
{
    if (!m_session) return 0;
    indexFlows();
    size_t n = 0;
    for (const FlowIndex& f : m_flows) {
        auto endsBefore = [&](uint32_t i, uint64_t v) { return f.table->flows()[i].toTime < v; };
        const auto from = std::lower_bound(f.byEnd.begin(), f.byEnd.end(), range.start, endsBefore);
        n += size_t(std::lower_bound(from, f.byEnd.end(), range.end, endsBefore) - from);
    }
    return n;
}

size_t TrackRenderer::paintFlows(QPainter& p, TimeRange range, int left, int width, const RowCentre& centre,
                                 std::optional<uint32_t> onlyTask, const QColor& color) const
{
    if (!m_session) return 0;
    indexFlows();
    size_t drawn = 0;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const FlowIndex& index : m_flows) {
        const GrowingList<FlowRow>& flows = index.table->flows();
        auto endsBefore = [&](uint32_t i, uint64_t v) { return flows[i].toTime < v; };
        for (auto it = std::lower_bound(index.byEnd.begin(), index.byEnd.end(), range.start, endsBefore);
             it != index.byEnd.end() && flows[*it].toTime < range.end; ++it) {
            const FlowRow& f = flows[*it];
            if (onlyTask && f.toOwner != *onlyTask && f.fromOwner != *onlyTask) continue;
            const std::optional<int> toY = centre(f.toOwner);
            if (!toY) continue;
            const double x1 = left + timeline::timeToX(f.toTime, range, width);
            const double x0 = left + std::max(-1.0, timeline::timeToX(f.fromTime, range, width));
            const std::optional<int> fromY = centre(f.fromOwner);
            // Without a row for the source, a tail on the target's row as long as the wait.
            const QPointF from(x0, fromY ? *fromY : *toY), to(x1, *toY);
            p.setPen(QPen(color, 1.3));
            p.drawLine(from, to);
            const double angle = std::atan2(to.y() - from.y(), to.x() - from.x());
            const QPointF head[] = {to, to - QPointF(std::cos(angle - 0.45) * 7, std::sin(angle - 0.45) * 7),
                                    to - QPointF(std::cos(angle + 0.45) * 7, std::sin(angle + 0.45) * 7)};
            p.setBrush(color);
            p.setPen(Qt::NoPen);
            p.drawPolygon(head, 3);
            ++drawn;
        }
    }
    p.restore();
    return drawn;
}

std::optional<TrackRenderer::SliceHit> TrackRenderer::sliceAt(RowOwner kind, uint32_t owner, uint64_t t,
                                                              uint64_t slack)
{
    if (!m_session) return std::nullopt;
    for (const SliceTable* table : tables<SliceTable>(TrackTable::Kind::Slices, kind))
        if (auto hit = sliceAt(*table, owner, t, slack)) return hit;
    return std::nullopt;
}

std::optional<TrackRenderer::SliceHit> TrackRenderer::sliceAt(const SliceTable& table, uint32_t owner, uint64_t t,
                                                              uint64_t slack)
{
    if (!m_session) return std::nullopt;
    const Lanes& lanes = lanesOf(table, owner);
    // The deepest slice there: the most particular.
    for (size_t d = lanes.lanes.size(); d-- > 0;) {
        const auto& lane = lanes.lanes[d];
        for (size_t k = lanes.firstEndingFrom(d, t > slack ? t - slack : 0);
             k < lane.size() && lane[k].start <= t + slack; ++k)
            if (lane[k].end + slack >= t)
                if (auto view = resolve(table, owner, d, lane[k])) return SliceHit{&table, *view};
    }
    return std::nullopt;
}

std::optional<IntervalRow> TrackRenderer::intervalAt(const IntervalTable& table, uint32_t owner, uint64_t t) const
{
    std::optional<IntervalRow> at = table.rowAt(owner, t, t);
    // The state it is in now runs to the end of the data.
    if (at && at->end == IntervalTable::kOpenEnd) at->end = m_session->store().lastTimestamp();
    return at;
}

std::optional<TrackRenderer::Span> TrackRenderer::spanAt(TaskId task, uint64_t t, uint64_t slack)
{
    if (!m_session || !task.valid()) return std::nullopt;
    if (auto hit = sliceAt(RowOwner::Task, task.value, t, slack)) {
        const SliceTable::View& v = hit->slice;
        return Span{v.start, v.end, v.startEvent, v.endEvent, sliceText(*hit).section('\n', 0, 0)};
    }
    for (const IntervalTable* table : tables<IntervalTable>(TrackTable::Kind::Intervals, RowOwner::Task)) {
        const std::optional<IntervalRow> at = intervalAt(*table, task.value, t);
        if (!at || table->spec().statesAreTasks || at->state >= table->spec().states.size()) continue;
        return Span{at->start, at->end, {}, {},
                    QStringLiteral("%1: %2, %3")
                        .arg(QString::fromStdString(table->spec().title),
                             QString::fromStdString(table->spec().states[at->state].name),
                             timeline::formatDuration(int64_t(at->end - at->start)))};
    }
    return std::nullopt;
}

QString TrackRenderer::describeTask(TaskId task, uint64_t t, uint64_t slack)
{
    if (!m_session || !task.valid()) return {};
    QStringList lines;
    // Its state then.
    for (const IntervalTable* table : tables<IntervalTable>(TrackTable::Kind::Intervals, RowOwner::Task)) {
        const std::optional<IntervalRow> at = intervalAt(*table, task.value, t);
        if (!at || table->spec().statesAreTasks || at->state >= table->spec().states.size()) continue;
        lines << QStringLiteral("%1 for %2")
                     .arg(QString::fromStdString(table->spec().states[at->state].name),
                          timeline::formatDuration(int64_t(at->end - at->start)));
    }
    describeSlicesAndMarks(RowOwner::Task, task.value, t, slack, lines);
    return lines.join('\n');
}

QString TrackRenderer::sliceText(const SliceHit& hit) const
{
    const SliceTable& table = *hit.table;
    const SliceTable::View& v = hit.slice;
    QString text = QString::fromStdString(table.spec().title + ": " + table.labelText(v.label));
    int64_t value = v.value;
    bool known = !(v.flags & (Slice::kOpen | Slice::kNoValue));
    // The value read from the slice's end event (a system call's return).
    if (table.valueFromEvent(v)) {
        known = false;
        for (const FieldValue& f : m_session->formatter->fields(v.endEvent))
            if (f.name == table.spec().valueField) value = std::stoll(f.value), known = true;
    }
    if (!table.spec().valueLabel.empty())
        text += QStringLiteral(" (%1 %2 before)")
                    .arg(QString::fromStdString(table.spec().valueLabel), timeline::formatDuration(value));
    else if (known)
        text += QStringLiteral(" = %1%2").arg(value).arg(
            (v.flags & Slice::kError) ? QStringLiteral(" (%1)").arg(QString::fromStdString(errnoName(value)))
                                      : QString());
    if (v.flags & Slice::kNoStart) text += QStringLiteral(", began before the recording (duration unknown)");
    if (!(v.flags & Slice::kNoStart) && !(v.flags & Slice::kOpen))
        text += QStringLiteral(", %1").arg(timeline::formatDuration(int64_t(v.end - v.start)));
    // The arguments are in the event that began the slice: read when asked.
    if (v.startEvent.valid()) {
        const uint16_t type = m_session->store().stream(v.startEvent.stream).columns.eventType[v.startEvent.index];
        text += QStringLiteral("\n    %1: %2")
                    .arg(QString::fromStdString(m_session->formatter->eventName(type)),
                         QString::fromStdString(m_session->formatter->info(v.startEvent)));
    }
    return text;
}

void TrackRenderer::describeSlicesAndMarks(RowOwner kind, uint32_t owner, uint64_t t, uint64_t slack, QStringList& lines)
{
    if (auto hit = sliceAt(kind, owner, t, slack)) lines << sliceText(*hit);
    QStringList marks;
    for (const InstantTable* table : tables<InstantTable>(TrackTable::Kind::Instants, kind)) {
        const GrowingList<InstantRow>* rows = table->byOwner().of(owner);
        if (!rows) continue;
        for (size_t k = rows->lowerBound(t > slack ? t - slack : 0, 0, rows->size(), [](const InstantRow& r) { return r.time; });
             k < rows->size() && (*rows)[k].time <= t + slack && marks.size() < 4; ++k)
            if ((*rows)[k].label < table->spec().labels.size())
                marks << QString::fromStdString(table->spec().labels[(*rows)[k].label]);
    }
    marks.removeDuplicates();
    if (!marks.isEmpty()) lines << marks.join(QStringLiteral(", "));
    // Counters: the value in force then.
    for (const CounterTable* table : tables<CounterTable>(TrackTable::Kind::Counters, kind)) {
        const GrowingList<CounterRow>* rows = table->byOwner().of(owner);
        if (!rows || rows->empty() || !table->spec().drawn) continue;
        const size_t k = rows->lowerBound(t + 1, 0, rows->size(), [](const CounterRow& r) { return r.time; });
        if (k == 0) continue;
        lines << QStringLiteral("%1: %2").arg(QString::fromStdString(table->spec().title),
                                              timeline::formatCounterValue((*rows)[k - 1].value, table->spec().unit));
    }
}

QString TrackRenderer::describeCpu(StreamId stream, uint64_t t, uint64_t slack)
{
    if (!m_session) return {};
    QStringList lines;
    for (const IntervalTable* table : tables<IntervalTable>(TrackTable::Kind::Intervals, RowOwner::Cpu)) {
        const uint32_t owner =
            table->spec().statesAreTasks ? m_session->trace->runningTasks().shownStream(stream).value : stream.value;
        const std::optional<IntervalRow> at = intervalAt(*table, owner, t);
        if (!at) continue;
        if (table->spec().statesAreTasks) {
            const TaskIndex& index = m_session->trace->taskIndex();
            if (at->state >= index.size()) continue;
            const int32_t pid = index.task(TaskId(at->state)).pid;
            lines << QStringLiteral("%1 (%2) ran for %3")
                         .arg(QString::fromStdString(m_session->trace->taskName(TaskId(at->state))))
                         .arg(pid)
                         .arg(timeline::formatDuration(int64_t(at->end - at->start)));
        } else if (at->state < table->spec().states.size()) {
            lines << QStringLiteral("%1: %2 for %3")
                         .arg(QString::fromStdString(table->spec().title),
                              QString::fromStdString(table->spec().states[at->state].name),
                              timeline::formatDuration(int64_t(at->end - at->start)));
        }
    }
    describeSlicesAndMarks(RowOwner::Cpu, stream.value, t, slack, lines);
    return lines.join('\n');
}

} // namespace ringside
