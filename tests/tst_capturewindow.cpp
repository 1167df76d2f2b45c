// SPDX-License-Identifier: GPL-2.0-or-later
// A live capture in the window, as a user starts one: rows arrive in the table while it runs,
// the timeline follows the newest events, the command given ends it, Save Capture As writes
// a file that reads the same, and an unsaved capture is not closed without asking. Skipped,
// with the reason, where tracefs cannot be written.
#include "guisupport.h"
#include "testsupport.h"

#include "capture/capturecontroller.h"
#include "filters/filterpanel.h"
#include "mainwindow.h"
#include "state/viewstate.h"
#include "table/eventtablemodel.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

#include <unistd.h>

using namespace ringside;

namespace {

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

// Answers the next message box with `button` once it shows.
void answerNextMessageBox(QMessageBox::StandardButton button)
{
    QTimer::singleShot(200, [button] {
        for (QWidget* top : QApplication::topLevelWidgets())
            if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) {
                box->button(button)->click();
                return;
            }
        answerNextMessageBox(button);
    });
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
        const QString why = unwritableReason();
        if (!why.isEmpty()) QSKIP(qPrintable(why));
    }

    void cleanup()
    {
        if (unwritableReason().isEmpty()) QTRY_COMPARE_WITH_TIMEOUT(captureInstances(), QStringList(), 10000);
    }

    void captureGrowsSavesAndReopens()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QString error;
        QVERIFY2(window.captures()->start({"-e", "sched:sched_switch", "-e", "raw_syscalls"},
                                          "for i in $(seq 60); do ls / >/dev/null; sleep 0.05; done", &error),
                 qPrintable(error));
        QVERIFY(window.session() && window.session()->live && window.session()->isCapture);
        QVERIFY(window.captures()->running());
        // Rows arrive while it runs.
        QTRY_VERIFY_WITH_TIMEOUT(window.tableModel()->rowCount() > 0, 10000);
        QVERIFY(window.captures()->running());
        // The filter lists fill in with what arrives, counts growing, while it runs.
        auto* filters = window.findChild<FilterPanel*>();
        QVERIFY(filters);
        auto countOf = [](QTreeWidget* tree, const QString& name) -> qulonglong {
            for (QTreeWidgetItemIterator it(tree); *it; ++it)
                if ((*it)->text(0) == name) return (*it)->data(1, Qt::DisplayRole).toULongLong();
            return 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(countOf(filters->eventTree(), "sys_enter") > 0, 10000);
        const qulonglong enters = countOf(filters->eventTree(), "sys_enter");
        QTRY_VERIFY_WITH_TIMEOUT(countOf(filters->eventTree(), "sys_enter") > enters, 10000);
        QVERIFY(window.captures()->running());
        QVERIFY(filters->taskTree()->topLevelItemCount() > 0);
        QVERIFY(countOf(filters->cpuTree(), "CPU 0") + countOf(filters->cpuTree(), "CPU 1") > 0);
        // Zoomed in at the end, the view follows the newest events.
        ViewState& view = *window.viewState();
        const auto full = view.fullRange();
        view.setVisibleRange({full.end - full.span() / 2, full.end});
        QTRY_VERIFY_WITH_TIMEOUT(view.fullRange().end > full.end, 10000);
        QCOMPARE(view.visibleRange().end, view.fullRange().end);
        QCOMPARE(view.visibleRange().span(), full.span() / 2);
        // The command's end stops the capture.
        QTRY_VERIFY_WITH_TIMEOUT(!window.captures()->running(), 20000);
        QVERIFY(window.findChild<QLabel*>("captureStatus")->text().contains("Capture stopped"));
        // Then analysed as a loaded recording is: who ran on each CPU, the tasks' rows.
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace->occupancy().available(), 20000);
        QVERIFY(window.session()->isCapture && !window.session()->liveSaved);
        QVERIFY(!window.session()->trace->plugins().empty()); // a growing trace has none
        const int rows = window.tableModel()->rowCount();
        QCOMPARE(size_t(rows), window.session()->store().eventCount());
        QVERIFY(!window.session()->liveSaved);

        const QString out = m_dir.filePath("capture.dat");
        QVERIFY2(window.captures()->save(out, &error), qPrintable(error));
        QVERIFY(window.session()->liveSaved);
        QVERIFY2(window.findChild<QLabel*>("captureStatus")->text().endsWith(" · saved as capture.dat (v7, zstd)"),
                 qPrintable(window.findChild<QLabel*>("captureStatus")->text()));
        const auto dump = test::runCli({"dump", out});
        QCOMPARE(dump.status, 0);
        QCOMPARE(dump.out.count('\n'), qsizetype(rows) + 1); // "cpus=N", then every event
        QCOMPARE(test::datFormatOf(out), std::string("v7, zstd"));
        // Format 6 on request, for older tools: the same events.
        const QString outV6 = m_dir.filePath("capture-v6.dat");
        QVERIFY2(window.captures()->save(outV6, &error, DatFormat::v6()), qPrintable(error));
        QCOMPARE(test::datFormatOf(outV6), std::string("v6"));
        QCOMPARE(test::runCli({"dump", outV6}).out, dump.out);
        // Reopened, the file shows what the capture showed.
        QVERIFY(test::load(window, out));
        QCOMPARE(window.tableModel()->rowCount(), rows);
    }

    void unsavedCaptureAsksBeforeClosing()
    {
        MainWindow window;
        window.show();
        QString error;
        QVERIFY2(window.captures()->start({"-e", "sched:sched_switch"}, "sleep 0.2", &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(!window.captures()->running(), 20000);
        answerNextMessageBox(QMessageBox::Cancel);
        window.close();
        QVERIFY(window.isVisible()); // kept
        answerNextMessageBox(QMessageBox::Discard);
        window.close();
        QVERIFY(!window.isVisible());
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
