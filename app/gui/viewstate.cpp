// SPDX-License-Identifier: GPL-2.0-or-later
#include "viewstate.h"

#include <algorithm>

namespace ringside {

void ViewState::reset(const TimeRange& full)
{
    m_full = full;
    if (m_full.end <= m_full.start) m_full.end = m_full.start + 1;
    m_visible = m_full;
    m_zoomBack.clear();
    m_zoomForward.clear();
    m_selection.reset();
    m_selectBack.clear();
    m_selectForward.clear();
    m_markerA.reset();
    m_markerB.reset();
    m_origin.reset();
    emit visibleRangeChanged();
    emit selectionChanged();
    emit markersChanged();
    emit historyChanged();
    emit timeOriginChanged();
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

void ViewState::selectInternal(std::optional<EventRef> event)
{
    m_selection = event;
    emit selectionChanged();
    emit historyChanged();
}

void ViewState::select(EventRef event)
{
    if (m_selection && *m_selection == event) return;
    if (m_selection) m_selectBack.push_back(*m_selection);
    m_selectForward.clear();
    selectInternal(event);
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
    setVisibleRange({std::min(*m_markerA, *m_markerB), std::max(*m_markerA, *m_markerB)});
}

void ViewState::setTimeOrigin(std::optional<uint64_t> origin)
{
    m_origin = origin;
    emit timeOriginChanged();
}

} // namespace ringside
