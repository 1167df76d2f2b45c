// SPDX-License-Identifier: GPL-2.0-or-later
// The main window as a new user meets it: the progress dialog goes away after every load, the
// timeline's keys work wherever the focus is (but in text fields), a filter change keeps the
// selection, a restored view state reproduces the view, CPU labels react, menus are found by
// name, and counter clocks are shown in ticks.
#include "guisupport.h"
#include "testsupport.h"

#include "analysis/tracktables.h"
#include "details/detailspane.h"
#include "details/healthpane.h"
#include "exports/exportcontroller.h"
#include "filters/filterpanel.h"
#include "mainwindow.h"
#include "plugins/pluginsdialog.h"
#include "plugins/pluginsettings.h"
#include "plugins/pluginstatspane.h"
#include "query/querypane.h"
#include "query/sqleditor.h"
#include "state/viewstate.h"
#include "table/eventtablemodel.h"
#include "table/eventtableview.h"
#include "table/searchbar.h"
#include "timeline/timelinewidget.h"
#include "timeline/trackrenderer.h"
#include "widgets/focusframe.h"
#include "widgets/focusring.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressDialog>
#include <QPushButton>
#include <QRadioButton>
#include <QScreen>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

using namespace ringside;

namespace {

int visibleProgressDialogs()
{
    // A dialog with a parent is both a top-level widget and a child of its window: count it once.
    QSet<QProgressDialog*> visible;
    for (QWidget* top : QApplication::topLevelWidgets()) {
        if (auto* dialog = qobject_cast<QProgressDialog*>(top); dialog && dialog->isVisible()) visible.insert(dialog);
        for (QProgressDialog* dialog : top->findChildren<QProgressDialog*>())
            if (dialog->isVisible()) visible.insert(dialog);
    }
    return int(visible.size());
}

// Not activeModalWidget(): a progress dialog shown again would be the active one.
void closeMessageBoxes()
{
    for (QWidget* top : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) box->close();
}

using test::load;

bool applyExpression(MainWindow& window, const QString& text)
{
    QSignalSpy applied(&window, &MainWindow::filterApplied);
    window.filterPanel()->expressionEdit()->setText(text);
    QTest::keyClick(window.filterPanel()->expressionEdit(), Qt::Key_Return);
    return applied.count() > 0 || applied.wait(test::kWorkWaitMs);
}

// What a real double-click delivers: press, release, double-click, release.
void doubleClick(QWidget* w, QPoint pos)
{
    QTest::mouseClick(w, Qt::LeftButton, {}, pos);
    QMouseEvent dbl(QEvent::MouseButtonDblClick, pos, w->mapToGlobal(pos), Qt::LeftButton, Qt::LeftButton,
                    Qt::NoModifier);
    QApplication::sendEvent(w, &dbl);
    QTest::mouseRelease(w, Qt::LeftButton, {}, pos);
}

QString statusText(MainWindow& window)
{
    QStringList texts;
    for (QLabel* label : window.statusBar()->findChildren<QLabel*>()) texts << label->text();
    return texts.join(" | ");
}

// Tab's next stop from a widget of `window`, as QWidget::focusNextPrevChild takes it.
QWidget* nextTabStopIn(QWidget* window, QWidget* from)
{
    for (QWidget* w = from->nextInFocusChain(); w && w != from; w = w->nextInFocusChain())
        if ((w->focusPolicy() & Qt::TabFocus) && w->isVisibleTo(window) && w->isEnabled()) return w;
    return nullptr;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("RingsideTests");
    }

    // Opening never blocks the window: the recording shows at once and grows as its pages are
    // read, its progress and Cancel/Stop in the status bar, no dialog.
    void anOpenShowsTheRecordingWhileItLoads()
    {
        MainWindow window;
        window.show();
        auto* status = window.findChild<QWidget*>("loadStatus");
        QVERIFY(status);
        bool loadingWhenShown = false, modalWhileLoading = false;
        connect(window.workspace(), &Workspace::activeChanged, this, [&] {
            loadingWhenShown = window.session()->loading;
            modalWhileLoading |= QApplication::activeModalWidget() != nullptr;
        });
        QSignalSpy ended(window.workspace(), &Workspace::loadEnded);
        QSignalSpy complete(window.workspace(), &Workspace::storeComplete);
        window.openFile(test::fixture("sched-mix.dat"));
        QVERIFY(status->isVisible());
        QVERIFY(ended.wait(test::kWorkWaitMs));
        QVERIFY(loadingWhenShown); // shown before its pages were all read
        QVERIFY(!modalWhileLoading);
        QCOMPARE(visibleProgressDialogs(), 0);
        QCOMPARE(complete.count(), 1);
        QVERIFY(!status->isVisible());
        QVERIFY(!window.session()->loading);
        auto whole = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(whole);
        QCOMPARE(window.session()->store().eventCount(), whole->store().eventCount());
        QCOMPARE(size_t(window.table()->model()->rowCount()), whole->store().eventCount());
        // The rows came in as the store grew: the table scrolls over all of them.
        QVERIFY(window.table()->verticalScrollBar()->maximum() > 60000);
        QVERIFY(window.viewState()->fullRange().end >= whole->store().lastTimestamp());
        QVERIFY(window.viewState()->fullRange().end <= whole->store().lastTimestamp() + 1);
        QVERIFY(test::waitForAnalyses(window));
        QVERIFY(window.session()->trace->analysesFinished());
        // And the next open, through the same window, too.
        QVERIFY(load(window, test::fixture("lost-events.dat")));
        QCOMPARE(visibleProgressDialogs(), 0);
        QVERIFY(!status->isVisible());
    }

    void loadStatusGoesAfterFailure()
    {
        MainWindow window;
        window.show();
        auto* status = window.findChild<QWidget*>("loadStatus");
        QSignalSpy failed(window.workspace(), &Workspace::loadFailed);
        bool statusWhenFailed = true;
        // The error box is modal: note what is visible, then close it from inside its loop.
        connect(window.workspace(), &Workspace::loadFailed, this, [&] {
            statusWhenFailed = status->isVisible();
            QTimer::singleShot(0, [] { closeMessageBoxes(); });
        });
        window.openFile(QStringLiteral(RINGSIDE_CLI)); // not a trace
        QVERIFY(failed.wait(test::kWorkWaitMs));
        QVERIFY(!statusWhenFailed);
        QVERIFY(!window.session());
        window.openFile(test::fixture("crash-format-0.dat")); // its formats are cut short
        QVERIFY(failed.wait(test::kWorkWaitMs));
        QVERIFY(!statusWhenFailed);
        QVERIFY2(failed.last().first().toString().contains("crash-format-0.dat"),
                 qPrintable(failed.last().first().toString()));
    }

    // Cancel before the recording shows: nothing is opened, and the window opens files after.
    void cancelBeforeTheRecordingShows()
    {
        MainWindow window;
        window.show();
        QSignalSpy ended(window.workspace(), &Workspace::loadEnded);
        window.openFile(test::fixture("instances.dat"));
        auto* stop = window.findChild<QToolButton*>("loadStop");
        QVERIFY(stop && stop->isVisible());
        QCOMPARE(stop->text(), QString("Cancel"));
        // Its recording is handed over through the event loop: not yet (click() runs no loop).
        stop->click();
        QCOMPARE(ended.count(), 1);
        QVERIFY(!window.session());
        QTest::qWait(50);
        QVERIFY(!window.session());
        QVERIFY(load(window, test::fixture("lost-events.dat")));
        QCOMPARE(visibleProgressDialogs(), 0);
    }

    // Stop once the recording shows: whatever was read stays, complete and analysed; what was
    // not is said. (The load may have ended before the click: then it is all there.)
    void stopKeepsWhatWasRead()
    {
        MainWindow window;
        window.show();
        QSignalSpy shown(window.workspace(), &Workspace::activeChanged);
        QSignalSpy ended(window.workspace(), &Workspace::loadEnded);
        window.openFile(test::fixture("syscalls-8cpu.dat"));
        QVERIFY(shown.wait(test::kWorkWaitMs));
        auto* stop = window.findChild<QToolButton*>("loadStop");
        QVERIFY(stop);
        if (stop->isVisible()) {
            QCOMPARE(stop->text(), QString("Stop"));
            QTest::mouseClick(stop, Qt::LeftButton);
        }
        QVERIFY(ended.count() == 1 || ended.wait(test::kWorkWaitMs));
        QVERIFY(window.session());
        QVERIFY(!window.session()->loading);
        QVERIFY(test::waitForAnalyses(window));
        auto whole = test::openOrFail(test::fixturePath("syscalls-8cpu.dat"));
        const EventStore& store = window.session()->store();
        QVERIFY(store.eventCount() <= whole->store().eventCount());
        QCOMPARE(size_t(window.table()->model()->rowCount()), store.eventCount());
        bool said = false;
        for (const Diagnostic& d : store.diagnostics().items()) said |= d.code == "load-stopped";
        if (store.eventCount() < whole->store().eventCount()) {
            QVERIFY(said);
            QVERIFY2(window.statusBar()->currentMessage().contains("Stopped reading"),
                     qPrintable(window.statusBar()->currentMessage()));
        }
    }

