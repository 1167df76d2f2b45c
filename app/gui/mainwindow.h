// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "filters/filterjob.h"
#include "state/workspace.h"

#include <QElapsedTimer>
#include <QMainWindow>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QMenu;
class QDockWidget;
class QProgressDialog;
class QToolButton;

namespace ringside {

class CallTreePane;
class PluginStatsPane;
class QueryPane;
class DetailsPane;
class ElidedLabel;
class ExportController;
class CaptureController;
class SessionController;
class Diagnostics;
class EventTableView;
class EventTableModel;
class HealthPane;
class FilterPanel;
class SearchBar;
class TimelineWidget;

// The main window: the timeline in the middle, the panes (events table and details, plugin
// statistics, call trees, trace health) as tabs of one area below it, the filters on the left. Opens recordings through LoadJob (off the GUI thread); a failed load leaves the previous
// trace open, and the progress dialog is gone after every load, however it ends. All views
// observe the one ViewState: the filter panel writes its filter there, the FilterJob evaluates
// what is there, and restoreView() puts a saved snapshot back. The timeline's keys work anywhere
// in the window but in text fields (an application event filter). Menus and their main actions
// carry object names ("fileMenu", "viewMenu", "goMenu", "openAction", ...) for tests and
// scripts to find them by.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Replaces what is open.
    void openFile(const QString& path, bool isSample = false);
    // The first of `paths`, then the others appended to it, one after the other.
    void openFiles(const QStringList& paths);
    // Adds a recording to the timeline beside those open (File > Append Recording): its own
    // CPU rows and tasks; a paired guest under its host's vCPU threads. Opens it when none is.
    void appendFile(const QString& path);
    // Which recording the table, details, filters and task rows show; a click on another's
    // event makes it active. The view of the one left is kept for when it is active again.
    void setActiveRecording(size_t index, std::optional<EventRef> select = std::nullopt, int32_t addTaskPid = 0);
    const RecordingSet& recordings() const { return m_workspace.recordings(); }
    // Each recording's view: the active one's as shown, the others' as last left (none for
    // one never shown).
    std::vector<std::optional<ViewSnapshot>> recordingViews() const { return m_workspace.views(); }
    // Puts saved views back, one per recording (as recordingViews() gives them), and shows
    // recording `active` with its view; the filter panel shows its filter.
    void restoreViews(std::vector<std::optional<ViewSnapshot>> views, size_t active);
    size_t activeRecording() const { return m_workspace.active(); }
    // Renders the window to `path` once the current load has finished and quits; for
    // `ringside --screenshot`.
    void screenshotWhenLoaded(const QString& path);
    // The window as a PNG (pixels) or an SVG (shapes and text, the timeline's rows too).
    bool saveWindowImage(const QString& path);
    // File > Export Timeline Image: the timeline as shown, to a PNG or SVG the user names.
    void exportTimelineImage();
    // Shows a time range (seconds) and/or selects a table row; for scripted views.
    void showOnLoad(std::optional<std::pair<double, double>> seconds, long long row);
    // Puts a saved view back (filters, task rows, range, selection, markers, ...), as a session
    // file would; the filter panel shows the restored filter.
    void restoreView(const ViewSnapshot& snapshot);

    const TraceSession* session() const { return m_workspace.session().get(); }
    // The recordings, the active one and its view, the load: what the panes observe.
    Workspace* workspace() { return &m_workspace; }
    ViewState* viewState() { return &m_view; }
    TimelineWidget* timeline() { return m_timeline; }
    EventTableView* table() { return m_table; }
    FilterPanel* filterPanel() { return m_filters; }
    SearchBar* searchBar() { return m_search; }
    EventTableModel* tableModel() { return m_model; }
    CallTreePane* callTrees() { return m_calls; }
    PluginStatsPane* pluginStats() { return m_pluginStats; }
    QueryPane* queryPane() { return m_query; }
    // File > Export Events.
    ExportController* exports() { return m_exports; }
    // File > Save Session / Open Session.
    SessionController* sessions() { return m_sessions; }
    // Capture > New Capture, Stop Capture; File > Save Capture As.
    CaptureController* captures() { return m_captures; }
    // A live capture's session, shown as a recording opened alone.
    void showCapture(std::shared_ptr<TraceSession> session);
    // The live capture published rows: the table gains them, the ranges grow, and the
    // timeline follows the newest events unless the user looks elsewhere.
    void captureGrew();
    void setCaptureStatus(const QString& text);
    // A message in the status bar for `milliseconds`, shortened in its middle when longer than
    // the bar (whole in its tooltip).
    void say(const QString& text, int milliseconds);
    // The live capture ended: the filter panel and trace health list what it holds, and its
    // analyses take the last batch and finish.
    void captureEnded();
    // A capture of a function tracer: its call trees are what its user looks for.
    void showCallTreeDock();
    // View > Plugins: the dialog; a change of plugins reloads the open recording.
    void showPluginsDialog();

signals:
    void filterApplied();

protected:
    // The timeline's keys work anywhere in the window but in text fields.
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent*) override;
    void dropEvent(QDropEvent*) override;
    void closeEvent(QCloseEvent*) override;
    void showEvent(QShowEvent*) override;

