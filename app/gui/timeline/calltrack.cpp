// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/calltrack.h"

#include "calls/calltree.h"
#include "calltree/functioncolors.h"

#include <algorithm>
#include <cmath>

namespace ringside {

using timeline::TimeRange;

void CallTrack::setSession(const TraceSession* session)
{
    // A worker may still read the previous session's calls: it ends before that can go away.
    m_jobs.cancel();
    m_jobs.waitForThreads();
    m_session = session;
    m_lanes.clear();
    m_wanted.clear();
    m_colors.clear();
    m_interruptColors.clear();
    if (!session || !session->trace) return;
    m_unit = session->trace->file().info().timesInUsecs ? timeline::ClockUnit::Nanoseconds : timeline::ClockUnit::Ticks;
    refreshNames();
}

void CallTrack::refreshNames()
{
    // The trace names the functions of each batch once it is analysed: after the session is set.
    const CallSlices& calls = m_session->trace->callSlices();
    for (size_t f = m_colors.size(); f < calls.labelCount(); ++f) {
        const std::string& name = calls.functionName(uint32_t(f));
        m_colors.push_back(functionColor(name));
        m_interruptColors.push_back(interruptColor(name));
    }
}

std::shared_ptr<const CallLanes> CallTrack::build(int64_t key) const
{
    const CallSlices& calls = m_session->trace->callSlices();
    const uint64_t end = m_session->store().lastTimestamp();
    return std::make_shared<const CallLanes>(key >= 0
                                                 ? CallLanes::build(calls, int32_t(key), end)
                                                 : CallLanes::buildForStream(calls, StreamId(uint16_t(-1 - key)), end));
}

std::shared_ptr<const CallLanes> CallTrack::lanes(const TimelineRows::Row& callsRow)
{
    if (!m_session) return nullptr;
    refreshNames();
    const int64_t key = keyOf(callsRow);
    if (auto it = m_lanes.find(key); it != m_lanes.end()) return it->second;
    if (m_wanted.insert(key).second) startBuilds();
    return nullptr;
}

void CallTrack::layOutNow(const TimelineRows::Row& callsRow)
{
    if (!m_session) return;
    const int64_t key = keyOf(callsRow);
    m_lanes[key] = build(key);
    m_wanted.erase(key);
    emit lanesReady();
}

void CallTrack::startBuilds()
{
    // One job for every row still waiting: starting a job cancels the one before.
    const std::vector<int64_t> keys(m_wanted.begin(), m_wanted.end());
    using Built = std::vector<std::pair<int64_t, std::shared_ptr<const CallLanes>>>;
    m_jobs.start(
        [this, keys](JobTracker::Context& context) {
            Built built;
            for (int64_t key : keys) {
                if (context.isCancelled()) break;
                built.emplace_back(key, build(key));
            }
            return built;
        },
        [this](Built built) {
            for (auto& [key, lanes] : built) {
                m_lanes[key] = std::move(lanes);
                m_wanted.erase(key);
            }
            emit lanesReady();
        });
}

void CallTrack::paint(QPainter& p, const CallLanes& lanes, const QRect& area, TimeRange range) const
{
    const CallSlices& calls = m_session->trace->callSlices();
    const int w = area.width();
    // Calls closer than a pixel are one box.
    const uint64_t grain = std::max<uint64_t>(1, range.span() / uint64_t(std::max(1, w)));
    QFont font = p.font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    p.setFont(font);
    const QFontMetrics metrics(font);
    const QColor text(0x20, 0x20, 0x20);
    std::vector<CallLanes::Span> spans;
    for (int lane = 0; lane < lanes.laneCount(); ++lane) {
        const int y = area.top() + lane * TimelineRows::kLaneHeight;
        if (y > p.clipBoundingRect().bottom() && !p.clipBoundingRect().isEmpty()) break;
        spans.clear();
        lanes.spans(lane, range.start, range.end, grain, spans);
        const int h = TimelineRows::kLaneHeight - 1;
        for (const CallLanes::Span& s : spans) {
            const int x0 = std::max(0, int(std::floor(timeline::timeToX(s.start, range, w))));
            const int x1 = std::min(w, int(std::ceil(timeline::timeToX(s.end, range, w))));
            const int width = std::max(1, x1 - x0);
            QColor fill = mergedCallsColor();
            if (s.count == 1) {
                const uint32_t f = calls.function(s.call);
                const bool interrupt = calls.flags(s.call) & kCallInterrupt;
                if (f < m_colors.size()) fill = interrupt ? m_interruptColors[f] : m_colors[f];
            }
            // Boxes side by side keep a pixel between them once they are wide enough to spare one.
            p.fillRect(area.left() + x0, y, width > 3 ? width - 1 : width, h, fill);
            if (width < kMinLabelWidth) continue;
            const QString label = s.count == 1 ? functionName(s.call) : tr("%1 calls").arg(s.count);
            p.setPen(text);
            p.drawText(QRect(area.left() + x0 + 2, y, width - 4, h), Qt::AlignVCenter | Qt::AlignLeft,
                       metrics.elidedText(label, Qt::ElideRight, width - 4));
        }
    }
}

std::optional<CallTrack::Hit> CallTrack::hitAt(const CallLanes& lanes, const QRect& area, TimeRange range,
                                               QPoint pos) const
{
    if (!area.contains(pos)) return std::nullopt;
    const int lane = (pos.y() - area.top()) / TimelineRows::kLaneHeight;
    if (lane >= lanes.laneCount()) return std::nullopt;
    const int w = area.width();
    const uint64_t grain = std::max<uint64_t>(1, range.span() / uint64_t(std::max(1, w)));
    const uint64_t t = timeline::xToTime(pos.x() - area.left(), range, w);
    // The box drawn there (2 pixels of slack for the thinnest ones), then the call in it.
    std::vector<CallLanes::Span> spans;
    lanes.spans(lane, t > 2 * grain ? t - 2 * grain : 0, t + 2 * grain + 1, grain, spans);
    const CallLanes::Span* box = nullptr;
    uint64_t best = ~uint64_t(0);
    for (const CallLanes::Span& s : spans) {
        const uint64_t d = t < s.start ? s.start - t : (t >= s.end ? t - s.end : 0);
        if (d < best) best = d, box = &s;
    }
    if (!box || best > 2 * grain) return std::nullopt;
    const std::optional<uint32_t> call = lanes.callAt(lane, std::clamp(t, box->start, box->end), 2 * grain);
    if (!call) return std::nullopt;
    return Hit{*call, box->count, box->start, box->end, lane};
}

QRect CallTrack::callRect(uint32_t call, const QRect& area, TimeRange range) const
{
    const CallSlices& calls = m_session->trace->callSlices();
    const int64_t depth = calls.depth(call);
    if (depth < 0 || depth >= CallLanes::kMaxLanes) return {};
    const uint64_t end = (calls.flags(call) & kCallOpen) ? m_session->store().lastTimestamp() : calls.end(call);
    const int w = area.width();
    const double x0 = std::max(-2.0, timeline::timeToX(calls.start(call), range, w));
    const double x1 = std::min(w + 2.0, timeline::timeToX(end, range, w));
    if (x1 < 0 || x0 > w) return {};
    return QRect(area.left() + int(std::floor(x0)), area.top() + int(depth) * TimelineRows::kLaneHeight,
                 std::max(1, int(std::ceil(x1) - std::floor(x0))), TimelineRows::kLaneHeight - 1);
}

QString CallTrack::functionName(uint32_t call) const
{
    const CallSlices& calls = m_session->trace->callSlices();
    const std::string& name = calls.functionName(calls.function(call));
    return name.empty() ? QStringLiteral("?") : QString::fromStdString(name);
}

QString CallTrack::toolTip(const Hit& hit) const
{
    const CallSlices& calls = m_session->trace->callSlices();
    if (hit.merged > 1)
        return tr("%1 calls at depth %2, too close to tell apart at this zoom\n(zoom in to see each; nearest: %3)")
            .arg(hit.merged)
            .arg(hit.lane)
            .arg(functionName(hit.call));
    QString text = functionName(hit.call);
    const uint8_t flags = calls.flags(hit.call);
    if (flags & kCallOpen)
        text += tr("\ndid not return in the recording");
    else
        text += tr("\n%1").arg(timeline::formatDuration(int64_t(calls.duration(hit.call)), m_unit));
    if (flags & kCallNoEntry) text += tr(" (began before the recording)");
    text += tr("\ndepth %1, %2-%3 on CPU %4")
                .arg(calls.depth(hit.call))
                .arg(QString::fromStdString(m_session->taskName(calls.pid(hit.call))))
                .arg(calls.pid(hit.call))
                .arg(calls.cpu(hit.call));
    if (calls.hasRetval(hit.call)) {
        const int64_t ret = calls.retval(hit.call);
        const std::string err = errnoName(ret);
        text += tr("\nreturned %1%2").arg(ret).arg(err.empty() ? QString() : " " + QString::fromStdString(err));
    }
    if (flags & kCallInterrupt) text += tr("\nran in interrupt context");
    return text + tr("\nClick to select, double-click to zoom to it");
}

} // namespace ringside