    void timelineKeysWorkAnywhereButTextFields()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        ViewState* view = window.viewState();
        auto zoomIn = [&] {
            view->setVisibleRange({view->fullRange().start, view->fullRange().start + view->fullRange().span() / 8});
        };
        // In the task list (a tree), 0 fits the whole recording.
        zoomIn();
        window.filterPanel()->taskTree()->setFocus();
        QTest::keyClick(window.filterPanel()->taskTree(), Qt::Key_0);
        QCOMPARE(view->visibleRange(), view->fullRange());
        // In the table, W zooms in and Backspace goes back.
        QTest::keyClick(window.table(), Qt::Key_W);
        QVERIFY(view->visibleRange().span() < view->fullRange().span());
        QTest::keyClick(window.table(), Qt::Key_Backspace);
        QCOMPARE(view->visibleRange(), view->fullRange());
        QTest::keyClick(window.table(), Qt::Key_W);
        // With an event selected in view, W and S zoom around it: it stays where it was.
        const EventRef selected = window.tableModel()->eventAt(window.tableModel()->rowCount() / 5);
        view->setVisibleRange(view->fullRange());
        view->select(selected);
        const uint64_t at = window.session()->store().timestamp(selected);
        const auto share = [&] {
            const auto r = view->visibleRange();
            return double(at - r.start) / double(r.span());
        };
        const double where = share();
        QVERIFY(where > 0.05 && where < 0.45); // not the middle
        QTest::keyClick(window.table(), Qt::Key_W);
        QTest::keyClick(window.table(), Qt::Key_W);
        QCOMPARE(view->visibleRange().span(), view->fullRange().span() / 4);
        QVERIFY(std::abs(share() - where) < 0.01);
        QTest::keyClick(window.table(), Qt::Key_S);
        QVERIFY(std::abs(share() - where) < 0.01);
        // ...but the arrows still move the table's current row, not the timeline.
        window.table()->selectRow(5);
        const auto before = view->visibleRange();
        QTest::keyClick(window.table(), Qt::Key_Left);
        QCOMPARE(view->visibleRange(), before);
        // In a text field, keys are text.
        zoomIn();
        const auto zoomed = view->visibleRange();
        QLineEdit* edit = window.filterPanel()->expressionEdit();
        edit->setFocus();
        QTest::keyClicks(edit, "w0s");
        QCOMPARE(view->visibleRange(), zoomed);
        QCOMPARE(edit->text(), QString("w0s"));
    }

    void filterKeepsTheSelection()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        const EventStore& store = window.session()->store();
        const QString expression = "sched/sched_switch: prev_state != 0";
        QVERIFY(applyExpression(window, expression));
        const std::shared_ptr<const FilterResult> shown = window.tableModel()->sharedFilter();
        QVERIFY(shown && shown->merged.size() == 402);
        const size_t keptRow = shown->merged.select(300);
        // A merged row the filter hides, between two it shows.
        size_t hiddenRow = shown->merged.select(200) + 1;
        QVERIFY(!shown->merged.contains(hiddenRow));
        const uint64_t tBefore = store.timestamp(store.eventAt(shown->merged.select(200)));
        const uint64_t tAfter = store.timestamp(store.eventAt(shown->merged.select(201)));
        const uint64_t tHidden = store.timestamp(store.eventAt(hiddenRow));
        const size_t nearest = (tHidden - tBefore <= tAfter - tHidden) ? 200 : 201;
        QVERIFY(applyExpression(window, QString()));
        QCOMPARE(window.tableModel()->rowCount(), int(store.eventCount()));

        // A selected event the filter shows stays selected, scrolled into view.
        window.table()->selectRow(int(keptRow));
        const EventRef kept = store.eventAt(keptRow);
        QVERIFY(applyExpression(window, expression));
        QVERIFY(window.viewState()->selection() && *window.viewState()->selection() == kept);
        QCOMPARE(window.table()->currentRow(), 300);
        auto visible = [&](int row) {
            return row >= window.table()->firstVisibleRow() &&
                   row < window.table()->firstVisibleRow() + window.table()->visibleRowCount();
        };
        QVERIFY(visible(300));
        // Back to everything: the same event, at its unfiltered row.
        QVERIFY(applyExpression(window, QString()));
        QCOMPARE(window.table()->currentRow(), int(keptRow));
        QVERIFY(visible(int(keptRow)));

        // A selected event the filter hides gives way to the shown event nearest in time.
        window.table()->selectRow(int(hiddenRow));
        QVERIFY(applyExpression(window, expression));
        QCOMPARE(window.table()->currentRow(), int(nearest));
        QVERIFY(*window.viewState()->selection() == store.eventAt(shown->merged.select(nearest)));
        QVERIFY(visible(int(nearest)));
    }

    // File > Export Events: the filtered rows, the selection, and an export cancelled or
    // aimed at the recording itself, which leave nothing behind and spoil nothing.
    void exportEvents()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        QVERIFY(applyExpression(window, "sched/sched_switch: prev_state != 0"));
        QTemporaryDir dir;
        auto* action = window.findChild<QAction*>("exportAction");
        QVERIFY(action && action->isEnabled());
        window.table()->selectRow(10);
        int y = 0;
        while (y < window.table()->viewport()->height() && window.table()->rowAt(y) != 12) ++y;
        QTest::mouseClick(window.table()->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(40, y));
        action->trigger();
        auto* dialog = window.findChild<ExportDialog*>("exportDialog");
        QVERIFY(dialog && dialog->isVisible());
        auto* filtered = dialog->findChild<QRadioButton*>("exportFiltered");
        QVERIFY(filtered->isEnabled() && filtered->isChecked() && filtered->text().contains("402"));
        QVERIFY(dialog->findChild<QRadioButton*>("exportSelected")->text().contains("(3)"));
        auto* format = dialog->findChild<QComboBox*>("exportFormat");
        format->setCurrentIndex(2);
        QVERIFY(dialog->path().endsWith("execve-e2big.json"));
        format->setCurrentIndex(1);
        QVERIFY(dialog->path().endsWith("execve-e2big.jsonl"));
        const QString jsonl = dir.filePath("switches.jsonl");
        dialog->setPath(jsonl);
        QSignalSpy done(&window.exports()->job(), &ExportJob::finished);
        dialog->accept();
        QVERIFY(done.wait(test::kWorkWaitMs));
        QFile file(jsonl);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QCOMPARE(lines.size(), 403);
        QVERIFY(lines.first().contains("\"event\":\"sched_switch\""));
        QVERIFY(!QFile::exists(jsonl + ".part"));
        QTRY_VERIFY_WITH_TIMEOUT(window.statusBar()->currentMessage().contains("Exported 402 events"), test::kWorkWaitMs);
        QCOMPARE(visibleProgressDialogs(), 0);
        // The next export starts in that folder, in that format.
        QTRY_COMPARE_WITH_TIMEOUT(window.findChildren<ExportDialog*>().size(), 0, test::kWorkWaitMs);
        action->trigger();
        auto* again = window.findChild<ExportDialog*>("exportDialog");
        QVERIFY(again && again->isVisible());
        QCOMPARE(again->path(), dir.filePath("execve-e2big.jsonl"));
        QCOMPARE(again->format(), ExportFormat::JsonLines);
        again->reject();

        // The selected rows, as CSV: a header and three rows, the table's.
        const QString csv = dir.filePath("selected.csv");
        window.exports()->exportTo(csv, ExportFormat::Csv, ExportDialog::Rows::Selected);
        QVERIFY(done.wait(test::kWorkWaitMs));
        QFile selected(csv);
        QVERIFY(selected.open(QIODevice::ReadOnly));
        const QList<QByteArray> rows = selected.readAll().trimmed().split('\n');
        QCOMPARE(rows.size(), 4);
        const EventStore& store = window.session()->store();
        QVERIFY(rows[1].split(',')[1].toULongLong() == store.timestamp(window.tableModel()->eventAt(10)));

        // Cancelled at once: no file, not even a partial one; an older file stays as it was.
        QVERIFY(test::writeFile(csv, std::string_view("kept\n")));
        QSignalSpy failed(&window.exports()->job(), &ExportJob::failed);
        window.exports()->exportTo(csv, ExportFormat::Csv, ExportDialog::Rows::All);
        QProgressDialog* progress = window.exports()->progress();
        QVERIFY(progress);
        QPushButton* cancelButton = progress->findChild<QPushButton*>();
        QVERIFY(cancelButton);
        cancelButton->click();
        QTRY_VERIFY_WITH_TIMEOUT(!window.exports()->running(), test::kWorkWaitMs);
        window.exports()->job().waitForThreads();
        QVERIFY(!QFile::exists(csv + ".part"));
        QFile kept(csv);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("kept\n"));
        QVERIFY(window.statusBar()->currentMessage().contains("cancelled"));

        // Never over the recording itself.
        window.exports()->exportTo(window.session()->path, ExportFormat::Csv, ExportDialog::Rows::All);
        QCOMPARE(failed.count(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(window.findChild<QMessageBox*>("exportFailedMessage"), test::kWorkWaitMs);
        QVERIFY(window.findChild<QMessageBox*>("exportFailedMessage")->text().contains("the recording itself"));
        closeMessageBoxes();
        QVERIFY(test::openOrFail(window.session()->path.toStdString()));
    }

    // `ringside --screenshot OUT.svg`: the window as shapes and text, the timeline's too.
    void windowAsSvg()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        QTemporaryDir dir;
        QVERIFY(window.saveWindowImage(dir.filePath("w.svg")));
        QFile file(dir.filePath("w.svg"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray svg = file.readAll();
        QVERIFY(svg.startsWith("<?xml") && svg.contains("<svg"));
        QVERIFY(svg.contains(">CPU 0<"));    // a timeline row's label
        QVERIFY(svg.contains(">sys_exit<")); // an event in the table
        QVERIFY(window.saveWindowImage(dir.filePath("w.png")));
        QCOMPARE(QImage(dir.filePath("w.png")).size(), window.size() * window.devicePixelRatio());
    }

    void badExpressionKeepsTheAppliedOne()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        QVERIFY(applyExpression(window, "sched/sched_switch: prev_state != 0"));
        QCOMPARE(window.tableModel()->rowCount(), 402);
        QVERIFY(applyExpression(window, "sched/sched_switch: prev_state !="));
        QCOMPARE(window.tableModel()->rowCount(), 402);
        QCOMPARE(window.viewState()->filter().expression, std::string("sched/sched_switch: prev_state != 0"));
        bool errorShown = false;
        for (QLabel* label : window.filterPanel()->findChildren<QLabel*>())
            errorShown |= label->isVisible() && label->text().contains("expected a value") &&
                          label->text().contains("still applied");
        QVERIFY(errorShown);
        // A valid one replaces it and clears the error.
        QVERIFY(applyExpression(window, "sched/sched_switch: prev_state == 0"));
        QVERIFY(window.tableModel()->rowCount() > 402);
        for (QLabel* label : window.filterPanel()->findChildren<QLabel*>())
            QVERIFY(!(label->isVisible() && label->text().contains("expected a value")));
    }

    void restoreReproducesTheView()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("instances.dat")));
        ViewState* view = window.viewState();
        const EventStore& store = window.session()->store();
        QSignalSpy applied(&window, &MainWindow::filterApplied);
        FilterSpec filter;
        filter.hiddenStreams.assign(store.streamCount(), false);
        filter.hiddenStreams[1] = true;
        filter.expression = "sched/sched_switch: prev_state != 0";
        view->setFilter(filter);
        QVERIFY(applied.wait(test::kWorkWaitMs));
        QVERIFY(store.buffers().size() >= 2);
        view->setCollapsed(1, true);
        const int32_t pidA = store.stream(StreamId(0)).columns.pid[10], pidB = store.tasks().all().back().pid;
        view->addTaskRow(pidB);
        view->addTaskRow(pidA);
        const auto full = view->fullRange();
        view->setVisibleRange({full.start + full.span() / 4, full.start + full.span() / 2});
        view->setVisibleRange({full.start + full.span() / 4, full.start + full.span() / 3});
        view->select(window.tableModel()->eventAt(3));
        view->select(window.tableModel()->eventAt(7));
        view->setMarkerA(full.start + full.span() * 2 / 7);
        view->setMarkerB(full.start + full.span() * 3 / 10);
        view->setTimeOrigin(full.start + 1000);
        const ViewSnapshot saved = view->snapshot();
        const QImage timeline = window.timeline()->grab().toImage();
        const int rows = window.tableModel()->rowCount();
        const int current = window.table()->currentRow();
        QVERIFY(rows < int(store.eventCount()));

        // Everything back to defaults, as a freshly opened file.
        view->reset(full); // an empty filter applies at once
        QCOMPARE(window.tableModel()->rowCount(), int(store.eventCount()));
        QVERIFY(!(view->snapshot() == saved));
        QVERIFY(window.timeline()->grab().toImage() != timeline);

        window.restoreView(saved);
        QVERIFY(applied.wait(test::kWorkWaitMs));
        QVERIFY(view->snapshot() == saved);
        QCOMPARE(window.tableModel()->rowCount(), rows);
        QCOMPARE(window.table()->currentRow(), current);
        QCOMPARE(window.timeline()->rows().taskPids().size(), 2);
        QVERIFY(window.timeline()->rows().isCollapsed(1));
        QCOMPARE(window.filterPanel()->spec().expression, filter.expression);
        QCOMPARE(window.filterPanel()->spec().hiddenStreams, filter.hiddenStreams);
        QCOMPARE(window.timeline()->grab().toImage(), timeline);
        QVERIFY(view->canZoomBack() && view->canSelectBack());
    }

    void cpuLabelsReact()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        TimelineWidget* timeline = window.timeline();
        const TimelineRows& rows = timeline->rows();
        int cpuRow = -1;
        for (int i = 0; i < rows.rows().size() && cpuRow < 0; ++i)
            if (rows.rows()[i].kind == TimelineRows::Kind::Cpu) cpuRow = i;
        QVERIFY(cpuRow >= 0);
        const int y = TimelineWidget::kRulerHeight + rows.rowTop(cpuRow) + rows.rows()[cpuRow].height / 2;
        // Double-click on the label: a row for the task running on that CPU mid-view.
        const auto range = window.viewState()->visibleRange();
        const int32_t expected =
            window.session()->pidRunningAt(rows.rows()[cpuRow].stream, range.start + range.span() / 2);
        doubleClick(timeline, QPoint(40, y));
        if (expected > 0)
            QCOMPARE(window.viewState()->taskRows(), QVector<int32_t>{expected});
        else
            QVERIFY(window.viewState()->taskRows().isEmpty());
        // A double-click on a buffer header collapses it once (the second click does not undo it).
        const int headerY = TimelineWidget::kRulerHeight + TimelineRows::kHeaderHeight / 2;
        QTest::mouseClick(timeline, Qt::LeftButton, {}, QPoint(40, headerY));
        QVERIFY(window.viewState()->isCollapsed(rows.rows()[0].buffer));
        const uint16_t buffer = rows.rows()[0].buffer;
        doubleClick(timeline, QPoint(40, headerY));
        QVERIFY(!window.viewState()->isCollapsed(buffer));
        doubleClick(timeline, QPoint(40, headerY));
        QVERIFY(window.viewState()->isCollapsed(buffer));
    }

    void detailsColumnsAllVisible()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        window.table()->selectRow(10);
        auto* details = window.findChild<DetailsPane*>();
        QVERIFY(details);
        for (int c = 0; c < details->columnCount(); ++c) {
            QVERIFY2(!details->isColumnHidden(c), qPrintable(QString::number(c)));
            QVERIFY2(details->columnWidth(c) >= 30, qPrintable(QString::number(c)));
        }
        // The Type column holds its longest entry among the rows shown (not under a collapsed item).
        int typeWidth = 0;
        for (QTreeWidgetItemIterator it(details); *it; ++it) {
            bool shown = true;
            for (QTreeWidgetItem* p = (*it)->parent(); p; p = p->parent()) shown &= p->isExpanded();
            if (shown) typeWidth = std::max(typeWidth, details->fontMetrics().horizontalAdvance((*it)->text(4)));
        }
        QVERIFY(typeWidth > 0);
        QVERIFY(details->columnWidth(4) >= typeWidth);

        // In a narrow pane a value longer than its column wraps in its row: all of it shows.
        window.resize(1280, 800);
        window.findChild<QSplitter*>("eventsSplitter")->setSizes({1000, 260});
        int row = -1;
        for (int r = 0; r < window.tableModel()->rowCount() && row < 0; ++r)
            if (window.tableModel()->index(r, EventTableModel::Event).data().toString() == "sys_enter") row = r;
        QVERIFY(row >= 0);
        window.table()->selectRow(row);
        QTreeWidgetItem* longest = nullptr;
        auto findArgs = [&] {
            for (QTreeWidgetItemIterator it(details); *it; ++it)
                if ((*it)->text(0) == "args") longest = *it;
            return longest != nullptr;
        };
        QTRY_VERIFY_WITH_TIMEOUT(findArgs(), test::kWorkWaitMs); // the details follow the selection
        const int needed = details->fontMetrics().horizontalAdvance(longest->text(1));
        QVERIFY2(needed > details->columnWidth(1),
                 qPrintable(QString("%1 %2").arg(needed).arg(details->columnWidth(1))));
        // Its row grows once the layout has run: waited for, not timed.
        auto lines = [&] { return details->visualItemRect(longest).height() / details->fontMetrics().lineSpacing(); };
        QTRY_VERIFY2_WITH_TIMEOUT(
            lines() * (details->columnWidth(1) - 12) >= needed,
            qPrintable(QString("%1 lines of %2 px for %3 px").arg(lines()).arg(details->columnWidth(1)).arg(needed)),
            test::kWorkWaitMs);
    }

    // Long diagnostics wrap to the pane's width, re-wrap as it changes, and keep their full text
    // in the tooltip.
    // A damaged recording loads what it can; the status bar says it has warnings, and its
    // button opens the health pane. A clean recording shows no button.
    void loadWarningsShowInTheStatusBar()
    {
        QTemporaryDir dir;
        const QString damaged = dir.filePath("crashing-format.dat");
        QVERIFY(test::writeFile(damaged, test::readXz(test::fixture("crashing-format.dat.xz"))));

        MainWindow window;
        window.show();
        auto* button = window.findChild<QToolButton*>("loadWarningsButton");
        QVERIFY(button);
        QVERIFY(load(window, test::fixture("instances.dat"))); // info diagnostics only
        QVERIFY(!button->isVisible());

        QVERIFY(load(window, damaged));
        QVERIFY(button->isVisible());
        QCOMPARE(button->text(), QStringLiteral("2 load warnings"));
        QVERIFY(button->toolTip().contains("past the end of the file"));
        auto* healthDock = window.findChild<QDockWidget*>("healthDock");
        QVERIFY(healthDock && !healthDock->isVisible());
        button->click();
        QVERIFY(healthDock->isVisible());

        QVERIFY(load(window, test::fixture("instances.dat")));
        QVERIFY(!button->isVisible());
    }

    // The timeline is the window: by default it has more than half its height, with the panes
    // open (tabs of one area below it); the panes maximize and come back; Reset Layout undoes
    // a drag of the handle. The window fits the screen.
    void defaultLayoutGivesTheTimelineHalf()
    {
        QSettings().remove("window"); // no layout left by another test
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // Inside the screen (the offscreen one is narrower than the window's least width).
        const QRect screen = window.screen()->availableGeometry();
        QVERIFY(window.height() <= screen.height());
        QVERIFY(window.width() <= std::max(screen.width(), window.minimumSizeHint().width()));
        QVERIFY(load(window, test::fixture("fgraph-e2big.dat")));
        // The Event column fits the recording's longest event name.
        QVERIFY(window.table()->header()->sectionSize(EventTableModel::Event) >=
                window.table()->fontMetrics().horizontalAdvance("sys_enter_execve") + 8);
        auto* events = window.findChild<QDockWidget*>("eventsDock");
        QVERIFY(events);
        const QList<QDockWidget*> tabs = window.tabifiedDockWidgets(events);
        for (const char* name : {"pluginStatsDock", "callTreeDock", "healthDock"}) {
            auto* dock = window.findChild<QDockWidget*>(name);
            QVERIFY2(dock && tabs.contains(dock), name);
            QCOMPARE(window.dockWidgetArea(dock), Qt::BottomDockWidgetArea);
        }
        auto* plugins = window.findChild<QDockWidget*>("pluginStatsDock");
        plugins->show();
        plugins->raise();
        TimelineWidget* timeline = window.timeline();
        QTRY_VERIFY2_WITH_TIMEOUT(timeline->height() * 2 >= window.height(),
                     qPrintable(QStringLiteral("timeline %1 of %2").arg(timeline->height()).arg(window.height())), test::kWorkWaitMs);
        const int shown = timeline->height();

        QAction* maximize = window.findChild<QAction*>("maximizePanesAction");
        QVERIFY(maximize);
        maximize->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(timeline->height() < 150, test::kWorkWaitMs);
        maximize->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(timeline->height(), shown, test::kWorkWaitMs);
        // Another tab brought to the front while maximized stays there, every pane still open.
        maximize->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(timeline->height() < 150, test::kWorkWaitMs);
        // A tab behind another is moved out of sight, not hidden.
        auto inFront = [](QDockWidget* dock) { return !dock->visibleRegion().isEmpty(); };
        QVERIFY(inFront(plugins));
        events->raise();
        QTRY_VERIFY_WITH_TIMEOUT(inFront(events) && !inFront(plugins), test::kWorkWaitMs);
        maximize->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(timeline->height(), shown, test::kWorkWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(inFront(events) && !inFront(plugins), test::kWorkWaitMs);
        QVERIFY(plugins->toggleViewAction()->isChecked() && events->toggleViewAction()->isChecked());
        plugins->raise();

        window.resizeDocks({plugins}, {window.height() - 150}, Qt::Vertical);
        QTRY_VERIFY_WITH_TIMEOUT(timeline->height() * 2 < window.height(), test::kWorkWaitMs);
        window.findChild<QAction*>("resetLayoutAction")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(timeline->height() * 2 >= window.height(), test::kWorkWaitMs);
        QVERIFY(events->isVisible()); // the events in front again
        QVERIFY(!plugins->isVisible());
    }

    // The plugin pane opened before any recording says there is none, not a blank table.
    void pluginPaneWithoutRecordingSaysSo()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* dock = window.findChild<QDockWidget*>("pluginStatsDock");
        QVERIFY(dock && !dock->isVisible());
        dock->show();
        dock->raise();
        QTRY_COMPARE_WITH_TIMEOUT(window.pluginStats()->summary()->text(), QString("No recording open"), test::kWorkWaitMs);
    }

    // An opened recording is read with the timeline's keys at once: the focus is there, not in
    // the filters' text field.
    void openedRecordingHasTheKeys()
    {
        MainWindow window;
        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        // Where the focus was left (a new window gives it to the filters' first field).
        auto* field = window.filterPanel()->findChild<QLineEdit*>();
        QVERIFY(field);
        field->setFocus();
        QTRY_COMPARE_WITH_TIMEOUT(QApplication::focusWidget(), static_cast<QWidget*>(field), test::kWorkWaitMs);
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        // The window's focus widget: a progress dialog shown during a slow load (a sanitizer's)
        // leaves no window active on the offscreen platform, where a window manager gives the
        // focus back to it.
        QTRY_COMPARE_WITH_TIMEOUT(window.focusWidget(), static_cast<QWidget*>(window.timeline()), test::kWorkWaitMs);
        const auto before = window.viewState()->visibleRange();
        QTest::keyClick(window.focusWidget(), Qt::Key_W);
        QVERIFY(window.viewState()->visibleRange().span() < before.span());
    }

    // A pane opened by its shortcut takes the focus: the Query pane's editor gets the SQL typed
    // next (it went to the timeline, whose W/A/S/D panned and zoomed).
    void paneOpenedByItsKeyTakesTheKeys()
    {
        MainWindow window;
        window.show();
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        // The key's action (a slow load's progress dialog can leave no window active on the
        // offscreen platform, where a shortcut would not reach it).
        auto* showQuery = window.findChild<QAction*>("showQueryAction");
        QVERIFY(showQuery);
        QCOMPARE(showQuery->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q));
        const auto before = window.viewState()->visibleRange();
        showQuery->trigger();
        QVERIFY(window.queryPane()->isVisible());
        QCOMPARE(window.focusWidget(), static_cast<QWidget*>(window.queryPane()->editor()));
        QTest::keyClicks(window.focusWidget(), "wasd");
        QVERIFY(window.queryPane()->editor()->toPlainText().contains("wasd"));
        QVERIFY(window.viewState()->visibleRange() == before);
        // A pane without a proxy: its first field (the health pane's tree).
        window.findChild<QAction*>("showHealthAction")->trigger();
        auto* health = window.findChild<QDockWidget*>("healthDock");
        QVERIFY(health->isVisible());
        QVERIFY(health->isAncestorOf(window.focusWidget()));
    }

    // A kernel stack's Info is several lines in the report: one in its table row (a second one
    // was drawn over the first), all of them in the tooltip.
    void multiLineInfoReadsAsOneLine()
    {
        MainWindow window;
        window.show();
        QVERIFY(test::load(window, test::fixture("syscalls-8cpu.dat")));
        EventTableModel* model = window.tableModel();
        int stack = -1;
        for (int row = 0; row < model->rowCount() && stack < 0; ++row)
            if (model->index(row, EventTableModel::Info).data(Qt::ToolTipRole).toString().contains("\n=> "))
                stack = row;
        QVERIFY(stack >= 0);
        const QString shown = model->index(stack, EventTableModel::Info).data().toString();
        QVERIFY2(!shown.contains('\n') && shown.contains(" => "), qPrintable(shown));
        QVERIFY(!model->rowText(stack).contains('\n'));
    }

    // On a small screen (a 1280x800 one, as the offscreen one) a window with no layout left
    // opens maximized; at 1280 pixels wide the table's columns fit without scrolling and its
    // Info column keeps room to be read, the details beside.
    void smallScreenLeavesTheInfoColumnRoom()
    {
        QSettings().remove("window");
        MainWindow window;
        QVERIFY(window.screen()->availableGeometry().width() < 1600);
        QVERIFY(window.windowState() & Qt::WindowMaximized);
        window.setWindowState(Qt::WindowNoState);
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        QHeaderView* header = window.table()->header();
        const int viewport = window.table()->viewport()->width();
        QVERIFY2(header->length() <= viewport,
                 qPrintable(QStringLiteral("%1 > %2").arg(header->length()).arg(viewport)));
        QVERIFY2(header->sectionSize(EventTableModel::Info) >= 170,
                 qPrintable(QString::number(header->sectionSize(EventTableModel::Info))));
        QVERIFY(window.findChild<DetailsPane*>()->width() >= 260);
        for (const int column : {int(EventTableModel::Latency), int(EventTableModel::Event)}) // headers whole
            QVERIFY(header->sectionSize(column) >=
                    header->fontMetrics().horizontalAdvance(
                        window.tableModel()->headerData(column, Qt::Horizontal).toString()) +
                        8);
    }

    // The side panes' counts read with the locale's separators ("12,345") and sort as numbers;
    // the health pane's too.
    void sidePaneCountsReadWithSeparators()
    {
        MainWindow window;
        window.show();
        QVERIFY(load(window, test::fixture("sched-mix.dat")));
        auto* filters = window.findChild<FilterPanel*>();
        QVERIFY(filters);
        const QLocale locale;
        // As an item view hands it to its delegate: told to omit group separators.
        QLocale viewLocale;
        viewLocale.setNumberOptions(QLocale::OmitGroupSeparator);
        auto shown = [&](QTreeWidget* tree, QTreeWidgetItem* item, int column) {
            return static_cast<QStyledItemDelegate*>(tree->itemDelegateForColumn(column))
                ->displayText(item->data(column, Qt::DisplayRole), viewLocale);
        };
        for (auto [tree, column] : {std::pair{filters->cpuTree(), 1}, std::pair{filters->eventTree(), 1},
                                    std::pair{filters->taskTree(), 2}}) {
            QVERIFY(tree->itemDelegateForColumn(column));
            QTreeWidgetItem* top = tree->topLevelItem(0);
            const qulonglong count = top->data(column, Qt::DisplayRole).toULongLong();
            QVERIFY2(count >= 1000, qPrintable(top->text(0)));
            QCOMPARE(shown(tree, top, column), locale.toString(count));
            QVERIFY(shown(tree, top, column).contains(locale.groupSeparator()));
        }
        // Sorted by the number, not by its text ("9" after "10,000").
        QTreeWidget* tasks = filters->taskTree();
        for (int i = 1; i < tasks->topLevelItemCount(); ++i)
            QVERIFY(tasks->topLevelItem(i - 1)->data(2, Qt::DisplayRole).toULongLong() >=
                    tasks->topLevelItem(i)->data(2, Qt::DisplayRole).toULongLong());
        QCOMPARE(filters->taskTree()->topLevelItem(0)->data(1, Qt::DisplayRole).typeId(), int(QMetaType::Int)); // a pid

        auto session = std::make_shared<TraceSession>();
        session->trace = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(session->trace);
        session->formatter = std::make_unique<EventFormatter>(*session->trace);
        HealthPane health;
        health.setSession(session.get());
        QTreeWidgetItem* cpu = health.streams()->topLevelItem(0)->child(0);
        QCOMPARE(cpu->text(1), locale.toString(qulonglong(session->store().stream(StreamId(0)).columns.size())));
        QVERIFY(cpu->text(1).contains(locale.groupSeparator()));
    }

    // The task search shows the tasks whose name or pid holds the text, and keeps hiding the
    // others when the counts are refreshed (a growing store refreshes them every second).
    void taskSearchHoldsAcrossRefreshes()
    {
        MainWindow window;
        QVERIFY(load(window, test::fixture("sched-mix.dat")));
        auto* filters = window.findChild<FilterPanel*>();
        QTreeWidget* tasks = filters->taskTree();
        QVERIFY(tasks->topLevelItemCount() > 3);
        QLineEdit* search = nullptr;
        for (QLineEdit* field : filters->findChildren<QLineEdit*>())
            if (field->placeholderText().startsWith("Search tasks")) search = field;
        QVERIFY(search);
        const QString name = tasks->topLevelItem(1)->text(0);
        auto shown = [&] {
            QStringList names;
            for (int i = 0; i < tasks->topLevelItemCount(); ++i)
                if (!tasks->topLevelItem(i)->isHidden()) names << tasks->topLevelItem(i)->text(0);
            return names;
        };
        search->setText(name);
        const QStringList found = shown();
        QVERIFY(found.contains(name));
        QVERIFY(found.size() < tasks->topLevelItemCount());
        for (const QString& each : found) QVERIFY(each.contains(name, Qt::CaseInsensitive));
        filters->refreshCounts();
        QCOMPARE(shown(), found);
        search->clear();
        QCOMPARE(shown().size(), tasks->topLevelItemCount());
        filters->refreshCounts();
        QCOMPARE(shown().size(), tasks->topLevelItemCount());
    }

    // At 1280x800 the side pane's hints fit their fields (whole in their tooltips), and a task's
    // long name keeps its start and end, the whole of it in the tooltip.
    void sidePaneHintsFitAndNamesKeepTheirEnds()
    {
        QSettings().remove("window");
        MainWindow window;
        window.setWindowState(Qt::WindowNoState);
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(load(window, test::fixture("sched-mix.dat")));
        auto* filters = window.findChild<FilterPanel*>();
        for (QLineEdit* field : filters->findChildren<QLineEdit*>()) {
            if (field->placeholderText().isEmpty()) continue;
            const int room = field->contentsRect().width() -
                             2 * field->style()->pixelMetric(QStyle::PM_DefaultFrameWidth) -
                             field->height(); // the clear button's room
            QVERIFY2(field->fontMetrics().horizontalAdvance(field->placeholderText()) <= room,
                     qPrintable(field->placeholderText()));
            QVERIFY(!field->toolTip().isEmpty());
        }
        QTreeWidget* tasks = filters->taskTree();
        QCOMPARE(tasks->textElideMode(), Qt::ElideMiddle);
        QTreeWidgetItem* task = tasks->topLevelItem(0);
        QCOMPARE(task->toolTip(0), task->text(0));
        QVERIFY(!task->text(0).isEmpty());
    }

    void healthDiagnosticsWrap()
    {
        auto session = std::make_shared<TraceSession>();
        session->trace = test::openOrFail(test::fixturePath("lost-events.dat"));
        QVERIFY(session->trace);
        session->formatter = std::make_unique<EventFormatter>(*session->trace);
        HealthPane pane;
        pane.resize(220, 600);
        pane.setSession(session.get());
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QListWidget* list = pane.diagnostics();
        QCOMPARE(list->count(), int(session->store().diagnostics().items().size()));
        QListWidgetItem* longest = list->item(0);
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->text().size() > longest->text().size()) longest = list->item(i);
        QVERIFY(longest->text().size() > 70); // far wider than 220 pixels
        QCOMPARE(longest->toolTip(), longest->text());
        const int line = list->fontMetrics().height();
        QTRY_VERIFY_WITH_TIMEOUT(list->visualItemRect(longest).height() >= 2 * line, test::kWorkWaitMs); // wrapped, not cut
        QVERIFY(list->visualItemRect(longest).right() <= list->viewport()->width());
        const int narrowHeight = list->visualItemRect(longest).height();
        pane.resize(1500, 600);
        QTRY_VERIFY_WITH_TIMEOUT(list->visualItemRect(longest).height() < narrowHeight, test::kWorkWaitMs); // fewer lines when wider
        QVERIFY(list->visualItemRect(longest).height() < 2 * line + 4);
    }

    void menusHaveNames()
    {
        MainWindow window;
        for (const char* name : {"fileMenu", "viewMenu", "goMenu", "recentMenu"})
            QVERIFY2(window.findChild<QMenu*>(name), name);
        QMenu* view = window.findChild<QMenu*>("viewMenu");
        QStringList names;
        for (QAction* a : view->actions()) names << a->objectName();
        for (const char* name :
             {"zoomInAction", "zoomFitAction", "zoomBackAction", "showHealthAction", "showFiltersAction", "findAction"})
            QVERIFY2(names.contains(name), name);
        QVERIFY(window.findChild<QMenu*>("fileMenu")->actions().first()->objectName() == "openAction");
    }

    // Help: the keys (the timeline's too), the manual (the README) and the versions.
    void helpMenuShowsKeysManualAndVersions()
    {
        MainWindow window;
        QVERIFY(window.findChild<QMenu*>("helpMenu"));
        window.findChild<QAction*>("keysAction")->trigger();
        auto* keys = window.findChild<QDialog*>("keysDialog");
        QVERIFY(keys && keys->isVisible());
        const QString keyText = keys->findChild<QTextBrowser*>()->toPlainText();
        for (const char* key : {"W / S", "Ctrl+Shift+M", "Shift+click", "Backspace"})
            QVERIFY2(keyText.contains(QString::fromUtf8(key)), key);
        window.findChild<QAction*>("manualAction")->trigger();
        auto* manual = window.findChild<QDialog*>("manualDialog");
        QVERIFY(manual && manual->isVisible());
        const QString manualText = manual->findChild<QTextBrowser*>()->toPlainText();
        QVERIFY(manualText.contains("Maximize Panes"));
        QVERIFY(manualText.contains("ringside-cli"));
        QVERIFY(!manualText.contains("resources/screenshots"));
        // A user's manual: not how to build, test or measure the project.
        QVERIFY(!manualText.contains("packaging/test.sh") && !manualText.contains("Fuzzing"));
        QString about;
        QTimer::singleShot(0, this, [&] {
            for (QWidget* top : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) about = box->text();
            closeMessageBoxes();
        });
        window.findChild<QAction*>("aboutAction")->trigger();
        QVERIFY2(about.contains(QString::fromLatin1(qVersion())) && about.contains("libtraceevent 1.") &&
                     about.contains("libtracefs 1."),
                 qPrintable(about));
    }

    void counterClockShowsTicks()
    {
        // The same recording, its trace clock switched to "counter" (same length, no conversion).
        QFile original(test::fixture("execve-e2big.dat"));
        QVERIFY(original.open(QIODevice::ReadOnly));
        QByteArray bytes = original.readAll();
        QVERIFY(bytes.count("[local] global counter") == 1);
        bytes.replace("[local] global counter", "local global [counter]");
        QTemporaryDir dir;
        QFile patched(dir.filePath("counter.dat"));
        QVERIFY(patched.open(QIODevice::WriteOnly) && patched.write(bytes) == bytes.size());
        patched.close();

        MainWindow window;
        window.show();
        QVERIFY(load(window, patched.fileName()));
        QVERIFY(!window.session()->trace->file().info().timesInUsecs);
        window.viewState()->setMarkerA(window.viewState()->fullRange().start);
        window.viewState()->setMarkerB(window.viewState()->fullRange().start + 5000);
        const QString status = statusText(window);
        QVERIFY2(status.contains("ticks") && status.contains("tick "), qPrintable(status));
        QVERIFY2(!status.contains(" s ") && !status.contains(" ms") && !status.contains(QString::fromUtf8(" \u00b5s")),
                 qPrintable(status));
        QCOMPARE(window.tableModel()->headerData(EventTableModel::Time, Qt::Horizontal).toString(),
                 QString("Time (ticks)"));

        // A real x86-tsc recording without TSC conversion says ticks too.
        QVERIFY(load(window, test::fixture("tsc-clock.dat")));
        QVERIFY2(statusText(window).contains("ticks"), qPrintable(statusText(window)));
        QCOMPARE(window.tableModel()->headerData(EventTableModel::Time, Qt::Horizontal).toString(),
                 QString("Time (ticks)"));

        // The ns recording says seconds.
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        QVERIFY2(!statusText(window).contains("tick"), qPrintable(statusText(window)));
        QCOMPARE(window.tableModel()->headerData(EventTableModel::Time, Qt::Horizontal).toString(),
                 QString("Time (s)"));
    }

    // What a recording cannot give is not offered: a plugin that found nothing (kvm on a
    // recording of no KVM host) lists no tables, and without task:task_newtask the table's
    // menu says the process's tasks are unknown instead of adding one row as "the process".
    void nothingOfferedThatTheRecordingLacks()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        bool kvmLoaded = false;
        for (const Plugin* plugin : window.session()->trace->plugins()) kvmLoaded |= plugin->name() == "kvm";
        QVERIFY(kvmLoaded);
        QComboBox* chooser = window.pluginStats()->chooser();
        QVERIFY(chooser->count() > 0);
        for (int i = 0; i < chooser->count(); ++i)
            QVERIFY2(!chooser->itemText(i).startsWith("kvm:"), qPrintable(chooser->itemText(i)));
        auto* processRows = window.findChild<QAction*>("addProcessRowsAction");
        QVERIFY(processRows);
        emit window.table()->menuAboutToShow();
        QVERIFY(!processRows->isEnabled());
        QVERIFY2(processRows->text().contains("task:task_newtask"), qPrintable(processRows->text()));
        QVERIFY(load(window, test::fixture("threads.dat")));
        emit window.table()->menuAboutToShow();
        QVERIFY(processRows->isEnabled());
        QCOMPARE(processRows->text(), QString("Add Timeline Rows for This Task's Process"));
    }

    // "Max wakeup latency at" goes to exactly the sched_switch that ran the task after its
    // longest wait: bash (29482) on sched-mix, switched in at 1023.456018277 (trace-cmd report).
    // A click on a task row inside a long system call, away from the task's events, picks the
    // call: its ends become the markers, the event that began it is selected (the details
    // show it), and the status bar says what it is.
    void clickInsideASystemCallPicksIt()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        const TraceSession& session = *window.session();
        const Trace::Analysis* syscalls = session.trace->analysis("syscalls");
        QVERIFY(syscalls);
        const auto* table = dynamic_cast<const SliceTable*>(syscalls->tables->find("syscalls"));
        QVERIFY(table);
        // The longest call with both ends recorded.
        std::optional<SliceTable::View> longest;
        table->forEach(session.store(), &session.trace->taskIndex(), [&](const SliceTable::View& v) {
            if (v.startEvent.valid() && v.endEvent.valid() && !(v.flags & (Slice::kOpen | Slice::kNoStart)) &&
                (!longest || v.end - v.start > longest->end - longest->start))
                longest = v;
        });
        QVERIFY(longest);
        const int32_t pid = session.store().stream(longest->endEvent.stream).columns.pid[longest->endEvent.index];
        ViewState& view = *window.viewState();
        view.addTaskRow(pid);
        const uint64_t span = longest->end - longest->start;
        view.setVisibleRange({longest->start - span / 2, longest->end + span / 2});
        TimelineWidget* timeline = window.timeline();
        QCoreApplication::processEvents();
        int y = -1;
        const auto& rows = timeline->rows().rows();
        for (int i = 0; i < rows.size(); ++i)
            if (rows[i].kind == TimelineRows::Kind::Task && rows[i].pid == pid)
                y = TimelineWidget::kRulerHeight + timeline->rows().rowTop(i) + rows[i].height / 2;
        QVERIFY(y > 0 && y < timeline->height());
        view.clearMarkers();
        view.clearSelection();
        // Somewhere in the middle half of the call, away from the task's events (a switch
        // while it waited is one): the markers come to the call's ends.
        bool picked = false;
        for (int step = 0; step <= 8 && !picked; ++step) {
            const uint64_t t = longest->start + span / 4 + span / 2 * uint64_t(step) / 8;
            QTest::mouseClick(timeline, Qt::LeftButton, {}, QPoint(timeline->xOfTime(t), y));
            picked = view.markerA() == longest->start && view.markerB() == longest->end;
        }
        QVERIFY2(picked, "no click inside the call picked it");
        QCOMPARE(view.selection(), std::optional<EventRef>(longest->startEvent));
        const QString name = QString::fromStdString(table->labelText(longest->label));
        const QString message = window.statusBar()->currentMessage();
        QVERIFY2(message.startsWith("System calls: " + name), qPrintable(message));
        // Said until another selection: then it would describe what is no longer picked.
        view.select(longest->endEvent);
        QCOMPARE(window.statusBar()->currentMessage(), QString());
    }

    void wakeupLatencyGoesToItsSwitch()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("sched-mix.dat")));
        const TraceSession& session = *window.session();
        auto* dock = window.findChild<QDockWidget*>("pluginStatsDock");
        QVERIFY(dock);
        dock->show();
        PluginStatsPane* pane = window.pluginStats();
        const int choice = pane->chooser()->findText("sched: Scheduling per task");
        QVERIFY(choice >= 0);
        pane->chooser()->setCurrentIndex(choice);
        const QAbstractItemModel* model = pane->table()->model();
        int at = -1, bash = -1;
        for (int c = 0; c < model->columnCount(); ++c)
            if (model->headerData(c, Qt::Horizontal).toString().startsWith("Max wakeup latency at")) at = c;
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, 0).data().toString() == "bash (29482)") bash = r;
        QVERIFY2(at >= 0 && bash >= 0, qPrintable(QString("%1 %2 %3 %4").arg(at).arg(bash).arg(model->rowCount()).arg(model->index(0, 0).data().toString())));
        emit pane->table()->activated(model->index(bash, at));
        QVERIFY(window.viewState()->selection());
        const EventRef selected = *window.viewState()->selection();
        const CpuColumns& columns = session.store().stream(selected.stream).columns;
        QCOMPARE(columns.timestamp[selected.index], uint64_t(1023456018277));
        QCOMPARE(session.formatter->eventName(columns.eventType[selected.index]), std::string("sched_switch"));
        // The events table's current row is that event.
        QCoreApplication::processEvents();
        const int current = window.table()->currentRow();
        QVERIFY(current >= 0);
        QCOMPARE(window.tableModel()->eventAt(current), selected);
        // The cell shows the time of the event it goes to.
        QVERIFY2(model->index(bash, at).data().toString().contains("1023.456018"),
                 qPrintable(model->index(bash, at).data().toString()));
        // And the wait it ended is between the markers, in view: from the wakeup to the switch.
        int latency = -1;
        for (int c = 0; c < model->columnCount(); ++c)
            if (model->headerData(c, Qt::Horizontal).toString() == "Max wakeup latency") latency = c;
        QVERIFY(latency >= 0);
        QString digits; // "12,345 ns" in the tooltip's exact form
        for (QChar ch : model->index(bash, latency).data(StatsTableModel::kExact).toString())
            if (ch.isDigit()) digits += ch;
        const uint64_t waited = digits.toULongLong();
        QVERIFY(waited > 0);
        const ViewState& view = *window.viewState();
        QCOMPARE(view.markerB(), std::optional<uint64_t>(1023456018277));
        QCOMPARE(view.markerA(), std::optional<uint64_t>(1023456018277 - waited));
        QVERIFY(view.visibleRange().contains(*view.markerA()) && view.visibleRange().contains(*view.markerB()));
    }

    // The main path with keys only: find (Ctrl+F), type, Enter goes to the first match, Tab
    // reaches the table from the search's fields, Down moves its selection, and the details
    // come after the table. (Keys go to the widgets themselves and focus is read from the
    // window: an offscreen window among many tests is not always the active one.)
    void keysOnlySearchAndTable()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(load(window, test::fixture("sched-mix.dat")));
        window.findChild<QAction*>("findAction")->trigger();
        SearchBar* search = window.searchBar();
        QCOMPARE(window.focusWidget(), static_cast<QWidget*>(search->edit()));
        QSignalSpy done(search, &SearchBar::searchFinished);
        QTest::keyClicks(search->edit(), "sched_switch");
        QTest::keyClick(search->edit(), Qt::Key_Return);
        QVERIFY(done.count() > 0 || done.wait(test::kWorkWaitMs));
        EventTableView* table = window.table();
        const int first = table->currentRow();
        QVERIFY(first >= 0);
        QCOMPARE(window.tableModel()->data(window.tableModel()->index(first, EventTableModel::Event)).toString(),
                 QString("sched_switch"));
        auto nextTabStop = [&](QWidget* from) { return nextTabStopIn(&window, from); };
        // The search's fields (column, Regex, Previous, Next), then the table, then the details.
        QWidget* stop = search->edit();
        for (int tab = 0; tab < 4; ++tab) stop = nextTabStop(stop);
        QCOMPARE(stop, search->lastInTabOrder());
        QCOMPARE(nextTabStop(stop), static_cast<QWidget*>(table));
        QCOMPARE(nextTabStop(table), static_cast<QWidget*>(window.findChild<DetailsPane*>()));
        QTest::keyClick(table, Qt::Key_Down);
        QCOMPARE(table->currentRow(), first + 1);
        QCOMPARE(*window.viewState()->selection(), window.tableModel()->eventAt(first + 1));
        // The timeline, which draws no focus of its own, is framed while it has the keys.
        auto* frame = window.findChild<FocusFrame*>();
        QVERIFY(frame && !frame->framed());
        QFocusEvent in(QEvent::FocusIn, Qt::TabFocusReason), out(QEvent::FocusOut, Qt::TabFocusReason);
        QApplication::sendEvent(window.timeline(), &in);
        QVERIFY(frame->framed());
        QApplication::sendEvent(window.timeline(), &out);
        QVERIFY(!frame->framed());
    }

    // Whatever list, table, tree or editor has the keys is ringed (Qt draws an item view's
    // selection and a text editor the same with and without them); Tab from the timeline goes
    // through every shown pane, the Query pane's editor and results too, and back.
    void focusIsRingedAndTabReachesEveryPane()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(load(window, test::fixture("sched-mix.dat")));
        auto* ring = window.findChild<FocusRing*>("focusRing");
        QVERIFY(ring && !ring->target());
        auto focusIn = [](QWidget* w) {
            QFocusEvent in(QEvent::FocusIn, Qt::TabFocusReason);
            QApplication::sendEvent(w, &in);
        };
        auto focusOut = [](QWidget* w, Qt::FocusReason reason) {
            QFocusEvent out(QEvent::FocusOut, reason);
            QApplication::sendEvent(w, &out);
        };
        auto ringedAround = [&](QWidget* w) {
            return ring->target() == w && ring->isVisibleTo(&window) &&
                   ring->geometry() == QRect(w->mapTo(&window, QPoint(0, 0)), w->size());
        };
        EventTableView* table = window.table();
        focusIn(table);
        QVERIFY(ringedAround(table));
        // A menu over it keeps the ring where the keys come back to; Tab elsewhere takes it.
        focusOut(table, Qt::PopupFocusReason);
        QVERIFY(ringedAround(table));
        auto* details = window.findChild<DetailsPane*>();
        focusIn(details);
        QVERIFY(ringedAround(details));
        focusOut(details, Qt::TabFocusReason);
        QVERIFY(!ring->target());
        // The timeline has its own frame; a line edit the style frames.
        focusIn(details);
        focusIn(window.timeline());
        QVERIFY(!ring->target());
        focusIn(window.searchBar()->edit());
        QVERIFY(!ring->target());
        // The ring follows its view when the panes are resized.
        focusIn(table);
        window.resize(1400, 900);
        QTRY_VERIFY(ringedAround(table));

        window.findChild<QAction*>("showQueryAction")->trigger();
        SqlEditor* editor = window.queryPane()->editor();
        QVERIFY(editor->isVisibleTo(&window));
        focusIn(editor);
        QVERIFY(ringedAround(editor));
        // Tab leaves the editor (it held the keys: Tab typed a tab), for Run and the results.
        QVERIFY(editor->tabChangesFocus());
        QTest::keyClicks(editor, "SELECT 1");
        QTest::keyClick(editor, Qt::Key_Tab);
        QCOMPARE(editor->toPlainText(), QString("SELECT 1"));
        // ... but while a completion is offered, Tab takes it (keys go to the popup then).
        editor->clear();
        QTest::keyClicks(editor, "SELECT count(*) FROM ftrace_ev");
        QAbstractItemView* offered = editor->completer()->popup();
        QTRY_VERIFY(offered->isVisible());
        QTest::keyClick(offered, Qt::Key_Tab);
        QCOMPARE(editor->toPlainText(), QString("SELECT count(*) FROM ftrace_event"));

        // Tab's stops from the timeline, round to it.
        auto nextTabStop = [&](QWidget* from) { return nextTabStopIn(&window, from); };
        QList<QWidget*> stops;
        for (QWidget* w = nextTabStop(window.timeline()); w && w != window.timeline() && stops.size() < 200;
             w = nextTabStop(w))
            stops << w;
        QStringList names;
        for (QWidget* w : stops) names << (w->objectName().isEmpty() ? w->metaObject()->className() : w->objectName());
        QVERIFY2(!stops.isEmpty() && stops.size() < 200, qPrintable(names.join(", ")));
        QVERIFY2(stops.contains(editor), qPrintable(names.join(", ")));
        QVERIFY2(stops.contains(window.queryPane()->findChild<QAbstractItemView*>()), qPrintable(names.join(", ")));
        QVERIFY2(stops.contains(window.findChild<FilterPanel*>()->findChild<QLineEdit*>()),
                 qPrintable(names.join(", ")));
        QCOMPARE(nextTabStop(stops.back()), static_cast<QWidget*>(window.timeline()));
        QVERIFY2(stops.contains(table) && stops.contains(details), qPrintable(names.join(", ")));
    }

    // Missing scheduling data is said where the numbers are: the plugin pane and the trace
    // health pane name the tasks whose runs began unrecorded, each a way to the table; the
    // latency columns' headers give the one definition of wakeup latency.
    void missingSwitchesAreHeadlined()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("sched-mix.dat")));
        PluginStatsPane* pane = window.pluginStats();
        QTRY_VERIFY_WITH_TIMEOUT(!pane->notes().empty(), test::kWorkWaitMs);
        const AnalysisNote note = pane->notes().front();
        QCOMPARE(note.plugin, QString("sched"));
        QCOMPARE(note.tableKey, QString("unstarted_runs"));
        QVERIFY2(note.text.startsWith("5 tasks switched out without a recorded switch in (6 runs"),
                 qPrintable(note.text));
        QVERIFY(note.text.contains("4 switches named a prev"));
        QVERIFY(pane->notesLabel()->isVisibleTo(pane));
        auto* dock = window.findChild<QDockWidget*>("pluginStatsDock");
        dock->show();
        dock->raise();
        QVERIFY(pane->notesLabel()->text().contains("href=\"sched/unstarted_runs\""));
        emit pane->notesLabel()->linkActivated("sched/unstarted_runs");
        QCOMPARE(pane->chooser()->currentText(), QString("sched: Runs whose start was not recorded"));
        QCOMPARE(pane->model()->rowCount(), 5);

        // The health pane lists it first; a double-click brings the plugin pane with the table.
        auto* health = window.findChild<HealthPane*>();
        QVERIFY(health);
        QListWidgetItem* first = health->diagnostics()->item(0);
        QVERIFY(first && first->text().startsWith("sched: 5 tasks switched out"));
        pane->chooser()->setCurrentIndex(pane->chooser()->findText("sched: Scheduling per task"));
        dock->hide();
        emit health->diagnostics()->itemActivated(first);
        QVERIFY(dock->isVisible());
        QCOMPARE(pane->chooser()->currentText(), QString("sched: Runs whose start was not recorded"));

        // The definition, where the latency is shown.
        pane->chooser()->setCurrentIndex(pane->chooser()->findText("sched: Scheduling per task"));
        bool defined = false;
        for (int c = 0; c < pane->model()->columnCount(); ++c)
            if (pane->model()->headerData(c, Qt::Horizontal).toString() == "Max wakeup latency")
                defined = pane->model()
                              ->headerData(c, Qt::Horizontal, Qt::ToolTipRole)
                              .toString()
                              .startsWith("Wakeup latency: from the wakeup that made a task runnable");
        QVERIFY(defined);
    }

    // The wakeup latency histogram reads at a glance: its counts are bars (the longest, the
    // largest bucket's), columns as wide as their content (a stretched last column put numbers
    // a window's width from their header), and the model passes Qt's model checks.
    void histogramIsDrawnAsBars()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("sched-mix.dat")));
        auto* dock = window.findChild<QDockWidget*>("pluginStatsDock");
        QVERIFY(dock);
        dock->show();
        dock->raise();
        PluginStatsPane* pane = window.pluginStats();
        QAbstractItemModelTester tester(pane->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int choice = pane->chooser()->findText("sched: Wakeup latency histogram");
        QStringList offered;
        for (int i = 0; i < pane->chooser()->count(); ++i) offered << pane->chooser()->itemText(i);
        QVERIFY2(choice >= 0, qPrintable(offered.join(", ")));
        pane->chooser()->setCurrentIndex(choice);
        QTreeView* table = pane->table();
        const QAbstractItemModel* model = table->model();
        QVERIFY(model->rowCount() > 2);
        const int counts = pane->model()->barColumn();
        QCOMPARE(counts, 2);
        int largest = -1;
        qulonglong most = 0, total = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            const qulonglong n = QLocale().toULongLong(model->index(r, counts).data().toString());
            total += n;
            if (n > most) most = n, largest = r;
            QVERIFY(!model->index(r, 0).data(StatsTableModel::kBar).isValid());
        }
        QVERIFY(largest >= 0);
        QCOMPARE(model->index(largest, counts).data(StatsTableModel::kBar).toDouble(), 1.0);
        for (int r = 0; r < model->rowCount(); ++r) {
            const double n = double(QLocale().toULongLong(model->index(r, counts).data().toString()));
            QVERIFY(qAbs(model->index(r, counts).data(StatsTableModel::kBar).toDouble() - n / double(most)) < 1e-9);
        }
        // Drawn: the largest bucket's cell is tinted most of its width, a small one's barely.
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!table->header()->stretchLastSection());
        QVERIFY(table->columnWidth(counts) >= 300 && table->columnWidth(counts) <= 400);
        table->scrollTo(model->index(largest, counts));
        const QRect cell = table->visualRect(model->index(largest, counts));
        const QImage image = table->viewport()->grab().toImage();
        auto tinted = [&](int x) {
            const QColor c = image.pixelColor(x, cell.center().y());
            return c.blue() > c.red() + 20;
        };
        QVERIFY(tinted(cell.left() + 10));
        QVERIFY(tinted(cell.left() + cell.width() * 3 / 4));
        QVERIFY(total > most); // more than one bucket has wakeups
        // Error counts read as counts do (with separators), durations have room for their
        // widest unit, and a list of errors last takes the rest of the width.
        const QLocale before;
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        pane->chooser()->setCurrentIndex(pane->chooser()->findText("syscalls: System calls"));
        bool found = false;
        int errors = -1, totals = -1;
        for (int c = 0; c < model->columnCount(); ++c) {
            if (model->headerData(c, Qt::Horizontal).toString() == "Errors") errors = c;
            if (model->headerData(c, Qt::Horizontal).toString() == "Total") totals = c;
        }
        QVERIFY(errors >= 0 && totals >= 0);
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, 0).data().toString() == "newfstatat") {
                QCOMPARE(model->index(r, errors).data().toString(), QString("ENOENT 1,147"));
                found = true;
            }
        QVERIFY(found);
        QVERIFY(table->columnWidth(totals) >= table->fontMetrics().horizontalAdvance("999.999 ms"));
        QLocale::setDefault(before);
        // One row is "1 row"; an explanation in the last column takes the rest of the width.
        pane->chooser()->setCurrentIndex(pane->chooser()->findText("sched: Switches whose prev did not run there"));
        QCOMPARE(model->rowCount(), 1);
        QVERIFY2(pane->summary()->text().startsWith("1 row") && !pane->summary()->text().contains("1 rows"),
                 qPrintable(pane->summary()->text()));
        QVERIFY(table->header()->stretchLastSection());
        // A table without a histogram has no bars.
        pane->chooser()->setCurrentIndex(pane->chooser()->findText("sched: Scheduling per task"));
        QCOMPARE(pane->model()->barColumn(), -1);
    }

    // The syscalls plugin as a user meets it: the window opens no pane by itself, the status
    // bar says how many system calls failed and shows them on a click, a row goes to exactly
    // its event, the failing execve is red on its task row with a tooltip, and the Plugins
    // dialog switches it off (and the recording reloads).
    void pluginViews()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        const TraceSession& session = *window.session();
        const Plugin* syscalls = nullptr;
        for (const Plugin* plugin : session.trace->plugins())
            if (plugin->name() == "syscalls") syscalls = plugin;
        QVERIFY(syscalls);
        auto* dock = window.findChild<QDockWidget*>("pluginStatsDock");
        QVERIFY(dock && !dock->isVisible());
        auto* headline = window.findChild<QLabel*>("headlineStatus");
        QVERIFY(headline && headline->isVisible());
        int failures = 0;
        for (const StatsTable& t : *session.trace->statistics(*syscalls))
            if (t.key == "failures") failures = int(t.rows());
        QVERIFY(failures > 0);
        QVERIFY2(headline->text().contains(QStringLiteral("Failed system calls: %1").arg(failures)),
                 qPrintable(headline->text()));
        // A message that would be cut makes the headline wait; a short one leaves it.
        window.statusBar()->showMessage(QStringLiteral("Timeline saved to /") +
                                        QStringLiteral("a-long-folder-name/").repeated(12) + "timeline.png");
        QVERIFY(!headline->isVisible());
        window.statusBar()->clearMessage();
        QVERIFY(headline->isVisible());
        window.statusBar()->showMessage(QStringLiteral("Session restored"));
        QVERIFY(headline->isVisible());
        window.statusBar()->clearMessage();
        emit headline->linkActivated("show");
        QVERIFY(dock->isVisible());
        QVERIFY(!headline->isVisible());
        PluginStatsPane* pane = window.pluginStats();
        QVERIFY(pane->chooser()->currentText().contains("Failed system calls"));
        QTreeView* table = pane->table();
        const QAbstractItemModel* model = table->model();
        auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
            return model->index(row, column).data(role);
        };
        // Each table opens sorted by its first column, ascending (times in time order), whatever
        // order the user left the previous one in.
        table->sortByColumn(0, Qt::DescendingOrder);
        pane->chooser()->setCurrentIndex(pane->chooser()->findText("syscalls: System calls"));
        QCOMPARE(table->header()->sortIndicatorSection(), 0);
        QCOMPARE(table->header()->sortIndicatorOrder(), Qt::AscendingOrder);
        QVERIFY(cell(0, 0).toString() < cell(1, 0).toString());
        // Sorting by a number column sorts by value (counts are shown with separators), and back.
        const int callsColumn = 1;
        table->sortByColumn(callsColumn, Qt::DescendingOrder);
        for (int r = 1; r < model->rowCount(); ++r)
            QVERIFY(QLocale().toULongLong(cell(r - 1, callsColumn).toString()) >=
                    QLocale().toULongLong(cell(r, callsColumn).toString()));
        QVERIFY(pane->showHeadline());
        QCOMPARE(model->rowCount(), failures);
        // The names and errors are labels: sorted by their text, not by their index.
        for (const int labelColumn : {3, 5}) {
            table->sortByColumn(labelColumn, Qt::AscendingOrder);
            for (int r = 1; r < model->rowCount(); ++r)
                QVERIFY(cell(r - 1, labelColumn).toString() <= cell(r, labelColumn).toString());
        }
        table->sortByColumn(0, Qt::AscendingOrder);
        int e2big = -1;
        for (int i = 0; i < model->rowCount(); ++i)
            if (cell(i, 3).toString() == "execve" && cell(i, 5).toString() == "E2BIG") e2big = i;
        QVERIFY(e2big >= 0);
        QVERIFY2(cell(e2big, 2).toString().endsWith(QStringLiteral("(31462)")), qPrintable(cell(e2big, 2).toString()));
        QCOMPARE(cell(e2big, 5, Qt::ForegroundRole).value<QColor>(), QColor(0xc0, 0x1c, 0x28));
        // Copy gives every row, in the view's order.
        QCOMPARE(pane->model()->asTsv().count('\n'), failures + 1);
        emit table->activated(model->index(e2big, 2)); // the task cell: the row's own event
        const EventRef selected = *window.viewState()->selection();
        QCOMPARE(StatsTable::eventOf(cell(e2big, 2, StatsTableModel::kJumpEvent).toLongLong()), selected);
        const CpuColumns& columns = session.store().stream(selected.stream).columns;
        QCOMPARE(columns.pid[selected.index], 31462);
        const uint64_t failedAt = columns.timestamp[selected.index];
        QCOMPARE(session.formatter->eventName(columns.eventType[selected.index]), std::string("sys_exit_execve"));

        // On the timeline: red where the execve ran, and the tooltip's text.
        TrackRenderer tracks;
        tracks.setSession(&session);
        const TaskId task = session.trace->taskIndex().taskAt(31462, failedAt);
        QVERIFY(task.valid());
        const auto hit = tracks.sliceAt(RowOwner::Task, task.value, failedAt - 1, 0);
        QVERIFY(hit);
        const uint64_t start = hit->slice.start;
        QVERIFY(start > 0 && start < failedAt);
        QCOMPARE(hit->slice.end, failedAt);
        // With the arguments, from the entry event (the first of the two the call has) as
        // trace-cmd report prints it.
        const QString text = tracks.describeTask(task, (start + failedAt) / 2, 0);
        QVERIFY2(text.contains(QStringLiteral("System calls: execve = -7 (E2BIG)")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("    sys_enter_execve: filename: 0x55b5794513d0, argv: 0x55b579451430, "
                                              "envp: 0x55b579037a90")),
                 qPrintable(text));
        QImage image(400, 10, QImage::Format_RGB32);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            tracks.paintSlices(p, RowOwner::Task, task.value, QRect(0, 0, 400, 9), {start - (failedAt - start), failedAt + (failedAt - start)});
        }
        QCOMPARE(image.pixelColor(200, 7), QColor(0xd0, 0x1c, 0x28)); // mid-call
        QCOMPARE(image.pixelColor(50, 7), QColor(Qt::white));         // before it

        // The Plugins dialog: the plugin, what it made, and switching it off.
        PluginsDialog dialog(&session);
        QTreeWidget* list = dialog.list();
        QCOMPARE(list->topLevelItemCount(), int(PluginSettings::catalog().modules().size()));
        QTreeWidgetItem* item = list->findItems("syscalls", Qt::MatchExactly).value(0);
        QVERIFY(item);
        QCOMPARE(item->checkState(0), Qt::Checked);
        QVERIFY2(item->text(PluginsDialog::kStatus).contains("system calls"),
                 qPrintable(item->text(PluginsDialog::kStatus)));
        // What the plugin made is seen without scrolling sideways.
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QHeaderView* header = list->header();
        QVERIFY(header->sectionViewportPosition(PluginsDialog::kStatus) + header->sectionSize(PluginsDialog::kStatus) <=
                list->viewport()->width());
        QVERIFY(header->sectionSize(PluginsDialog::kStatus) >=
                list->fontMetrics().horizontalAdvance(item->text(PluginsDialog::kStatus)));
        QVERIFY(!list->horizontalScrollBar()->isVisible());
        dialog.hide();
        item->setCheckState(0, Qt::Unchecked);
        QVERIFY(dialog.apply());
        QVERIFY(!PluginSettings::isEnabled("syscalls"));
        QVERIFY(load(window, test::fixture("execve-e2big.dat")));
        for (const Plugin* plugin : window.session()->trace->plugins()) QVERIFY(plugin->name() != "syscalls");
        QVERIFY(!headline->isVisible());
        PluginSettings::setDisabled({});
        QVERIFY(PluginSettings::isEnabled("syscalls"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
