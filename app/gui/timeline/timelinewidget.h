// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "query/eventfilter.h"
#include "state/viewstate.h"
#include "timeline/timelinerows.h"
#include "timeline/trackrenderer.h"

#include <QElapsedTimer>
#include <QMap>
#include <QPixmap>
#include <QWidget>

#include <optional>

class QMenu;
class QScrollBar;

namespace ringside {

// The zoomable timeline: a time ruler, one row per CPU of each buffer (which task ran, where
// events are, where events were lost) and the task rows the user added. Rows are drawn from
// binary searches per pixel column, so a frame costs pixels x rows whatever the zoom, into a
// cache keyed on (range, size, rows); selection, markers and hover are painted over it.
//
// Mouse: Ctrl+wheel zooms around the pointer, wheel scrolls the rows, Shift+wheel pans (a
// preference swaps the wheel and Ctrl+wheel, for KernelShark habits); drag
// on the ruler zooms into the dragged range, drag on the rows pans; click selects the nearest
// event, Shift+click sets marker A, Ctrl+click marker B; double-click on a CPU row adds a row
// for the task running there (on its label: the task running at the selection, or else at the
// middle of the view); a click on a buffer header collapses it. A task or CPU row can show its
// function_graph calls below it (the row menu; a flame chart, see TrackRenderer): a click there selects a call,
// a double-click zooms to it. Keys (see handleKey): W/S or
// +/- zoom, A/D or Left/Right pan, 0 fit, Backspace zoom back.
//
// The task rows and collapsed buffers follow the ViewState: the widget changes them there and
// its TimelineRows copies them when the ViewState says so.
class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(ViewState* view, QWidget* parent = nullptr);

    void setSession(const TraceSession* session);
    // Several recordings on one timeline (see TimelineRows): `active` is the one the panes show,
    // whose events are selected, whose task rows and filter are shown. A click on another
    // recording's row asks for it with recordingActivated().
    void setRecordings(const RecordingSet& set, size_t active);
    // The timeline's keys, wherever in the window they were pressed; true when handled.
    bool handleKey(QKeyEvent* e);
    // Draws only the events of `filter` (nullptr: all); hidden CPUs lose their rows.
    void setFilter(std::shared_ptr<const FilterResult> filter, const std::vector<bool>& hiddenStreams);
    TimelineRows& rows() { return m_rows; }
    // The active recording's tables as drawn (tests).
    TrackRenderer& tracks() { return m_tracks; }
    // The lanes' rectangle of the Calls row `index`, in widget coordinates.
    QRect callLanesRect(int index) const;
    // Where a task's row is on screen, for the flows.
    TrackRenderer::RowCentre taskRowCentre() const;
    // The analyses published more: tracks of rows drawn before are drawn again.
    void tablesGrew();
    // The active recording's query tracks changed: its tables are looked up again.
    void tracksChanged();
    // Whether the query tracks' tables are being made, and why those that failed did (by
    // their index in the view): their rows say so meanwhile.
    void setQueryTracksMaking(bool making, QMap<int, QString> problems);
    // Lays out every Calls row's lanes on this thread (the GUI does it on a worker); for tests
    // and benchmarks.
    void layOutCallsNow();
    // The call under a widget point, when a Calls row is there.
    std::optional<TrackRenderer::FlameHit> callAt(QPoint pos);
    // What the call there is, for its tooltip ("" when none).
    QString callToolTip(QPoint pos);

    static constexpr int kRulerHeight = 34;
    static constexpr int kLabelWidth = 150;

    // Left of the rows' scroll bar while it shows.
    // How far the rows are scrolled (content y at the top of the rows' area).
    int scrollY() const { return m_scrollY; }
    int dataWidth() const { return std::max(1, width() - kLabelWidth - m_scrollBarWidth); }
    // Time under a widget x (clamped to the visible range).
    uint64_t timeAtX(int x) const;
    int xOfTime(uint64_t t) const;
    // The event nearest to x in the row at widget y, within `slack` pixels.
    std::optional<EventRef> eventNear(int x, int y, int slack = 6) const;
    // The same in a row of any recording.
    struct RecordingEvent {
        size_t recording = 0;
        EventRef event;
    };
    std::optional<RecordingEvent> anyEventNear(int x, int y, int slack = 6) const;

    // Whether the plain wheel zooms (and Ctrl+wheel scrolls rows) instead of the default.
    void setWheelZooms(bool plainWheelZooms) { m_plainWheelZooms = plainWheelZooms; }
    bool wheelZooms() const { return m_plainWheelZooms; }

