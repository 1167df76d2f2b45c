// SPDX-License-Identifier: GPL-2.0-or-later
#include "mainwindow.h"

#include "calltree/calltreepane.h"
#include "calltree/flamegraph.h"
#include "capture/capturecontroller.h"
#include "details/detailspane.h"
#include "details/healthpane.h"
#include "exports/exportcontroller.h"
#include "filters/filterpanel.h"
#include "plugins/pluginsdialog.h"
#include "plugins/pluginstatspane.h"
#include "query/querypane.h"
#include "session/sessioncontroller.h"
#include "table/eventtablemodel.h"
#include "table/eventtableview.h"
#include "table/searchbar.h"
#include "timeline/timelinewidget.h"
#include "widgets/elidedlabel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QSvgGenerator>
#include <QTextEdit>
#include <QTimer>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

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

    m_timeline = new TimelineWidget(&m_view, this);
    m_model = new EventTableModel(this);
    m_table = new EventTableView(this);
    m_table->setModel(m_model);
    // Narrow enough that the Info column shows at 1280 pixels wide, the details beside.
    const int widths[] = {56, 36, 118, 96, 50, 0, 110};
    for (int c = 0; c < 7; ++c) m_table->header()->resizeSection(c, widths[c]);
    // Latency's five characters are narrower than its header.
    m_table->header()->resizeSection(
        EventTableModel::Latency,
        fontMetrics().horizontalAdvance(m_model->headerData(EventTableModel::Latency, Qt::Horizontal).toString()) + 16);
    m_details = new DetailsPane(this);

    // Active filters, visible and clearable in one click, above the table.
    m_filterBar = new QWidget(this);
    auto* barLayout = new QHBoxLayout(m_filterBar);
    barLayout->setContentsMargins(6, 2, 6, 2);
    m_filterLabel = new QLabel(m_filterBar);
    auto* clear = new QPushButton(tr("Clear filters"), m_filterBar);
    barLayout->addWidget(m_filterLabel, 1);
    barLayout->addWidget(clear);
    m_filterBar->setAutoFillBackground(true);
    m_filterBar->setBackgroundRole(QPalette::ToolTipBase);
    m_filterBar->hide();
    auto* tableBox = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->setSpacing(0);
    m_search = new SearchBar(m_model, this);
    m_search->setCurrentRowProvider([this] { return m_table->currentRow(); });
    connect(m_search, &SearchBar::rowFound, this, [this](int row) { m_table->selectRow(row); });
    // With several recordings: which one the table, details and filters show.
    m_recordingBar = new QWidget(this);
    auto* recordingLayout = new QHBoxLayout(m_recordingBar);
    recordingLayout->setContentsMargins(6, 2, 6, 2);
    m_recordingBox = new QComboBox(m_recordingBar);
    m_recordingBox->setObjectName("recordingBox");
    // Long file names are elided in the box (the list shows them whole), not let widen the window.
    m_recordingBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_recordingBox->setMinimumContentsLength(24);
    connect(m_recordingBox, &QComboBox::activated, this,
            [this](int index) { setActiveRecording(size_t(std::max(0, index))); });
    recordingLayout->addWidget(new QLabel(tr("Events of"), m_recordingBar));
    recordingLayout->addWidget(m_recordingBox);
    m_recordingNote = new ElidedLabel(m_recordingBar);
    m_recordingNote->setObjectName("recordingNote");
    recordingLayout->addWidget(m_recordingNote, 1);
    m_recordingBar->hide();
    tableLayout->addWidget(m_recordingBar);
    tableLayout->addWidget(m_filterBar);
    tableLayout->addWidget(m_search);
    tableLayout->addWidget(m_table);

    // The timeline is the window; the panes are tabs of one area below it (see mainwindowlayout.cpp).
    setCentralWidget(m_timeline);
    auto* events = new QSplitter(Qt::Horizontal, this);
    events->setObjectName("eventsSplitter");
    events->addWidget(tableBox);
    events->addWidget(m_details);
    events->setStretchFactor(0, 7);
    events->setStretchFactor(1, 3);
    events->setSizes({700, 300});
    m_eventsDock = addPane(tr("Events"), "eventsDock", events);

    m_health = new HealthPane(this);
    QDockWidget* healthDock = addPane(tr("Trace health"), "healthDock", m_health);
    healthDock->hide();

    // The plugins' statistics, shown when a plugin found failed system calls.
    m_pluginStats = new PluginStatsPane(this);
    m_pluginDock = addPane(tr("Plugin statistics"), "pluginStatsDock", m_pluginStats);
    m_pluginDock->hide();
    connect(m_pluginDock, &QDockWidget::visibilityChanged, this, [this] { updateAnalysisStatus(); });
    connect(m_pluginStats, &PluginStatsPane::jumpRequested, this, &MainWindow::goToEvent);

    // The function_graph call trees, shown when a recording has calls.
    m_calls = new CallTreePane(&m_view, this);
    m_callDock = addPane(tr("Call trees"), "callTreeDock", m_calls);
    m_callDock->hide();

    // SQL over the recording, its results as tracks.
    m_query = new QueryPane(&m_view, this);
    m_queryDock = addPane(tr("Query"), "queryDock", m_query);
    m_queryDock->hide();
    connect(m_query, &QueryPane::jumpRequested, this, &MainWindow::goToEvent);
    connect(m_query, &QueryPane::tracksChanged, m_timeline, &TimelineWidget::tracksChanged);
    connect(m_calls, &CallTreePane::filterRequested, this, [this](const QString& expression) {
        FilterSpec spec = m_filters->spec();
        spec.expression = expression.toStdString();
        m_filters->setSpec(spec);
        onFilterPanelChanged();
    });

    m_filters = new FilterPanel(this);
    auto* filterDock = new QDockWidget(tr("Filters"), this);
    filterDock->setObjectName("filterDock");
    filterDock->setWidget(m_filters);
    addDockWidget(Qt::LeftDockWidgetArea, filterDock);
    m_filterDock = filterDock;
    connect(m_filters, &FilterPanel::specChanged, this, &MainWindow::onFilterPanelChanged);
    connect(&m_view, &ViewState::filterChanged, this, &MainWindow::applyFilters);
    connect(clear, &QPushButton::clicked, m_filters, &FilterPanel::clearAll);
    connect(m_filters, &FilterPanel::addTaskRowRequested, &m_view, &ViewState::addTaskRow);
    connect(&m_filterJob, &FilterJob::progress, this, [this](int percent) {
        m_filterLabel->setText(tr("Filtering… %1%").arg(percent));
        m_filterBar->show();
    });
    connect(&m_filterJob, &FilterJob::finished, this,
            [this](std::shared_ptr<FilterResult> result) { showFilterResult(std::move(result), m_pendingSpec); });
    connect(&m_filterJob, &FilterJob::failed, this, [this](const QString& message) {
        m_filterLabel->setText(tr("Filtering failed: %1").arg(message));
        m_filterBar->show();
    });

    createStatusBar(healthDock);

    buildMenus();
    healthDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+H")));
    healthDock->toggleViewAction()->setObjectName("showHealthAction");
    m_viewMenu->addAction(healthDock->toggleViewAction());
    filterDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+F")));
    filterDock->toggleViewAction()->setObjectName("showFiltersAction");
    auto* find = new QAction(tr("Find in Table"), this);
    find->setObjectName("findAction");
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, this, [this] {
        m_search->edit()->setFocus();
        m_search->edit()->selectAll();
    });
    m_viewMenu->addAction(find);
    m_viewMenu->addAction(filterDock->toggleViewAction());
    m_eventsDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    m_eventsDock->toggleViewAction()->setObjectName("showEventsAction");
    m_viewMenu->addAction(m_eventsDock->toggleViewAction());
    m_callDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+T")));
    m_callDock->toggleViewAction()->setObjectName("showCallTreesAction");
    m_viewMenu->addAction(m_callDock->toggleViewAction());
    m_pluginDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+P")));
    m_pluginDock->toggleViewAction()->setObjectName("showPluginStatsAction");
    m_viewMenu->addAction(m_pluginDock->toggleViewAction());
    m_queryDock->toggleViewAction()->setShortcut(QKeySequence(tr("Ctrl+Shift+Q")));
    m_queryDock->toggleViewAction()->setObjectName("showQueryAction");
    m_viewMenu->addAction(m_queryDock->toggleViewAction());
    auto* plugins = new QAction(tr("Plugins…"), this);
    plugins->setObjectName("pluginsAction");
    connect(plugins, &QAction::triggered, this, &MainWindow::showPluginsDialog);
    m_viewMenu->addAction(plugins);
    addLayoutActions(m_viewMenu);

    connect(&m_view, &ViewState::visibleRangeChanged, this, &MainWindow::updateStatus);
    connect(&m_view, &ViewState::markersChanged, this, &MainWindow::updateStatus);
    connect(&m_view, &ViewState::timeOriginChanged, this, &MainWindow::updateStatus);
    connect(&m_view, &ViewState::selectionChanged, this, &MainWindow::onSelectionChanged);
    connect(m_timeline, &TimelineWidget::recordingActivated, this, &MainWindow::setActiveRecording);
    // What a click picked is said until the next click picks something else or adds a row.
    connect(m_timeline, &TimelineWidget::notice, this, [this](const QString& text) {
        say(text, 15000);
        m_noticeShown = true;
    });
    connect(&m_view, &ViewState::taskRowsChanged, this, &MainWindow::dropNotice);
    connect(m_timeline, &TimelineWidget::inactiveGroupFolded, this,
            [this](size_t recording, uint16_t buffer, bool collapsed) {
                if (recording >= recordings().size() || recording == activeRecording()) return;
                auto& view = m_workspace.stashed(recording);
                if (!view) {
                    // Never shown yet: a view that only folds this group.
                    view = ViewSnapshot();
                    view->full = recordings().fullRange();
                    view->visible = m_view.visibleRange();
                }
                view->collapsedBuffers.removeAll(buffer);
                if (collapsed) view->collapsedBuffers.push_back(buffer);
            });
    connect(m_table, &EventTableView::currentRowChanged, this, [this](int row) {
        if (m_syncingSelection || row < 0 || !activeSession()) return;
        m_view.select(m_model->eventAt(row));
    });

    connect(&m_load, &LoadJob::progress, this, [this](int permille, qulonglong, const QString& doing) {
        if (!m_progress) return;
        // A modal dialog's setValue() runs the event loop, which may deliver the load's end and
        // close the dialog: so it is the last call here.
        m_progress->setLabelText(doing);
        m_progress->setValue(permille);
    });
    connect(&m_load, &LoadJob::finished, this, [this](std::shared_ptr<TraceSession> session) {
        closeProgress();
        addRecent(session->path);
        if (std::exchange(m_appending, false) && activeSession())
            appendSession(std::move(session));
        else
            setSession(std::move(session));
        continueLoading();
    });
    connect(&m_load, &LoadJob::cancelled, this, [this] {
        closeProgress();
        m_appending = false;
        m_pendingAppends.clear();
    });
    connect(&m_load, &LoadJob::failed, this, [this](const QString&, const QString& message) {
        closeProgress();
        m_appending = false;
        m_workspace.reportLoadFailure(message);
        if (!m_screenshotPath.isEmpty()) {
            qCritical("ringside: %s", qPrintable(message));
            QApplication::exit(1);
            return;
        }
        QMessageBox::critical(this, tr("Cannot open recording"), message);
        continueLoading(); // the other files given still open
    });

    restoreLayout();
    updateRecentMenu();
    updateStatus();
    qApp->installEventFilter(this);
}

