// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/pluginslices.h"

#include "calls/calltree.h"

#include <algorithm>

namespace ringside {

void PluginSlices::setSession(const TraceSession* session)
{
    m_tables.clear();
    m_rows.clear();
    m_byTask.clear();
    m_session = session;
    if (!session) return;
    for (const PluginTables& tables : session->pluginTables)
        for (const SliceTable& t : tables.slices)
            if (t.owner == RowOwner::Task) m_tables.push_back(&t);
    m_rows.resize(m_tables.size());
    m_byTask.resize(m_tables.size());
}

const PluginSlices::TaskSlices& PluginSlices::slicesOf(size_t table, int32_t pid)
{
    auto [it, added] = m_byTask[table].try_emplace(pid);
    if (added) {
        const SliceTable& t = *m_tables[table];
        if (!m_rows[table].built()) m_rows[table].build(t.ownerId, t.start);
        TaskSlices& s = it->second;
        s.order = &m_rows[table].of(pid);
        uint64_t end = 0;
        for (uint32_t i : *s.order) {
            s.ends.push_back(end = std::max(end, t.end[i]));
            if (t.flags[i] & SliceTable::kError) s.failed.push_back(i);
        }
    }
    return it->second;
}

void PluginSlices::paint(QPainter& p, int32_t pid, const QRect& band, timeline::TimeRange range)
{
    const int w = band.width();
    const QColor inside(0, 0, 0, 110), failed(0xd0, 0x1c, 0x28);
    for (size_t table = 0; table < m_tables.size(); ++table) {
        const SliceTable& t = *m_tables[table];
        const TaskSlices& s = slicesOf(table, pid);
        // The first slice that may reach into the range, then pixel by pixel: a slice drawn,
        // jump to the first one starting past its pixel.
        size_t k = size_t(std::lower_bound(s.ends.begin(), s.ends.end(), range.start) - s.ends.begin());
        int lastX = -1;
        while (k < s.order->size()) {
            const uint32_t i = (*s.order)[k];
            if (t.start[i] >= range.end) break;
            const int x0 = std::max(0, int(timeline::timeToX(t.start[i], range, w)));
            const int x1 = std::min(w, std::max(x0 + 1, int(timeline::timeToX(t.end[i], range, w))));
            if (x1 > lastX) {
                const int from = std::max(x0, lastX);
                p.fillRect(band.left() + from, band.top(), x1 - from, band.height(), inside);
            }
            lastX = std::max(lastX, x1);
            // Past this pixel: the next slice starting at or after it.
            const uint64_t next = timeline::xToTime(lastX, range, w);
            auto startsBefore = [&](uint32_t a, uint64_t v) { return t.start[a] < v; };
            const size_t jump =
                size_t(std::lower_bound(s.order->begin() + long(k) + 1, s.order->end(), next, startsBefore) -
                       s.order->begin());
            k = jump;
        }
        // Failures over the band, each at least two pixels wide.
        auto startsBefore = [&](uint32_t a, uint64_t v) { return t.start[a] < v; };
        for (auto f = std::lower_bound(s.failed.begin(), s.failed.end(), range.start, startsBefore);
             f != s.failed.end() && t.start[*f] < range.end; ++f) {
            const int x0 = std::max(0, int(timeline::timeToX(t.start[*f], range, w)));
            const int x1 = std::min(w, int(timeline::timeToX(t.end[*f], range, w)));
            p.fillRect(band.left() + x0, band.top() - 3, std::max(2, x1 - x0), band.height() + 3, failed);
        }
    }
}

QString PluginSlices::describe(int32_t pid, uint64_t t, uint64_t slack)
{
    for (size_t table = 0; table < m_tables.size(); ++table) {
        const SliceTable& tab = *m_tables[table];
        const TaskSlices& s = slicesOf(table, pid);
        size_t k = size_t(std::lower_bound(s.ends.begin(), s.ends.end(), t > slack ? t - slack : 0) - s.ends.begin());
        for (; k < s.order->size() && tab.start[(*s.order)[k]] <= t + slack; ++k) {
            const uint32_t i = (*s.order)[k];
            if (tab.end[i] + slack < t) continue;
            QString text = QString::fromStdString(tab.name + ": " + tab.labels[tab.label[i]]);
            if (!tab.valueLabel.empty()) {
                text += QStringLiteral(" (%1 %2 before)")
                            .arg(QString::fromStdString(tab.valueLabel), timeline::formatDuration(tab.value[i]));
            } else if (!(tab.flags[i] & SliceTable::kOpen)) {
                text += QStringLiteral(" = %1").arg(tab.value[i]);
                if (tab.flags[i] & SliceTable::kError)
                    text += QStringLiteral(" (%1)").arg(QString::fromStdString(errnoName(tab.value[i])));
            }
            // The arguments are in the events that began the slice: read when asked, so they
            // cost the load nothing.
            if (m_session) {
                const EventStore& store = m_session->store();
                for (EventRef e : m_session->trace->taskIndex().eventsAt(store, pid, tab.start[i])) {
                    const uint16_t type = store.stream(e.stream).columns.eventType[e.index];
                    text += QStringLiteral("\n    %1: %2")
                                .arg(QString::fromStdString(m_session->formatter->eventName(type)),
                                     QString::fromStdString(m_session->formatter->info(e)));
                }
            }
            return text;
        }
    }
    return {};
}

} // namespace ringside
