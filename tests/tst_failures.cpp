// SPDX-License-Identifier: GPL-2.0-or-later
// A plugin that throws (on a record, with std::bad_alloc, with something that is no
// std::exception, in its statistics, when given the recording) leaves the window usable: the
// status bar and the Plugin statistics pane say which one stopped and why, the other plugins'
// tables are there, and the user's recording, selection and markers stay.
#include "guisupport.h"
#include "testsupport.h"

#include "mainwindow.h"
#include "plugins/failurelabel.h"
#include "plugins/pluginstatspane.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include <QLabel>
#include <QStandardPaths>
#include <QTest>

using namespace ringside;

class TestFailures : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("RingsideTests");
        // The test plugins first: the window's catalog is read once, at its first load.
        qputenv("RINGSIDE_PLUGIN_PATH", RINGSIDE_TEST_PLUGIN_DIR);
    }

    void windowSaysWhatFailedAndGoesOn_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QString>("message");
        QTest::newRow("on a record") << "consume" << "third record refused";
        QTest::newRow("std::bad_alloc") << "bad_alloc" << "std::bad_alloc";
        QTest::newRow("not a std::exception") << "other" << "an exception that is not a std::exception";
        QTest::newRow("in its statistics") << "statistics" << "making its statistics: no statistics today";
        QTest::newRow("given the recording") << "recording" << "taking the recording: recording refused";
    }
    void windowSaysWhatFailedAndGoesOn()
    {
        QFETCH(QString, how);
        QFETCH(QString, message);
        qputenv("RINGSIDE_TEST_THROW", how.toUtf8()); // read when the plugin is made, for the load
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(test::load(window, test::fixture("execve-e2big.dat")));
        qunsetenv("RINGSIDE_TEST_THROW");
        const auto session = window.workspace()->session();
        QVERIFY(session);
        const Trace& trace = *session->trace;
        QCOMPARE(trace.failures().size(), size_t(1));
        QCOMPARE(QString::fromStdString(trace.failures().front().what), message);

        // Said in the status bar, with the details a click away.
        auto* label = window.findChild<FailureLabel*>("analysisFailures");
        QVERIFY(label);
        QVERIFY(label->isVisible());
        QVERIFY2(label->text().contains("throwing stopped"), qPrintable(label->text()));
        QVERIFY2(label->toolTip().contains(message), qPrintable(label->toolTip()));
        emit label->detailsRequested();
        auto* failures = window.pluginStats()->findChild<QLabel*>("pluginFailures");
        QVERIFY(failures);
        QVERIFY(window.pluginStats()->isVisible());
        QVERIFY(failures->isVisible());
        QVERIFY2(failures->text().contains(message), qPrintable(failures->text()));

        // The rest works: the other plugins made their statistics, the timeline and the
        // selection answer, the markers stay.
        bool syscalls = false;
        for (const Plugin* plugin : trace.plugins())
            if (plugin->name() == "syscalls") syscalls = !trace.statistics(*plugin)->empty();
        QVERIFY(syscalls);
        ViewState& view = *window.viewState();
        const uint64_t a = trace.store().firstTimestamp() + 1000, b = trace.store().lastTimestamp() - 1000;
        view.setMarkerA(a);
        view.setMarkerB(b);
        view.select(trace.store().eventAt(100));
        QCOMPARE(view.selection(), trace.store().eventAt(100));
        QVERIFY(window.timeline()->grab().width() > 0);
        QCOMPARE(view.markerA(), std::optional<uint64_t>(a));
        QCOMPARE(view.markerB(), std::optional<uint64_t>(b));
        QVERIFY(window.isVisible());
    }
};

QTEST_MAIN(TestFailures)
#include "tst_failures.moc"