MainWindow::~MainWindow()
{
    qApp->removeEventFilter(this);
    // The docks are hidden after this body, as the window's children go: they say so to no one.
    disconnect(m_pluginDock, nullptr, this, nullptr);
    // The views let go of the recordings before the window's members (which own them) go:
    // their workers may still read them (the timeline's call lanes, the call trees, a search),
    // and the tables' headers are asked for as the window closes its children.
    releaseSessionViews();
    m_calls->setSession(nullptr);
    m_query->setSession(nullptr);
    m_search->setSession(nullptr);
    m_timeline->setSession(nullptr);
}

void MainWindow::releaseSessionViews()
{
    m_model->setSession(nullptr);
    m_details->setSession(nullptr);
    m_health->setSession(nullptr);
    m_pluginStats->setSession(nullptr);
    m_query->setSession(nullptr);
    m_filterJob.cancel();
    m_filters->setSession(nullptr);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::KeyPress || !activeSession() || watched == m_timeline) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || widget->window() != this) return false;
    // Text fields keep their keys; lists keep the arrows and Home they move by.
    QWidget* focus = QApplication::focusWidget();
    auto isText = [](QObject* w) {
        return qobject_cast<QLineEdit*>(w) || qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QTextEdit*>(w) ||
               qobject_cast<QPlainTextEdit*>(w);
    };
    if (isText(widget) || isText(focus)) return false;
    // The flame graph zooms out with Backspace and Escape, as the timeline does.
    if (qobject_cast<FlameGraphWidget*>(widget) || qobject_cast<FlameGraphWidget*>(focus)) return false;
    auto* key = static_cast<QKeyEvent*>(event);
    const bool navigation = key->key() == Qt::Key_Left || key->key() == Qt::Key_Right || key->key() == Qt::Key_Home;
    auto isList = [this](QObject* w) { return qobject_cast<QAbstractItemView*>(w) || w == m_table; };
    if (navigation && (isList(widget) || isList(focus))) return false;
    return m_timeline->handleKey(key);
}

