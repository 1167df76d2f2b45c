// SPDX-License-Identifier: GPL-2.0-or-later
#include "mainwindow.h"

#include "calltree/calltreepane.h"
#include "capture/capturecontroller.h"
#include "capture/livecapture.h"
#include "details/healthpane.h"
#include "filters/filtercontroller.h"
#include "filters/filterpanel.h"
#include "latency/latencypane.h"
#include "layout/panelayout.h"
#include "plugins/pluginstatspane.h"
#include "query/querypane.h"
#include "status/windowstatus.h"
#include "table/eventspane.h"
#include "table/eventtablemodel.h"
#include "table/eventtableview.h"
#include "table/searchbar.h"
#include "timeline/timelinekeys.h"
#include "timeline/timelinewidget.h"
#include "widgets/focusframe.h"
#include "widgets/focusring.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QSvgGenerator>

namespace ringside {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setAcceptDrops(true);
    setWindowTitle(tr("Ringside"));
    // The window is the workspace's first observer: its panes point at the active recording
    // before the controllers and menus hear of it. The timeline draws every recording: it
    // lets go of them before they go.
    connect(&m_workspace, &Workspace::recordingsAboutToGo, this, [this] { m_timeline->setSession(nullptr); });
    connect(&m_workspace, &Workspace::activeChanged, this, &MainWindow::activate);
    connect(&m_workspace, &Workspace::recordingsChanged, this, &MainWindow::recordingAppended);
    connect(&m_workspace, &Workspace::analysesUpdated, this, &MainWindow::analysesUpdated);
    connect(&m_workspace, &Workspace::tasksKnown, this, &MainWindow::tasksKnown);
    connect(&m_workspace, &Workspace::tablesFinished, this, &MainWindow::tablesFinished);
    connect(&m_workspace, &Workspace::statisticsUpdated, this, [this](const TraceSession* session) {
        if (session == activeSession().get()) m_pluginStats->refresh();
        m_status->updateAnalyses();
    });
    connect(&m_workspace, &Workspace::analysesProgress, this, [this] { m_status->updateAnalyses(); });

    m_layout = new PaneLayout(this);
    m_timeline = new TimelineWidget(&m_view, this);
    // The timeline is the window; the panes are tabs of one area below it.
    // Framed while it has the keys: after Escape from a menu, letters move the view.
    setCentralWidget(new FocusFrame(m_timeline, this));
    createPanes();
    new FocusRing(this); // ... and so is the list, table or tree that has them
    m_status = new WindowStatus(statusBar(), m_workspace, m_pluginStats, m_pluginDock, m_healthDock);
    connect(m_timeline, &TimelineWidget::notice, m_status, &WindowStatus::sayNotice);

    buildMenus();
    addPaneActions();
    connectLoads();

    connect(&m_view, &ViewState::selectionChanged, this, &MainWindow::onSelectionChanged);
    connect(m_timeline, &TimelineWidget::recordingActivated, this, &MainWindow::setActiveRecording);
    connect(m_timeline, &TimelineWidget::inactiveGroupFolded, &m_workspace, &Workspace::foldInactiveGroup);
    m_layout->restore();
    m_status->updateRange();
    new TimelineKeys(this, m_timeline, [this] { return activeSession() != nullptr; });
}

EventTableView* MainWindow::table()
{
    return m_events->table();
}
SearchBar* MainWindow::searchBar()
{
    return m_events->search();
}
EventTableModel* MainWindow::tableModel()
{
    return m_events->model();
}

