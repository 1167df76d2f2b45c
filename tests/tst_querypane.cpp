// SPDX-License-Identifier: GPL-2.0-or-later
// The Query pane in the window: examples run, results go to their events, become timeline
// tracks kept in the view (and so in sessions), histograms; errors and Cancel.
#include "details/detailspane.h"
#include "guisupport.h"
#include "query/histogramview.h"
#include "query/querypane.h"
#include "query/sqleditor.h"
#include "session/sessionfile.h"
#include "testsupport.h"
#include "timeline/timelinewidget.h"

#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableView>
#include <QTest>
#include <QTreeWidgetItemIterator>

using namespace ringside;

namespace {

bool runQuery(QueryPane& pane, const QString& sql)
{
    pane.editor()->setPlainText(sql);
    pane.run();
    return QTest::qWaitFor([&] { return !pane.running(); }, test::kWorkWaitMs);
}

// A cell of the last result, as SQLite gave it (not as the table shows it).
double number(const QueryPane& pane, size_t row, size_t column)
{
    const auto& rows = pane.model()->result().rows;
    return row < rows.size() && column < rows[row].size()
               ? QString::fromStdString(rows[row][column].toString()).toDouble()
               : -1;
}

QString status(const QueryPane& pane)
{
    return pane.status()->text();
}

} // namespace

