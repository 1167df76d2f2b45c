// SPDX-License-Identifier: GPL-2.0-or-later
// The call tree views as a user meets them: the dock appears with a function_graph recording,
// the trees follow the chosen selection, the hottest path, search, caller/callee, the flame
// graph's zoom and the jumps from a node to its calls on the timeline and in the table; the
// timeline's flame-chart tracks (rows, summarised boxes, a click selecting a call, its details).
#include "guisupport.h"
#include "testsupport.h"

#include "calltree/calltreemodel.h"
#include "calltree/calltreepane.h"
#include "calltree/flamegraph.h"
#include "details/detailspane.h"
#include "filters/filterpanel.h"
#include "jobs/loadjob.h"
#include "mainwindow.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include "calls/calltree.h"

#include <traceevent/event-parse.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>
#include <QTreeView>
#include <QTreeWidget>

using namespace ringside;

namespace {

using test::load;

// Waits for the trees of the pane's current selection.
bool treesShown(CallTreePane* pane)
{
    // Built before the spy could hear it (a load's trees), or to be waited for.
    if (!pane->building() && pane->topDownTree()) return true;
    QSignalSpy ready(pane, &CallTreePane::treesReady);
    return ready.wait(test::kWorkWaitMs) || (!pane->building() && pane->topDownTree());
}

QString label(const CallTreePane* pane, const QTreeView* view, const QModelIndex& index)
{
    (void)pane;
    return view->model()->data(index.siblingAtColumn(CallTreeModel::Function), Qt::DisplayRole).toString();
}

} // namespace

class TestCallTreePane : public QObject {
    Q_OBJECT

private slots:
    void dockFollowsTheRecording()
    {
        MainWindow window;
        window.show();
        auto* dock = window.findChild<QDockWidget*>("callTreeDock");
        QVERIFY(dock);
        QVERIFY(load(window, test::fixture("instances.dat")));
        QVERIFY(!dock->isVisible()); // no function_graph records
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        QVERIFY(dock->isVisible());
        CallTreePane* pane = window.callTrees();
        QVERIFY(treesShown(pane));
        QVERIFY(pane->topDownTree());
        QCOMPARE(pane->topDownTree()->calls(), uint64_t(window.session()->trace->callSlices().size()));
        QVERIFY(pane->summary()->text().contains("36525 calls"));
    }