private:
    const std::shared_ptr<TraceSession>& activeSession() const { return m_workspace.session(); }

    // ---- The layout (mainwindowlayout.cpp)
    // A pane: a dock, tabbed with the others below the timeline.
    QDockWidget* addPane(const QString& title, const char* objectName, QWidget* widget);
    // Selects `event` of the active recording; with `span`, marks it and shows it.
    void goToEvent(EventRef event, std::optional<std::pair<quint64, quint64>> span);
    // View > Maximize Panes, Reset Layout.
    void addLayoutActions(QMenu* view);
    // The layout last left (settings), else the default (sized when first shown).
    void restoreLayout();
    void saveLayout();
    void applyDefaultSizes();
    void resetLayout();
    // The panes take the window's height but a strip of timeline, or give it back.
    void setPanesMaximized(bool maximized);
    QDockWidget* currentPane() const;

    // The capture controller, its menu items and what the window shows of its captures.
    void createCaptures(QMenu* captureMenu, QMenu* fileMenu);
    void buildMenus();
    // A recording opened alone: it replaces every one open.
    void setSession(std::shared_ptr<TraceSession> session);
    void appendSession(std::shared_ptr<TraceSession> session);
    // The workspace's recording `index` is active: every pane points at it, its view reset; a
    // recording just `opened` also shows the docks it has something for (calls, failed system
    // calls). The workspace's first observer.
    void activate(size_t index, bool opened);
    // The workspace has one more recording: the timeline's rows and range take it in.
    void recordingAppended();
    // The table, details, health, plugin and filter views drop their session (and the
    // filter job stops).
    void releaseSessionViews();
    // After a load: the next file to append, or the screenshot asked for.
    void continueLoading();
    void startLoad(const QString& path, bool isSample);
    // Runs a recording's analyses (a capture's as it grows) and shows their tables as they come.
    void startAnalyses(const std::shared_ptr<TraceSession>& session);
    void analysesUpdated(const TraceSession* session);
    // ---- The status bar (mainwindowstatus.cpp)
    void createStatusBar(QDockWidget* healthDock);
    void updateAnalysisStatus();
    // What the status bar shows beside its message: the markers and the headline while they
    // fit, the mouse hint while there is none.
    void arrangeStatusBar();
    int messageRoomTaken() const;
    // The timeline's last word on a click goes when the selection or the rows change.
    void dropNotice();
    void updateRecordingBox();
    void onSelectionChanged();
    void updateStatus();
    void showLoadWarnings(const Diagnostics& diagnostics);
    void updateRecentMenu();
    void addRecent(const QString& path);
    void copySelectedRows();
    // The filter panel changed: a valid filter replaces the applied one; an expression that does
    // not compile leaves the applied expression in place and shows its error.
    void onFilterPanelChanged();
    // The ViewState's filter changed: evaluate it (FilterJob) and show the result.
    void applyFilters();
    void showFilterResult(std::shared_ptr<FilterResult> result, const FilterSpec& spec);
    std::shared_ptr<FilterExpression> compileExpression(const std::string& text, QString* error);
    void closeProgress();
    timeline::ClockUnit clockUnit() const;

    Workspace m_workspace;
    ViewState& m_view = m_workspace.view(); // the active recording's
    LoadJob& m_load = m_workspace.load();
    QStringList m_pendingAppends;
    bool m_appending = false; // the load running is an append
    QWidget* m_recordingBar = nullptr;
    QComboBox* m_recordingBox = nullptr;
    ElidedLabel* m_recordingNote = nullptr;
    TimelineWidget* m_timeline = nullptr;
    EventTableView* m_table = nullptr;
    EventTableModel* m_model = nullptr;
    DetailsPane* m_details = nullptr;
    HealthPane* m_health = nullptr;
    CallTreePane* m_calls = nullptr;
    QDockWidget* m_callDock = nullptr;
    QueryPane* m_query = nullptr;
    QDockWidget* m_queryDock = nullptr;
    QDockWidget* m_eventsDock = nullptr;
    QDockWidget* m_filterDock = nullptr;
    QByteArray m_defaultLayout;      // the docks as built, for View > Reset Layout
    bool m_sizeOnShow = false;       // no layout remembered: the default sizes once shown
    QByteArray m_unmaximizedLayout;  // the docks before Maximize Panes
    QAction* m_maximizePanes = nullptr;
    PluginStatsPane* m_pluginStats = nullptr;
    QDockWidget* m_pluginDock = nullptr;
    FilterPanel* m_filters = nullptr;
    SearchBar* m_search = nullptr;
    FilterJob m_filterJob;
    FilterSpec m_pendingSpec;
    QWidget* m_filterBar = nullptr;
    QLabel* m_filterLabel = nullptr;
    QProgressDialog* m_progress = nullptr;
    ExportController* m_exports = nullptr;
    SessionController* m_sessions = nullptr;
    CaptureController* m_captures = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    ElidedLabel* m_rangeLabel = nullptr;
    QLabel* m_markerLabel = nullptr;
    QLabel* m_captureLabel = nullptr;
    QLabel* m_analysisLabel = nullptr; // the analyses running, quietly
    QLabel* m_headlineLabel = nullptr; // "12 failed system calls — show"
    class FailureLabel* m_failureLabel = nullptr; // "syscalls stopped — details"
    bool m_headlineWanted = false;     // ... when a message leaves room
    bool m_markersSet = false;         // the marker label shows markers, not the mouse hint
    bool m_noticeShown = false;        // the status bar's message is the timeline's notice
    QToolButton* m_warningsButton = nullptr;
    QString m_screenshotPath;
    bool m_syncingSelection = false;
    bool m_switchingRecording = false; // another recording's view is being put back
    QElapsedTimer m_lastLiveFilter; // a filter over a growing capture is applied again now and then
    QElapsedTimer m_lastFilterCounts; // the filter lists of a growing capture are brought up to date now and then
};

} // namespace ringside
