// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/workspace.h"

#include <QMainWindow>
#include <QTimer>

#include <memory>
#include <optional>

class QMenu;
class QDockWidget;

namespace ringside {

class CallTreePane;
class PluginStatsPane;
class LatencyPane;
class QueryPane;
class EventsPane;
class ExportController;
class CaptureController;
class SessionController;
class Diagnostics;
class EventTableView;
class EventTableModel;
class FilterController;
class HealthPane;
class FilterPanel;
class PaneLayout;
class SearchBar;
class TimelineWidget;
class WindowScreenshot;
class WindowStatus;

// The main window: the timeline in the middle, the panes (events table and details, plugin
// statistics, call trees, query, trace health) as tabs of one area below it (PaneLayout), the
// filters on the left (FilterController), the status bar (WindowStatus). The workspace loads
// and analyses the recordings; the window shows them: a failed load leaves the previous
// recording open, and the progress dialog is gone after every load, however it ends. All views
// observe the one ViewState. The timeline's keys work anywhere in the window but in text
// fields (an application event filter). Menus and their main actions carry object names
// ("fileMenu", "viewMenu", "goMenu", "openAction", ...) for tests and scripts to find them by.
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
    // Shows a time range (seconds) and/or selects a table row; for scripted views.
    void showOnLoad(std::optional<std::pair<double, double>> seconds, long long row);
    // Puts a saved view back (filters, task rows, range, selection, markers, ...), as a session
    // file would; the filter panel shows the restored filter.
    void restoreView(const ViewSnapshot& snapshot);

    const TraceSession* session() const { return m_workspace.session().get(); }
    // The recordings, the active one and its view, the loads and analyses: what the panes observe.
    Workspace* workspace() { return &m_workspace; }
    ViewState* viewState() { return &m_view; }
    TimelineWidget* timeline() { return m_timeline; }
    EventTableView* table();
    FilterPanel* filterPanel() { return m_filters; }
    SearchBar* searchBar();
    EventTableModel* tableModel();
    CallTreePane* callTrees() { return m_calls; }
    PluginStatsPane* pluginStats() { return m_pluginStats; }
    QueryPane* queryPane() { return m_query; }
    LatencyPane* latencyPane() { return m_latency; }
    // File > Export Events.
    ExportController* exports() { return m_exports; }
    // File > Save Session / Open Session.
    SessionController* sessions() { return m_sessions; }
    // Capture > New Capture, Stop Capture; File > Save Capture As.
    CaptureController* captures() { return m_captures; }
    // View > Plugins: the dialog; a change of plugins reloads the open recording.
    void showPluginsDialog();

signals:
    void filterApplied();

protected:
    void dragEnterEvent(QDragEnterEvent*) override;
    void dropEvent(QDropEvent*) override;
    void closeEvent(QCloseEvent*) override;

private:
    const std::shared_ptr<TraceSession>& activeSession() const { return m_workspace.session(); }

    // The panes, each a tab of the area below the timeline, and their View menu entries.
    void createPanes();
    void addPaneActions();
    // What the window shows of the loads: their progress and errors (mainwindowfiles.cpp).
    void connectLoads();
    // The capture controller, its menu items and what the window shows of its captures
    // (mainwindowcapture.cpp).
    void createCaptures(QMenu* captureMenu, QMenu* fileMenu);
    void captureGrew();
    void captureEnded();
    // The active recording's store grew (a capture, a recording read while shown): the table,
    // range, timeline and filter counts take in the new rows.
    void showStoreGrowth();
    // ... and it stopped growing: the filter lists, the health pane and the load warnings take
    // in all of it, and a filter applied is applied again.
    void showStoreEnded();
    // A recording shown while it loaded is complete: the views take in its last rows and its
    // diagnostics (mainwindowfiles.cpp).
    void loadComplete(const TraceSession* session);
    void buildMenus();
    // The workspace's recording `index` is active: every pane points at it, its view reset; a
    // recording just `opened` also shows the docks it has something for (calls, failed system
    // calls). The workspace's first observer.
    void activate(size_t index, bool opened);
    // The workspace has one more recording: the timeline's rows and range take it in.
    void recordingAppended();
    // The table, details, health, plugin and filter views drop their session (and the
    // filter job stops).
    void releaseSessionViews();
    // A recording's analyses made more of its tables, named its tasks, finished.
    void analysesUpdated(const TraceSession* session);
    void tasksKnown(const TraceSession* session);
    void tablesFinished(const TraceSession* session);
    void updateRecordingBox();
    void onSelectionChanged();

    Workspace m_workspace;
    ViewState& m_view = m_workspace.view(); // the active recording's
    PaneLayout* m_layout = nullptr;
    WindowStatus* m_status = nullptr;
    FilterController* m_filtering = nullptr;
    TimelineWidget* m_timeline = nullptr;
    EventsPane* m_events = nullptr;
    HealthPane* m_health = nullptr;
    QDockWidget* m_healthDock = nullptr;
    CallTreePane* m_calls = nullptr;
    QDockWidget* m_callDock = nullptr;
    QueryPane* m_query = nullptr;
    QDockWidget* m_queryDock = nullptr;
    LatencyPane* m_latency = nullptr;
    QDockWidget* m_latencyDock = nullptr;
    QDockWidget* m_eventsDock = nullptr;
    QDockWidget* m_filterDock = nullptr;
    PluginStatsPane* m_pluginStats = nullptr;
    QDockWidget* m_pluginDock = nullptr;
    FilterPanel* m_filters = nullptr;
    ExportController* m_exports = nullptr;
    SessionController* m_sessions = nullptr;
    CaptureController* m_captures = nullptr;
    QMenu* m_viewMenu = nullptr;
    WindowScreenshot* m_screenshot = nullptr;
    QTimer* m_loadGrowth = nullptr;    // while the active recording is read
    bool m_switchingRecording = false; // another recording's view is being put back
};

} // namespace ringside