void MainWindow::createPanes()
{
    m_events = new EventsPane(&m_view, this);
    connect(m_events, &EventsPane::recordingChosen, this, [this](size_t index) { setActiveRecording(index); });
    m_filters = new FilterPanel(this);
    m_filtering = new FilterController(m_workspace, m_filters, m_events->model(), m_timeline, this);
    m_events->setFilterBar(m_filtering->bar());
    connect(m_filtering, &FilterController::applied, this, &MainWindow::filterApplied);
    connect(m_filtering, &FilterController::selectionKept, this, &MainWindow::onSelectionChanged);
    m_eventsDock = m_layout->addPane(tr("Events"), "eventsDock", m_events);

    m_health = new HealthPane(this);
    m_healthDock = m_layout->addPane(tr("Trace health"), "healthDock", m_health);
    m_healthDock->hide();

    // The plugins' statistics, shown when a plugin found failed system calls.
    m_pluginStats = new PluginStatsPane(this);
    m_pluginDock = m_layout->addPane(tr("Plugin statistics"), "pluginStatsDock", m_pluginStats);
    m_pluginDock->hide();
    connect(m_pluginStats, &PluginStatsPane::jumpRequested, &m_workspace, &Workspace::goToEvent);
    connect(m_pluginStats, &PluginStatsPane::notesChanged, this,
            [this] { m_health->setNotes(m_pluginStats->notes()); });
    connect(m_health, &HealthPane::noteActivated, this, [this](const QString& plugin, const QString& table) {
        m_pluginDock->show();
        m_pluginDock->raise();
        m_pluginStats->showTable(plugin, table);
    });

    // The function_graph call trees, shown when a recording has calls.
    m_calls = new CallTreePane(&m_view, this);
    m_callDock = m_layout->addPane(tr("Call trees"), "callTreeDock", m_calls);
    m_callDock->hide();
    connect(m_calls, &CallTreePane::filterRequested, m_filtering, &FilterController::requestExpression);

    // SQL over the recording, its results as tracks.
    m_query = new QueryPane(&m_view, this);
    m_queryDock = m_layout->addPane(tr("Query"), "queryDock", m_query);
    m_queryDock->hide();
    connect(m_query, &QueryPane::jumpRequested, &m_workspace, &Workspace::goToEvent);
    connect(m_query, &QueryPane::tracksChanged, m_timeline, &TimelineWidget::tracksChanged);
    connect(m_query, &QueryPane::tracksMaking, m_timeline, &TimelineWidget::setQueryTracksMaking);

    // Latency between two events (Analysis > Latency…); its tracks are query tracks.
    m_latency = new LatencyPane(&m_view, this);
    m_latencyDock = m_layout->addPane(tr("Latency"), "latencyDock", m_latency);
    m_latencyDock->hide();
    connect(m_latency, &LatencyPane::jumpRequested, &m_workspace, &Workspace::goToEvent);
    connect(m_latency, &LatencyPane::trackRequested, this, [this](const QString& name, const QString& sql) {
        m_view.addQueryTrack({name, sql});
    });

    m_filterDock = m_layout->addSidePane(tr("Filters"), "filterDock", m_filters);
}

void MainWindow::addPaneActions()
{
    auto* find = new QAction(tr("Find in Table"), this);
    find->setObjectName("findAction");
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, this, [this] {
        m_events->search()->edit()->setFocus();
        m_events->search()->edit()->selectAll();
    });
    auto addPane = [this](QDockWidget* dock, const char* key, const char* name) {
        dock->toggleViewAction()->setShortcut(QKeySequence(tr(key)));
        dock->toggleViewAction()->setObjectName(name);
        m_viewMenu->addAction(dock->toggleViewAction());
        // A pane opened by its key takes the keys that follow (typed SQL went to the timeline
        // and panned it): its focus proxy (the Query pane's editor), else its first field.
        connect(dock->toggleViewAction(), &QAction::triggered, dock, [dock](bool shown) {
            if (!shown) return;
            dock->raise();
            QWidget* pane = dock->widget();
            if (pane->focusProxy()) return pane->setFocus(Qt::ShortcutFocusReason);
            for (QWidget* child : pane->findChildren<QWidget*>())
                if ((child->focusPolicy() & Qt::TabFocus) && child->isVisibleTo(pane) && child->isEnabled())
                    return child->setFocus(Qt::ShortcutFocusReason);
        });
    };
    addPane(m_healthDock, "Ctrl+H", "showHealthAction");
    m_viewMenu->addAction(find);
    addPane(m_filterDock, "Ctrl+Shift+F", "showFiltersAction");
    addPane(m_eventsDock, "Ctrl+Shift+E", "showEventsAction");
    addPane(m_callDock, "Ctrl+Shift+T", "showCallTreesAction");
    addPane(m_pluginDock, "Ctrl+Shift+P", "showPluginStatsAction");
    addPane(m_queryDock, "Ctrl+Shift+Q", "showQueryAction");
    addPane(m_latencyDock, "Ctrl+Shift+L", "showLatencyAction");
    auto* plugins = new QAction(tr("Plugins…"), this);
    plugins->setObjectName("pluginsAction");
    connect(plugins, &QAction::triggered, this, &MainWindow::showPluginsDialog);
    m_viewMenu->addAction(plugins);
    m_layout->addActions(m_viewMenu);
}