void MainWindow::closeProgress()
{
    // A QProgressDialog without autoClose stays up after reset(); hide and drop it instead, so
    // the next load starts with a fresh one (and its own show delay).
    if (!m_progress) return;
    // Hidden first: while the views are built on this thread the last frame stays on screen,
    // and it should not be an emptied bar.
    m_progress->hide();
    m_progress->reset(); // stops its show-delay timer, which would show it again behind an error box
    m_progress->deleteLater();
    m_progress = nullptr;
}

timeline::ClockUnit MainWindow::clockUnit() const
{
    return activeSession() && !activeSession()->trace->file().info().timesInUsecs ? timeline::ClockUnit::Ticks
                                                                                  : timeline::ClockUnit::Nanoseconds;
}

void MainWindow::setSession(std::shared_ptr<TraceSession> session)
{
    if (!session->isCapture) setCaptureStatus(QString());
    startAnalyses(session);
    m_workspace.replace(std::move(session)); // activate(0, true)
}

void MainWindow::startAnalyses(const std::shared_ptr<TraceSession>& session)
{
    if (session->analyses) return;
    std::weak_ptr<LiveCapture> live = session->live;
    const bool growing = session->live && !session->live->progress().ended;
    session->analyses = std::make_unique<AnalysisJob>(*session->trace, growing, [live]() -> uint64_t {
        auto capture = live.lock();
        if (!capture) return 0;
        const LiveCapture::Progress p = capture->progress();
        return p.overrun + p.dropped;
    });
    if (growing) session->analyses->setIdlePriority(m_captures->analysisAtIdlePriority());
    const TraceSession* raw = session.get();
    connect(session->analyses.get(), &AnalysisJob::updated, this, [this, raw] { analysesUpdated(raw); });
    connect(session->analyses.get(), &AnalysisJob::progress, this, [this] { updateAnalysisStatus(); });
    connect(session->analyses.get(), &AnalysisJob::tasksKnown, this, [this, raw] {
        if (raw != activeSession().get()) return;
        m_model->taskNamesChanged();
        m_details->showEvent(m_view.selection(), m_view.selectedCall());
        m_timeline->update();       // the names on the CPU rows
        m_filters->refreshCounts(); // ... and in the task list ("<...>" until now)
    });
    connect(session->analyses.get(), &AnalysisJob::statisticsUpdated, this, [this, raw] {
        if (raw == activeSession().get()) m_pluginStats->refresh();
        updateAnalysisStatus();
    });
    connect(session->analyses.get(), &AnalysisJob::tablesFinished, this, [this, raw] {
        // Every task is named by its events now: analysesUpdated() counts the task list again,
        // whenever it last did (this stands in for the last batch's update).
        m_lastFilterCounts.invalidate();
        analysesUpdated(raw);
        if (raw != activeSession().get()) return;
        // The call trees read the calls once they are all in; a recording with calls shows them
        // (its own kind of view).
        m_calls->setSession(activeSession());
        m_query->setSession(activeSession());
        if (!raw->isCapture && (raw->trace->callSlices().available() || raw->trace->functionCalls().available())) {
            m_callDock->setVisible(true);
            m_callDock->raise();
        }
    });
    updateAnalysisStatus();
}

