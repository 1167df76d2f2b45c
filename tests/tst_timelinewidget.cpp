// SPDX-License-Identifier: GPL-2.0-or-later
// The views, driven as a user would: the event table model under QAbstractItemModelTester,
// and the timeline with wheel, drag, keys and clicks, checked through the ViewState signals.
#include "testsupport.h"

#include "details/detailspane.h"
#include "filters/filterpanel.h"
#include "jobs/loadjob.h"
#include "mainwindow.h"
#include "plugin/pluginloader.h"
#include "powerplugin.h"
#include "sql/recordingsql.h"
#include "sql/resulttrack.h"
#include "state/viewstate.h"
#include "table/eventtablemodel.h"
#include "table/eventtableview.h"
#include "table/searchbar.h"
#include "timeline/timelinewidget.h"
#include "timeline/trackrenderer.h"

#include <QAbstractItemModelTester>
#include <QFileInfo>
#include <QMimeData>
#include <QPainter>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QUrl>
#include <QtEndian>

#include "file/datfile.h"
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

using namespace ringside;

Q_DECLARE_METATYPE(std::shared_ptr<ringside::TraceSession>)

namespace {

std::shared_ptr<TraceSession> loadSession(const QString& name)
{
    auto session = std::make_shared<TraceSession>();
    session->path = test::fixture(name);
    session->trace = test::openOrFail(test::fixturePath(name));
    if (!session->trace) return nullptr;
    session->formatter = std::make_unique<EventFormatter>(*session->trace);
    return session;
}

void wheel(QWidget* w, QPoint pos, int delta, Qt::KeyboardModifiers modifiers)
{
    QWheelEvent event(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt::NoButton, modifiers, Qt::NoScrollPhase,
                      false);
    QApplication::sendEvent(w, &event);
}

// threads.dat with the example plugin cpuruns, whose tables are the CPUs' (slices among them).
std::shared_ptr<TraceSession> loadWithCpuRuns()
{
    const PluginCatalog catalog = PluginCatalog::discover({RINGSIDE_EXAMPLE_PLUGIN_DIR});
    std::vector<std::unique_ptr<Plugin>> plugins = catalog.instantiate([](const std::string& n) { return n == "cpuruns"; });
    if (plugins.size() != 1) return nullptr;
    auto session = std::make_shared<TraceSession>();
    auto opened = Trace::open(test::fixturePath("threads.dat"), LoadOptions(), {}, std::move(plugins));
    if (!opened) return nullptr;
    session->trace = std::move(*opened);
    session->formatter = std::make_unique<EventFormatter>(*session->trace);
    return session;
}

// A plugin whose table is a flame chart a CPU owns: each task's run on a CPU (depth 0, named
// by the task) with its first half inside it (depth 1, "first half").
class RunsAsFlame : public Plugin {
public:
    std::string name() const override { return "runsflame"; }
    std::string description() const override { return "Runs per CPU as a flame chart (a test)"; }
    std::vector<EventRequest> requests() const override
    {
        return {{"sched", "sched_switch", {"next_pid", "next_comm"}}};
    }
    void setTables(TableSink& tables) override
    {
        SliceTableSpec spec;
        spec.key = "runs";
        spec.title = "Runs";
        spec.owner = RowOwner::Cpu;
        spec.flameChart = true;
        m_runs = &tables.slices(spec);
        m_half = m_runs->label("first half");
    }
    void consume(const ConsumedRecord& record) override
    {
        auto& [since, label] = m_cpus[record.stream.value];
        const uint32_t owner = record.stream.value;
        if (since && record.timestamp > since + 1) {
            m_runs->add({since, record.timestamp, owner, label, 0, 0, 0, {}, {}});
            m_runs->add({since, since + (record.timestamp - since) / 2, owner, m_half, 0, 1, 0, {}, {}});
            ++added;
        }
        since = record.timestamp;
        label = m_runs->label(record.field(1).asText());
    }
    std::string nothingToShow() const override { return {}; }
    size_t added = 0;

private:
    SliceSink* m_runs = nullptr;
    uint32_t m_half = 0;
    std::map<uint32_t, std::pair<uint64_t, uint32_t>> m_cpus;
};

// The CPU rows that the rows of `kind` sit under, each labelled `label`; empty when one of
// them is elsewhere or named otherwise.
QStringList rowsUnderCpus(const TimelineRows& rows, TimelineRows::Kind kind, const QString& label)
{
    QStringList cpus;
    const auto& all = rows.rows();
    for (int i = 0; i < all.size(); ++i) {
        if (all[i].kind != kind) continue;
        if (i == 0 || all[i - 1].kind != TimelineRows::Kind::Cpu || all[i].label != label) return {};
        cpus << all[i - 1].label;
    }
    return cpus;
}

// An ARM board's recording (kept compressed in tests/data) unpacked into `dir`, opened with
// the power plugin.
std::shared_ptr<TraceSession> withPowerPlugin(const QTemporaryDir& dir, const QString& name)
{
    const QString file = dir.filePath(name);
    if (!test::writeFile(file, test::readXz(test::fixture(name + ".xz")))) return nullptr;
    std::vector<std::unique_ptr<Plugin>> plugins;
    plugins.push_back(std::make_unique<power::PowerPlugin>());
    auto opened = Trace::open(file.toStdString(), LoadOptions(), {}, std::move(plugins));
    if (!opened) return nullptr;
    auto session = std::make_shared<TraceSession>();
    session->path = file;
    session->trace = std::move(*opened);
    session->formatter = std::make_unique<EventFormatter>(*session->trace);
    return session;
}

} // namespace