    // Milliseconds of the last full (uncached) paint of the rows.
    double lastRenderMs() const { return m_lastRenderMs; }
    // Draws the rows into the cache now, as a paint would; for benchmarks.
    void renderRowsForBenchmark();
    // The timeline as shown (range, rows, selection, markers) to a PNG, or an SVG whose rows
    // are drawn as shapes and text; false with the reason when it cannot be written.
    bool saveImage(const QString& path, QString* error);

signals:
    void taskRowsChanged();
    // A row of another recording than the active one was clicked: show that recording, then
    // select `select` (one of its events) or add a row for its task `addTaskPid` (when > 0).
    void recordingActivated(size_t recording, std::optional<ringside::EventRef> select, int32_t addTaskPid);
    // A group of a recording that is not the active one was folded or unfolded: its view
    // keeps that for when it is active.
    void inactiveGroupFolded(size_t recording, uint16_t buffer, bool collapsed);
    // One line for the status bar: what a click between a task row's events picked (a slice or
    // a state, its ends now the markers A and B), or why a click did nothing.
    void notice(const QString& text);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void leaveEvent(QEvent*) override;
    void contextMenuEvent(QContextMenuEvent*) override;
    bool event(QEvent*) override;

private:
    // A click between a task row's events at time t: the slice or state there (see notice).
    void pickSpan(const TimelineRows::Row& row, uint64_t t);
    // Everything a paint draws; straight onto `p` (an image, an SVG), or from the row cache.
    void paintView(QPainter& p, bool cached);
    void renderRows(QPainter& p);
    void paintCpuRow(QPainter& p, const TimelineRows::Row& row, int top);
    void paintTaskRow(QPainter& p, const TimelineRows::Row& row, int top);
    void paintGuestTaskRow(QPainter& p, const TimelineRows::Row& row, int top);
    // Ticks where the task's events are (those the filter shows, when `filtered`).
    void paintTaskEvents(QPainter& p, const TraceSession& session, TaskId task, bool filtered, int top, int height);
    void install(const TraceSession* session);
    void toggleInactiveGroup(const TimelineRows::Row& row);
    const TraceSession& sessionOf(const TimelineRows::Row& row) const { return *m_rows.session(row); }
    bool isActive(const TimelineRows::Row& row) const { return row.recording == m_rows.activeRecording(); }
    void paintCallsRow(QPainter& p, const TimelineRows::Row& row, int top, int index);
    void paintCountersRow(QPainter& p, const TimelineRows::Row& row, int top);
    void paintQueryTrackRow(QPainter& p, const TimelineRows::Row& row, int top);
    // What a query track's row without slices or a counter of its own says.
    QString queryTrackNote(const TimelineRows::Row& row, const TrackTable* table) const;
    // A click on a query track's row at time t: the slice there, its span between the markers.
    void pickQuerySlice(const TimelineRows::Row& row, uint64_t t);
    // A query track's slice as its tooltip says it, with the task or CPU it belongs to.
    QString querySliceText(const TrackRenderer::SliceHit& hit, const TrackTable& table) const;
    void syncQueryTracks();
    void paintCounterReadouts(QPainter& p);
    void addCounterActions(QMenu& menu, const TimelineRows::Row& row);
    // A Counters row's group and owner (a CPU's stream or a task).
    std::optional<CounterGroup> counterGroupOf(const TimelineRows::Row& row) const;
    static uint32_t counterOwnerOf(const TimelineRows::Row& row);
    void onLanesReady();
    // A Calls row's flame chart: its task's (RowOwner::Task), or its CPU's (the stream).
    std::pair<RowOwner, uint32_t> callsOwner(const TimelineRows::Row& callsRow) const;
    void selectCallAt(QPoint pos);
    void zoomToSpan(uint64_t start, uint64_t end);
    void addCallsActions(QMenu& menu, const TimelineRows::Row& row, QPoint pos);
    void paintRuler(QPainter& p);
    void paintOverlays(QPainter& p);
    void zoomBy(double factor, int anchorX);
    void panByPixels(int dx);
    int contentY(int widgetY) const { return widgetY - kRulerHeight + m_scrollY; }
    void clampScroll();
    void syncRowsFromView();
    // A call selected elsewhere (a call tree's go-to) whose calls row is scrolled out of view:
    // that row is scrolled in.
    void revealSelectedCall();
    timeline::ClockUnit clockUnit() const;
    // The task running on a CPU row when its label is used: at the selection, or else at the
    // middle of the visible range.
    std::pair<int32_t, uint64_t> taskForLabel(const TimelineRows::Row& row) const;
    QString labelToolTip(const TimelineRows::Row& row) const;
    void addProcessRows(int32_t pid);

    ViewState* m_view;
    const TraceSession* m_session = nullptr;
    TimelineRows m_rows;
    TrackRenderer m_tracks;                    // the active recording's tables
    std::vector<TrackRenderer> m_otherTracks;  // every recording's, for their CPU rows
    TrackRenderer& tracksOf(const TimelineRows::Row& row);
    std::shared_ptr<const FilterResult> m_filter;
    int m_filterVersion = 0;
    int m_scrollY = 0;
    // Shown while the rows are taller than the view (the wheel scrolls them too).
    QScrollBar* m_rowScroll = nullptr;
    int m_scrollBarWidth = 0; // its width while shown

    QPixmap m_cache;
    struct CacheKey {
        ViewState::TimeRange range;
        QSize size;
        int scroll = 0;
        int rowsVersion = -1;
        int filterVersion = -1;
        qreal dpr = 1;
        bool operator==(const CacheKey& o) const
        {
            return range == o.range && size == o.size && scroll == o.scroll && rowsVersion == o.rowsVersion &&
                   filterVersion == o.filterVersion && dpr == o.dpr;
        }
    } m_cacheKey;
    double m_lastRenderMs = 0;

    enum class Drag { None, Pan, RulerRange } m_drag = Drag::None;
    QPoint m_pressPos;
    int m_lastDragX = 0;
    bool m_moved = false;
    bool m_ignoreRelease = false; // the release that ends a double-click
    int m_hoverX = -1;
    bool m_plainWheelZooms = false;
    bool m_makingQueryTracks = false;
    int m_shownQueryTracks = 0;
    QMap<int, QString> m_queryTrackProblems;
};

} // namespace ringside
