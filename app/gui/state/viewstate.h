// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "latency/pairspec.h"
#include "query/eventfilter.h"
#include "store/ids.h"
#include "timeline/timelinemath.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace ringside {

// A query's result drawn on the timeline: its name and the SQL that makes it (run again when a
// session brings it back).
struct QueryTrackSpec {
    QString name, sql;
    bool operator==(const QueryTrackSpec&) const = default;
};

// Everything ViewState holds, as a plain value: what a session file saves and restores.
struct ViewSnapshot {
    timeline::TimeRange full, visible;
    QVector<timeline::TimeRange> zoomBack, zoomForward;
    std::optional<EventRef> selection;
    std::optional<uint32_t> selectedCall; // a row of the trace's CallSlices
    QVector<EventRef> selectBack, selectForward;
    std::optional<uint64_t> markerA, markerB, origin;
    FilterSpec filter;
    QVector<int32_t> taskRows;          // in the order the user added them
    QVector<uint16_t> collapsedBuffers; // ascending
    QVector<int32_t> callTaskRows;      // task rows that show their calls
    QVector<uint16_t> callCpuRows;      // streams whose CPU rows show the calls run there
    QString queryText;                  // the Query pane's editor
    QStringList queryHistory;           // the queries run, latest last
    QVector<QueryTrackSpec> queryTracks;
    QVector<PairSpec> latencies; // the Latency pane's analyses, in its tabs' order

    bool operator==(const ViewSnapshot&) const;
};

// The one view-state object every view observes: the filters (FilterSpec, with the expression
// text that is applied), the task rows the user added, the rows that show their calls, the
// collapsed buffers, the visible time range with its zoom history, the selected event (and
// call) with its history, the markers A and B and the time origin. Views change it and follow its signals; they keep no copy of their own.
// snapshot()/restore() turn it into a plain value and back. Lives on the GUI thread.
class ViewState : public QObject {
    Q_OBJECT
public:
    using TimeRange = timeline::TimeRange;

    explicit ViewState(QObject* parent = nullptr) : QObject(parent) {}

    // A new recording: everything back to defaults, the whole of `full` visible.
    void reset(const TimeRange& full);

    ViewSnapshot snapshot() const;
    // Puts every part of `snapshot` back and emits every change signal once.
    void restore(const ViewSnapshot& snapshot);

    // The filter applied (its expression always compiled when it was set).
    const FilterSpec& filter() const { return m_filter; }
    void setFilter(FilterSpec filter);

    const QVector<int32_t>& taskRows() const { return m_taskRows; }
    bool hasTaskRow(int32_t pid) const { return m_taskRows.contains(pid); }
    // Appends the pids not shown yet; one taskRowsChanged for all of them.
    void addTaskRows(const QVector<int32_t>& pids);
    void addTaskRow(int32_t pid) { addTaskRows({pid}); }
    void removeTaskRow(int32_t pid);

    // Rows that show their function_graph calls under them, a lane per depth.
    bool taskShowsCalls(int32_t pid) const { return m_callTaskRows.contains(pid); }
    void setTaskShowsCalls(int32_t pid, bool show);
    bool cpuShowsCalls(StreamId stream) const { return m_callCpuRows.contains(stream.value); }
    void setCpuShowsCalls(StreamId stream, bool show);
    const QVector<int32_t>& callTaskRows() const { return m_callTaskRows; }
    const QVector<uint16_t>& callCpuRows() const { return m_callCpuRows; }

    bool isCollapsed(uint16_t buffer) const { return m_collapsed.contains(buffer); }
    const QVector<uint16_t>& collapsedBuffers() const { return m_collapsed; }
    void setCollapsed(uint16_t buffer, bool collapsed);

    const TimeRange& fullRange() const { return m_full; }
    // A recording appended: the whole range grows; a view of the whole follows it.
    void setFullRange(TimeRange full);
    const TimeRange& visibleRange() const { return m_visible; }

    // Changes the visible range; `remember` puts the previous one on the zoom history.
    void setVisibleRange(TimeRange range, bool remember = true);
    void zoomToFit() { setVisibleRange(m_full); }
    bool canZoomBack() const { return !m_zoomBack.isEmpty(); }
    bool canZoomForward() const { return !m_zoomForward.isEmpty(); }
    void zoomBack();
    void zoomForward();

    std::optional<EventRef> selection() const { return m_selection; }
    // Selecting an event drops the selected call.
    void select(EventRef event);
    // A call (a row of the trace's CallSlices) and the record it came from, when there is one.
    std::optional<uint32_t> selectedCall() const { return m_call; }
    void selectCall(uint32_t call, std::optional<EventRef> record);
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
    // A go-to that marks its target's interval keeps the markers it replaces, latest last:
    // Go > Previous Markers brings them back (a user's measurement is never lost to a jump).
    void setMarkersKeepingPrevious(uint64_t a, uint64_t b);
    bool canRestoreMarkers() const { return !m_markerHistory.isEmpty(); }
    void restoreMarkers();
    // B - A, when both are set.
    std::optional<int64_t> markerDelta() const;
    void zoomToMarkers();

    // The Query pane's text and history, and the query results shown as timeline tracks.
    const QString& queryText() const { return m_queryText; }
    void setQueryText(const QString& text) { m_queryText = text; }
    const QStringList& queryHistory() const { return m_queryHistory; }
    // Puts `sql` last (once) and keeps the latest kMaxHistory.
    void addQueryToHistory(const QString& sql);
    static constexpr int kMaxHistory = 50;
    const QVector<QueryTrackSpec>& queryTracks() const { return m_queryTracks; }
    void addQueryTrack(const QueryTrackSpec& track);
    void removeQueryTrack(int index);
    // The latency analyses shown (the Latency pane's tabs), made again when a session brings
    // them back.
    const QVector<PairSpec>& latencies() const { return m_latencies; }
    void addLatency(const PairSpec& spec);
    void removeLatency(int index);

    // The time ruler's labels may count from a chosen origin instead of the trace clock.
    std::optional<uint64_t> timeOrigin() const { return m_origin; }
    void setTimeOrigin(std::optional<uint64_t> origin);

signals:
    void visibleRangeChanged();
    void selectionChanged();
    void markersChanged();
    void historyChanged();
    void timeOriginChanged();
    void filterChanged();
    void taskRowsChanged();
    void collapsedChanged();
    void callRowsChanged();
    void queryChanged(); // text or history
    void queryTracksChanged();
    void latenciesChanged();

private:
    void emitAll();
    void selectInternal(std::optional<EventRef> event, std::optional<uint32_t> call = std::nullopt);

    TimeRange m_full;
    TimeRange m_visible;
    QVector<TimeRange> m_zoomBack, m_zoomForward;
    std::optional<EventRef> m_selection;
    std::optional<uint32_t> m_call;
    QVector<EventRef> m_selectBack, m_selectForward;
    std::optional<uint64_t> m_markerA, m_markerB, m_origin;
    QVector<std::pair<std::optional<uint64_t>, std::optional<uint64_t>>> m_markerHistory;
    FilterSpec m_filter;
    QVector<int32_t> m_taskRows;
    QVector<uint16_t> m_collapsed;
    QVector<int32_t> m_callTaskRows;
    QVector<uint16_t> m_callCpuRows;
    QString m_queryText;
    QStringList m_queryHistory;
    QVector<QueryTrackSpec> m_queryTracks;
    QVector<PairSpec> m_latencies;
};

} // namespace ringside
