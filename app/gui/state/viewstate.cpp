// SPDX-License-Identifier: GPL-2.0-or-later
#include "state/viewstate.h"

#include <algorithm>
#include <tuple>

namespace ringside {

void ViewState::reset(const TimeRange& full)
{
    m_full = full;
    if (m_full.end <= m_full.start) m_full.end = m_full.start + 1;
    m_visible = m_full;
    m_zoomBack.clear();
    m_zoomForward.clear();
    m_selection.reset();
    m_call.reset();
    m_selectBack.clear();
    m_selectForward.clear();
    m_markerA.reset();
    m_markerB.reset();
    m_markerHistory.clear();
    m_origin.reset();
    m_filter = FilterSpec();
    m_taskRows.clear();
    m_collapsed.clear();
    m_callTaskRows.clear();
    m_callCpuRows.clear();
    m_queryText.clear();
    m_queryHistory.clear();
    m_queryTracks.clear();
    m_latencies.clear();
    emitAll();
}

void ViewState::setFullRange(TimeRange full)
{
    if (full.end <= full.start) full.end = full.start + 1;
    if (full == m_full) return;
    const bool whole = m_visible == m_full;
    m_full = full;
    if (whole) m_visible = full;
    emit visibleRangeChanged();
}

void ViewState::emitAll()
{
    emit filterChanged();
    emit taskRowsChanged();
    emit collapsedChanged();
    emit callRowsChanged();
    emit visibleRangeChanged();
    emit selectionChanged();
    emit markersChanged();
    emit historyChanged();
    emit timeOriginChanged();
    emit queryChanged();
    emit queryTracksChanged();
    emit latenciesChanged();
}

bool ViewSnapshot::operator==(const ViewSnapshot& o) const
{
    return full == o.full && visible == o.visible && zoomBack == o.zoomBack && zoomForward == o.zoomForward &&
           selection == o.selection && selectedCall == o.selectedCall && selectBack == o.selectBack &&
           selectForward == o.selectForward && markerA == o.markerA && markerB == o.markerB && origin == o.origin &&
           filter.hiddenStreams == o.filter.hiddenStreams && filter.hiddenPids == o.filter.hiddenPids &&
           filter.hiddenTypes == o.filter.hiddenTypes && filter.expression == o.filter.expression &&
           taskRows == o.taskRows && collapsedBuffers == o.collapsedBuffers && callTaskRows == o.callTaskRows &&
           callCpuRows == o.callCpuRows && queryText == o.queryText && queryHistory == o.queryHistory &&
           queryTracks == o.queryTracks && latencies == o.latencies;
}

ViewSnapshot ViewState::snapshot() const
{
    return {m_full,          m_visible,     m_zoomBack,  m_zoomForward,  m_selection,   m_call,     m_selectBack,
            m_selectForward, m_markerA,     m_markerB,   m_origin,       m_filter,      m_taskRows, m_collapsed,
            m_callTaskRows,  m_callCpuRows, m_queryText, m_queryHistory, m_queryTracks, m_latencies};
}

void ViewState::restore(const ViewSnapshot& s)
{
    m_full = s.full;
    if (m_full.end <= m_full.start) m_full.end = m_full.start + 1;
    m_visible = s.visible;
    m_zoomBack = s.zoomBack;
    m_zoomForward = s.zoomForward;
    m_selection = s.selection;
    m_call = s.selectedCall;
    m_selectBack = s.selectBack;
    m_selectForward = s.selectForward;
    m_markerA = s.markerA;
    m_markerB = s.markerB;
    m_markerHistory.clear(); // another recording's view: its markers are its own
    m_origin = s.origin;
    m_filter = s.filter;
    m_taskRows = s.taskRows;
    m_collapsed = s.collapsedBuffers;
    std::sort(m_collapsed.begin(), m_collapsed.end());
    m_callTaskRows = s.callTaskRows;
    m_callCpuRows = s.callCpuRows;
    m_queryText = s.queryText;
    m_queryHistory = s.queryHistory;
    m_queryTracks = s.queryTracks;
    m_latencies = s.latencies;
    emitAll();
}

void ViewState::setFilter(FilterSpec filter)
{
    m_filter = std::move(filter);
    emit filterChanged();
}

void ViewState::addTaskRows(const QVector<int32_t>& pids)
{
    bool changed = false;
    for (int32_t pid : pids)
        if (!m_taskRows.contains(pid)) m_taskRows.push_back(pid), changed = true;
    if (changed) emit taskRowsChanged();
}

void ViewState::removeTaskRow(int32_t pid)
{
    if (!m_taskRows.removeAll(pid)) return;
    if (m_callTaskRows.removeAll(pid)) emit callRowsChanged();
    emit taskRowsChanged();
}

void ViewState::setTaskShowsCalls(int32_t pid, bool show)
{
    if (show == taskShowsCalls(pid)) return;
    if (show) {
        addTaskRow(pid);
        m_callTaskRows.push_back(pid);
    } else {
        m_callTaskRows.removeAll(pid);
    }
    emit callRowsChanged();
}

void ViewState::setCpuShowsCalls(StreamId stream, bool show)
{
    if (show == cpuShowsCalls(stream)) return;
    if (show)
        m_callCpuRows.push_back(stream.value);
    else
        m_callCpuRows.removeAll(stream.value);
    emit callRowsChanged();
}

void ViewState::setCollapsed(uint16_t buffer, bool collapsed)
{
    if (collapsed == isCollapsed(buffer)) return;
    if (collapsed) {
        m_collapsed.insert(std::lower_bound(m_collapsed.begin(), m_collapsed.end(), buffer), buffer);
    } else {
        m_collapsed.removeAll(buffer);
    }
    emit collapsedChanged();
}

void ViewState::setVisibleRange(TimeRange range, bool remember)
{
    range.start = std::clamp(range.start, m_full.start, m_full.end);
    range.end = std::clamp(range.end, m_full.start, m_full.end);
    if (range.end <= range.start) range.end = std::min(m_full.end, range.start + 1);
    if (range.end <= range.start) range.start = range.end - 1;
    if (range == m_visible) return;
    if (remember) {
        m_zoomBack.push_back(m_visible);
        m_zoomForward.clear();
        emit historyChanged();
    }
    m_visible = range;
    emit visibleRangeChanged();
}

void ViewState::zoomBack()
{
    if (m_zoomBack.isEmpty()) return;
    m_zoomForward.push_back(m_visible);
    m_visible = m_zoomBack.takeLast();
    emit visibleRangeChanged();
    emit historyChanged();
}

void ViewState::zoomForward()
{
    if (m_zoomForward.isEmpty()) return;
    m_zoomBack.push_back(m_visible);
    m_visible = m_zoomForward.takeLast();
    emit visibleRangeChanged();
    emit historyChanged();
}

void ViewState::selectInternal(std::optional<EventRef> event, std::optional<uint32_t> call)
{
    m_selection = event;
    m_call = call;
    emit selectionChanged();
    emit historyChanged();
}

void ViewState::select(EventRef event)
{
    if (m_selection && *m_selection == event && !m_call) return;
    if (m_selection && *m_selection != event) m_selectBack.push_back(*m_selection);
    m_selectForward.clear();
    selectInternal(event);
}

void ViewState::selectCall(uint32_t call, std::optional<EventRef> record)
{
    if (m_call == call) return;
    if (m_selection && record && *m_selection != *record) {
        m_selectBack.push_back(*m_selection);
        m_selectForward.clear();
    }
    selectInternal(record ? record : m_selection, call);
}

void ViewState::clearSelection()
{
    if (!m_selection) return;
    m_selectBack.push_back(*m_selection);
    selectInternal(std::nullopt);
}

void ViewState::selectBack()
{
    if (m_selectBack.isEmpty()) return;
    if (m_selection) m_selectForward.push_back(*m_selection);
    selectInternal(m_selectBack.takeLast());
}

void ViewState::selectForward()
{
    if (m_selectForward.isEmpty()) return;
    if (m_selection) m_selectBack.push_back(*m_selection);
    selectInternal(m_selectForward.takeLast());
}

void ViewState::setMarkerA(uint64_t ts)
{
    m_markerA = ts;
    emit markersChanged();
}

void ViewState::setMarkerB(uint64_t ts)
{
    m_markerB = ts;
    emit markersChanged();
}

void ViewState::setMarkersKeepingPrevious(uint64_t a, uint64_t b)
{
    if (m_markerA != a || m_markerB != b) { // none set is kept too: restoring it clears them
        m_markerHistory.append({m_markerA, m_markerB});
        constexpr int kKept = 50;
        if (m_markerHistory.size() > kKept) m_markerHistory.removeFirst();
    }
    m_markerA = a, m_markerB = b;
    emit markersChanged();
}

void ViewState::restoreMarkers()
{
    if (m_markerHistory.isEmpty()) return;
    std::tie(m_markerA, m_markerB) = m_markerHistory.takeLast();
    emit markersChanged();
}

void ViewState::clearMarkers()
{
    m_markerA.reset();
    m_markerB.reset();
    emit markersChanged();
}

std::optional<int64_t> ViewState::markerDelta() const
{
    if (!m_markerA || !m_markerB) return std::nullopt;
    return static_cast<int64_t>(*m_markerB - *m_markerA);
}

void ViewState::zoomToMarkers()
{
    if (!m_markerA || !m_markerB || *m_markerA == *m_markerB) return;
    // End exclusive: one past the later marker, so both markers stay in view.
    setVisibleRange({std::min(*m_markerA, *m_markerB), std::max(*m_markerA, *m_markerB) + 1});
}

void ViewState::setTimeOrigin(std::optional<uint64_t> origin)
{
    m_origin = origin;
    emit timeOriginChanged();
}

void ViewState::addQueryToHistory(const QString& sql)
{
    const QString text = sql.trimmed();
    if (text.isEmpty()) return;
    m_queryHistory.removeAll(text);
    m_queryHistory.push_back(text);
    while (m_queryHistory.size() > kMaxHistory) m_queryHistory.pop_front();
    emit queryChanged();
}

void ViewState::addQueryTrack(const QueryTrackSpec& track)
{
    m_queryTracks.push_back(track);
    emit queryTracksChanged();
}

void ViewState::addLatency(const PairSpec& spec)
{
    m_latencies.push_back(spec);
    emit latenciesChanged();
}

void ViewState::removeLatency(int index)
{
    if (index < 0 || index >= m_latencies.size()) return;
    m_latencies.removeAt(index);
    emit latenciesChanged();
}

void ViewState::removeQueryTrack(int index)
{
    if (index < 0 || index >= m_queryTracks.size()) return;
    m_queryTracks.removeAt(index);
    emit queryTracksChanged();
}

} // namespace ringside
