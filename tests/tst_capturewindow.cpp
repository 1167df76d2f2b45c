// SPDX-License-Identifier: GPL-2.0-or-later
// A live capture in the window, as a user starts one: rows arrive in the table while it runs,
// the timeline follows the newest events, the command given ends it, Save Capture As writes
// a file that reads the same, and an unsaved capture is not closed without asking. Skipped,
// with the reason, where tracefs cannot be written; the "replayed" tests capture from
// ringside-capture-replay instead, and run without tracefs.
#include "guisupport.h"
#include "latency/latencypane.h"
#include "latency/latencyresultview.h"
#include "support/tracewriter.h"
#include "testsupport.h"

#include "capture/capturecontroller.h"
#include "filters/filterpanel.h"
#include "mainwindow.h"
#include "plugins/pluginstatspane.h"
#include "state/viewstate.h"
#include "table/eventtablemodel.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace ringside;

namespace {

// A kernel filter on raw_syscalls: the workload's ls only.
constexpr const char* kOnlyLs = "comm == \"ls\"";

QString unwritableReason()
{
    if (::geteuid() != 0) return "capturing needs root here (pkexec cannot ask in a test)";
    if (::access("/sys/kernel/tracing/instances", W_OK) != 0) return "/sys/kernel/tracing is not writable";
    return {};
}

QStringList captureInstances()
{
    return QDir("/sys/kernel/tracing/instances").entryList({"ringside-capture-*"}, QDir::Dirs | QDir::NoDotAndDotDot);
}

// Answers the next message box with `button` once it shows; its text goes to `text`.
void answerNextMessageBox(QMessageBox::StandardButton button, std::shared_ptr<QString> text = nullptr)
{
    QTimer::singleShot(200, [button, text] {
        for (QWidget* top : QApplication::topLevelWidgets())
            if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) {
                if (text) *text = box->windowTitle() + ": " + box->text();
                box->button(button)->click();
                return;
            }
        answerNextMessageBox(button, text);
    });
}

// While it lives, captures replay `file` (ringside-capture-replay) instead of reading tracefs.
struct ReplayedCaptures {
    explicit ReplayedCaptures(const QString& file)
    {
        ::setenv("RINGSIDE_CAPTURE_HELPER", RINGSIDE_CAPTURE_REPLAY, 1);
        ::setenv("RINGSIDE_REPLAY_FILE", file.toLocal8Bit().constData(), 1);
    }
    ~ReplayedCaptures()
    {
        ::unsetenv("RINGSIDE_CAPTURE_HELPER");
        ::unsetenv("RINGSIDE_REPLAY_FILE");
    }
};

// Saves the window's capture as File > Save Capture As does, waiting for the worker's end (the
// window's event loop goes on meanwhile); false with the reason.
bool saveCapture(ringside::MainWindow& window, const QString& path, QString* error,
                 ringside::DatFormat format = ringside::DatFormat())
{
    QSignalSpy finished(window.captures(), &ringside::CaptureController::saveFinished);
    window.captures()->saveAs(path, format);
    if (finished.isEmpty() && !finished.wait(120000)) return *error = "the save did not end", false;
    *error = finished.front().at(1).toString();
    return finished.front().at(0).toBool();
}

} // namespace

