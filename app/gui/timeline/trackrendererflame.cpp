// SPDX-License-Identifier: GPL-2.0-or-later
// The track renderer's flame charts: the slice tables that declare SliceTableSpec::flameChart
// (function_graph calls), an owner's slices in a row of their own, a lane per depth.
#include "calls/calltree.h"
#include "calltree/functioncolors.h"
#include "jobs/jobtracker.h"
#include "timeline/timelinerows.h"
#include "timeline/trackrenderer.h"

#include <QCoreApplication>
#include <QFontMetrics>

#include <algorithm>
#include <cmath>
#include <set>

namespace ringside {

using timeline::TimeRange;

struct TrackRenderer::FlameState {
    std::function<void()> ready;
    std::map<FlameKey, std::shared_ptr<const FlameRow>> rows;
    std::set<FlameKey> wanted; // asked for, not laid out yet (or again)
    // By table, by label: the label's colour, and its shade in interrupt context.
    std::map<const SliceTable*, std::pair<std::vector<QColor>, std::vector<QColor>>> colors;
    JobTracker jobs;
};

TrackRenderer::TrackRenderer() : m_flame(std::make_unique<FlameState>()) {}
TrackRenderer::~TrackRenderer() = default;
TrackRenderer::TrackRenderer(TrackRenderer&&) noexcept = default;
TrackRenderer& TrackRenderer::operator=(TrackRenderer&&) noexcept = default;

void TrackRenderer::resetFlames()
{
    // A worker may still read the previous session's tables: it ends before they can go away.
    m_flame->jobs.cancel();
    m_flame->jobs.waitForThreads();
    m_flame->rows.clear();
    m_flame->wanted.clear();
    m_flame->colors.clear();
}

void TrackRenderer::setFlameReady(std::function<void()> ready)
{
    m_flame->ready = ready;
    setPackReady(std::move(ready)); // a query track's packed lanes too
}

bool TrackRenderer::hasFlameCharts() const
{
    // Declared by every recording's analysis; shown where it has slices.
    return std::any_of(m_tables.begin(), m_tables.end(), [](const TrackTable* t) {
        return t->kind() == TrackTable::Kind::Slices && static_cast<const SliceTable*>(t)->spec().flameChart &&
               t->rows() > 0;
    });
}

const SliceTable* TrackRenderer::flameTable(std::string_view key) const
{
    for (const TrackTable* t : m_tables)
        if (t->kind() == TrackTable::Kind::Slices && t->key() == key &&
            static_cast<const SliceTable*>(t)->spec().flameChart)
            return static_cast<const SliceTable*>(t);
    return nullptr;
}

std::shared_ptr<const TrackRenderer::FlameRow>
TrackRenderer::layOutFlame(const TraceSession& session, const std::vector<const TrackTable*>& tables, FlameKey key)
{
    auto row = std::make_shared<FlameRow>();
    const Trace& trace = *session.trace;
    const EventStore& store = trace.store();
    const auto [kind, owner] = key;
    for (const TrackTable* t : tables) {
        if (t->kind() != TrackTable::Kind::Slices) continue;
        const auto* table = static_cast<const SliceTable*>(t);
        if (!table->spec().flameChart || (kind == RowOwner::Task && table->owner() != RowOwner::Task)) continue;
        const size_t rows = table->rows();
        SliceLanes::Builder builder;
        auto add = [&](const SliceTable::View& v) { builder.add(v); };
        if (kind == RowOwner::Task)
            table->forEachOf(owner, store, &trace.taskIndex(), add);
        else if (table->owner() == RowOwner::Cpu)
            table->forEachOf(owner, store, nullptr, add);
        else
            table->forEachOnStream(StreamId(uint16_t(owner)), store, add);
        auto lanes = std::make_shared<const SliceLanes>(std::move(builder).finish(store.lastTimestamp()));
        row->lanes += lanes->laneCount();
        row->slices += lanes->sliceCount();
        row->tables.emplace_back(table, std::move(lanes));
        row->rows.push_back(rows);
    }
    return row;
}

std::shared_ptr<const TrackRenderer::FlameRow> TrackRenderer::flameRow(RowOwner kind, uint32_t owner)
{
    if (!m_session || !m_session->trace) return nullptr;
    const FlameKey key{kind, owner};
    auto it = m_flame->rows.find(key);
    std::shared_ptr<const FlameRow> row = it != m_flame->rows.end() ? it->second : nullptr;
    bool stale = !row;
    for (size_t i = 0; row && i < row->tables.size(); ++i) stale |= row->tables[i].first->rows() != row->rows[i];
    if (stale && m_flame->wanted.insert(key).second) startFlameLayouts();
    return row;
}

void TrackRenderer::startFlameLayouts()
{
    // One job for every row still waiting: starting a job cancels the one before.
    const std::vector<FlameKey> keys(m_flame->wanted.begin(), m_flame->wanted.end());
    using Built = std::vector<std::pair<FlameKey, std::shared_ptr<const FlameRow>>>;
    // The job holds no pointer to the renderer, which may move (a vector of them); the session
    // and its tables outlive it (setSession waits for it).
    FlameState* state = m_flame.get();
    m_flame->jobs.start(
        [session = m_session, tables = m_tables, keys](JobTracker::Context& context) {
            Built built;
            for (const FlameKey& key : keys) {
                if (context.isCancelled()) break;
                built.emplace_back(key, layOutFlame(*session, tables, key));
            }
            return built;
        },
        [state](Built built) {
            for (auto& [key, row] : built) {
                state->rows[key] = std::move(row);
                state->wanted.erase(key);
            }
            if (state->ready) state->ready();
        });
}

void TrackRenderer::layOutFlameNow(RowOwner kind, uint32_t owner)
{
    if (!m_session || !m_session->trace) return;
    const FlameKey key{kind, owner};
    m_flame->rows[key] = layOutFlame(*m_session, m_tables, key);
    m_flame->wanted.erase(key);
}

std::optional<TrackRenderer::FlameExtent> TrackRenderer::flameExtent(RowOwner kind, uint32_t owner)
{
    const std::shared_ptr<const FlameRow> row = flameRow(kind, owner);
    if (!row) return std::nullopt;
    return FlameExtent{row->lanes, row->slices};
}

template <typename Visit>
void TrackRenderer::forEachFlameTable(const FlameRow& row, Visit visit)
{
    int first = 0;
    for (const auto& [table, lanes] : row.tables) {
        visit(*table, *lanes, first);
        first += lanes->laneCount();
    }
}

QColor TrackRenderer::flameColor(const SliceTable& table, uint32_t label, uint8_t flags) const
{
    if (flags & Slice::kError) return failedColor();
    auto it = m_flame->colors.find(&table);
    if (it == m_flame->colors.end()) return mergedCallsColor();
    const auto& [own, interrupt] = it->second;
    if (label >= own.size()) return mergedCallsColor();
    return (flags & Slice::kInterrupt) ? interrupt[label] : own[label];
}

void TrackRenderer::paintFlame(QPainter& p, RowOwner kind, uint32_t owner, const QRect& area, TimeRange range)
{
    const std::shared_ptr<const FlameRow> row = flameRow(kind, owner);
    if (!row) return;
    // The labels named since the last frame (a recording names its functions after each batch).
    for (const auto& [table, lanes] : row->tables) {
        auto& [own, interrupt] = m_flame->colors[table];
        for (size_t label = own.size(); label < table->labelCount(); ++label) {
            const std::string& name = table->labelText(uint32_t(label));
            own.push_back(functionColor(name));
            interrupt.push_back(interruptColor(name));
        }
    }
    const int w = area.width();
    // Slices closer than a pixel are one box.
    const uint64_t grain = std::max<uint64_t>(1, range.span() / uint64_t(std::max(1, w)));
    QFont font = p.font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    p.setFont(font);
    const QFontMetrics metrics(font);
    const QColor text(0x20, 0x20, 0x20);
    const int h = TimelineRows::kLaneHeight - 1;
    std::vector<SliceLanes::Span> spans;
    forEachFlameTable(*row, [&](const SliceTable& table, const SliceLanes& lanes, int firstLane) {
        for (int lane = 0; lane < lanes.laneCount(); ++lane) {
            const int y = area.top() + (firstLane + lane) * TimelineRows::kLaneHeight;
            if (y > p.clipBoundingRect().bottom() && !p.clipBoundingRect().isEmpty()) return;
            spans.clear();
            lanes.spans(lane, range.start, range.end, grain, spans);
            for (const SliceLanes::Span& s : spans) {
                const int x0 = std::max(0, int(std::floor(timeline::timeToX(s.start, range, w))));
                const int x1 = std::min(w, int(std::ceil(timeline::timeToX(s.end, range, w))));
                const int width = std::max(1, x1 - x0);
                const QColor fill = s.count == 1 ? flameColor(table, s.label, s.flags) : mergedCallsColor();
                // Boxes side by side keep a pixel between them once they are wide enough to spare one.
                p.fillRect(area.left() + x0, y, width > 3 ? width - 1 : width, h, fill);
                if (width < kMinLabelWidth) continue;
                const QString label = s.count == 1
                                          ? QString::fromStdString(table.labelText(s.label))
                                          : QCoreApplication::translate("TrackRenderer", "%1 calls").arg(s.count);
                p.setPen(text);
                p.drawText(
                    QRect(area.left() + x0 + 2, y, width - 4, h), Qt::AlignVCenter | Qt::AlignLeft,
                    metrics.elidedText(label.isEmpty() ? QStringLiteral("?") : label, Qt::ElideRight, width - 4));
            }
        }
    });
}

std::optional<TrackRenderer::FlameHit> TrackRenderer::flameAt(RowOwner kind, uint32_t owner, const QRect& area,
                                                              TimeRange range, QPoint pos)
{
    const std::shared_ptr<const FlameRow> row = flameRow(kind, owner);
    if (!row || !area.contains(pos)) return std::nullopt;
    const int rowLane = (pos.y() - area.top()) / TimelineRows::kLaneHeight;
    const int w = area.width();
    const uint64_t grain = std::max<uint64_t>(1, range.span() / uint64_t(std::max(1, w)));
    const uint64_t t = timeline::xToTime(pos.x() - area.left(), range, w);
    std::optional<FlameHit> hit;
    forEachFlameTable(*row, [&](const SliceTable& table, const SliceLanes& lanes, int firstLane) {
        const int lane = rowLane - firstLane;
        if (hit || lane < 0 || lane >= lanes.laneCount()) return;
        // The box drawn there (2 pixels of slack for the thinnest ones), then the slice in it.
        std::vector<SliceLanes::Span> spans;
        lanes.spans(lane, t > 2 * grain ? t - 2 * grain : 0, t + 2 * grain + 1, grain, spans);
        const SliceLanes::Span* box = nullptr;
        uint64_t best = ~uint64_t(0);
        for (const SliceLanes::Span& s : spans) {
            const uint64_t d = t < s.start ? s.start - t : (t >= s.end ? t - s.end : 0);
            if (d < best) best = d, box = &s;
        }
        if (!box || best > 2 * grain) return;
        const SliceLanes::Span* slice = lanes.sliceAt(lane, std::clamp(t, box->start, box->end), 2 * grain);
        if (!slice) return;
        hit = FlameHit{&table, slice->id, slice->label, slice->flags, box->count, box->start, box->end, lane};
        if (box->count == 1) hit->start = slice->start, hit->end = slice->end;
    });
    return hit;
}

QRect TrackRenderer::flameRect(RowOwner kind, uint32_t owner, const SliceTable& table, uint32_t id, const QRect& area,
                               TimeRange range)
{
    const std::optional<SliceTable::View> slice = table.sliceById(id);
    const std::shared_ptr<const FlameRow> row = flameRow(kind, owner);
    if (!slice || !row) return {};
    QRect rect;
    forEachFlameTable(*row, [&](const SliceTable& t, const SliceLanes& lanes, int firstLane) {
        if (&t != &table) return;
        // The row shows it when its lane holds it (another owner's slice is not there).
        const SliceLanes::Span* s = lanes.sliceAt(slice->depth, slice->start, 0);
        if (!s || s->id != id) return;
        const int w = area.width();
        const double x0 = std::max(-2.0, timeline::timeToX(s->start, range, w));
        const double x1 = std::min(w + 2.0, timeline::timeToX(s->end, range, w));
        if (x1 < 0 || x0 > w) return;
        rect = QRect(area.left() + int(std::floor(x0)),
                     area.top() + (firstLane + int(slice->depth)) * TimelineRows::kLaneHeight,
                     std::max(1, int(std::ceil(x1) - std::floor(x0))), TimelineRows::kLaneHeight - 1);
    });
    return rect;
}

QString TrackRenderer::flameLabel(const FlameHit& hit) const
{
    const std::string& name = hit.table->labelText(hit.label);
    return name.empty() ? QStringLiteral("?") : QString::fromStdString(name);
}

QString TrackRenderer::flameToolTip(const FlameHit& hit, const QString& where) const
{
    auto tr = [](const char* text) { return QCoreApplication::translate("TrackRenderer", text); };
    if (hit.merged > 1)
        return tr("%1 calls at depth %2, too close to tell apart at this zoom\n(zoom in to see each; nearest: %3)")
            .arg(hit.merged)
            .arg(hit.lane)
            .arg(flameLabel(hit));
    QString text = flameLabel(hit);
    const std::optional<SliceTable::View> v = hit.table->sliceById(hit.id);
    if (hit.flags & Slice::kOpen)
        text += tr("\ndid not return in the recording");
    else
        text += "\n" + timeline::formatDuration(int64_t(hit.end - hit.start));
    if (hit.flags & Slice::kNoStart) text += tr(" (began before the recording)");
    text += tr("\ndepth %1").arg(hit.lane);
    if (!where.isEmpty()) text += ", " + where;
    if (v && !(v->flags & Slice::kNoValue) && !(v->flags & Slice::kOpen)) {
        const std::string err = v->value < 0 ? errnoName(v->value) : std::string();
        text += tr("\nreturned %1%2").arg(v->value).arg(err.empty() ? QString() : " " + QString::fromStdString(err));
    }
    if (hit.flags & Slice::kInterrupt) text += tr("\nran in interrupt context");
    return text + tr("\nClick to select, double-click to zoom to it");
}

} // namespace ringside
