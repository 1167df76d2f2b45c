// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/pluginlayers.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace ringside {

namespace {

QColor colorOf(uint32_t rgb, int alpha)
{
    QColor c(QRgb(rgb | 0xff000000u));
    c.setAlpha(alpha);
    return c;
}

} // namespace

void RowsByTask::build(const std::vector<int32_t>& owner, const std::vector<uint64_t>& time)
{
    m_rows.clear();
    for (uint32_t i = 0; i < owner.size() && i < time.size(); ++i) m_rows[owner[i]].push_back(i);
    for (auto& [pid, rows] : m_rows)
        if (!std::is_sorted(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) { return time[a] < time[b]; }))
            std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) { return time[a] < time[b]; });
    m_built = true;
}

const std::vector<uint32_t>& RowsByTask::of(int32_t pid) const
{
    static const std::vector<uint32_t> none;
    auto it = m_rows.find(pid);
    return it == m_rows.end() ? none : it->second;
}

void PluginStates::setSession(const TraceSession* session)
{
    m_tables.clear();
    m_byTask.clear();
    if (!session) return;
    for (const PluginTables& tables : session->pluginTables)
        for (const IntervalTable& t : tables.intervals)
            if (t.owner == RowOwner::Task) m_tables.push_back(&t);
    m_byTask.resize(m_tables.size());
}

void PluginStates::paint(QPainter& p, int32_t pid, const QRect& bar, timeline::TimeRange range)
{
    const int w = bar.width();
    for (size_t k = 0; k < m_tables.size(); ++k) {
        const IntervalTable& t = *m_tables[k];
        if (!m_byTask[k].built()) m_byTask[k].build(t.ownerId, t.start);
        const std::vector<uint32_t>& rows = m_byTask[k].of(pid);
        // A task's intervals do not overlap: their ends are in order too.
        auto endsBefore = [&](uint32_t i, uint64_t v) { return t.end[i] <= v; };
        auto it = std::lower_bound(rows.begin(), rows.end(), range.start, endsBefore);
        int lastX = -1;
        while (it != rows.end() && t.start[*it] < range.end) {
            const uint32_t i = *it;
            const int x0 = std::max(0, int(timeline::timeToX(t.start[i], range, w)));
            const int x1 = std::min(w, std::max(x0 + 1, int(timeline::timeToX(t.end[i], range, w))));
            if (x1 > lastX) {
                const int from = std::max(x0, lastX);
                const uint32_t rgb = t.state[i] < t.states.size() ? t.states[t.state[i]].rgb : 0x808080;
                p.fillRect(bar.left() + from, bar.top(), x1 - from, bar.height(), colorOf(rgb, 110));
                lastX = x1;
            }
            it = std::lower_bound(it + 1, rows.end(), timeline::xToTime(lastX, range, w), endsBefore);
        }
    }
}

QString PluginStates::describe(int32_t pid, uint64_t time)
{
    for (size_t k = 0; k < m_tables.size(); ++k) {
        const IntervalTable& t = *m_tables[k];
        if (!m_byTask[k].built()) m_byTask[k].build(t.ownerId, t.start);
        const std::vector<uint32_t>& rows = m_byTask[k].of(pid);
        auto endsBefore = [&](uint32_t i, uint64_t v) { return t.end[i] <= v; };
        auto it = std::lower_bound(rows.begin(), rows.end(), time, endsBefore);
        if (it == rows.end() || t.start[*it] > time) continue;
        const QString name =
            t.state[*it] < t.states.size() ? QString::fromStdString(t.states[t.state[*it]].name) : QString();
        return QObject::tr("%1 for %2").arg(name, timeline::formatDuration(int64_t(t.end[*it] - t.start[*it])));
    }
    return {};
}

void PluginMarks::setSession(const TraceSession* session)
{
    m_tables.clear();
    m_byTask.clear();
    if (!session) return;
    for (const PluginTables& tables : session->pluginTables)
        for (const InstantTable& t : tables.instants)
            if (t.owner == RowOwner::Task) m_tables.push_back(&t);
    m_byTask.resize(m_tables.size());
}