    void hottestPathSearchAndCallerCallee()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        CallTreePane* pane = window.callTrees();
        QVERIFY(treesShown(pane));
        QTreeView* view = pane->topDownView();
        // Both trees' models keep Qt's model rules through what follows (search, expansion,
        // caller/callee, rebuilds).
        QAbstractItemModelTester topDownTester(view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester bottomUpTester(pane->bottomUpView()->model(),
                                                QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(view->model()->rowCount(), 3); // do_execveat_common and two interrupt contexts
        QCOMPARE(label(pane, view, view->model()->index(0, 0)), QStringLiteral("do_execveat_common.isra.0"));
        // Counts take the width they need, not a default 100 pixels, from the first look.
        QTRY_VERIFY2_WITH_TIMEOUT(view->columnWidth(CallTreeModel::Calls) < 90,
                     qPrintable(QString::number(view->columnWidth(CallTreeModel::Calls))), test::kWorkWaitMs);

        pane->expandHottestPath();
        const QModelIndex deepest = view->currentIndex();
        QVERIFY(deepest.isValid());
        int depth = 0;
        for (QModelIndex p = deepest.parent(); p.isValid(); p = p.parent()) {
            QVERIFY(view->isExpanded(p));
            ++depth;
        }
        QVERIFY(depth > 5);
        // The deepest name is shown whole (its column widened as the path opened), or the
        // column has 60% of the view.
        const QString name = deepest.siblingAtColumn(CallTreeModel::Function).data().toString();
        const int needed = view->visualRect(deepest).x() + view->fontMetrics().horizontalAdvance(name) + 4;
        QVERIFY2(view->columnWidth(CallTreeModel::Function) >= std::min(needed, view->viewport()->width() * 3 / 5),
                 qPrintable(QString("%1 < %2").arg(view->columnWidth(CallTreeModel::Function)).arg(needed)));
        // Counts take the width they need, not a default 100 pixels.
        QVERIFY2(view->columnWidth(CallTreeModel::Calls) < 90,
                 qPrintable(QString::number(view->columnWidth(CallTreeModel::Calls))));
        // The current cell in a column past the view's edge does not scroll the names away.
        view->horizontalScrollBar()->setValue(0);
        const int namesWidth = view->columnWidth(CallTreeModel::Function);
        view->setColumnWidth(CallTreeModel::Function, view->viewport()->width()); // the last column out of view
        view->setCurrentIndex(deepest.siblingAtColumn(view->model()->columnCount() - 1));
        QCOMPARE(view->horizontalScrollBar()->value(), 0);
        view->setCurrentIndex(deepest);
        view->setColumnWidth(CallTreeModel::Function, namesWidth);

        auto* search = pane->findChild<QLineEdit*>("callTreeSearch");
        search->setText("copy_strings");
        QTest::keyClick(search, Qt::Key_Return);
        QVERIFY(label(pane, view, view->currentIndex()).startsWith("copy_strings"));

        // copy_strings is called by do_execveat_common only, and calls get_arg_page among others.
        const uint32_t function = pane->topDownTree()->node(uint32_t(view->currentIndex().internalId())).function;
        pane->showCallerCallee(function);
        QCOMPARE(pane->callers()->topLevelItemCount(), 1);
        QCOMPARE(pane->callers()->topLevelItem(0)->text(0), QStringLiteral("do_execveat_common.isra.0"));
        bool getArgPage = false;
        for (int i = 0; i < pane->callees()->topLevelItemCount(); ++i)
            getArgPage |= pane->callees()->topLevelItem(i)->text(0) == "get_arg_page";
        QVERIFY(getArgPage);
    }

    void functionStatistics()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        CallTreePane* pane = window.callTrees();
        QVERIFY(treesShown(pane));
        QTreeWidget* stats = pane->statistics();
        const FunctionStats expected = FunctionStats::of(window.session()->trace->callSlices(), CallSelection());
        QCOMPARE(stats->topLevelItemCount(), int(expected.overall.size()));
        // By total time, largest first: the outermost function.
        QCOMPARE(stats->topLevelItem(0)->text(0), QStringLiteral("do_execveat_common.isra.0"));
        QCOMPARE(stats->topLevelItem(0)->text(1), QStringLiteral("3"));
        // Sorting by hits compares numbers, not text.
        stats->sortByColumn(1, Qt::DescendingOrder);
        for (int r = 1; r < stats->topLevelItemCount(); ++r)
            QVERIFY(stats->topLevelItem(r - 1)->text(1).toULongLong() >= stats->topLevelItem(r)->text(1).toULongLong());
        const QStringList lines = pane->statisticsText().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), stats->topLevelItemCount() + 1);
        QVERIFY(lines[0].startsWith("Function\tHits\tTotal"));
        // Per CPU: the two CPUs the calls ran on.
        auto* cpu = pane->findChild<QComboBox*>("statisticsCpu");
        QCOMPARE(cpu->count(), 3);
        cpu->setCurrentIndex(2);
        QVERIFY(stats->topLevelItemCount() > 0 && stats->topLevelItemCount() <= int(expected.overall.size()));
    }

    // A function tracer recording: no trees, but hits per function and who called whom.
    void functionTracerShowsHitsAndCallers()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("function-write.dat")));
        QVERIFY(window.findChild<QDockWidget*>("callTreeDock")->isVisible());
        CallTreePane* pane = window.callTrees();
        QCOMPARE(pane->tabs()->currentIndex(), int(CallTreePane::StatisticsTab));
        QVERIFY(!pane->tabs()->isTabEnabled(CallTreePane::TopDownTab));
        QVERIFY(pane->summary()->text().contains("6263 records"));
        QTreeWidget* stats = pane->statistics();
        QCOMPARE(stats->topLevelItem(0)->text(0), QStringLiteral("up_write"));
        QCOMPARE(stats->topLevelItem(0)->text(1), QStringLiteral("596"));
        pane->showTracerLinks("vfs_write");
        QCOMPARE(pane->callers()->topLevelItemCount(), 1);
        QCOMPARE(pane->callers()->topLevelItem(0)->text(0), QStringLiteral("ksys_write"));
        QCOMPARE(pane->callers()->topLevelItem(0)->text(1), QStringLiteral("502"));
        QVERIFY(pane->callees()->topLevelItemCount() > 0); // functions whose return address is in vfs_write
    }

    void scopesFollowTheView()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        CallTreePane* pane = window.callTrees();
        QVERIFY(treesShown(pane));
        const uint64_t all = pane->topDownTree()->calls();

        // The selected event's task: pid 177, the failing exec.
        const EventStore& store = window.session()->store();
        std::optional<EventRef> of177;
        for (size_t row = 0; row < store.eventCount() && !of177; ++row) {
            const EventRef e = store.eventAt(row);
            if (store.stream(e.stream).columns.pid[e.index] == 177) of177 = e;
        }
        QVERIFY(of177);
        window.viewState()->select(*of177);
        pane->setScope(CallTreePane::SelectedTask);
        QVERIFY(treesShown(pane));
        const uint64_t task = pane->topDownTree()->calls();
        QVERIFY(task > 0 && task < all);
        QVERIFY(pane->summary()->text().contains("(177)"));

        // Markers: only the calls running between them.
        pane->setScope(CallTreePane::BetweenMarkers);
        QVERIFY(treesShown(pane));
        QCOMPARE(pane->topDownTree()->calls(), uint64_t(0));
        window.viewState()->setMarkerA(store.firstTimestamp());
        window.viewState()->setMarkerB(store.firstTimestamp() + 10000000); // the first 10 ms
        QVERIFY(treesShown(pane));
        QVERIFY(pane->topDownTree()->calls() > 0 && pane->topDownTree()->calls() < all);
    }

    // A live capture's call trees come from its events so far, while the view selects in the
    // store that grew since: an event beyond the analysed part is no selection there.
    void selectionBeyondTheAnalysedEventsIsNone()
    {
        LoadJob job;
        QSignalSpy finished(&job, &LoadJob::finished);
        job.start(test::fixture("fgraph-e2big.dat"));
        QVERIFY(finished.wait(test::kWorkWaitMs));
        auto session = finished.at(0).at(0).value<std::shared_ptr<TraceSession>>();
        QVERIFY(session);
        // The load hands the store over; its analyses (the calls among them) run after.
        QVERIFY(session->trace->analyse());
        session->trace->finishAnalyses();
        const EventStore& store = session->store();
        ViewState view;
        view.reset({store.firstTimestamp(), store.lastTimestamp() + 1});
        CallTreePane pane(&view);
        pane.setSession(session);
        pane.setScope(CallTreePane::SelectedTask);
        QVERIFY(treesShown(&pane));
        const EventRef last = store.eventAt(store.eventCount() - 1);
        view.select(EventRef{last.stream, uint32_t(store.stream(last.stream).columns.size())});
        QVERIFY(treesShown(&pane));
        QVERIFY2(pane.summary()->text().contains("select an event"), qPrintable(pane.summary()->text()));
        view.select(last);
        QVERIFY(treesShown(&pane));
        QVERIFY2(!pane.summary()->text().contains("select an event"), qPrintable(pane.summary()->text()));
    }

    void flameGraphZoomsAndSelects()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        CallTreePane* pane = window.callTrees();
        QVERIFY(treesShown(pane));
        pane->tabs()->setCurrentIndex(CallTreePane::FlameGraphTab);
        FlameGraphWidget* flame = pane->flameGraph();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Row 1 (y 18..35) holds the outermost calls: do_execveat_common spans most of it.
        const QPoint outermost(flame->width() / 4, 18 + 9);
        const uint32_t node = flame->nodeAt(outermost);
        QVERIFY(node != 0);
        QCOMPARE(pane->functionNames()[pane->topDownTree()->node(node).function],
                 std::string("do_execveat_common.isra.0"));
        QTest::mouseClick(flame, Qt::LeftButton, {}, outermost);
        QCOMPARE(flame->selected(), node);
        QTest::mouseDClick(flame, Qt::LeftButton, {}, outermost);
        QCOMPARE(flame->zoomed(), node);
        // Zoomed: the call spans the width, its first callee is on the next row.
        QCOMPARE(flame->nodeAt(QPoint(flame->width() - 3, 9)), node);
        // A tooltip of a box goes with the zoom that drew it: Backspace redraws the boxes.
        QHelpEvent help(QEvent::ToolTip, outermost, flame->mapToGlobal(outermost));
        QCoreApplication::sendEvent(flame, &help);
        QVERIFY(QToolTip::isVisible());
        QTest::keyClick(flame, Qt::Key_Backspace);
        QCOMPARE(flame->zoomed(), uint32_t(0));
        QTRY_VERIFY_WITH_TIMEOUT(!QToolTip::isVisible(), test::kWorkWaitMs);
        flame->setFlame(true);
        QVERIFY(flame->nodeAt(QPoint(flame->width() / 4, flame->height() - 18 - 9)) == node);
    }

    // One click on the failing execve's sys_exit event: its kernel calls beside those of the
    // execve that succeeded, what the failing one never reached (bprm_execve) shaded.
    void failingSyscallOpensBesideASuccessfulOne()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        CallTreePane* pane = window.callTrees();
        QVERIFY(treesShown(pane));
        const Trace& trace = *window.session()->trace;
        const EventStore& store = trace.store();
        tep_event* exitExecve = tep_find_event_by_name(trace.tep(), "syscalls", "sys_exit_execve");
        QVERIFY(exitExecve);
        std::vector<EventRef> exits;
        for (size_t row = 0; row < store.eventCount(); ++row) {
            const EventRef e = store.eventAt(row);
            if (store.stream(e.stream).columns.eventType[e.index] == exitExecve->id) exits.push_back(e);
        }
        QCOMPARE(exits.size(), size_t(3));

        QSignalSpy shown(pane, &CallTreePane::syscallShown);
        window.viewState()->select(exits[2]);
        QVERIFY(shown.wait(test::kWorkWaitMs));
        QCOMPARE(pane->tabs()->currentIndex(), int(CallTreePane::SyscallTab));
        QVERIFY2(pane->syscallTitle()->text().contains("-7 E2BIG"), qPrintable(pane->syscallTitle()->text()));
        // Named as the syscalls plugin paired it.
        QVERIFY2(pane->syscallTitle()->text().contains(">execve by "), qPrintable(pane->syscallTitle()->text()));
        QVERIFY(pane->syscallTitle()->text().contains("(176) returned 0"));

        auto* other = static_cast<CallTreeModel*>(pane->otherSyscallView()->model());
        auto* failing = static_cast<CallTreeModel*>(pane->selectedSyscallView()->model());
        QAbstractItemModelTester otherTester(other, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester failingTester(failing, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QModelIndex otherTop = other->index(0, 0);
        const QModelIndex failingTop = failing->index(0, 0);
        QCOMPARE(other->data(otherTop, Qt::DisplayRole).toString(), QStringLiteral("do_execveat_common.isra.0"));
        QCOMPARE(failing->data(failingTop, Qt::DisplayRole).toString(), QStringLiteral("do_execveat_common.isra.0"));
        QVERIFY(!other->onlyHere(other->nodeOf(otherTop)));
        bool bprmShaded = false, copyStringsShared = false;
        for (int r = 0; r < other->rowCount(otherTop); ++r) {
            const QModelIndex child = other->index(r, 0, otherTop);
            const QString name = other->data(child, Qt::DisplayRole).toString();
            if (name == "bprm_execve") bprmShaded = other->onlyHere(other->nodeOf(child));
            if (name == "copy_strings.isra.0") copyStringsShared = !other->onlyHere(other->nodeOf(child));
        }
        QVERIFY(bprmShaded);
        QVERIFY(copyStringsShared);

        // A successful call's exit shows it without taking the front.
        pane->tabs()->setCurrentIndex(CallTreePane::TopDownTab);
        window.viewState()->select(exits[1]);
        QVERIFY(shown.wait(test::kWorkWaitMs));
        QCOMPARE(pane->tabs()->currentIndex(), int(CallTreePane::TopDownTab));
        QVERIFY(pane->syscallTitle()->text().contains("(176) returned 0"));
    }

    void nodesJumpToTheirCallsAndFilterTheTable()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        CallTreePane* pane = window.callTrees();
        QVERIFY(treesShown(pane));
        const CallSlices& calls = window.session()->trace->callSlices();
        const auto& names = pane->functionNames();
        const auto it = std::find(names.begin(), names.end(), "bprm_execve");
        QVERIFY(it != names.end());
        const uint32_t function = uint32_t(it - names.begin());
        QVERIFY(pane->jumpToCall(function, true));
        const EventStore& store = window.session()->store();
        const EventRef first = *window.viewState()->selection();
        // The selected event is the entry of the first bprm_execve call.
        size_t firstCall = calls.size();
        for (size_t i = 0; i < calls.size(); ++i)
            if (calls.function(i) == function && (firstCall == calls.size() || calls.start(i) < calls.start(firstCall)))
                firstCall = i;
        QCOMPARE(store.timestamp(first), calls.start(firstCall));
        QVERIFY(pane->jumpToCall(function, true));
        QVERIFY(store.timestamp(*window.viewState()->selection()) > store.timestamp(first));
        QVERIFY(!pane->jumpToCall(function, true)); // two calls in all
        QVERIFY(pane->jumpToCall(function, false));
        QCOMPARE(*window.viewState()->selection(), first);
        // Shown whole: the call fills the middle of the view, not a sliver of it.
        const ViewState::TimeRange shownRange = window.viewState()->visibleRange();
        QVERIFY(shownRange.contains(calls.start(firstCall)) && shownRange.contains(calls.end(firstCall)));
        QVERIFY(shownRange.span() <= 2 * calls.duration(firstCall));

        // A double-click (or Enter) on a tree row goes to its function's slowest call, keeping
        // the user's markers; the row does not fold.
        window.viewState()->setMarkerA(1);
        window.viewState()->setMarkerB(2);
        size_t slowest = calls.size();
        for (size_t i = 0; i < calls.size(); ++i)
            if (calls.function(i) == function && (slowest == calls.size() || calls.duration(i) > calls.duration(slowest)))
                slowest = i;
        pane->tabs()->setCurrentIndex(CallTreePane::BottomUpTab);
        QTreeView* bottomUp = pane->bottomUpView();
        QModelIndex row;
        for (int r = 0; r < bottomUp->model()->rowCount() && !row.isValid(); ++r)
            if (bottomUp->model()->index(r, 0).data().toString() == "bprm_execve") row = bottomUp->model()->index(r, 0);
        QVERIFY(row.isValid());
        window.viewState()->clearSelection();
        emit bottomUp->activated(row);
        QCOMPARE(store.timestamp(*window.viewState()->selection()), calls.start(slowest));
        QVERIFY(window.viewState()->visibleRange().contains(calls.end(slowest)));
        QCOMPARE(window.viewState()->markerA(), std::optional<uint64_t>(1));
        QCOMPARE(window.viewState()->markerB(), std::optional<uint64_t>(2));
        QVERIFY(!bottomUp->expandsOnDoubleClick());
        // The CPU rows of a function_graph recording show their calls; the slowest call's row is
        // scrolled into view, however small the window.
        auto* timeline = window.findChild<TimelineWidget*>();
        const auto& rows = timeline->rows().rows();
        int callsRow = -1;
        for (int i = 0; i < rows.size(); ++i)
            if (rows[i].kind == TimelineRows::Kind::Calls && rows[i].pid < 0 && rows[i].stream == calls.stream(slowest))
                callsRow = i;
        QVERIFY(callsRow >= 0);
        QVERIFY(window.viewState()->cpuShowsCalls(calls.stream(slowest)));
        timeline->resize(timeline->width(), 160);
        window.viewState()->clearSelection();
        emit bottomUp->activated(row);
        const int top = timeline->rows().rowTop(callsRow);
        QVERIFY2(top >= timeline->scrollY() && top < timeline->scrollY() + timeline->height(),
                 qPrintable(QString("row at %1, scrolled to %2").arg(top).arg(timeline->scrollY())));

        QSignalSpy applied(&window, &MainWindow::filterApplied);
        const uint64_t address = calls.functionAddresses()[function];
        emit pane->filterRequested(
            QString("ftrace/funcgraph_entry,ftrace/funcgraph_exit: func == 0x%1").arg(address, 0, 16));
        QVERIFY(applied.count() > 0 || applied.wait(test::kWorkWaitMs));
        QVERIFY(window.filterPanel()->expressionEdit()->text().contains("func == 0x"));
    }

    void flameChartTrackShowsAndSelectsCalls()
    {
        MainWindow window;
        window.resize(1400, 1000);
        window.show();
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        ViewState* view = window.viewState();
        TimelineWidget* timeline = window.timeline();
        const TraceSession& session = *window.session();
        const CallSlices& calls = session.trace->callSlices();
        size_t call = calls.size();
        int64_t deepest = 0;
        for (size_t i = 0; i < calls.size(); ++i) {
            if (calls.pid(i) != 175) continue;
            deepest = std::max(deepest, calls.depth(i));
            if (call == calls.size() && calls.functionName(calls.function(i)) == "load_elf_binary") call = i;
        }
        QVERIFY(call < calls.size());

        // Showing a task's calls adds its row, and a Calls row under it once the lanes are laid out.
        auto callsRowIndex = [&](bool cpu) {
            const auto& rows = timeline->rows().rows();
            for (int i = 1; i < rows.size(); ++i)
                if (rows[i].kind == TimelineRows::Kind::Calls && (cpu ? rows[i].pid < 0 : rows[i].pid == 175)) {
                    if (rows[i - 1].kind != (cpu ? TimelineRows::Kind::Cpu : TimelineRows::Kind::Task)) return -2;
                    return i;
                }
            return -1;
        };
        view->setTaskShowsCalls(175, true);
        QVERIFY(view->hasTaskRow(175));
        QVERIFY(callsRowIndex(false) > 0);
        QTRY_COMPARE_WITH_TIMEOUT(timeline->rows().rows()[callsRowIndex(false)].lanes, int(deepest + 1), test::kWorkWaitMs);
        const int row = callsRowIndex(false);
        QCOMPARE(timeline->rows().rows()[row].height,
                 TimelineRows::kCallsPadding + int(deepest + 1) * TimelineRows::kLaneHeight);

        // Zoomed out, calls too small to tell apart are merged boxes that say so.
        view->zoomToFit();
        const QRect lanes = timeline->callLanesRect(row);
        bool merged = false;
        for (int x = lanes.left(); x < lanes.right() && !merged; x += 2)
            if (auto hit = timeline->callAt(QPoint(x, lanes.top() + 10 * TimelineRows::kLaneHeight + 5)))
                merged = hit->merged > 1 &&
                         timeline->callToolTip(QPoint(x, lanes.top() + 10 * TimelineRows::kLaneHeight + 5))
                             .contains("too close");
        QVERIFY(merged);

        // Zoomed to the call, a click on it selects it and its entry record.
        const uint64_t start = calls.start(call), duration = calls.duration(call);
        view->setVisibleRange({start - duration / 10, start + duration + duration / 10});
        const QPoint at(timeline->xOfTime(start + duration / 2),
                        lanes.top() + int(calls.depth(call)) * TimelineRows::kLaneHeight + 5);
        QTest::mouseClick(timeline, Qt::LeftButton, {}, at);
        QCOMPARE(view->selectedCall(), std::optional<uint32_t>(uint32_t(call)));
        // Named as the trace named it, though the track was set before the calls were analysed.
        QCOMPARE(timeline->tracks().flameLabel(*timeline->callAt(at)), QString("load_elf_binary"));
        const QString tip = timeline->callToolTip(at);
        QVERIFY2(tip.startsWith("load_elf_binary\n") && tip.contains("depth 2, sh-175"), qPrintable(tip));
        const EventRef record = *view->selection();
        QCOMPARE(session.store().timestamp(record), start);
        QCOMPARE(session.store().stream(record.stream).columns.pid[record.index], 175);

        // The details pane shows the call first.
        auto* details = window.findChild<DetailsPane*>();
        QVERIFY(details);
        QTreeWidgetItem* item = details->topLevelItem(0);
        QCOMPARE(item->text(0), QStringLiteral("call"));
        QCOMPARE(item->text(1), QStringLiteral("load_elf_binary"));
        auto field = [&](const QString& name) {
            for (int i = 0; i < item->childCount(); ++i)
                if (item->child(i)->text(0) == name) return item->child(i)->text(1);
            return QString();
        };
        QCOMPARE(field("duration"), timeline::formatDuration(int64_t(duration)));
        QCOMPARE(field("depth"), QStringLiteral("2"));
        QVERIFY(field("parent").startsWith("bprm_execve at "));
        const CallFamily family = CallFamily::of(calls, call);
        QVERIFY(family.children > 5);
        QVERIFY(field("children").startsWith(QString("%1 calls, ").arg(family.children)));
        QCOMPARE(field("self time"), timeline::formatDuration(int64_t(family.selfTime(calls, call))));
        QCOMPARE(field("return value"), QStringLiteral("not recorded"));
        QVERIFY(field("task").startsWith("sh (pid 175)"));

        // Selecting an event drops the call; a double-click on the call zooms to it.
        view->select(session.store().eventAt(0));
        QVERIFY(!view->selectedCall());
        QCOMPARE(details->topLevelItem(0)->text(0), QStringLiteral("event"));
        view->zoomToFit();
        view->setVisibleRange({start - duration, start + 2 * duration});
        QTest::mouseDClick(timeline, Qt::LeftButton, {}, QPoint(timeline->xOfTime(start + duration / 2), at.y()));
        QVERIFY(view->visibleRange().start <= start && view->visibleRange().end >= start + duration);
        QVERIFY(view->visibleRange().span() < duration * 12 / 10);

        // A CPU row shows the calls that began on it (a function_graph recording's do from the
        // start); hiding and removing rows drops the tracks.
        const StreamId cpu1 = session.store().buffers()[0].streams[0];
        view->setCpuShowsCalls(cpu1, true);
        QVERIFY(callsRowIndex(true) > 0);
        timeline->layOutCallsNow();
        size_t onCpu = 0;
        for (size_t i = 0; i < calls.size(); ++i) onCpu += calls.stream(i) == cpu1;
        QCOMPARE(timeline->tracks().flameExtent(RowOwner::Cpu, cpu1.value)->slices, onCpu);
        view->setCpuShowsCalls(cpu1, false);
        for (const auto& r : timeline->rows().rows())
            QVERIFY(r.kind != TimelineRows::Kind::Calls || r.pid >= 0 || r.stream != cpu1);
        view->removeTaskRow(175);
        QVERIFY(!view->taskShowsCalls(175));
        QCOMPARE(callsRowIndex(false), -1);
    }

    // The window goes while the timeline's workers lay out call lanes: they must not read the
    // recording after it has gone (ASan names the read; the normal build crashes now and then).
    void closingWhileCallLanesAreLaidOut()
    {
        for (int round = 0; round < 5; ++round) {
            auto window = std::make_unique<MainWindow>();
            window->resize(1400, 1000);
            window->show();
            QVERIFY(load(*window, test::fixture("fgraph-e2big.dat")));
            const auto& stream = window->session()->store().buffers()[0].streams;
            for (StreamId cpu : stream) window->viewState()->setCpuShowsCalls(cpu, true);
            window->viewState()->setTaskShowsCalls(175, true);
            QCoreApplication::processEvents(); // the rows ask for their lanes as they are painted
            window.reset();
        }
    }
};

QTEST_MAIN(TestCallTreePane)
#include "tst_calltreepane.moc"