class TestCaptureWindow : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("RingsideTests");
    }

    void init()
    {
        if (QByteArray(QTest::currentTestFunction()).startsWith("replayed")) {
            if (::geteuid() != 0) QSKIP("the capture helper is started through pkexec when not root");
            return;
        }
        const QString why = unwritableReason();
        if (!why.isEmpty()) QSKIP(qPrintable(why));
    }

    void cleanup()
    {
        if (unwritableReason().isEmpty())
            QTRY_COMPARE_WITH_TIMEOUT(captureInstances(), QStringList(), test::kWorkWaitMs);
    }

    void captureGrowsSavesAndReopens()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QSignalSpy cellsChanged(window.tableModel(), &QAbstractItemModel::dataChanged);
        QString error;
        // The system calls of the command's ls only: system-wide, what else runs on the machine
        // (a build, other tests) decides how much there is to analyse.
        QVERIFY2(window.captures()->start({"-e", "sched:sched_switch", "-e", "raw_syscalls", "-f", kOnlyLs},
                                          "for i in $(seq 100); do ls / >/dev/null; sleep 0.05; done", &error),
                 qPrintable(error));
        QVERIFY(window.session() && window.session()->live && window.session()->isCapture);
        QVERIFY(window.captures()->running());
        // Rows arrive while it runs.
        QTRY_VERIFY_WITH_TIMEOUT(window.tableModel()->rowCount() > 0, test::kWorkWaitMs);
        QVERIFY(window.captures()->running());
        // Tasks are named as they appear (this process sees the kernel's pids): the Task cells
        // of rows shown before are read again.
        struct stat ns {};
        if (::stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino == 0xEFFFFFFCu) {
            auto taskCellsChanged = [&] {
                for (const QList<QVariant>& args : cellsChanged)
                    if (args.at(0).toModelIndex().column() == EventTableModel::Task) return true;
                return false;
            };
            QTRY_VERIFY_WITH_TIMEOUT(taskCellsChanged(), test::kWorkWaitMs);
        }
        // The filter lists fill in with what arrives, counts growing, while it runs.
        auto* filters = window.findChild<FilterPanel*>();
        QVERIFY(filters);
        auto countOf = [](QTreeWidget* tree, const QString& name) -> qulonglong {
            for (QTreeWidgetItemIterator it(tree); *it; ++it)
                if ((*it)->text(0) == name) return (*it)->data(1, Qt::DisplayRole).toULongLong();
            return 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(countOf(filters->eventTree(), "sys_enter") > 0, test::kWorkWaitMs);
        const qulonglong enters = countOf(filters->eventTree(), "sys_enter");
        QTRY_VERIFY_WITH_TIMEOUT(countOf(filters->eventTree(), "sys_enter") > enters, test::kWorkWaitMs);
        QVERIFY(window.captures()->running());
        QVERIFY(filters->taskTree()->topLevelItemCount() > 0);
        QVERIFY(countOf(filters->cpuTree(), "CPU 0") + countOf(filters->cpuTree(), "CPU 1") > 0);
        // Zoomed in at the end, the view follows the newest events.
        ViewState& view = *window.viewState();
        const auto full = view.fullRange();
        view.setVisibleRange({full.end - full.span() / 2, full.end});
        QTRY_VERIFY_WITH_TIMEOUT(view.fullRange().end > full.end, test::kWorkWaitMs);
        QCOMPARE(view.visibleRange().end, view.fullRange().end);
        QCOMPARE(view.visibleRange().span(), full.span() / 2);
        // The command's end stops the capture.
        QTRY_VERIFY_WITH_TIMEOUT(!window.captures()->running(), test::kWorkWaitMs);
        QVERIFY(window.findChild<QLabel*>("captureStatus")->text().contains("Capture stopped"));
        // Its analyses finish with it: who ran on each CPU, the tasks' rows, the plugins.
        QVERIFY(test::waitForAnalyses(window));
        QVERIFY(window.session()->trace->runningTasks().available());
        QVERIFY(window.session()->isCapture && !window.session()->liveSaved);
        QVERIFY(!window.session()->trace->plugins().empty());
        const int rows = window.tableModel()->rowCount();
        QCOMPARE(size_t(rows), window.session()->store().eventCount());
        QVERIFY(!window.session()->liveSaved);
        QVERIFY2(window.windowTitle().startsWith("Live capture "), qPrintable(window.windowTitle()));

        const QString out = m_dir.filePath("capture.dat");
        QVERIFY2(saveCapture(window, out, &error), qPrintable(error));
        QVERIFY(window.session()->liveSaved);
        // Named by its file now, in the title too.
        QVERIFY2(window.windowTitle().startsWith("capture.dat"), qPrintable(window.windowTitle()));
        QVERIFY2(window.findChild<QLabel*>("captureStatus")->text().endsWith(" · saved as capture.dat (v7, zstd)"),
                 qPrintable(window.findChild<QLabel*>("captureStatus")->text()));
        const auto dump = test::runCli({"dump", out});
        QCOMPARE(dump.status, 0);
        // "cpus=N", then every event; where the kernel overwrote events (raw_syscalls of a busy
        // machine), a "CPU:N [EVENTS DROPPED]" line before the event after them.
        QCOMPARE(dump.out.count('\n') - dump.out.count("EVENTS DROPPED]\n"), qsizetype(rows) + 1);
        QCOMPARE(test::datFormatOf(out), std::string("v7, zstd"));
        // Format 6 on request, for older tools: the same events.
        const QString outV6 = m_dir.filePath("capture-v6.dat");
        QVERIFY2(saveCapture(window, outV6, &error, DatFormat::v6()), qPrintable(error));
        QCOMPARE(test::datFormatOf(outV6), std::string("v6"));
        QCOMPARE(test::runCli({"dump", outV6}).out, dump.out);
        // Reopened, the file shows what the capture showed.
        QVERIFY(test::load(window, out));
        QCOMPARE(window.tableModel()->rowCount(), rows);
    }

    // The plugins analyse the capture as it grows, from its batches (no file written or read):
    // the command's failed system calls appear before it ends, a row leads to its event, the
    // CPU rows are coloured by task; at its end the same analyses finish, in place.
    void pluginsAnalyseTheCaptureAsItGrows()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        // Waited for here on a machine busy with other tests: at normal priority.
        window.captures()->setAnalysisAtIdlePriority(false);
        QString error;
        QVERIFY2(window.captures()->start({"-e", "sched:sched_switch", "-e", "raw_syscalls", "-f", kOnlyLs},
                                          "for i in $(seq 2000); do ls /no/such/file 2>/dev/null; sleep 0.05; done",
                                          &error),
                 qPrintable(error));
        const auto session = window.session();
        window.findChild<QDockWidget*>("pluginStatsDock")->show();
        PluginStatsPane* pane = window.pluginStats();
        QTRY_VERIFY_WITH_TIMEOUT(pane->showHeadline(), test::kWorkWaitMs);
        QVERIFY(window.captures()->running());
        QVERIFY(pane->chooser()->currentText().contains("Failed system calls"));
        QVERIFY2(pane->summary()->text().startsWith("so far (of "), qPrintable(pane->summary()->text()));
        // ls's failed look-up of the missing file, found in the capture as it grows.
        const QAbstractItemModel* model = pane->table()->model();
        auto enoentRow = [&] {
            for (int r = 0; r < model->rowCount(); ++r)
                if (model->index(r, 5).data().toString() == "ENOENT") return r;
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(enoentRow() >= 0, test::kWorkWaitMs);
        QVERIFY(window.captures()->running());
        // The CPU rows know who ran while it runs.
        const Trace& trace = *session->trace;
        QTRY_VERIFY_WITH_TIMEOUT(trace.analysis("cpu-occupancy")->tables->find("cpu_tasks")->rows() > 0,
                                 test::kWorkWaitMs);
        // Analysed again as more arrives, the table chosen stays.
        const QString first = pane->summary()->text();
        QTRY_VERIFY_WITH_TIMEOUT(pane->summary()->text() != first, test::kWorkWaitMs);
        QVERIFY(pane->chooser()->currentText().contains("Failed system calls"));
        QVERIFY(window.captures()->running());
        // A row goes to its very event in the growing store.
        const int row = enoentRow();
        QVERIFY(row >= 0);
        emit pane->table()->activated(model->index(row, 3));
        QTRY_VERIFY_WITH_TIMEOUT(window.viewState()->selection().has_value(), test::kWorkWaitMs);
        const EventRef selected = *window.viewState()->selection();
        QCOMPARE(StatsTable::eventOf(model->index(row, 3).data(StatsTableModel::kJumpEvent).toLongLong()), selected);
        window.captures()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(!window.captures()->running(), test::kWorkWaitMs);
        // The same session, its analyses finished.
        QVERIFY(test::waitForAnalyses(window));
        QCOMPARE(window.session(), session);
        QVERIFY(trace.analysesFinished());
        QVERIFY2(!pane->summary()->text().startsWith("so far"), qPrintable(pane->summary()->text()));
    }

    // The window goes while a capture runs and its analyses run: nothing is read after it went
    // (the analyses' thread reads the capture's store), and the capture's instance goes too.
    void windowGoesWhileAnalysesRun()
    {
        auto window = std::make_unique<MainWindow>();
        window->show();
        window->captures()->setAnalysisAtIdlePriority(false);
        QString error;
        QVERIFY2(window->captures()->start({"-e", "raw_syscalls"}, "exec sleep 120", &error), qPrintable(error));
        window->findChild<QDockWidget*>("pluginStatsDock")->show();
        QTRY_VERIFY_WITH_TIMEOUT(window->session()->trace->analysedRows() > 0, test::kWorkWaitMs);
        QVERIFY(window->captures()->running());
        window.reset();
        QTRY_COMPARE_WITH_TIMEOUT(captureInstances(), QStringList(), test::kWorkWaitMs);
    }

    void unsavedCaptureAsksBeforeClosing()
    {
        MainWindow window;
        window.show();
        QString error;
        QVERIFY2(window.captures()->start({"-e", "sched:sched_switch"}, "sleep 0.2", &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(!window.captures()->running(), test::kWorkWaitMs);
        answerNextMessageBox(QMessageBox::Cancel);
        window.close();
        QVERIFY(window.isVisible()); // kept
        answerNextMessageBox(QMessageBox::Discard);
        window.close();
        QVERIFY(!window.isVisible());
    }

    // A replayed capture (no tracefs needed): analysed as it arrives, in the window's session,
    // and finished at its end without writing or reading a file; the pane the user has open
    // stays open; it saves as it arrived.
    void replayedCaptureIsAnalysedAsItArrives()
    {
        const QString ticks = m_dir.filePath("ticks.dat");
        QVERIFY(test::writeFile(ticks, test::tickRecording()));
        ReplayedCaptures replayed(ticks);
        MainWindow window;
        window.show();
        window.captures()->setAnalysisAtIdlePriority(false);
        auto* pluginDock = window.findChild<QDockWidget*>("pluginStatsDock");
        pluginDock->show();
        QString error;
        QVERIFY2(window.captures()->start({"-e", "test:tick"}, {}, &error), qPrintable(error));
        const auto session = window.session();
        QVERIFY(session && session->live);
        QVERIFY(pluginDock->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(window.tableModel()->rowCount() > 0, test::kWorkWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window.captures()->running(), test::kWorkWaitMs);
        QVERIFY(test::waitForAnalyses(window));
        QCOMPARE(window.session(), session); // the capture itself, not a copy loaded again
        QVERIFY(session->isCapture && !session->liveSaved && session->live);
        QVERIFY(session->trace->analysesFinished());
        QVERIFY(!session->trace->plugins().empty());
        QCOMPARE(window.tableModel()->rowCount(), 3900);
        QCOMPARE(session->trace->analysedRows(), uint64_t(3900));
        QVERIFY(pluginDock->isVisible());
        // Nothing is lost: it saves as it arrived.
        const QString out = m_dir.filePath("replayed.dat");
        QVERIFY2(saveCapture(window, out, &error), qPrintable(error));
        QCOMPARE(test::runCli({"dump", out}).out, test::runCli({"dump", ticks}).out);
    }

    // A latency analysis made while a capture runs is made again as the capture grows, and
    // ends as the same analysis of the recording replayed: ticks to the next tick of a CPU.
    void replayedCaptureLatencyFollowsTheCapture()
    {
        const QString ticks = m_dir.filePath("ticks-latency.dat");
        QVERIFY(test::writeFile(ticks, test::tickRecording()));
        ::setenv("RINGSIDE_REPLAY_SPREAD_MS", "3000", 1); // long enough to pair while it runs
        ReplayedCaptures replayed(ticks);
        MainWindow window;
        window.show();
        window.captures()->setAnalysisAtIdlePriority(false);
        QString error;
        QVERIFY2(window.captures()->start({"-e", "test:tick"}, {}, &error), qPrintable(error));
        ::unsetenv("RINGSIDE_REPLAY_SPREAD_MS");
        const auto session = window.session();
        QVERIFY(session && session->live);
        QTRY_VERIFY_WITH_TIMEOUT(session->trace->analysedRows() > 0, test::kWorkWaitMs);
        LatencyPane& pane = *window.latencyPane();
        pane.choosePreset({});
        pane.fromEvent()->setCurrentText("test/tick");
        pane.toEvent()->setCurrentText("test/tick");
        pane.match()->clear();
        pane.findChild<QCheckBox*>("latencySameCpu")->setChecked(true);
        pane.findChild<QCheckBox*>("latencySameTask")->setChecked(false);
        const uint64_t rowsAtStart = session->trace->analysedRows();
        pane.run();
        QTRY_VERIFY2_WITH_TIMEOUT(pane.results()->count() == 1, qPrintable(pane.status()->text()), test::kWorkWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!window.captures()->running(), test::kWorkWaitMs);
        QVERIFY(test::waitForAnalyses(window));
        QTRY_VERIFY_WITH_TIMEOUT(!pane.running(), test::kWorkWaitMs);
        QCOMPARE(session->trace->analysedRows(), uint64_t(3900));
        // Every tick but each CPU's first ends a pair: 2,999 + 899.
        QCOMPARE(pane.currentResult()->result().report.overall.count, uint64_t(3898));
        // Paired first over part of it, then again as it grew (however fast this machine is).
        qInfo("paired first over %llu of 3900 rows; made again %d times", qulonglong(rowsAtStart), pane.refreshes());
        if (rowsAtStart < 3900) QVERIFY(pane.refreshes() >= 1);
        QCOMPARE(pane.results()->count(), 1);
    }

    // A recording appended while a capture runs is shown; the capture's analyses go on being
    // fed and finish when it ends, though it is not the recording shown.
    void captureAnalysedWhileAnotherRecordingIsShown()
    {
        const QString ticks = m_dir.filePath("ticks-appended.dat");
        QVERIFY(test::writeFile(ticks, test::tickRecording()));
        ReplayedCaptures replayed(ticks);
        ::setenv("RINGSIDE_REPLAY_SPREAD_MS", "60000", 1); // running until stopped
        MainWindow window;
        window.show();
        window.captures()->setAnalysisAtIdlePriority(false);
        QString error;
        const bool started = window.captures()->start({"-e", "test:tick"}, {}, &error);
        ::unsetenv("RINGSIDE_REPLAY_SPREAD_MS");
        QVERIFY2(started, qPrintable(error));
        const auto capture = window.session();
        QVERIFY(capture && capture->live);
        QTRY_VERIFY_WITH_TIMEOUT(capture->store().eventCount() > 0, test::kWorkWaitMs);
        QSignalSpy appended(window.workspace(), &Workspace::recordingsChanged);
        window.appendFile(test::fixture("sched-mix.dat"));
        QVERIFY(appended.wait(test::kWorkWaitMs));
        window.setActiveRecording(1); // the appended recording's events are shown
        QVERIFY(window.session() != capture);
        QVERIFY(window.captures()->running());
        window.captures()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(!window.captures()->running(), test::kWorkWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(capture->analyses && capture->analyses->isFinished(), test::kWorkWaitMs);
        QVERIFY(capture->trace->analysesFinished());
        QCOMPARE(capture->trace->analysedRows(), uint64_t(capture->store().eventCount()));
    }

    void refusalIsSaid()
    {
        MainWindow window;
        QString error;
        QVERIFY(!window.captures()->start({"-e", "nosuch:event"}, {}, &error));
        QVERIFY2(error.contains("event nosuch:event is not in this kernel"), qPrintable(error));
        QVERIFY(!window.session());
    }
};

QTEST_MAIN(TestCaptureWindow)
#include "tst_capturewindow.moc"