MainWindow::~MainWindow()
{
    // The docks are hidden after this body, as the window's children go: they say so to no one.
    disconnect(m_pluginDock, nullptr, m_status, nullptr);
    // The views let go of the recordings before the window's members (which own them) go:
    // their workers may still read them (the timeline's call lanes, the call trees, a search),
    // and the tables' headers are asked for as the window closes its children.
    releaseSessionViews();
    m_calls->setSession(nullptr);
    m_query->setSession(nullptr);
    m_timeline->setSession(nullptr);
}

void MainWindow::releaseSessionViews()
{
    m_events->setSession(nullptr);
    m_health->setSession(nullptr);
    m_pluginStats->setSession(nullptr);
    m_query->setSession(nullptr);
    m_latency->setSession(nullptr);
    m_filtering->release();
    m_filters->setSession(nullptr);
}

void MainWindow::analysesUpdated(const TraceSession* session)
{
    m_timeline->tablesGrew();
    if (session == activeSession().get()) {
        m_pluginStats->refresh();
        m_latency->recordingGrew();
        m_events->model()->taskNamesChanged(); // names the events gave tasks the saved comms lacked
        m_filtering->refreshCounts();
        m_events->refreshDetails();
    }
    m_status->updateAnalyses();
}

void MainWindow::tasksKnown(const TraceSession* session)
{
    if (session != activeSession().get()) return;
    m_events->model()->taskNamesChanged();
    m_events->refreshDetails();
    m_timeline->update();       // the names on the CPU rows
    m_filtering->refreshCounts(true); // ... and in the task list ("<...>" until now)
}

void MainWindow::tablesFinished(const TraceSession* session)
{
    // Every task is named by its events now: the task list is counted again, whenever it last
    // was (this stands in for the last batch's update).
    m_filtering->refreshCounts(true);
    analysesUpdated(session);
    if (session != activeSession().get()) return;
    // The call trees read the calls once they are all in; a recording with calls shows them
    // (its own kind of view).
    m_calls->setSession(activeSession());
    m_query->setSession(activeSession());
    m_latency->setSession(activeSession());
    m_latency->recordingGrew();
    if (!session->isCapture &&
        (session->trace->callSlices().available() || session->trace->functionCalls().available())) {
        m_callDock->setVisible(true);
        m_callDock->raise();
    }
    // A function_graph recording's CPU rows show the calls run there, a lane per depth (the
    // row's menu hides them), unless the view already says which rows do (a session's).
    const CallSlices& calls = session->trace->callSlices();
    if (!session->isCapture && calls.available() && m_view.callCpuRows().isEmpty() && m_view.callTaskRows().isEmpty()) {
        std::vector<bool> ran(session->store().streamCount(), false);
        for (size_t i = 0; i < calls.size(); ++i)
            if (calls.stream(i).value < ran.size()) ran[calls.stream(i).value] = true;
        for (size_t s = 0; s < ran.size(); ++s)
            if (ran[s]) m_view.setCpuShowsCalls(StreamId(uint16_t(s)), true);
    }
}

void MainWindow::recordingAppended()
{
    const QString name = QFileInfo(recordings().at(recordings().size() - 1)->path).fileName();
    m_view.setFullRange(recordings().fullRange());
    m_timeline->setRecordings(recordings(), activeRecording());
    updateRecordingBox();
    // What the pairing did (or why the clocks cannot be compared), where the user looks.
    const QStringList notes = recordings().notes();
    for (const QString& note : notes) qInfo("ringside: %s", qPrintable(note));
    m_status->say(notes.isEmpty() ? tr("%1 appended").arg(name) : tr("%1 appended: %2").arg(name, notes.join(" · ")),
                  30000);
    m_status->updateRange();
}

void MainWindow::setActiveRecording(size_t index, std::optional<EventRef> select, int32_t addTaskPid)
{
    if (index >= recordings().size()) return;
    if (index != activeRecording()) {
        const auto visible = m_view.visibleRange();
        m_workspace.setActive(index); // activate(index, false)
        if (const std::optional<ViewSnapshot>& stashed = m_workspace.stashed(index)) {
            ViewSnapshot view = *stashed;
            view.full = recordings().fullRange();
            view.visible = visible;
            // The timeline stays where it is: the recording's old selection does not pan it.
            m_switchingRecording = true;
            restoreView(view);
            m_switchingRecording = false;
        } else {
            m_view.setVisibleRange(visible, false);
        }
    }
    if (select) m_view.select(*select);
    if (addTaskPid > 0) m_view.addTaskRow(addTaskPid);
}

