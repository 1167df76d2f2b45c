// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/ids.h"
#include "timelinemath.h"

#include <QObject>
#include <QVector>

#include <optional>

namespace ringside {

// The one view-state object the timeline, the ruler, the table and the details pane observe:
// the visible time range with its zoom history, the selected event with its history, and the
// markers A and B. Lives on the GUI thread.
class ViewState : public QObject {
    Q_OBJECT
public:
    using TimeRange = timeline::TimeRange;

    explicit ViewState(QObject* parent = nullptr) : QObject(parent) {}

    void reset(const TimeRange& full);
    const TimeRange& fullRange() const { return m_full; }
    const TimeRange& visibleRange() const { return m_visible; }

    // Changes the visible range; `remember` puts the previous one on the zoom history.
    void setVisibleRange(TimeRange range, bool remember = true);
    void zoomToFit() { setVisibleRange(m_full); }
    bool canZoomBack() const { return !m_zoomBack.isEmpty(); }
    bool canZoomForward() const { return !m_zoomForward.isEmpty(); }
    void zoomBack();
    void zoomForward();

    std::optional<EventRef> selection() const { return m_selection; }
    void select(EventRef event);
    void clearSelection();
    bool canSelectBack() const { return !m_selectBack.isEmpty(); }
    bool canSelectForward() const { return !m_selectForward.isEmpty(); }
    void selectBack();
    void selectForward();

    std::optional<uint64_t> markerA() const { return m_markerA; }
    std::optional<uint64_t> markerB() const { return m_markerB; }
    void setMarkerA(uint64_t ts);
    void setMarkerB(uint64_t ts);
    void clearMarkers();
    // B - A, when both are set.
    std::optional<int64_t> markerDelta() const;
    void zoomToMarkers();

    // The time ruler's labels may count from a chosen origin instead of the trace clock.
    std::optional<uint64_t> timeOrigin() const { return m_origin; }
    void setTimeOrigin(std::optional<uint64_t> origin);

signals:
    void visibleRangeChanged();
    void selectionChanged();
    void markersChanged();
    void historyChanged();
    void timeOriginChanged();

private:
    void selectInternal(std::optional<EventRef> event);

    TimeRange m_full;
    TimeRange m_visible;
    QVector<TimeRange> m_zoomBack, m_zoomForward;
    std::optional<EventRef> m_selection;
    QVector<EventRef> m_selectBack, m_selectForward;
    std::optional<uint64_t> m_markerA, m_markerB, m_origin;
};

} // namespace ringside