void PluginMarks::paint(QPainter& p, int32_t pid, const QRect& row, timeline::TimeRange range)
{
    const int w = row.width();
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x30, 0x30, 0x40));
    for (size_t k = 0; k < m_tables.size(); ++k) {
        const InstantTable& t = *m_tables[k];
        if (!m_byTask[k].built()) m_byTask[k].build(t.ownerId, t.time);
        const std::vector<uint32_t>& rows = m_byTask[k].of(pid);
        auto before = [&](uint32_t i, uint64_t v) { return t.time[i] < v; };
        auto it = std::lower_bound(rows.begin(), rows.end(), range.start, before);
        while (it != rows.end() && t.time[*it] < range.end) {
            const int x = int(timeline::timeToX(t.time[*it], range, w));
            const QPointF tip(row.left() + x + 0.5, row.top() + 6);
            const QPointF triangle[] = {tip, tip + QPointF(-3.5, -6), tip + QPointF(3.5, -6)};
            p.drawPolygon(triangle, 3);
            it = std::lower_bound(it + 1, rows.end(), timeline::xToTime(x + 4, range, w), before);
        }
    }
    p.restore();
}

QString PluginMarks::describe(int32_t pid, uint64_t time, uint64_t slack)
{
    QStringList names;
    for (size_t k = 0; k < m_tables.size(); ++k) {
        const InstantTable& t = *m_tables[k];
        if (!m_byTask[k].built()) m_byTask[k].build(t.ownerId, t.time);
        const std::vector<uint32_t>& rows = m_byTask[k].of(pid);
        auto before = [&](uint32_t i, uint64_t v) { return t.time[i] < v; };
        for (auto it = std::lower_bound(rows.begin(), rows.end(), time > slack ? time - slack : 0, before);
             it != rows.end() && t.time[*it] <= time + slack && names.size() < 4; ++it)
            if (t.label[*it] < t.labels.size()) names << QString::fromStdString(t.labels[t.label[*it]]);
    }
    names.removeDuplicates();
    return names.join(QStringLiteral(", "));
}

void PluginFlows::setSession(const TraceSession* session)
{
    m_tables.clear();
    if (!session) return;
    for (const PluginTables& tables : session->pluginTables)
        for (const FlowTable& f : tables.flows) {
            if (f.owner != RowOwner::Task) continue;
            Table t{&f, {}};
            t.byEnd.resize(f.size());
            for (uint32_t i = 0; i < t.byEnd.size(); ++i) t.byEnd[i] = i;
            auto byEnd = [&](uint32_t a, uint32_t b) { return f.toTime[a] < f.toTime[b]; };
            if (!std::is_sorted(t.byEnd.begin(), t.byEnd.end(), byEnd))
                std::stable_sort(t.byEnd.begin(), t.byEnd.end(), byEnd);
            m_tables.push_back(std::move(t));
        }
}

size_t PluginFlows::countIn(timeline::TimeRange range) const
{
    size_t n = 0;
    for (const Table& t : m_tables) {
        auto endsBefore = [&](uint32_t i, uint64_t v) { return t.flows->toTime[i] < v; };
        const auto from = std::lower_bound(t.byEnd.begin(), t.byEnd.end(), range.start, endsBefore);
        const auto to = std::lower_bound(from, t.byEnd.end(), range.end, endsBefore);
        n += size_t(to - from);
    }
    return n;
}

size_t PluginFlows::paint(QPainter& p, timeline::TimeRange range, int left, int width, const RowCentre& centre,
                          std::optional<int32_t> onlyPid, const QColor& color)
{
    size_t drawn = 0;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const Table& t : m_tables) {
        const FlowTable& f = *t.flows;
        auto endsBefore = [&](uint32_t i, uint64_t v) { return f.toTime[i] < v; };
        for (auto it = std::lower_bound(t.byEnd.begin(), t.byEnd.end(), range.start, endsBefore);
             it != t.byEnd.end() && f.toTime[*it] < range.end; ++it) {
            const uint32_t i = *it;
            if (onlyPid && f.toOwner[i] != *onlyPid && f.fromOwner[i] != *onlyPid) continue;
            const std::optional<int> toY = centre(f.toOwner[i]);
            if (!toY) continue;
            const double x1 = left + timeline::timeToX(f.toTime[i], range, width);
            const double x0 = left + std::max(-1.0, timeline::timeToX(f.fromTime[i], range, width));
            const std::optional<int> fromY = centre(f.fromOwner[i]);
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

} // namespace ringside