void MainWindow::goToEvent(EventRef event, std::optional<std::pair<quint64, quint64>> span)
{
    if (!activeSession() || event.stream.value >= activeSession()->store().streamCount() ||
        event.index >= activeSession()->store().stream(event.stream).columns.size())
        return;
    if (span) {
        // The interval between the markers, in the middle half of the view.
        const auto [start, end] = *span;
        const uint64_t margin = std::max<uint64_t>((end - start) / 2, 1000);
        m_view.setMarkerA(start);
        m_view.setMarkerB(end);
        m_view.setVisibleRange({start > margin ? start - margin : 0, end + margin});
    }
    m_view.select(event);
}

void MainWindow::analysesUpdated(const TraceSession* session)
{
    m_timeline->tablesGrew();
    if (session == activeSession().get()) {
        m_pluginStats->refresh();
        m_model->taskNamesChanged(); // names the events gave tasks the saved comms lacked
        if (!m_lastFilterCounts.isValid() || m_lastFilterCounts.elapsed() > 1000) {
            m_lastFilterCounts.start();
            m_filters->refreshCounts();
        }
        m_details->showEvent(m_view.selection(), m_view.selectedCall());
    }
    updateAnalysisStatus();
}

void MainWindow::appendSession(std::shared_ptr<TraceSession> session)
{
    startAnalyses(session);
    m_workspace.append(std::move(session)); // recordingAppended()
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
    say(notes.isEmpty() ? tr("%1 appended").arg(name) : tr("%1 appended: %2").arg(name, notes.join(" · ")), 30000);
    updateStatus();
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
    m_recordingBox->clear();
    for (size_t i = 0; i < recordings().size(); ++i) {
        m_recordingBox->addItem(recordings().name(i));
        m_recordingBox->setItemData(int(i), recordings().at(i)->path, Qt::ToolTipRole);
    }
    m_recordingBox->setCurrentIndex(int(activeRecording()));
    m_recordingBar->setVisible(recordings().size() > 1);
    m_recordingBox->setToolTip(tr("The recording the table, details, filters and task rows show; "
                                  "a click on another recording's event in the timeline shows that one"));
    // How the clocks were put together, in short; in full in the tooltip.
    const QStringList notes = recordings().notes();
    const auto& guests = recordings().guestViews();
    QString note;
    if (!guests.empty())
        note = tr("%1 is on %2's clock (trace-cmd's time shift)")
                   .arg(recordings().name(guests.front().guest), recordings().name(guests.front().host));
    else if (!notes.isEmpty())
        note = notes.first();
    m_recordingNote->setFullText(note, notes.isEmpty() ? QString() : "• " + notes.join("\n• "));
    QStringList names;
    for (size_t i = 0; i < recordings().size(); ++i) names << recordings().name(i);
    setWindowTitle(activeSession()->isSample ? tr("%1 (sample recording) — Ringside").arg(names.join(", "))
                                             : tr("%1 — Ringside").arg(names.join(", ")));
}