class TestTimelineWidget : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<TraceSession> m_session;
    ViewState m_view;
    std::unique_ptr<TimelineWidget> m_timeline;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // settings (recent files, layout) stay out of the user's
        QCoreApplication::setOrganizationName("RingsideTests");
        m_session = loadSession("execve-e2big.dat");
        QVERIFY(m_session);
        QVERIFY(m_session->trace->runningTasks().available());
        m_timeline = std::make_unique<TimelineWidget>(&m_view);
        m_timeline->resize(1150, 400);
        m_timeline->setSession(m_session.get());
        m_timeline->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_timeline.get()));
    }

    void init() { m_view.reset({m_session->store().firstTimestamp(), m_session->store().lastTimestamp() + 1}); }

    void tableModel()
    {
        EventTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(m_session.get());
        QCOMPARE(model.rowCount(), int(m_session->store().eventCount()));
        QCOMPARE(model.columnCount(), int(EventTableModel::ColumnCount));
        // Row 0 shows what trace-cmd report's first event line shows.
        QCOMPARE(model.data(model.index(0, EventTableModel::Task)).toString(), QString("bash"));
        QCOMPARE(model.data(model.index(0, EventTableModel::Event)).toString(), QString("sys_exit"));
        const EventRef e = model.eventAt(123);
        QCOMPARE(model.rowOf(e), 123);
        QVERIFY(model.rowText(5).split('\t').size() == EventTableModel::ColumnCount);
        model.setSession(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void tableViewKeysClicksAndSelection()
    {
        EventTableModel model;
        model.setSession(m_session.get());
        EventTableView view;
        view.resize(900, 400);
        view.setModel(&model);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy current(&view, &EventTableView::currentRowChanged);
        view.selectRow(10);
        QCOMPARE(view.currentRow(), 10);
        QTest::keyClick(&view, Qt::Key_Down);
        QCOMPARE(view.currentRow(), 11);
        QTest::keyClick(&view, Qt::Key_Down, Qt::ShiftModifier);
        QTest::keyClick(&view, Qt::Key_Down, Qt::ShiftModifier);
        QCOMPARE(view.selectedRows(), (QList<int>{11, 12, 13}));
        QTest::keyClick(&view, Qt::Key_End);
        QCOMPARE(view.currentRow(), model.rowCount() - 1);
        QVERIFY(view.firstVisibleRow() + view.visibleRowCount() >= model.rowCount());
        QTest::keyClick(&view, Qt::Key_Home);
        QCOMPARE(view.currentRow(), 0);
        QTest::keyClick(&view, Qt::Key_PageDown);
        QCOMPARE(view.currentRow(), view.visibleRowCount());
        // A click selects the row under the pointer.
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(50, view.rowHeight() * 3 + 2));
        QCOMPARE(view.currentRow(), view.firstVisibleRow() + 3);
        QVERIFY(current.count() >= 7);
        // A reset (new filter) clears the selection and keeps the view usable.
        model.setSession(nullptr);
        QCOMPARE(view.currentRow(), -1);
        QVERIFY(view.selectedRows().isEmpty());
    }

    // Attaching tens of millions of rows costs nothing per row (QTableView's header did).
    void tableViewScalesToMillionsOfRows()
    {
        struct Huge : QAbstractTableModel {
            int rowCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : 27700000; }
            int columnCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : 3; }
            QVariant data(const QModelIndex& i, int role) const override
            {
                return role == Qt::DisplayRole ? QVariant(i.row()) : QVariant();
            }
        } model;
        EventTableView view;
        view.resize(600, 300);
        view.setModel(&model);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.selectRow(27000000);
        QCOMPARE(view.verticalScrollBar()->maximum(), 27700000 - view.visibleRowCount());
        QVERIFY(view.firstVisibleRow() <= 27000000 && 27000000 < view.firstVisibleRow() + view.visibleRowCount());
    }

    void ctrlWheelZoomsAroundPointer()
    {
        QSignalSpy changed(&m_view, &ViewState::visibleRangeChanged);
        const QPoint at(TimelineWidget::kLabelWidth + 250, 80);
        const uint64_t anchor = m_timeline->timeAtX(at.x());
        wheel(m_timeline.get(), at, 120, Qt::ControlModifier);
        QCOMPARE(changed.count(), 1);
        QVERIFY(m_view.visibleRange().span() < m_view.fullRange().span());
        // The time under the pointer stays under the pointer.
        QVERIFY(std::llabs(int64_t(m_timeline->timeAtX(at.x())) - int64_t(anchor)) <=
                int64_t(m_view.visibleRange().span() / 500));
        QVERIFY(m_view.canZoomBack());
        m_view.zoomBack();
        QCOMPARE(m_view.visibleRange(), m_view.fullRange());
    }

    void plainWheelDoesNotZoom()
    {
        QSignalSpy changed(&m_view, &ViewState::visibleRangeChanged);
        wheel(m_timeline.get(), QPoint(400, 80), 120, Qt::NoModifier);
        QCOMPARE(changed.count(), 0);
    }

    void wheelPreferenceSwapsZoomAndScroll()
    {
        m_timeline->setWheelZooms(true);
        QSignalSpy changed(&m_view, &ViewState::visibleRangeChanged);
        wheel(m_timeline.get(), QPoint(400, 80), 120, Qt::NoModifier);
        QCOMPARE(changed.count(), 1);
        wheel(m_timeline.get(), QPoint(400, 80), 120, Qt::ControlModifier);
        QCOMPARE(changed.count(), 1);
        m_timeline->setWheelZooms(false);
    }

    void dragOnRulerZoomsIntoRange()
    {
        const int x0 = TimelineWidget::kLabelWidth + 100, x1 = TimelineWidget::kLabelWidth + 300;
        const uint64_t t0 = m_timeline->timeAtX(x0), t1 = m_timeline->timeAtX(x1);
        QTest::mousePress(m_timeline.get(), Qt::LeftButton, {}, QPoint(x0, 10));
        QTest::mouseMove(m_timeline.get(), QPoint(x0 + 50, 10));
        QTest::mouseMove(m_timeline.get(), QPoint(x1, 10));
        QTest::mouseRelease(m_timeline.get(), Qt::LeftButton, {}, QPoint(x1, 10));
        QCOMPARE(m_view.visibleRange().start, t0);
        QCOMPARE(m_view.visibleRange().end, t1);
    }

    void dragOnRowsPans()
    {
        m_view.setVisibleRange(timeline::zoomAround(m_view.visibleRange(),
                                                    m_view.visibleRange().start + m_view.visibleRange().span() / 2,
                                                    0.25, m_view.fullRange()));
        const auto before = m_view.visibleRange();
        QTest::mousePress(m_timeline.get(), Qt::LeftButton, {}, QPoint(600, 80));
        QTest::mouseMove(m_timeline.get(), QPoint(620, 80));
        QTest::mouseMove(m_timeline.get(), QPoint(700, 80));
        QTest::mouseRelease(m_timeline.get(), Qt::LeftButton, {}, QPoint(700, 80));
        QVERIFY(m_view.visibleRange().start < before.start); // dragged right: earlier times come in
        QCOMPARE(m_view.visibleRange().span(), before.span());
    }

    void keysZoomAndPan()
    {
        m_timeline->setFocus();
        const auto full = m_view.visibleRange();
        QTest::keyClick(m_timeline.get(), Qt::Key_W);
        QVERIFY(m_view.visibleRange().span() < full.span());
        const auto zoomed = m_view.visibleRange();
        QTest::keyClick(m_timeline.get(), Qt::Key_D);
        QVERIFY(m_view.visibleRange().start > zoomed.start);
        QTest::keyClick(m_timeline.get(), Qt::Key_A);
        QCOMPARE(m_view.visibleRange().start, zoomed.start);
        QTest::keyClick(m_timeline.get(), Qt::Key_S);
        QVERIFY(m_view.visibleRange().span() > zoomed.span());
        QTest::keyClick(m_timeline.get(), Qt::Key_0);
        QCOMPARE(m_view.visibleRange(), m_view.fullRange());
    }

    void clickSelectsNearestEvent()
    {
        QSignalSpy selected(&m_view, &ViewState::selectionChanged);
        // CPU 0 is the first row under the buffer header.
        const int y = TimelineWidget::kRulerHeight + TimelineRows::kHeaderHeight + TimelineRows::kCpuHeight / 2;
        const EventRef first =
            m_session->store().stream(StreamId(0)).columns.size() ? EventRef{StreamId(0), 0} : EventRef();
        const int x = m_timeline->xOfTime(m_session->store().timestamp(first));
        QTest::mouseClick(m_timeline.get(), Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(selected.count(), 1);
        QVERIFY(m_view.selection().has_value());
        QCOMPARE(m_view.selection()->stream, StreamId(0));
        QVERIFY(std::abs(m_timeline->xOfTime(m_session->store().timestamp(*m_view.selection())) - x) <= 6);
    }

    void modifierClicksSetMarkers()
    {
        QSignalSpy markers(&m_view, &ViewState::markersChanged);
        const int xa = TimelineWidget::kLabelWidth + 100, xb = TimelineWidget::kLabelWidth + 400;
        QTest::mouseClick(m_timeline.get(), Qt::LeftButton, Qt::ShiftModifier, QPoint(xa, 80));
        QTest::mouseClick(m_timeline.get(), Qt::LeftButton, Qt::ControlModifier, QPoint(xb, 80));
        QCOMPARE(markers.count(), 2);
        QCOMPARE(*m_view.markerA(), m_timeline->timeAtX(xa));
        QCOMPARE(*m_view.markerB(), m_timeline->timeAtX(xb));
        QCOMPARE(*m_view.markerDelta(), int64_t(m_timeline->timeAtX(xb) - m_timeline->timeAtX(xa)));
        m_view.zoomToMarkers();
        QCOMPARE(m_view.visibleRange().start, *m_view.markerA());
        QCOMPARE(m_view.visibleRange().end, *m_view.markerB() + 1); // end exclusive: B stays in view
        QVERIFY(m_view.visibleRange().contains(*m_view.markerA()) && m_view.visibleRange().contains(*m_view.markerB()));
    }

    void doubleClickAddsTaskRow()
    {
        QSignalSpy rows(m_timeline.get(), &TimelineWidget::taskRowsChanged);
        const int y = TimelineWidget::kRulerHeight + TimelineRows::kHeaderHeight + TimelineRows::kCpuHeight / 2;
        // Find a pixel of CPU 0 where a task (not idle) runs.
        int x = -1;
        for (int px = TimelineWidget::kLabelWidth; px < m_timeline->width(); ++px)
            if (m_session->pidRunningAt(StreamId(0), m_timeline->timeAtX(px)) > 0) {
                x = px;
                break;
            }
        QVERIFY(x > 0);
        QTest::mouseDClick(m_timeline.get(), Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(rows.count(), 1);
        const int32_t pid = m_timeline->rows().taskPids().value(0);
        QVERIFY(pid > 0);
        const auto* task = m_timeline->rows().task(pid);
        QVERIFY(task && task->task.valid());
        // No pid of this recording is reused: the row's task has every event of the pid.
        QCOMPARE(m_session->trace->taskIndex().task(task->task).events,
                 m_session->store().tasks()[m_session->store().tasks().find(pid)].events);
        QCOMPARE(m_view.taskRows(), QVector<int32_t>{pid}); // the row lives in the view state
        m_view.removeTaskRow(pid);
        QVERIFY(!m_timeline->rows().hasTask(pid));
    }

    // Rows taller than the view get a scroll bar beside them (the wheel alone was no sign of
    // the rows cut at the bottom), and the data keeps clear of it.
    void tallRowsGetAScrollBar()
    {
        auto* bar = m_timeline->findChild<QScrollBar*>();
        QVERIFY(bar);
        QVERIFY(!bar->isVisible());
        QCOMPARE(m_timeline->dataWidth(), m_timeline->width() - TimelineWidget::kLabelWidth);
        int added = 0;
        for (const Task& task : m_session->store().tasks().snapshot())
            if (task.pid > 0 && added < 30) m_view.addTaskRow(task.pid), ++added;
        m_timeline->repaint();
        QTRY_VERIFY_WITH_TIMEOUT(bar->isVisible(), test::kWorkWaitMs);
        QVERIFY(bar->maximum() > 0);
        QCOMPARE(m_timeline->dataWidth(), m_timeline->width() - TimelineWidget::kLabelWidth - bar->width());
        bar->setValue(bar->maximum());
        QCOMPARE(bar->value(), bar->maximum());
        for (const int32_t pid : m_view.taskRows()) m_view.removeTaskRow(pid);
        m_timeline->repaint();
        QTRY_VERIFY_WITH_TIMEOUT(!bar->isVisible(), test::kWorkWaitMs);
        QCOMPARE(m_timeline->dataWidth(), m_timeline->width() - TimelineWidget::kLabelWidth);
    }

    // Where a CPU is idle there is no task to add a row for: the window is told why.
    void doubleClickOnIdleSaysWhy()
    {
        auto session = loadSession("threads.dat");
        QVERIFY(session);
        const uint64_t first = session->store().firstTimestamp(), last = session->store().lastTimestamp();
        uint64_t idle = 0;
        for (uint64_t t = first; t < last && !idle; t += (last - first) / 100000)
            if (session->pidRunningAt(StreamId(0), t) == 0) idle = t;
        QVERIFY(idle > 0);
        ViewState view;
        TimelineWidget timeline(&view);
        timeline.resize(1150, 400);
        timeline.setSession(session.get());
        view.reset({first, last + 1});
        view.setVisibleRange({idle - 500, idle + 500});
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
        QSignalSpy notices(&timeline, &TimelineWidget::notice);
        const int y = TimelineWidget::kRulerHeight + TimelineRows::kHeaderHeight + TimelineRows::kCpuHeight / 2;
        QTest::mouseDClick(&timeline, Qt::LeftButton, {}, QPoint(timeline.xOfTime(idle), y));
        QVERIFY(view.taskRows().isEmpty());
        QCOMPARE(notices.count(), 1);
        QVERIFY2(notices.first().first().toString().contains("idle"), qPrintable(notices.first().first().toString()));
    }

    // Few rows share the timeline's height (within limits); many keep their least height.
    void rowsGrowIntoFreeHeight()
    {
        auto session = loadSession("sched-mix.dat"); // two CPUs
        QVERIFY(session);
        TimelineRows rows;
        rows.setSession(session.get());
        rows.setViewportHeight(300);
        auto heightOf = [&](TimelineRows::Kind kind) {
            for (const auto& r : rows.rows())
                if (r.kind == kind) return r.height;
            return -1;
        };
        // The two CPU rows take the height the header leaves, up to their limit.
        QCOMPARE(heightOf(TimelineRows::Kind::Cpu), (300 - TimelineRows::kHeaderHeight) / 2);
        QVERIFY(rows.totalHeight() >= 300 - 2);
        rows.setViewportHeight(2000);
        QCOMPARE(heightOf(TimelineRows::Kind::Cpu), TimelineRows::kCpuMaxHeight);
        rows.setViewportHeight(60);
        QCOMPARE(heightOf(TimelineRows::Kind::Cpu), TimelineRows::kCpuHeight);
        // Task rows share what the CPU rows leave.
        rows.setViewportHeight(600);
        rows.addTask(29503);
        QVERIFY(heightOf(TimelineRows::Kind::Task) > TimelineRows::kTaskHeight);
        QVERIFY(heightOf(TimelineRows::Kind::Task) <= TimelineRows::kTaskMaxHeight);
    }

    void processRowsAreGroupedUnderAHeader()
    {
        auto session = loadSession("threads.dat");
        QVERIFY(session);
        TimelineRows rows;
        rows.setSession(session.get());
        rows.addTask(1);        // a task of another process first
        rows.addProcess(17611); // a thread of the Python process: all five tasks
        QCOMPARE(rows.taskPids().size(), 6);
        int headers = 0, headerAt = -1;
        const auto& all = rows.rows();
        for (int i = 0; i < all.size(); ++i)
            if (all[i].kind == TimelineRows::Kind::ProcessHeader) ++headers, headerAt = i;
        QCOMPARE(headers, 1);
        QVERIFY(all[headerAt].label.contains("17569"));
        QVERIFY(all[headerAt].label.contains("5 tasks"));
        // The five tasks follow their header, leader first.
        for (int k = 1; k <= 5; ++k) QCOMPARE(all[headerAt + k].kind, TimelineRows::Kind::Task);
        QCOMPARE(all[headerAt + 1].pid, 17569);
        QCOMPARE(all[headerAt + 5].pid, 17613);

        if (!qEnvironmentVariableIsEmpty("RINGSIDE_SCREENSHOTS")) {
            MainWindow window;
            window.resize(1400, 900);
            window.show();
            QSignalSpy loaded(window.workspace(), &Workspace::loadEnded);
            window.openFile(test::fixture("threads.dat"));
            QVERIFY(loaded.wait(test::kWorkWaitMs));
            window.timeline()->rows().addProcess(17611);
            window.table()->selectRow(300);
            window.grab().save(qEnvironmentVariable("RINGSIDE_SCREENSHOTS") + "/process.png");
        }
    }

    void selectionHistory()
    {
        m_view.select({StreamId(0), 1});
        m_view.select({StreamId(0), 2});
        m_view.select({StreamId(1), 3});
        m_view.selectBack();
        QVERIFY(*m_view.selection() == (EventRef{StreamId(0), 2}));
        m_view.selectBack();
        QVERIFY(*m_view.selection() == (EventRef{StreamId(0), 1}));
        m_view.selectForward();
        QVERIFY(*m_view.selection() == (EventRef{StreamId(0), 2}));
    }

    void mainWindowSyncsTableAndTimeline()
    {
        MainWindow window;
        QSignalSpy loaded(window.workspace(), &Workspace::loadEnded);
        window.openFile(test::fixture("instances.dat"));
        QVERIFY(loaded.wait(test::kWorkWaitMs));
        const EventStore& store = window.session()->store();
        // Selecting a table row selects that event and brings it into the visible range.
        window.viewState()->setVisibleRange({store.firstTimestamp(), store.firstTimestamp() + 1000});
        window.table()->selectRow(5000);
        QVERIFY(window.viewState()->selection().has_value());
        QVERIFY(*window.viewState()->selection() == store.eventAt(5000));
        QVERIFY(window.viewState()->visibleRange().contains(store.timestamp(store.eventAt(5000))));
        // Selecting an event elsewhere moves the table to its row.
        window.viewState()->select(store.eventAt(42));
        QCOMPARE(window.table()->currentRow(), 42);
    }

    void filtersApplyToTableAndTimeline()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QSignalSpy loaded(window.workspace(), &Workspace::loadEnded);
        window.openFile(test::fixture("execve-e2big.dat"));
        QVERIFY(loaded.wait(test::kWorkWaitMs));
        QSignalSpy applied(&window, &MainWindow::filterApplied);
        // Filters without an expression may apply at once, others when their job finishes.
        auto appliedAfter = [&](qsizetype before) { return applied.count() > before || applied.wait(test::kWorkWaitMs); };

        // An expression, as trace-cmd report -F takes it.
        window.filterPanel()->expressionEdit()->setText("sched/sched_switch: prev_state != 0");
        qsizetype before = applied.count();
        QTest::keyClick(window.filterPanel()->expressionEdit(), Qt::Key_Return);
        QVERIFY(appliedAfter(before));
        // Another application may have been said first (the load's own, on a slow build): the
        // rows are what the expression leaves once its job is done.
        QTRY_COMPARE_WITH_TIMEOUT(window.tableModel()->rowCount(), 402, test::kWorkWaitMs);
        QCOMPARE(window.tableModel()->data(window.tableModel()->index(0, EventTableModel::Event)).toString(),
                 QString("sched_switch"));
        QVERIFY(window.timeline()->rows().rows().size() > 0);
        if (!qEnvironmentVariableIsEmpty("RINGSIDE_SCREENSHOTS"))
            window.grab().save(qEnvironmentVariable("RINGSIDE_SCREENSHOTS") + "/filtered.png");

        // A bad expression is reported inline and the valid one stays applied.
        window.filterPanel()->expressionEdit()->setText("sched/sched_switch: prev_state !=");
        before = applied.count();
        QTest::keyClick(window.filterPanel()->expressionEdit(), Qt::Key_Return);
        QVERIFY(appliedAfter(before));
        // Another application may have been said first (the load's own, on a slow build): the
        // rows are what the expression leaves once its job is done.
        QTRY_COMPARE_WITH_TIMEOUT(window.tableModel()->rowCount(), 402, test::kWorkWaitMs);
        QCOMPARE(window.viewState()->filter().expression, std::string("sched/sched_switch: prev_state != 0"));
        bool errorShown = false;
        for (QLabel* label : window.filterPanel()->findChildren<QLabel*>())
            errorShown |= label->isVisible() && label->text().contains("expected a value after '!='");
        QVERIFY(errorShown);

        // Unchecking a CPU hides its rows and events.
        window.filterPanel()->expressionEdit()->clear();
        before = applied.count();
        QTest::keyClick(window.filterPanel()->expressionEdit(), Qt::Key_Return);
        QVERIFY(appliedAfter(before));
        before = applied.count();
        window.filterPanel()->cpuTree()->topLevelItem(1)->setCheckState(0, Qt::Unchecked);
        QVERIFY(appliedAfter(before));
        QTRY_COMPARE_WITH_TIMEOUT(window.tableModel()->rowCount(), 4231, test::kWorkWaitMs);
        int cpuRows = 0;
        for (const auto& row : window.timeline()->rows().rows()) cpuRows += row.kind == TimelineRows::Kind::Cpu;
        QCOMPARE(cpuRows, 1);
        QAbstractItemModelTester tester(window.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    }

    void searchFindsRowsAndSteps()
    {
        MainWindow window;
        QSignalSpy loaded(window.workspace(), &Workspace::loadEnded);
        window.openFile(test::fixture("execve-e2big.dat"));
        QVERIFY(loaded.wait(test::kWorkWaitMs));
        SearchBar* search = window.searchBar();
        QSignalSpy done(search, &SearchBar::searchFinished);
        QSignalSpy found(search, &SearchBar::rowFound);
        // The first match is shown before the rest are counted (it is reported first), and
        // not shown again when they are.
        qsizetype foundWhenCounted = -1;
        connect(search, &SearchBar::searchFinished, this, [&] { foundWhenCounted = found.count(); });
        search->edit()->setText("sys_exit_execve");
        search->start();
        QVERIFY(done.wait(test::kWorkWaitMs));
        QCOMPARE(search->matchCount(), 4); // the report has 4 sys_exit_execve lines
        QCOMPARE(foundWhenCounted, qsizetype(1));
        QCOMPARE(found.count(), 1);
        const int first = found.last().first().toInt();
        QCOMPARE(window.table()->currentRow(), first);
        search->next(first);
        QVERIFY(found.last().first().toInt() > first);
        search->previous(found.last().first().toInt());
        QCOMPARE(found.last().first().toInt(), first);
        // A regular expression on the Info column: the failing execve returns -7 (E2BIG).
        search->edit()->setText("0xfffffffffffffff9");
        search->start();
        QVERIFY(done.wait(test::kWorkWaitMs));
        QCOMPARE(search->matchCount(), 1);
    }

    // A CPU that is declared but recorded nothing (as in some published recordings).
    // The timeline as an image: the PNG is what the widget shows; the SVG draws the same rows as
    // shapes (no embedded picture) and, rendered back, looks the same.
    void savesPngAndSvg()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY(m_timeline->saveImage(dir.filePath("t.png"), &error));
        QVERIFY(m_timeline->saveImage(dir.filePath("t.svg"), &error));
        const QImage png(dir.filePath("t.png"));
        const QImage shown = m_timeline->grab().toImage().convertToFormat(png.format());
        QCOMPARE(png.size(), shown.size());
        QCOMPARE(png, shown);

        QFile file(dir.filePath("t.svg"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray svg = file.readAll();
        QVERIFY(!svg.contains("<image"));
        QVERIFY(svg.count("<path") + svg.count("<rect") > 100);
        QVERIFY(svg.contains(">CPU 0<"));
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QImage back(png.size(), QImage::Format_ARGB32);
        back.fill(Qt::white);
        QPainter p(&back);
        renderer.render(&p);
        p.end();
        // Antialiased edges differ; the coloured task runs and the rows' text must not.
        int same = 0, total = 0;
        for (int y = 0; y < png.height(); y += 3)
            for (int x = 0; x < png.width(); x += 3, ++total) {
                const QColor a = png.pixelColor(x, y), b = back.pixelColor(x, y);
                same +=
                    std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) < 60;
            }
        QVERIFY2(same > total * 9 / 10, qPrintable(QString("%1 of %2 pixels alike").arg(same).arg(total)));

        QVERIFY(!m_timeline->saveImage(dir.filePath("no/such/dir.png"), &error));
        QVERIFY(error.contains("cannot write"));
    }

    void cpuWithoutEventsIsDrawn()
    {
        auto file = DatFile::open(test::fixturePath("instances.dat"));
        QVERIFY(file);
        const CpuDataInfo& cpu1 = (*file)->buffers()[0].cpus[1];
        QFile original(test::fixture("instances.dat"));
        QVERIFY(original.open(QIODevice::ReadOnly));
        QByteArray bytes = original.readAll();
        // The BUFFER option's (offset, size) pair of CPU 1: set the size to 0.
        QByteArray pair(16, 0);
        qToLittleEndian<quint64>(cpu1.fileOffset, pair.data());
        qToLittleEndian<quint64>(cpu1.fileSize, pair.data() + 8);
        const qsizetype at = bytes.indexOf(pair);
        QVERIFY(at > 0);
        qToLittleEndian<quint64>(0, bytes.data() + at + 8);
        QTemporaryDir dir;
        const QString path = dir.filePath("empty-cpu.dat");
        QFile patched(path);
        QVERIFY(patched.open(QIODevice::WriteOnly) && patched.write(bytes) == bytes.size());
        patched.close();

        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QSignalSpy loaded(window.workspace(), &Workspace::loadEnded);
        window.openFile(path);
        QVERIFY(loaded.wait(test::kWorkWaitMs));
        QCOMPARE(window.session()->store().stream(StreamId(1)).columns.size(), size_t(0));
        QVERIFY(window.session()->store().stream(StreamId(0)).columns.size() > 0);

        // Both CPU rows of the top buffer exist, labelled.
        TimelineWidget* timeline = window.timeline();
        const auto& rows = timeline->rows().rows();
        auto rowOf = [&](uint16_t stream) {
            for (int i = 0; i < rows.size(); ++i)
                if (rows[i].kind == TimelineRows::Kind::Cpu && rows[i].stream == StreamId(stream)) return i;
            return -1;
        };
        const int busy = rowOf(0), empty = rowOf(1);
        QVERIFY(busy >= 0 && empty >= 0);
        QCOMPARE(rows[empty].label, QString("CPU 1"));

        // What is drawn: the busy CPU's data area has marks, the empty one's is bare base colour
        // (no task spans, no event ticks), though its label is drawn.
        const QColor base = timeline->palette().color(QPalette::Base);
        auto inspect = [&](int row, int x0, int x1) {
            const QImage image = timeline->grab().toImage();
            const int top = TimelineWidget::kRulerHeight + timeline->rows().rowTop(row);
            int marked = 0;
            for (int y = top + 1; y < top + rows[row].height - 2; ++y)
                for (int x = x0; x < x1; ++x) marked += image.pixelColor(x, y) != base;
            return marked;
        };
        const int dataStart = TimelineWidget::kLabelWidth + 1, dataEnd = timeline->width() - 1;
        QVERIFY(inspect(busy, dataStart, dataEnd) > 100);
        QCOMPARE(inspect(empty, dataStart, dataEnd), 0);
        QVERIFY(inspect(empty, 0, TimelineWidget::kLabelWidth - 2) > 0);

        // Zoomed into the first microsecond, the empty row stays bare and painting still works.
        window.viewState()->setVisibleRange(
            {window.viewState()->fullRange().start, window.viewState()->fullRange().start + 1000});
        QCOMPARE(inspect(empty, dataStart, dataEnd), 0);
        QVERIFY(inspect(empty, 0, TimelineWidget::kLabelWidth - 2) > 0);
    }

    // One renderer draws every table kind a plugin makes, CPU-owned ones included: the
    // example plugin cpuruns (plugins/example, built as a third party builds it) makes an
    // interval, a slice (nested, labelled), an instant and a counter table per CPU and flows
    // between tasks; each shows on a CPU row and in its tooltip text.
    void everyTableKindIsDrawn()
    {
        const PluginCatalog catalog = PluginCatalog::discover({RINGSIDE_EXAMPLE_PLUGIN_DIR});
        QVERIFY2(catalog.problems().empty(), catalog.problems().empty() ? "" : catalog.problems()[0].c_str());
        std::vector<std::unique_ptr<Plugin>> plugins = catalog.instantiate([](const std::string& n) { return n == "cpuruns"; });
        QCOMPARE(plugins.size(), size_t(1));
        auto session = std::make_shared<TraceSession>();
        auto opened = Trace::open(test::fixturePath("threads.dat"), LoadOptions(), {}, std::move(plugins));
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        session->trace = std::move(*opened);
        session->formatter = std::make_unique<EventFormatter>(*session->trace);
        const Trace& trace = *session->trace;
        std::map<TrackTable::Kind, size_t> rows;
        for (const Trace::Analysis& analysis : trace.analyses())
            if (analysis.name == "cpuruns")
                for (const auto& table : analysis.tables->tables()) rows[table->kind()] += table->rows();
        for (auto kind : {TrackTable::Kind::Intervals, TrackTable::Kind::Slices, TrackTable::Kind::Instants,
                          TrackTable::Kind::Counters, TrackTable::Kind::Flows})
            QVERIFY2(rows[kind] > 0, qPrintable(QString("kind %1 has no rows").arg(int(kind))));

        TrackRenderer tracks;
        tracks.setSession(session.get());
        const StreamId cpu(0);
        const auto& ts = trace.store().stream(cpu).columns.timestamp;
        // The whole recording across 800 pixels.
        const timeline::TimeRange range{trace.store().firstTimestamp(), trace.store().lastTimestamp() + 1};
        QImage image(800, 40, QImage::Format_RGB32);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            tracks.paintCpu(p, cpu, QRect(0, 3, 800, 30), QRect(0, 0, 800, 40), range);
        }
        auto count = [&](const std::function<bool(QColor)>& match, int y0, int y1) {
            int n = 0;
            for (int y = y0; y < y1; ++y)
                for (int x = 0; x < image.width(); ++x) n += match(image.pixelColor(x, y));
            return n;
        };
        const QColor busy(0x4a90d9), idle(0xe8e8e8), slice(0x3a, 0x6e, 0xa5);
        // Intervals: the plugin's in a band along the bar's top, the tasks that ran (the
        // built-in table, first) filling the bar under it.
        QVERIFY(count([&](QColor c) { return c == busy; }, 3, 7) > 100);
        QVERIFY(count([&](QColor c) { return c == idle; }, 3, 7) > 100);
        QCOMPARE(count([&](QColor c) { return c == busy || c == idle; }, 8, 20), 0);
        QVERIFY(count([&](QColor c) { return c != Qt::white && c != slice; }, 8, 20) > 1000);
        QVERIFY(count([&](QColor c) { return c == slice; }, 25, 33) > 50); // slices, lanes up from the bar's bottom
        QVERIFY(count([&](QColor c) { return c == QColor(0x30, 0x30, 0x40); }, 0, 6) > 0);          // instants
        // Depth: the busy stretches (lowest lane) and the runs inside them (the lane above).
        const int lowLane = 33 - 3, upperLane = 33 - 7;
        QVERIFY(count([&](QColor c) { return c == slice; }, lowLane, lowLane + 1) > 20);
        QVERIFY(count([&](QColor c) { return c == slice; }, upperLane, upperLane + 1) > 20);

        // What the CPU row says where a task ran: the run's label, the priority, whether idle.
        const auto& pid = trace.store().stream(cpu).columns.pid;
        size_t k = ts.size() / 2;
        while (k < ts.size() && pid[k] == 0) ++k;
        QVERIFY(k < ts.size());
        const QString text = tracks.describeCpu(cpu, ts[k], 0);
        QVERIFY2(text.contains("Runs: ") && text.contains("Priority run: ") && text.contains("Idle: "), qPrintable(text));

        // Counters: a row of their own under the CPU's, a step line in the group's first colour.
        const std::vector<CounterGroup> groups = counterGroups(*session, RowOwner::Cpu, cpu.value);
        QCOMPARE(groups.size(), size_t(1));
        QCOMPARE(groups[0].label(), QStringLiteral("Priority run"));
        QImage counter(800, 36, QImage::Format_RGB32);
        counter.fill(Qt::white);
        {
            QPainter p(&counter);
            tracks.paintCounters(p, groups[0], cpu.value, QRect(0, 0, 800, 36), range);
        }
        const QColor line = TrackRenderer::counterColor(0);
        int onLine = 0;
        for (int y = 0; y < counter.height(); ++y)
            for (int x = 0; x < counter.width(); ++x) {
                const QColor c = counter.pixelColor(x, y);
                onLine += std::abs(c.red() - line.red()) < 40 && std::abs(c.blue() - line.blue()) < 40 &&
                          std::abs(c.green() - line.green()) < 40;
            }
        QVERIFY2(onLine > 200, qPrintable(QString::number(onLine)));
    }

    // The power plugin's frequency counters get a row under each CPU that has them; its
    // readout says the value at the pointer as trace-cmd reports it, and the view's lowest,
    // mean and highest. A number field of the details pane plotted per task is a counter too.
    void powerCountersHaveRowsAndReadouts()
    {
        QTemporaryDir dir;
        const auto session = withPowerPlugin(dir, "arm-rtapp.dat");
        QVERIFY(session);
        const EventStore& store = session->store();

        ViewState view;
        view.reset({store.firstTimestamp(), store.lastTimestamp() + 1});
        TimelineWidget timeline(&view);
        timeline.resize(1200, 900);
        timeline.setSession(session.get());
        const QStringList under = rowsUnderCpus(timeline.rows(), TimelineRows::Kind::Counters, "CPU frequency");
        // CPUs 0, 3, 4, 5 have cpu_frequency events (1 and 2 only the text of print events).
        QCOMPARE(under, QStringList({"CPU 0", "CPU 3", "CPU 4", "CPU 5"}));
        timeline.renderRowsForBenchmark();

        // "kworker/5:1-854 [005] 259448.963382: cpu_frequency: state=700000 cpu_id=0", then
        // 850000 at 259450.963324, 700000 again at 259453.108203.
        TrackRenderer tracks;
        tracks.setSession(session.get());
        StreamId cpu0;
        for (uint16_t s = 0; s < store.streamCount(); ++s)
            if (store.stream(StreamId(s)).cpu == 0) cpu0 = StreamId(s);
        const std::vector<CounterGroup> groups = counterGroups(*session, RowOwner::Cpu, cpu0.value);
        QCOMPARE(groups.size(), size_t(1));
        const timeline::TimeRange all{store.firstTimestamp(), store.lastTimestamp() + 1};
        const QString at = tracks.counterReadout(groups[0], cpu0.value, all, 259451000000000ull).join('\n');
        QVERIFY2(at.startsWith("CPU frequency 850 MHz") && at.contains("min 700 MHz") && at.contains("max 850 MHz"),
                 qPrintable(at));
        QVERIFY(tracks.counterReadout(groups[0], cpu0.value, all, 259449000000000ull)[0].startsWith(
            "CPU frequency 700 MHz"));
        QVERIFY(
            tracks.counterReadout(groups[0], cpu0.value, all, store.firstTimestamp())[0].startsWith("CPU frequency -"));

        // The details of a cpu_frequency event: its `state` plotted per task.
        std::optional<EventRef> event;
        for (size_t i = 0; i < store.eventCount() && !event; ++i)
            if (session->formatter->eventName(
                    store.stream(store.eventAt(i).stream).columns.eventType[store.eventAt(i).index]) == "cpu_frequency")
                event = store.eventAt(i);
        QVERIFY(event);
        DetailsPane details;
        details.setSession(session.get());
        details.showEvent(event);
        QTreeWidgetItem* state = nullptr;
        for (QTreeWidgetItemIterator it(&details); *it; ++it)
            if ((*it)->text(0) == "state" && (*it)->parent() && (*it)->parent()->text(0) == "fields") state = *it;
        QVERIFY(state);
        const QList<QAction*> actions = details.fieldActions(state, &details);
        QCOMPARE(actions.size(), 3); // per task, per CPU, for the recording
        QVERIFY(details.fieldActions(state->parent()->child(0), &details).isEmpty()); // "common": no number
        QSignalSpy plotted(&details, &DetailsPane::plotFieldRequested);
        actions[0]->trigger();
        QCOMPARE(plotted.size(), 1);
        QCOMPARE(plotted[0][0].toString(), QStringLiteral("cpu_frequency.state per task"));
        auto sql = sql::RecordingSql::open(*session->trace);
        QVERIFY(sql);
        sql::ResultTrack track(*session->trace, "query_0", "cpu_frequency.state per task");
        QVERIFY((*sql)->run(plotted[0][1].toString().toStdString(), track).ok);
        QCOMPARE(track.rows(), size_t(12)); // every cpu_frequency event, on its task
        session->queryTracks.push_back(track.take());
        // Summarised by its maker (the query's thread), not by the first frame.
        const auto& plottedTable = static_cast<const CounterTable&>(*session->queryTracks.back()->tables().front());
        for (uint32_t owner : track.tasks()) {
            const CounterSummary* summary = plottedTable.summaryOf(owner);
            QVERIFY(summary);
            QCOMPARE(summary->rows(), plottedTable.byOwner().of(owner)->size());
        }
        size_t taskGroups = 0;
        for (uint32_t task = 0; task < session->trace->taskIndex().size(); ++task)
            taskGroups += counterGroups(*session, RowOwner::Task, task).size();
        QCOMPARE(taskGroups, track.tasks().size());
        QVERIFY(taskGroups >= 1);

        // Counters of one unit share a row, unless each is asked to have its own; a plotted
        // one (a query track) is removed from its row's menu.
        auto extra = std::make_unique<AnalysisTables>();
        extra->counters({"query_1", "Lower limit", RowOwner::Cpu, "kHz"})
            .add(store.firstTimestamp(), cpu0.value, 500000);
        extra->counters({"query_1b", "Some field", RowOwner::Cpu, ""}).add(store.firstTimestamp(), cpu0.value, 3);
        extra->publish([](EventRef) { return uint32_t(0); });
        session->queryTracks.push_back(std::move(extra));
        const auto shared = counterGroups(*session, RowOwner::Cpu, cpu0.value);
        QCOMPARE(shared.size(), size_t(2));
        QCOMPARE(shared[0].label(), QStringLiteral("CPU frequency +1"));
        QCOMPARE(counterGroups(*session, RowOwner::Cpu, cpu0.value, false).size(), size_t(3));
        timeline.tracksChanged();
        auto countersUnderCpu0 = [&] {
            int n = 0;
            for (const TimelineRows::Row& row : timeline.rows().rows())
                n += row.kind == TimelineRows::Kind::Counters && row.stream == cpu0 && row.pid < 0;
            return n;
        };
        QCOMPARE(countersUnderCpu0(), 2);
        timeline.rows().setCountersShareRows(false);
        QCOMPARE(countersUnderCpu0(), 3);
        timeline.rows().setCountersShareRows(true);
        QCOMPARE(countersUnderCpu0(), 2);
        session->queryTracks.clear();
        timeline.tracksChanged();
    }

    // The idle states are a track of their own under each CPU (not lanes along its bar), the
    // states' names inside.
    void idleStatesHaveATrackUnderEachCpu()
    {
        QTemporaryDir dir;
        const auto session = withPowerPlugin(dir, "arm-idle.dat");
        QVERIFY(session);
        const EventStore& store = session->store();
        ViewState view;
        const timeline::TimeRange all{store.firstTimestamp(), store.lastTimestamp() + 1};
        view.reset(all);
        TimelineWidget timeline(&view);
        timeline.resize(1200, 900);
        timeline.setSession(session.get());
        const QStringList under = rowsUnderCpus(timeline.rows(), TimelineRows::Kind::SliceTrack, "Idle states");
        const auto& rows = timeline.rows().rows();
        QVERIFY(timeline.rows().sliceTableOf(rows[2]));
        QCOMPARE(under.size(), 5); // every CPU with cpu_idle events (tst_power: 5)

        TrackRenderer tracks;
        tracks.setSession(session.get());
        const StreamId cpu0 = rows[1].stream;
        const SliceTable* idle = ownRowSliceTables(*session, RowOwner::Cpu, cpu0.value).at(0);
        const QColor color = QColor::fromRgb(idle->spec().rgb);
        QImage track(1000, 22, QImage::Format_RGB32), bar(1000, 40, QImage::Format_RGB32);
        track.fill(Qt::white), bar.fill(Qt::white);
        {
            QPainter p(&track);
            tracks.paintSliceRow(p, *idle, cpu0.value, QRect(0, 0, 1000, 22), all);
            QPainter b(&bar);
            tracks.paintSlices(b, RowOwner::Cpu, cpu0.value, QRect(0, 3, 1000, 30), all);
        }
        auto count = [&](const QImage& image) {
            int n = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) n += image.pixelColor(x, y) == color;
            return n;
        };
        QVERIFY2(count(track) > 2000, qPrintable(QString::number(count(track))));
        QCOMPARE(count(bar), 0);
    }

    // A plugin's flame-chart table is drawn as the function calls are, by the same renderer:
    // under its CPU, a lane per depth, each slice named and found under the pointer; not
    // along the CPU's bar.
    void aPluginsFlameChartIsDrawn()
    {
        auto plugin = std::make_unique<RunsAsFlame>();
        RunsAsFlame* runs = plugin.get();
        std::vector<std::unique_ptr<Plugin>> plugins;
        plugins.push_back(std::move(plugin));
        auto session = std::make_shared<TraceSession>();
        auto opened = Trace::open(test::fixturePath("threads.dat"), LoadOptions(), {}, std::move(plugins));
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        session->trace = std::move(*opened);
        session->formatter = std::make_unique<EventFormatter>(*session->trace);
        QVERIFY(runs->added > 10);

        TrackRenderer tracks;
        tracks.setSession(session.get());
        QVERIFY(tracks.hasFlameCharts());
        const StreamId cpu(0);
        tracks.layOutFlameNow(RowOwner::Cpu, cpu.value);
        const std::optional<TrackRenderer::FlameExtent> extent = tracks.flameExtent(RowOwner::Cpu, cpu.value);
        QVERIFY(extent);
        QCOMPARE(extent->lanes, 2);
        QVERIFY(extent->slices > 10);

        // Zoomed into one run of the CPU: its box fills lane 0, its first half lane 1.
        const SliceTable* table = tracks.flameTable("runs");
        QVERIFY(table);
        std::optional<SliceTable::View> run;
        table->forEachOf(cpu.value, session->store(), nullptr, [&](const SliceTable::View& v) {
            if (!run && v.depth == 0 && v.end - v.start > 1000) run = v;
        });
        QVERIFY(run);
        const timeline::TimeRange range{run->start, run->end};
        const int lane = TimelineRows::kLaneHeight;
        const QRect area(0, 0, 800, 2 * lane);
        QImage image(800, 2 * lane, QImage::Format_RGB32);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            tracks.paintFlame(p, RowOwner::Cpu, cpu.value, area, range);
        }
        QVERIFY(image.pixelColor(400, lane / 2) != Qt::white);               // the run
        QVERIFY(image.pixelColor(200, lane + lane / 2) != Qt::white);        // its first half
        QCOMPARE(image.pixelColor(600, lane + lane / 2), QColor(Qt::white)); // not its second
        const std::optional<TrackRenderer::FlameHit> hit =
            tracks.flameAt(RowOwner::Cpu, cpu.value, area, range, QPoint(400, lane / 2));
        QVERIFY(hit);
        QCOMPARE(hit->table, table);
        QCOMPARE(hit->start, run->start);
        QCOMPARE(tracks.flameLabel(*hit), QString::fromStdString(table->labelText(run->label)));
        const std::optional<TrackRenderer::FlameHit> inner =
            tracks.flameAt(RowOwner::Cpu, cpu.value, area, range, QPoint(200, lane + lane / 2));
        QVERIFY(inner);
        QCOMPARE(tracks.flameLabel(*inner), QStringLiteral("first half"));

        // The CPU's bar leaves the flame chart to its row.
        QImage bar(800, 40, QImage::Format_RGB32);
        bar.fill(Qt::white);
        {
            QPainter p(&bar);
            tracks.paintSlices(p, RowOwner::Cpu, cpu.value, QRect(0, 3, 800, 30), range);
        }
        QCOMPARE(bar.pixelColor(400, 30), QColor(Qt::white));
    }

    // Slices laid out for rows no longer drawn are let go past the budget (a busy task's row
    // holds hundreds of thousands of system calls), never those of the frame being drawn, and
    // are laid out again when their row comes back: what it draws and says is the same.
    void laidOutSlicesStayWithinTheBudget()
    {
        const std::shared_ptr<TraceSession> session = loadWithCpuRuns();
        QVERIFY(session);
        const Trace& trace = *session->trace;
        QVERIFY(trace.store().streamCount() >= 2);
        const timeline::TimeRange range{trace.store().firstTimestamp(), trace.store().lastTimestamp() + 1};
        auto paint = [&](TrackRenderer& tracks, uint16_t cpu) {
            QImage image(800, 40, QImage::Format_RGB32);
            image.fill(Qt::white);
            QPainter p(&image);
            tracks.beginFrame();
            tracks.paintCpu(p, StreamId(cpu), QRect(0, 3, 800, 30), QRect(0, 0, 800, 40), range);
            return image;
        };
        // Some moment inside a slice of CPU 0, and what the row says there.
        const auto& ts = trace.store().stream(StreamId(0)).columns.timestamp;
        TrackRenderer roomy;
        roomy.setSession(session.get());
        const QImage whole0 = paint(roomy, 0);
        const size_t cpu0Bytes = roomy.laidOutBytes();
        QVERIFY(cpu0Bytes > 0);
        const uint64_t t = ts[ts.size() / 2];
        const uint64_t slack = 1000000;
        const auto hit = roomy.sliceAt(RowOwner::Cpu, 0, t, slack);
        QVERIFY(hit);
        // The table's own slice: there at t, and anchored at its events.
        QVERIFY(hit->slice.start <= t + slack && hit->slice.end + slack >= t);
        if (hit->slice.anchored) {
            QCOMPARE(trace.store().timestamp(hit->slice.startEvent), hit->slice.start);
            QCOMPARE(trace.store().timestamp(hit->slice.endEvent), hit->slice.end);
        }
        paint(roomy, 1);
        paint(roomy, 1);
        const size_t both = roomy.laidOutBytes();
        QVERIFY(both > cpu0Bytes); // within the budget both stay

        TrackRenderer tight;
        tight.setSession(session.get());
        tight.setLanesBudget(0);
        paint(tight, 0);
        QCOMPARE(tight.laidOutBytes(), cpu0Bytes); // the frame's own are kept, whatever the budget
        paint(tight, 1);
        QCOMPARE(tight.laidOutBytes(), both); // CPU 0's were drawn in the frame before
        paint(tight, 1);
        QCOMPARE(tight.laidOutBytes(), both - cpu0Bytes); // now they go
        // Back to CPU 0: laid out again, drawn and found as before.
        QCOMPARE(paint(tight, 0), whole0);
        const auto again = tight.sliceAt(RowOwner::Cpu, 0, t, slack);
        QVERIFY(again);
        QCOMPARE(again->slice.start, hit->slice.start);
        QCOMPARE(again->slice.end, hit->slice.end);
        QCOMPARE(again->slice.label, hit->slice.label);
        QCOMPARE(again->slice.startEvent.index, hit->slice.startEvent.index);
    }

    // A paint from the cache (every hover repaints) draws no rows: not a frame, so the lanes of
    // the rows on screen stay, whatever the budget.
    void cachedPaintsKeepTheLanesOfRowsOnScreen()
    {
        const std::shared_ptr<TraceSession> session = loadWithCpuRuns();
        QVERIFY(session);
        ViewState view;
        view.reset({session->store().firstTimestamp(), session->store().lastTimestamp() + 1});
        TimelineWidget timeline(&view);
        timeline.resize(1150, 400);
        timeline.setSession(session.get());
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
        timeline.repaint();
        const size_t bytes = timeline.tracks().laidOutBytes();
        QVERIFY(bytes > 0);
        timeline.tracks().setLanesBudget(0);
        for (int i = 0; i < 4; ++i) timeline.repaint();
        QCOMPARE(timeline.tracks().laidOutBytes(), bytes);
    }

    void cancelledLoadDeliversNothing()
    {
        LoadJob job;
        QSignalSpy finished(&job, &LoadJob::finished);
        QSignalSpy cancelled(&job, &LoadJob::cancelled);
        job.start(test::fixture("instances.dat"));
        job.cancel();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!job.running());
        // A later load goes through, and it alone: the cancelled one never delivers (see
        // tst_jobtracker for the stale-result rule without a race).
        job.start(test::fixture("lost-events.dat"));
        QVERIFY(finished.wait(test::kWorkWaitMs));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.first().first().value<std::shared_ptr<TraceSession>>()->store().eventCount(), size_t(2808));
    }

    void dropOpensAndRecentRemembers()
    {
        MainWindow window;
        window.show();
        QSignalSpy loaded(window.workspace(), &Workspace::loadEnded);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(test::fixture("lost-events.dat"))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(loaded.wait(test::kWorkWaitMs));
        QVERIFY(window.session()->path.endsWith("lost-events.dat"));
        QVERIFY(window.windowTitle().startsWith("lost-events.dat"));
        const QStringList recent = QSettings().value("files/recent").toStringList();
        QVERIFY(!recent.isEmpty());
        QCOMPARE(recent.first(), QFileInfo(test::fixture("lost-events.dat")).absoluteFilePath());
    }

    void failedLoadKeepsPreviousTrace()
    {
        MainWindow window;
        QSignalSpy loaded(window.workspace(), &Workspace::loadEnded);
        window.openFile(test::fixture("lost-events.dat"));
        QVERIFY(loaded.wait(test::kWorkWaitMs));
        const TraceSession* before = window.session();
        QSignalSpy failed(window.workspace(), &Workspace::loadFailed);
        // A file that is not a trace.
        window.openFile(QStringLiteral(RINGSIDE_CLI));
        // The error box is window-modal: close it.
        connect(window.workspace(), &Workspace::loadFailed, this, [] {
            QTimer::singleShot(0, [] {
                if (QWidget* w = QApplication::activeModalWidget()) w->close();
            });
        });
        QVERIFY(failed.wait(test::kWorkWaitMs));
        QVERIFY2(failed.first().first().toString().contains("not a trace-cmd data file"),
                 qPrintable(failed.first().first().toString()));
        QCOMPARE(window.session(), before);
    }
};

QTEST_MAIN(TestTimelineWidget)
#include "tst_timelinewidget.moc"