void MainWindow::restoreViews(std::vector<std::optional<ViewSnapshot>> views, size_t active)
{
    if (recordings().empty()) return;
    views.resize(recordings().size());
    for (auto& view : views)
        if (view) view->full = recordings().fullRange();
    if (active >= recordings().size()) active = 0;
    m_workspace.setActive(active);
    m_workspace.setStashed(views);
    // The other recordings' folded groups show as their views have them.
    for (size_t r = 0; r < views.size(); ++r) {
        if (r == active || !views[r]) continue;
        for (uint16_t b = 0; b < recordings().at(r)->store().buffers().size(); ++b)
            m_timeline->rows().setCollapsed(r, b, views[r]->collapsedBuffers.contains(b));
    }
    if (views[active]) restoreView(*views[active]);
}

void MainWindow::updateRecordingBox()
{
    m_events->showRecordings(recordings(), activeRecording());
    QStringList names;
    for (size_t i = 0; i < recordings().size(); ++i) names << recordings().name(i);
    setWindowTitle(activeSession()->isSample ? tr("%1 (sample recording) — Ringside").arg(names.join(", "))
                                             : tr("%1 — Ringside").arg(names.join(", ")));
}

void MainWindow::activate(size_t, bool opened)
{
    // Views drop their pointers into the old session before it goes.
    releaseSessionViews();
    const TraceSession& session = *activeSession();
    // The timeline first: the reset's signals are for the recording now active.
    m_timeline->setRecordings(recordings(), activeRecording());
    m_view.reset(recordings().fullRange());
    m_events->setSession(activeSession());
    // A store that grows: its diagnostics are the writer's until it ends (captureEnded,
    // loadComplete fill them in then); the filter lists follow what arrives (captureGrew).
    const bool growing = session.growing();
    m_health->setSession(growing ? nullptr : &session);
    m_status->showLoadWarnings(growing ? nullptr : &session.store().diagnostics());
    if (opened && !session.isCapture) m_status->setCaptureStatus(QString());
    m_filters->setSession(&session);
    // The analyses' tables fill in as they come (analysesUpdated); no pane opens unasked.
    m_pluginStats->setSession(&session);
    const bool analysed = session.trace->analysesFinished();
    m_calls->setSession(analysed ? activeSession() : nullptr);
    m_query->setSession(analysed ? activeSession() : nullptr);
    m_latency->setSession(analysed || session.isCapture ? activeSession() : nullptr); // a capture's as it grows
    const bool calls =
        analysed && (session.trace->callSlices().available() || session.trace->functionCalls().available());
    // The keys a recording is read with (W/S, A/D) go to the timeline, not to a filter field
    // that had the focus first.
    if (opened) m_timeline->setFocus();
    if (opened && !session.isCapture && analysed) {
        m_callDock->setVisible(calls);
        if (calls) m_callDock->raise();
    }
    m_status->updateAnalyses();
    updateRecordingBox();
    m_status->updateRange();
}

bool MainWindow::saveWindowImage(const QString& path)
{
    if (!path.endsWith(".svg", Qt::CaseInsensitive)) return grab().save(path);
    // Widgets paint onto the SVG as shapes and text; the timeline draws its rows there too.
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size());
    svg.setViewBox(rect());
    svg.setTitle(windowTitle());
    QPainter p;
    if (!p.begin(&svg)) return false;
    render(&p);
    return p.end();
}

void MainWindow::showOnLoad(std::optional<std::pair<double, double>> seconds, long long row)
{
    if (!activeSession()) return;
    if (row >= 0 && row < m_events->model()->rowCount()) m_events->table()->selectRow(int(row));
    if (seconds) m_view.setVisibleRange({uint64_t(seconds->first * 1e9), uint64_t(seconds->second * 1e9)});
}

void MainWindow::onSelectionChanged()
{
    m_status->dropNotice();
    m_events->followSelection();
    auto selection = m_view.selection();
    if (!selection || !activeSession()) return;
    // The timeline moves to an event outside the visible range, keeping the zoom.
    if (m_switchingRecording) return;
    const uint64_t t = activeSession()->store().timestamp(*selection);
    const auto range = m_view.visibleRange();
    if (!range.contains(t)) {
        const uint64_t half = range.span() / 2;
        const uint64_t start = t > half ? t - half : 0;
        m_view.setVisibleRange(timeline::pan({start, start + range.span()}, 0, m_view.fullRange()));
    }
}

void MainWindow::restoreView(const ViewSnapshot& snapshot)
{
    m_filters->setSpec(snapshot.filter);
    m_view.restore(snapshot);
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (!m_captures->confirmDiscard([this] { close(); })) return e->ignore();
    m_layout->save();
    QMainWindow::closeEvent(e);
}

} // namespace ringside