void MainWindow::activate(size_t, bool opened)
{
    // Views drop their pointers into the old session before it goes.
    releaseSessionViews();
    m_filterBar->hide();
    const EventStore& store = activeSession()->store();
    // The timeline first: the reset's signals are for the recording now active.
    m_timeline->setRecordings(recordings(), activeRecording());
    m_view.reset(recordings().fullRange());
    m_model->setSession(activeSession().get());
    // The # column fits the largest row number.
    m_table->header()->resizeSection(EventTableModel::Index,
                                     fontMetrics().horizontalAdvance(QString::number(store.eventCount())) + 16);
    // The CPU column fits its longest cell: a second buffer's CPUs read "name:N" there.
    int cpuWidth =
        fontMetrics().horizontalAdvance(m_model->headerData(EventTableModel::Cpu, Qt::Horizontal).toString());
    for (size_t i = 0; i < store.streamCount(); ++i) {
        const EventRef first{StreamId(static_cast<uint16_t>(i)), 0};
        if (store.stream(first.stream).columns.size())
            cpuWidth = std::max(cpuWidth, fontMetrics().horizontalAdvance(EventTableModel::cellText(
                                              *activeSession(), first, EventTableModel::Cpu)));
    }
    m_table->header()->resizeSection(EventTableModel::Cpu, std::min(cpuWidth + 16, 220));
    // The Event column fits the recording's longest event name ("sys_enter_execve" was cut),
    // within reason: Info is what is read.
    int eventWidth =
        fontMetrics().horizontalAdvance(m_model->headerData(EventTableModel::Event, Qt::Horizontal).toString());
    if (activeSession()->formatter)
        for (size_t type = 0; type < store.eventTypeCounts().size(); ++type)
            if (store.eventTypeCount(uint16_t(type)))
                eventWidth = std::max(eventWidth, fontMetrics().horizontalAdvance(QString::fromStdString(
                                                      activeSession()->formatter->eventName(uint16_t(type)))));
    m_table->header()->resizeSection(EventTableModel::Event, std::clamp(eventWidth + 12, 110, 130));
    // The PID column fits the largest pid ("483..." was cut: a host's pids have six digits).
    int32_t largestPid = 0;
    for (const Task& task : store.tasks().snapshot()) largestPid = std::max(largestPid, task.pid);
    m_table->header()->resizeSection(EventTableModel::Pid,
                                     std::max(50, fontMetrics().horizontalAdvance(QString::number(largestPid)) + 16));
    m_details->setSession(activeSession().get());
    // A store that grows: its diagnostics are the capture thread's until it ends
    // (captureEnded fills them in then); the filter lists follow what arrives (captureGrew).
    const bool growing = activeSession()->live && !activeSession()->live->progress().ended;
    m_health->setSession(growing ? nullptr : activeSession().get());
    if (growing)
        m_warningsButton->hide();
    else
        showLoadWarnings(store.diagnostics());
    m_filters->setSession(activeSession().get());
    m_search->setSession(activeSession());
    // The analyses' tables fill in as they come (analysesUpdated); no pane opens unasked.
    m_pluginStats->setSession(activeSession().get());
    const bool analysed = activeSession()->trace->analysesFinished();
    m_calls->setSession(analysed ? activeSession() : nullptr);
    m_query->setSession(analysed ? activeSession() : nullptr);
    const bool calls = analysed && (activeSession()->trace->callSlices().available() ||
                                    activeSession()->trace->functionCalls().available());
    // The keys a recording is read with (W/S, A/D) go to the timeline, not to a filter field
    // that had the focus first.
    if (opened) m_timeline->setFocus();
    if (opened && !activeSession()->isCapture && analysed) {
        m_callDock->setVisible(calls);
        if (calls) m_callDock->raise();
    }
    updateAnalysisStatus();
    updateRecordingBox();
    updateStatus();
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

void MainWindow::exportTimelineImage()
{
    if (!activeSession()) return;
    QSettings settings;
    const QFileInfo recording(activeSession()->path);
    const QString dir = settings.value("files/imageDir", recording.absolutePath()).toString();
    QString filter;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export timeline image"),
                                                      QDir(dir).filePath(recording.completeBaseName() + ".png"),
                                                      tr("PNG image (*.png);;SVG image (*.svg)"), &filter);
    if (path.isEmpty()) return;
    settings.setValue("files/imageDir", QFileInfo(path).absolutePath());
    QString error;
    if (m_timeline->saveImage(path, &error))
        say(tr("Timeline saved to %1").arg(path), 15000);
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

void MainWindow::screenshotWhenLoaded(const QString& path)
{
    m_screenshotPath = path;
}

void MainWindow::showOnLoad(std::optional<std::pair<double, double>> seconds, long long row)
{
    if (!activeSession()) return;
    if (row >= 0 && row < m_model->rowCount()) m_table->selectRow(int(row));
    if (seconds) m_view.setVisibleRange({uint64_t(seconds->first * 1e9), uint64_t(seconds->second * 1e9)});
}

void MainWindow::onSelectionChanged()
{
    dropNotice();
    m_details->showEvent(m_view.selection(), m_view.selectedCall());
    auto selection = m_view.selection();
    if (!selection || !activeSession()) return;
    // The table follows the selection (unless it made it: a Shift+click keeps its range).
    const int row = m_model->rowOf(*selection);
    if (row >= 0 && row != m_table->currentRow()) {
        m_syncingSelection = true;
        m_table->selectRow(row);
        m_syncingSelection = false;
    }
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

void MainWindow::copySelectedRows()
{
    if (!activeSession()) return;
    QStringList lines;
    for (int row : m_table->selectedRows()) lines << m_model->rowText(row);
    QApplication::clipboard()->setText(lines.join('\n'));
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (!m_captures->confirmDiscard([this] { close(); })) return e->ignore();
    saveLayout();
    QMainWindow::closeEvent(e);
}

} // namespace ringside