class TestQueryPane : public QObject {
    Q_OBJECT
private slots:
    void examplesRunOnARecording()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        QueryPane& pane = *window.queryPane();
        QVERIFY(pane.findChild<QPushButton*>("queryRun")->isEnabled());
        for (const QueryPane::Example& example : QueryPane::examples()) {
            QVERIFY(runQuery(pane, example.sql));
            QVERIFY2(status(pane).contains(QRegularExpression("^[0-9,]+ rows? in [0-9.]+ s$")),
                     qPrintable(example.title + ": " + status(pane)));
            QVERIFY2(pane.model()->rowCount() > 0, qPrintable(example.title));
        }
        // Each run is in the history, the latest last, once.
        QCOMPARE(window.viewState()->queryHistory().size(), qsizetype(QueryPane::examples().size()));
        QVERIFY(runQuery(pane, QueryPane::examples().front().sql));
        QCOMPARE(window.viewState()->queryHistory().size(), qsizetype(QueryPane::examples().size()));
        QCOMPARE(window.viewState()->queryHistory().back(), QueryPane::examples().front().sql.trimmed());
    }

    // One wakeup latency everywhere: the examples read the sched plugin's measure, and agree
    // with its per-task maxima and averages and its histogram, wakeup for wakeup.
    void wakeupLatencyExamplesAgreeWithTheSchedPlugin()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        QueryPane& pane = *window.queryPane();
        auto rowsOf = [&](const QString& sql) {
            std::vector<std::vector<QString>> out;
            if (!runQuery(pane, sql)) return out;
            for (const auto& row : pane.model()->result().rows) {
                out.emplace_back();
                for (const auto& cell : row) out.back().push_back(QString::fromStdString(cell.toString()));
            }
            return out;
        };
        // The plugin's own numbers, per task: max and average.
        const auto plugin = rowsOf("SELECT utid, max_wakeup_latency_ns, avg_wakeup_latency_ns FROM sched_tasks "
                                   "WHERE max_wakeup_latency_ns IS NOT NULL ORDER BY utid");
        QVERIFY(plugin.size() > 10);
        // The track example's rows, summed up per task the same way.
        const QString track = QueryPane::examples()[0].sql.trimmed().chopped(1); // without its ';'
        const auto fromTrack =
            rowsOf("SELECT utid, max(dur), sum(dur) / count(*) FROM (" + track + ") GROUP BY utid ORDER BY utid");
        QCOMPARE(fromTrack, plugin);
        // The percentiles example's maxima are the plugin's too.
        const QString percentiles = QueryPane::examples()[1].sql.trimmed().chopped(1);
        const auto maxima =
            rowsOf("SELECT t.utid, p.max_ns FROM (" + percentiles + ") p JOIN thread t USING (tid) ORDER BY t.utid");
        QCOMPARE(maxima.size(), plugin.size());
        for (size_t i = 0; i < plugin.size(); ++i)
            QCOMPARE(maxima[i], (std::vector<QString>{plugin[i][0], plugin[i][1]}));
        // And the histogram counts every one of them in its bucket ([from, to) µs).
        const auto histogram = rowsOf("SELECT from_us, to_us, count FROM sched_wakeup_latency ORDER BY from_us");
        QVERIFY(histogram.size() > 3);
        int64_t counted = 0;
        for (const auto& bucket : histogram) {
            const auto inIt = rowsOf("SELECT count(*) FROM sched_wakeups WHERE latency / 1000 >= " + bucket[0] +
                                     " AND latency / 1000 < " + bucket[1]);
            QCOMPARE(inIt.front().front(), bucket[2]);
            counted += bucket[2].toLongLong();
        }
        QCOMPARE(rowsOf("SELECT count(*) FROM sched_wakeups").front().front().toLongLong(), counted);
    }

    void resultRowsGoToTheirEvents()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        QueryPane& pane = *window.queryPane();
        QVERIFY(runQuery(pane, "SELECT id, ts, cpu, common_pid FROM sched_switch ORDER BY ts LIMIT 20"));
        QCOMPARE(pane.model()->rowCount(), 20);
        for (int row : {0, 7, 19}) {
            pane.goToRow(row);
            const auto selected = window.viewState()->selection();
            QVERIFY(selected);
            const EventStore& store = window.workspace()->session()->store();
            QCOMPARE(int64_t(store.rowOf(*selected)), pane.model()->result().rows[size_t(row)][0].integer);
        }
        pane.results()->selectRow(1);
        const QStringList copied = pane.selectedRowsText().split('\n');
        QCOMPARE(copied[0], QString("id\tts\tcpu\tcommon_pid"));
        QCOMPARE(copied[1].split('\t')[1].toLongLong(), pane.model()->result().rows[1][1].integer);
        // Times read in seconds as the event table shows them, durations with their unit; the raw
        // value in the tooltip and in what is copied.
        QVERIFY(runQuery(pane, "SELECT ts, dur, ts_end, utid FROM sched WHERE ts = 1022903382178"));
        const QAbstractItemModel& model = *pane.model();
        QCOMPARE(model.data(model.index(0, 0), Qt::DisplayRole).toString(), QString("1022.903382178"));
        QCOMPARE(model.data(model.index(0, 1), Qt::DisplayRole).toString(), QString::fromUtf8("218.354 \u00b5s"));
        QCOMPARE(model.data(model.index(0, 2), Qt::DisplayRole).toString(), QString("1022.903600532"));
        QVERIFY(model.data(model.index(0, 1), Qt::ToolTipRole).toString().startsWith("218354 "));
        pane.results()->selectRow(0);
        QCOMPARE(pane.selectedRowsText().split('\n')[1], QString("1022903382178\t218354\t1022903600532\t4"));
        // Without ts, by the event's id.
        QVERIFY(runQuery(pane, "SELECT id, prev_comm FROM sched_switch WHERE id > 5000 ORDER BY id LIMIT 3"));
        pane.goToRow(2);
        QVERIFY(window.viewState()->selection());
        QCOMPARE(int64_t(window.workspace()->session()->store().rowOf(*window.viewState()->selection())),
                 pane.model()->result().rows[2][0].integer);
    }

    void resultBecomesATrackKeptInTheView()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        QueryPane& pane = *window.queryPane();
        const QString wakeups = QueryPane::examples().front().sql;
        QVERIFY(runQuery(pane, wakeups));
        const size_t rows = pane.model()->result().totalRows;
        QVERIFY(rows > 100);
        QVERIFY(pane.trackButton()->isEnabled());
        auto* timeline = window.findChild<TimelineWidget*>();
        const auto queryRows = [&] {
            QVector<TimelineRows::Row> found;
            for (const TimelineRows::Row& row : timeline->rows().rows())
                if (row.kind == TimelineRows::Kind::QueryTrack) found.push_back(row);
            return found;
        };
        QVERIFY(queryRows().isEmpty());
        pane.addTrack("Wakeup latency");
        // Its row shows at once, named, under the "query tracks" header at the top, before its
        // query has run; no task row is added for it.
        QCOMPARE(queryRows().size(), 1);
        QCOMPARE(queryRows()[0].label, QStringLiteral("Wakeup latency"));
        QCOMPARE(timeline->rows().rows()[0].label, QStringLiteral("query tracks"));
        QVERIFY(QTest::qWaitFor([&] { return !pane.makingTracks(); }, test::kWorkWaitMs));
        QVERIFY(window.viewState()->taskRows().isEmpty());
        const auto& tracks = window.workspace()->session()->queryTracks;
        QCOMPARE(tracks.size(), size_t(1));
        const TrackTable& table = *tracks[0]->tables().front();
        QCOMPARE(table.kind(), TrackTable::Kind::Slices);
        QCOMPARE(table.title(), std::string("Wakeup latency"));
        QCOMPARE(table.rows(), rows);
        // The row draws every task's slices: the table's.
        QCOMPARE(queryRows().size(), 1);
        QCOMPARE(timeline->rows().queryTableOf(queryRows()[0]), &table);
        QCOMPARE(queryRows()[0].height, TimelineRows::kQuerySlicesHeight);
        const auto& slices = static_cast<const SliceTable&>(table);
        std::optional<SliceTable::View> first;
        slices.forEach(window.workspace()->session()->store(), &window.workspace()->session()->trace->taskIndex(),
                       [&](const SliceTable::View& v) {
                           if (!first && v.end > v.start) first = v;
                       });
        QVERIFY(first);
        const int32_t pid = window.workspace()->session()->trace->taskIndex().task(TaskId(first->owner)).pid;
        QVERIFY(pid > 0);
        const auto hit =
            timeline->tracks().sliceAt(slices, TrackRenderer::kEveryOwner, (first->start + first->end) / 2, 0);
        QVERIFY(hit);
        QVERIFY(hit->slice.start <= first->end && hit->slice.end >= first->start);
        // Wakeups of different tasks overlap: the row packs them in as many lanes as overlap
        // at once (so none hides another), up to its most.
        std::vector<std::pair<uint64_t, int>> edges; // +1 at a start, -1 at an end (ends first)
        slices.forEach(window.workspace()->session()->store(), &window.workspace()->session()->trace->taskIndex(),
                       [&](const SliceTable::View& v) {
                           edges.emplace_back(v.start, 1);
                           edges.emplace_back(v.end, -1);
                       });
        std::sort(edges.begin(), edges.end());
        int open = 0, mostOpen = 0;
        for (const auto& [t, step] : edges) mostOpen = std::max(mostOpen, open += step);
        QVERIFY(mostOpen > 1);
        QCOMPARE(timeline->tracks().laneCount(slices, TrackRenderer::kEveryOwner),
                 std::min(size_t(mostOpen), TrackRenderer::kMaxPackedLanes));
        // Many slices are laid out on a worker: the frame does not wait, the row says so, and
        // is drawn when they are ready.
        timeline->tracks().setSession(window.workspace()->session().get()); // forgets its lanes
        timeline->tracks().setPackNowSlices(0);
        timeline->renderRowsForBenchmark();
        QVERIFY(timeline->tracks().layingOut(slices));
        QVERIFY(QTest::qWaitFor([&] { return !timeline->tracks().layingOut(slices); }, test::kWorkWaitMs));
        timeline->renderRowsForBenchmark(); // takes the worker's lanes
        QVERIFY(!timeline->tracks().layingOut(slices));
        QCOMPARE(timeline->tracks().laneCount(slices, TrackRenderer::kEveryOwner),
                 std::min(size_t(mostOpen), TrackRenderer::kMaxPackedLanes));
        timeline->tracks().setPackNowSlices(TrackRenderer::kPackNowSlices);

        // In a session file, and back from it.
        const ViewSnapshot saved = window.viewState()->snapshot();
        QCOMPARE(saved.queryTracks.size(), qsizetype(1));
        const QJsonObject json = viewToJson(saved, *window.workspace()->session());
        QStringList problems;
        const ViewSnapshot restored = viewFromJson(json, *window.workspace()->session(), true, &problems);
        QCOMPARE(restored.queryTracks, saved.queryTracks);
        QCOMPARE(restored.queryHistory, saved.queryHistory);
        QCOMPARE(restored.queryText, saved.queryText);
        window.viewState()->removeQueryTrack(0);
        QVERIFY(queryRows().isEmpty()); // its row goes at once
        QVERIFY(QTest::qWaitFor(
            [&] { return !pane.makingTracks() && window.workspace()->session()->queryTracks.empty(); }, test::kWorkWaitMs));
        window.viewState()->restore(restored);
        QVERIFY(QTest::qWaitFor(
            [&] { return !pane.makingTracks() && window.workspace()->session()->queryTracks.size() == 1; }, test::kWorkWaitMs));
        QCOMPARE(window.workspace()->session()->queryTracks[0]->tables().front()->rows(), rows);
        QCOMPARE(pane.editor()->toPlainText(), wakeups);
    }

    void counterTrackOnCpuRows()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        QueryPane& pane = *window.queryPane();
        QVERIFY(runQuery(pane, "SELECT ts, cpu, prev_prio AS value FROM sched_switch"));
        pane.addTrack("Priority");
        QVERIFY(QTest::qWaitFor([&] { return !pane.makingTracks(); }, test::kWorkWaitMs));
        const auto& tracks = window.workspace()->session()->queryTracks;
        QCOMPARE(tracks.size(), size_t(1));
        QCOMPARE(tracks[0]->tables().front()->kind(), TrackTable::Kind::Counters);
        QCOMPARE(tracks[0]->tables().front()->owner(), RowOwner::Cpu);
        QCOMPARE(tracks[0]->tables().front()->rows(), size_t(1992));
        // A result with nothing to draw on says what is missing.
        QVERIFY(runQuery(pane, "SELECT ts, dur FROM sched_slice"));
        QVERIFY(!pane.trackButton()->isEnabled());
        QVERIFY(pane.trackButton()->toolTip().contains("utid, tid, pid or cpu"));
    }

    // A number field plotted from the details pane is a query track kept in the view, drawn
    // under its task's row, and a track of SQL's counter tables (Perfetto's thread_counter_track).
    void fieldPlottedFromTheDetailsIsACounter()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        QueryPane& pane = *window.queryPane();
        QVERIFY(runQuery(pane, "SELECT id FROM sched_switch WHERE prev_pid != 0 ORDER BY id LIMIT 1"));
        const size_t row = size_t(number(pane, 0, 0));
        const EventStore& store = window.workspace()->session()->store();
        const EventRef event = store.eventAt(row);
        window.viewState()->select(event);
        auto* details = window.findChild<DetailsPane*>();
        QVERIFY(details);
        QTreeWidgetItem* field = nullptr;
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (QTreeWidgetItemIterator it(details); *it; ++it)
                    if ((*it)->text(0) == "prev_prio" && (*it)->parent() && (*it)->parent()->text(0) == "fields")
                        field = *it;
                return field != nullptr;
            },
            test::kWorkWaitMs));
        const QList<QAction*> actions = details->fieldActions(field, details);
        QCOMPARE(actions.size(), 3);
        actions[0]->trigger(); // per task
        QCOMPARE(window.viewState()->queryTracks().size(), qsizetype(1));
        QCOMPARE(window.viewState()->queryTracks()[0].name, QStringLiteral("sched_switch.prev_prio per task"));
        QVERIFY(QTest::qWaitFor(
            [&] { return !pane.makingTracks() && window.workspace()->session()->queryTracks.size() == 1; },
            test::kWorkWaitMs));
        // The event's task has a row, and under it the counter's.
        const int32_t pid = store.stream(event.stream).columns.pid[event.index];
        QVERIFY(window.viewState()->hasTaskRow(pid));
        bool drawn = false;
        const auto& rows = window.findChild<TimelineWidget*>()->rows().rows();
        for (int i = 1; i < rows.size(); ++i)
            drawn |= rows[i].kind == TimelineRows::Kind::Counters && rows[i].pid == pid &&
                     rows[i].label == "sched_switch.prev_prio per task";
        QVERIFY(drawn);
        // In SQL: a thread_counter_track per task with a value, holding every switch's prev_prio.
        QVERIFY(runQuery(pane, "SELECT count(*), sum(value) FROM counter c JOIN thread_counter_track t ON "
                               "c.track_id = t.id WHERE t.name = 'sched_switch.prev_prio per task'"));
        const double count = number(pane, 0, 0), sum = number(pane, 0, 1);
        QVERIFY(count > 100);
        QVERIFY(runQuery(pane, "SELECT count(*), sum(prev_prio) FROM sched_switch WHERE utid IS NOT NULL"));
        QCOMPARE(count, number(pane, 0, 0));
        QCOMPARE(sum, number(pane, 0, 1));
        QVERIFY(runQuery(pane, "SELECT DISTINCT type FROM thread_counter_track"));
        QCOMPARE(pane.model()->result().rows.at(0).at(0).toString(), std::string("query_track"));
        // For the whole recording: one line in the track's own row at the top, under "query
        // tracks" (the per-task one listed there too), and a counter_track of no CPU or task.
        actions[2]->trigger();
        QVERIFY(QTest::qWaitFor(
            [&] { return !pane.makingTracks() && window.workspace()->session()->queryTracks.size() == 2; },
            test::kWorkWaitMs));
        const TimelineRows& timelineRows = window.findChild<TimelineWidget*>()->rows();
        const auto& now = timelineRows.rows();
        QVERIFY(now.size() > 3);
        QCOMPARE(now[0].label, QStringLiteral("query tracks"));
        QCOMPARE(now[1].kind, TimelineRows::Kind::QueryTrack);
        QCOMPARE(now[1].label, QStringLiteral("sched_switch.prev_prio per task"));
        QCOMPARE(timelineRows.queryTableOf(now[1])->owner(), RowOwner::Task);
        QCOMPARE(now[2].kind, TimelineRows::Kind::QueryTrack);
        QCOMPARE(now[2].label, QStringLiteral("sched_switch.prev_prio for the whole recording"));
        QCOMPARE(timelineRows.queryTableOf(now[2])->owner(), RowOwner::Recording);
        QCOMPARE(now[2].height, TimelineRows::kCounterHeight);
        for (const TimelineRows::Row& row : now) QVERIFY(row.label != "counters of the recording");
        QVERIFY(runQuery(pane, "SELECT count(*), sum(c.value) FROM counter c JOIN counter_track t ON c.track_id = t.id "
                               "WHERE t.name = 'sched_switch.prev_prio for the whole recording' AND t.id NOT IN "
                               "(SELECT id FROM cpu_counter_track UNION SELECT id FROM thread_counter_track)"));
        const double whole = number(pane, 0, 0), wholeSum = number(pane, 0, 1);
        QVERIFY(runQuery(pane, "SELECT count(*), sum(prev_prio) FROM sched_switch"));
        QCOMPARE(whole, number(pane, 0, 0));
        QCOMPARE(wholeSum, number(pane, 0, 1));
        window.viewState()->removeQueryTrack(1);

        // Removed, it leaves SQL too.
        window.viewState()->removeQueryTrack(0);
        QVERIFY(
            QTest::qWaitFor([&] { return !pane.makingTracks() && window.workspace()->session()->queryTracks.empty(); },
                            test::kWorkWaitMs));
        QVERIFY(runQuery(pane, "SELECT count(*) FROM thread_counter_track"));
        QCOMPARE(number(pane, 0, 0), 0.0);
    }

    void histogramOfANumericColumn()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        QueryPane& pane = *window.queryPane();
        QVERIFY(runQuery(pane, "SELECT name, dur FROM sched_slice JOIN thread USING (utid)"));
        QVERIFY(!pane.showHistogram(0)); // text
        QVERIFY(pane.showHistogram(1));
        QVERIFY(pane.histogram()->isVisible() || !window.isVisible());
        size_t counted = 0;
        for (const auto& bin : pane.histogram()->bins()) counted += bin.count;
        QCOMPARE(counted, size_t(pane.model()->rowCount()));
        QVERIFY(pane.histogram()->logarithmic()); // durations from microseconds to seconds
        // The runs still going at the end (dur -1, one per CPU) in a bin of their own.
        QCOMPARE(pane.histogram()->bins().front().high, 0.0);
        QCOMPARE(pane.histogram()->bins().front().count, size_t(2));
        // Every range in one format: a duration's in one unit, three decimals, no e-notation.
        QCOMPARE(pane.histogram()->unit(), QStringLiteral("ms")); // its largest edge is under a second
        const QRegularExpression oneFormat("^-?[0-9,]+\\.[0-9]{3} – -?[0-9,]+\\.[0-9]{3}$");
        for (const QString& label : pane.histogram()->labels())
            QVERIFY2(oneFormat.match(label).hasMatch(), qPrintable(label));
        // Whole numbers (not durations) with separators; fractions to a fixed number of decimals.
        QVERIFY(runQuery(pane, "SELECT next_pid * 1000 AS n FROM sched_switch"));
        QVERIFY(pane.showHistogram(0));
        QVERIFY(pane.histogram()->unit().isEmpty());
        for (const QString& label : pane.histogram()->labels())
            QVERIFY2(QRegularExpression("^[0-9,]+ – [0-9,]+$").match(label).hasMatch(), qPrintable(label));
        QVERIFY(runQuery(pane, "SELECT next_pid / 7.0 AS r FROM sched_switch"));
        QVERIFY(pane.showHistogram(0));
        const QStringList fractions = pane.histogram()->labels();
        const qsizetype decimals = fractions.front().section(" – ", 0, 0).section('.', 1).size();
        QVERIFY(decimals > 0);
        for (const QString& label : fractions) {
            QVERIFY2(!label.contains('e'), qPrintable(label));
            QCOMPARE(label.section(" – ", 1).section('.', 1).size(), decimals);
        }
    }

    void errorsAndCancel()
    {
        MainWindow window;
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        QueryPane& pane = *window.queryPane();
        QVERIFY(runQuery(pane, "SELECT count(*)\nFROM sched_switch WHER prev_pid = 1"));
        QVERIFY2(status(pane).contains("Error at line 2, column 24") && status(pane).contains("syntax error"),
                 qPrintable(status(pane)));
        QCOMPARE(pane.editor()->textCursor().position(), 39); // the editor's cursor where SQLite stopped
        QVERIFY(runQuery(pane, "SELECT * FROM block_rq_issue"));
        QVERIFY2(status(pane).contains("no such table: block_rq_issue") && status(pane).contains("sched-mix.dat"),
                 qPrintable(status(pane)));
        QVERIFY(runQuery(pane, "SELECT prev_pidd FROM sched_switch"));
        QVERIFY(status(pane).contains("no such column: prev_pidd"));
        // A query far too long to finish, cancelled as it runs; the next one runs.
        pane.editor()->setPlainText("SELECT count(*) FROM ftrace_event a, ftrace_event b WHERE a.ts + b.ts = 0");
        pane.run();
        QTest::qWait(300);
        QVERIFY(pane.running());
        pane.cancel();
        QVERIFY(!pane.running());
        QCOMPARE(status(pane), QString("Cancelled."));
        QVERIFY(runQuery(pane, "SELECT count(*) FROM sched_switch"));
        QVERIFY2(status(pane).startsWith("1 row in "), qPrintable(status(pane)));
        QCOMPARE(pane.model()->result().rows.at(0).at(0).integer, int64_t(1992));
    }
};

QTEST_MAIN(TestQueryPane)
#include "tst_querypane.moc"
