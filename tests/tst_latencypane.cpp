// SPDX-License-Identifier: GPL-2.0-or-later
// The Latency pane in the window: a preset and a pair built by hand give the pairs the core
// makes; the histogram's bars list their pairs; a pair goes to its start with the markers on
// its start and end; the pairs become a timeline track; mistakes say what is wrong.
#include "guisupport.h"
#include "latency/latencyhistogram.h"
#include "latency/latencypane.h"
#include "latency/latencyresultview.h"
#include "query/querypane.h"
#include "query/queryresultmodel.h"
#include "query/sqleditor.h"
#include "session/sessionfile.h"
#include "testsupport.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

using namespace ringside;

namespace {

bool pair(LatencyPane& pane)
{
    pane.run();
    return QTest::qWaitFor([&] { return !pane.running(); }, test::kWorkWaitMs);
}

} // namespace

class TestLatencyPane : public QObject {
    Q_OBJECT
private slots:
    // The IRQ preset on langraph-perfclock.dat: 267 pairs, min 79.864 us, max 2.176718 ms
    // (latency-reference.txt, from trace-cmd report).
    void irqPresetFromTheMenu()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("langraph-perfclock.dat")));
        QAction* action = window.menuBar()->findChild<QAction*>("latencyAction");
        QVERIFY(action);
        action->trigger();
        LatencyPane& pane = *window.latencyPane();
        QVERIFY(pane.isVisibleTo(&window));
        pane.choosePreset("irq");
        QCOMPARE(pane.fromEvent()->currentText(), QString("irq/irq_handler_entry"));
        QCOMPARE(pane.match()->text(), QString("irq"));
        QCOMPARE(pane.findChild<QLabel*>("latencyCounts")->text(), QString("267 starts, 267 ends"));
        // The match rate, worked out as the pair is edited.
        QVERIFY(QTest::qWaitFor([&] { return !pane.previewing(); }, test::kWorkWaitMs));
        QVERIFY2(pane.matchRate()->text().startsWith("267 pairs in all "), qPrintable(pane.matchRate()->text()));
        QVERIFY2(pane.matchRate()->text().endsWith(": 100.0% of the starts and 100.0% of the ends paired"),
                 qPrintable(pane.matchRate()->text()));
        pane.match()->setText("vec");
        emit pane.match()->textEdited("vec");
        QVERIFY(QTest::qWaitFor([&] { return !pane.previewing(); }, test::kWorkWaitMs));
        QVERIFY2(pane.matchRate()->text().contains("has no field vec"), qPrintable(pane.matchRate()->text()));
        pane.choosePreset("irq");
        QVERIFY(QTest::qWaitFor([&] { return !pane.previewing(); }, test::kWorkWaitMs));
        QVERIFY2(pane.matchRate()->text().startsWith("267 pairs in all "), qPrintable(pane.matchRate()->text()));
        QVERIFY(pane.builderShown());
        QVERIFY(pair(pane));
        // The definition folds away for the result, and unfolds from the menu.
        QVERIFY(!pane.builderShown());
        action->trigger();
        QVERIFY(pane.builderShown());
        QCOMPARE(pane.results()->count(), 1);
        LatencyResultView* view = pane.currentResult();
        QVERIFY(view);
        QVERIFY2(pane.status()->text().startsWith("irq: 267 pairs in "), qPrintable(pane.status()->text()));
        QVERIFY2(view->summary()->text().startsWith("267 pairs · unmatched: 0 starts, 0 ends"),
                 qPrintable(view->summary()->text()));
        QCOMPARE(view->pairsModel()->rowCount(), 267);
        uint64_t inBars = 0;
        for (const HistogramBucket& b : view->histogram()->buckets()) inBars += b.count;
        QCOMPARE(inBars, uint64_t(267));
        QCOMPARE(view->groups()->topLevelItemCount(), 4); // irq lines 15, 19, 20, 21

        // A click on the slowest bar lists its pairs, the slowest first.
        LatencyHistogram* bars = view->histogram();
        const int last = int(bars->buckets().size()) - 1;
        int x = bars->width() - 8;
        while (x > 0 && bars->bucketAt(x) != last) --x;
        QTest::mouseClick(bars, Qt::LeftButton, {}, QPoint(x, bars->height() / 2));
        QCOMPARE(bars->selectedFirst(), last);
        QCOMPARE(uint64_t(view->pairsModel()->rowCount()), bars->buckets().back().count);
        const PairMatcher::Pairs& p = view->result().pairs().matcher().pairs();
        QCOMPARE(p.duration[view->pairsModel()->pairAt(0)], uint64_t(2176718));
        QVERIFY2(view->shownLabel()->text().startsWith(QString::number(bars->buckets().back().count) + " pair"),
                 qPrintable(view->shownLabel()->text()));

        // Its double-click goes to the start event, the markers on the pair.
        view->goToRow(0);
        const uint32_t k = view->pairsModel()->pairAt(0);
        QCOMPARE(window.viewState()->selection(), std::optional<EventRef>(p.startEvent[k]));
        QCOMPARE(window.viewState()->markerA(), std::optional<uint64_t>(p.start[k]));
        QCOMPARE(window.viewState()->markerB(), std::optional<uint64_t>(p.start[k] + 2176718));

        // The bar's pairs become a track on the CPUs' rows, made from SQL as query tracks are.
        view->trackButton()->click();
        QCOMPARE(window.viewState()->queryTracks().size(), qsizetype(1));
        QVERIFY(window.viewState()->queryTracks()[0].sql.contains("event_pairs('irq/irq_handler_entry'"));
        QVERIFY(QTest::qWaitFor(
            [&] {
                return !window.queryPane()->makingTracks() && window.workspace()->session()->queryTracks.size() == 1;
            },
            test::kWorkWaitMs));
        QCOMPARE(window.workspace()->session()->queryTracks[0]->tables().front()->rows(),
                 size_t(bars->buckets().back().count));

        // Clicking the selected bar again lists every pair.
        QTest::mouseClick(bars, Qt::LeftButton, {}, QPoint(x, bars->height() / 2));
        QCOMPARE(bars->selectedFirst(), -1);
        QCOMPARE(view->pairsModel()->rowCount(), 267);
    }

    // Unfolding the definition makes the pane taller; folding it gives the timeline back the
    // height it had, which the dock would otherwise keep.
    void theDefinitionGivesItsHeightBack()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(test::load(window, test::fixture("langraph-perfclock.dat")));
        window.menuBar()->findChild<QAction*>("latencyAction")->trigger();
        LatencyPane& pane = *window.latencyPane();
        pane.choosePreset("irq");
        QVERIFY(pair(pane));
        QVERIFY(!pane.builderShown());
        auto* dock = window.findChild<QDockWidget*>("latencyDock");
        QVERIFY(dock);
        // The result's layout settled first (its minimum height is the dock's).
        for (int i = 0; i < 5; ++i) {
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            QCoreApplication::processEvents();
        }
        const int folded = dock->height();
        constexpr int kLayoutWaitMs = 30000; // a layout pass, however loaded the machine
        pane.setBuilderShown(true);
        QVERIFY2(QTest::qWaitFor([&] { return dock->height() > folded; }, kLayoutWaitMs),
                 qPrintable(QString("%1 then %2").arg(folded).arg(dock->height())));
        pane.setBuilderShown(false);
        QVERIFY2(QTest::qWaitFor([&] { return dock->height() == folded; }, kLayoutWaitMs),
                 qPrintable(QString("%1 then %2").arg(folded).arg(dock->height())));
    }

    // A pair built by hand: the wakeup-to-run latency of sched-mix.dat, as the `waking` preset
    // (1004 pairs); a second analysis opens beside the first; mistakes are said, not run.
    void aPairBuiltByHand()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        LatencyPane& pane = *window.latencyPane();
        pane.choosePreset({});
        // The builder keeps what the last preset set (irq: on the same CPU).
        QCheckBox* sameCpu = pane.findChild<QCheckBox*>("latencySameCpu");
        QVERIFY(sameCpu && sameCpu->isChecked());
        sameCpu->setChecked(false);
        pane.fromEvent()->setCurrentText("sched/sched_waking");
        pane.toEvent()->setCurrentText("sched/sched_switch");
        pane.match()->setText("pid=");
        pane.run();
        QVERIFY(!pane.running());
        QVERIFY2(pane.status()->text().contains("after '='"), qPrintable(pane.status()->text()));
        pane.match()->setText("pid=next_pid");
        QVERIFY(pair(pane));
        QVERIFY2(pane.status()->text().startsWith("sched_waking → sched_switch: 1,004 pairs in "),
                 qPrintable(pane.status()->text()));
        QCOMPARE(pane.currentResult()->result().report.overall.max, uint64_t(103502661));
        QCOMPARE(pane.currentResult()->groups()->headerItem()->text(0), QString("pid"));

        // Only the wakings of high-priority tasks (sched-mix.dat: 40 of them pair).
        QLineEdit* startsWhere = pane.findChild<QLineEdit*>("latencyFilterFrom");
        QVERIFY(startsWhere);
        startsWhere->setText("prio < 120");
        QVERIFY(pair(pane));
        QCOMPARE(pane.currentResult()->result().report.overall.count, uint64_t(40));
        QVERIFY(pane.currentResult()->trackSql().endsWith(", 'prio < 120', '')"));
        QCOMPARE(pane.results()->count(), 2);
        startsWhere->setText("prio <");
        QVERIFY(pair(pane));
        QVERIFY2(pane.status()->text().contains("the start filter"), qPrintable(pane.status()->text()));
        pane.results()->tabCloseRequested(1);
        QCOMPARE(pane.results()->count(), 1);

        pane.choosePreset("syscall");
        QVERIFY(pair(pane));
        QCOMPARE(pane.results()->count(), 2);
        QCOMPARE(pane.currentResult()->result().report.overall.count, uint64_t(28423));
        // The track of a task's pairs is on the task's row.
        QVERIFY(pane.currentResult()->trackSql().startsWith("SELECT ts, dur, utid, key AS name FROM event_pairs("));

        // An event the recording does not have; a field the event does not have.
        pane.fromEvent()->setCurrentText("block/block_rq_issue");
        pane.run();
        QVERIFY(!pane.running());
        QVERIFY2(pane.status()->text().contains("has no block/block_rq_issue events"),
                 qPrintable(pane.status()->text()));
        pane.choosePreset("irq");
        pane.match()->setText("no_such_field");
        QVERIFY(pair(pane));
        QCOMPARE(pane.results()->count(), 2);
        QVERIFY2(pane.status()->text().contains("no field no_such_field"), qPrintable(pane.status()->text()));
    }

    // print's B| and E| marks (print-marks.sh: two tasks, 18 nested spans each, an E| before
    // any B| and a B| never closed); the window's analyses are SQL views latency_<name>.
    void printMarksAndTheirView()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("print-marks.dat")));
        LatencyPane& pane = *window.latencyPane();
        pane.choosePreset("print");
        // The marks come with the preset: no condition to read in the builder.
        QVERIFY(pane.findChild<QLineEdit*>("latencyFilterFrom")->text().isEmpty());
        QVERIFY(pair(pane));
        LatencyResultView* view = pane.currentResult();
        QVERIFY(view);
        QVERIFY2(view->summary()->text().startsWith("36 pairs · unmatched: 1 starts, 1 ends"),
                 qPrintable(view->summary()->text()));
        QCOMPARE(pane.results()->tabText(0), QString("print"));
        // The session keeps the marks.
        const TraceSession& session = *window.workspace()->session();
        QStringList problems;
        const ViewSnapshot restored =
            viewFromJson(viewToJson(window.viewState()->snapshot(), session), session, true, &problems);
        QCOMPARE(restored.latencies, window.viewState()->latencies());
        QCOMPARE(restored.latencies[0].startText.prefix, std::string("B|"));

        // A condition of the user's own: another analysis, and its view in SQL.
        pane.setBuilderShown(true);
        pane.findChild<QLineEdit*>("latencyFilterFrom")->setText("common_pid > 0");
        QVERIFY(pair(pane));
        QCOMPARE(pane.results()->tabText(1), QString("print (filtered)"));
        QueryPane& query = *window.queryPane();
        query.editor()->setPlainText("SELECT count(*) FROM latency_print_filtered");
        query.run();
        QVERIFY(QTest::qWaitFor([&] { return !query.running(); }, test::kWorkWaitMs));
        QVERIFY2(query.status()->text().isEmpty() || !query.model()->result().rows.empty(),
                 qPrintable(query.status()->text()));
        QCOMPARE(query.model()->result().rows.size(), size_t(1));
        QCOMPARE(QString::fromStdString(query.model()->result().rows[0][0].toString()), QString("36"));
    }

    // The analyses are the view's: a session file keeps them, and a window given the view
    // makes them again; one the recording cannot make is said and dropped.
    void analysesAreKeptInTheSession()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        LatencyPane& pane = *window.latencyPane();
        pane.choosePreset("softirq");
        QVERIFY(pair(pane));
        pane.choosePreset("waking");
        pane.findChild<QLineEdit*>("latencyFilterFrom")->setText("prio < 120");
        QVERIFY(pair(pane));
        QCOMPARE(window.viewState()->latencies().size(), qsizetype(2));
        QCOMPARE(window.viewState()->latencies()[1].filterFrom, std::string("prio < 120"));

        const TraceSession& session = *window.workspace()->session();
        QJsonObject json = viewToJson(window.viewState()->snapshot(), session);
        QStringList problems;
        ViewSnapshot restored = viewFromJson(json, session, true, &problems);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
        QCOMPARE(restored.latencies, window.viewState()->latencies());

        // Another window, the same recording: the session's analyses are made again, in order.
        MainWindow other;
        QVERIFY(test::load(other, test::fixture("sched-mix.dat")));
        PairSpec absent = *presetPair("block");
        absent.from = "block/no_such_event";
        restored.latencies.insert(1, absent);
        other.viewState()->restore(restored);
        LatencyPane& again = *other.latencyPane();
        QVERIFY(QTest::qWaitFor([&] { return !again.running() && again.results()->count() == 2; }, test::kWorkWaitMs));
        QVERIFY(QTest::qWaitFor([&] { return !again.running(); }, test::kWorkWaitMs));
        QCOMPARE(again.results()->tabText(0), QString("softirq"));
        QCOMPARE(again.results()->tabText(1), QString("waking (filtered)"));
        QCOMPARE(qobject_cast<LatencyResultView*>(again.results()->widget(1))->result().report.overall.count,
                 uint64_t(40));
        QCOMPARE(other.viewState()->latencies().size(), qsizetype(2)); // block's left
        QVERIFY2(again.status()->text().contains("Not made again: block: the start event block/no_such_event is not"),
                 qPrintable(again.status()->text()));

        // Closing a tab drops it from the view.
        again.results()->tabCloseRequested(0);
        QCOMPARE(other.viewState()->latencies().size(), qsizetype(1));
        QCOMPARE(other.viewState()->latencies()[0].name, std::string("waking (filtered)"));
    }
};

QTEST_MAIN(TestLatencyPane)
#include "tst_latencypane.moc"
