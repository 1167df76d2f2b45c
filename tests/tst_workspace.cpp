// SPDX-License-Identifier: GPL-2.0-or-later
// The workspace and the window's controllers without the window: loads in order, an append of
// a recording open already, a failed load between two good ones, a reload, a jump to an event;
// the status bar's words follow the workspace's view.
#include "testsupport.h"

#include "jobs/analysisjob.h"
#include "plugins/pluginstatspane.h"
#include "state/workspace.h"
#include "status/windowstatus.h"
#include "widgets/elidedlabel.h"

#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

using namespace ringside;

namespace {
// Waits for the loads asked for to be done (loadsDone), then for every recording's analyses.
bool settle(Workspace& workspace, QSignalSpy& done, int loads)
{
    if (!QTest::qWaitFor([&] { return done.count() >= loads; }, 120000)) return false;
    return QTest::qWaitFor(
        [&] {
            for (size_t i = 0; i < workspace.recordings().size(); ++i)
                if (!workspace.recordings().at(i)->analyses || !workspace.recordings().at(i)->analyses->isFinished())
                    return false;
            return true;
        },
        120000);
}
} // namespace

class TestWorkspace : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("RingsideTests");
    }

    void loadsInOrderAndSayHowEachEnded()
    {
        Workspace workspace;
        QSignalSpy done(&workspace, &Workspace::loadsDone);
        QSignalSpy failed(&workspace, &Workspace::loadFailed);
        QSignalSpy finished(&workspace, &Workspace::tablesFinished);
        QStringList order; // what the observers hear, in order
        connect(&workspace, &Workspace::loadStarted, this, [&](const QString& path) {
            order << "started " + QFileInfo(path).fileName();
        });
        connect(&workspace, &Workspace::loadEnded, this, [&] { order << "ended"; });
        connect(&workspace, &Workspace::activeChanged, this, [&](size_t index, bool opened) {
            order << QString("active %1%2").arg(index).arg(opened ? " opened" : "");
        });
        connect(&workspace, &Workspace::recordingsChanged, this, [&] { order << "appended"; });
        connect(&workspace, &Workspace::loadFailed, this, [&] { order << "failed"; });
        // A file that is not a recording between two that are: the third still comes.
        workspace.openAll({test::fixture("sched-mix.dat"), test::fixture("crash-format-0.dat"),
                           test::fixture("threads.dat")});
        QVERIFY(settle(workspace, done, 1));
        // The open shows its recording as its pages are read, and ends once it is complete; an
        // append joins once loaded.
        QCOMPARE(order, QStringList({"started sched-mix.dat", "active 0 opened", "ended", "started crash-format-0.dat",
                                     "ended", "failed", "started threads.dat", "ended", "appended"}));
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.first().first().toString().contains("crash-format-0.dat"),
                 qPrintable(failed.first().first().toString()));
        QCOMPARE(workspace.recordings().size(), size_t(2));
        QCOMPARE(workspace.active(), size_t(0));
        // Each recording's analyses ran and said so, with the recording they are of.
        QCOMPARE(finished.count(), 2);
        QCOMPARE(finished.at(0).first().value<const TraceSession*>(), workspace.recordings().at(0).get());
        QCOMPARE(finished.at(1).first().value<const TraceSession*>(), workspace.recordings().at(1).get());
    }

    void anAppendOfARecordingOpenShowsIt()
    {
        Workspace workspace;
        QSignalSpy done(&workspace, &Workspace::loadsDone);
        workspace.openAll({test::fixture("sched-mix.dat"), test::fixture("threads.dat")});
        QVERIFY(settle(workspace, done, 1));
        QSignalSpy started(&workspace, &Workspace::loadStarted);
        QSignalSpy already(&workspace, &Workspace::alreadyOpen);
        workspace.appendPath(test::fixture("sched-mix.dat"));
        QCOMPARE(already.count(), 1);
        QCOMPARE(already.first().first().value<size_t>(), size_t(0));
        QCOMPARE(started.count(), 0);
        QCOMPARE(done.count(), 2); // nothing left to load
        QCOMPARE(workspace.recordings().size(), size_t(2));
    }

    void reloadLoadsEveryRecordingAgain()
    {
        Workspace workspace;
        QSignalSpy done(&workspace, &Workspace::loadsDone);
        workspace.openAll({test::fixture("sched-mix.dat"), test::fixture("threads.dat")});
        QVERIFY(settle(workspace, done, 1));
        const TraceSession* first = workspace.recordings().at(0).get();
        workspace.reloadAll();
        QVERIFY(settle(workspace, done, 2));
        QCOMPARE(workspace.recordings().size(), size_t(2));
        QVERIFY(workspace.recordings().at(0).get() != first);
        QCOMPARE(QFileInfo(workspace.recordings().at(1)->path).fileName(), QString("threads.dat"));
    }

    void goToEventMarksAndSelectsIt()
    {
        Workspace workspace;
        QSignalSpy done(&workspace, &Workspace::loadsDone);
        workspace.open(test::fixture("sched-mix.dat"));
        QVERIFY(settle(workspace, done, 1));
        workspace.view().reset(workspace.recordings().fullRange()); // as the window does
        const EventStore& store = workspace.session()->store();
        const EventRef event{StreamId(0), 10};
        const uint64_t t = store.timestamp(event);
        workspace.goToEvent(event, std::make_pair(quint64(t), quint64(t + 100000)));
        QCOMPARE(workspace.view().selection(), std::optional<EventRef>(event));
        QCOMPARE(workspace.view().markerA(), std::optional<uint64_t>(t));
        QCOMPARE(workspace.view().markerB(), std::optional<uint64_t>(t + 100000));
        QVERIFY(workspace.view().visibleRange().contains(t));
        // An event the recording does not have changes nothing.
        workspace.goToEvent(EventRef{StreamId(0), uint32_t(store.stream(StreamId(0)).columns.size())}, std::nullopt);
        QCOMPARE(workspace.view().selection(), std::optional<EventRef>(event));

        // The user's markers, replaced by go-tos, come back one go-to at a time.
        ViewState& view = workspace.view();
        QVERIFY(view.canRestoreMarkers()); // the go-to above replaced "none"
        view.restoreMarkers();
        QVERIFY(!view.markerA() && !view.markerB());
        QVERIFY(!view.canRestoreMarkers());
        view.setMarkerA(t + 5), view.setMarkerB(t + 50);
        workspace.goToEvent(event, std::make_pair(quint64(t), quint64(t + 100000)));
        workspace.goToEvent(event, std::make_pair(quint64(t + 1), quint64(t + 7)));
        QCOMPARE(view.markerA(), std::optional<uint64_t>(t + 1));
        view.restoreMarkers();
        QCOMPARE(view.markerA(), std::optional<uint64_t>(t));
        view.restoreMarkers();
        QCOMPARE(view.markerA(), std::optional<uint64_t>(t + 5));
        QCOMPARE(view.markerB(), std::optional<uint64_t>(t + 50));
        QVERIFY(!view.canRestoreMarkers());
    }

    void statusFollowsTheView()
    {
        QMainWindow window;
        Workspace workspace;
        auto* stats = new PluginStatsPane(&window);
        auto* statsDock = new QDockWidget(&window);
        statsDock->setWidget(stats);
        auto* healthDock = new QDockWidget(&window);
        WindowStatus status(window.statusBar(), workspace, stats, statsDock, healthDock);
        status.updateRange();
        ElidedLabel* range = nullptr;
        for (ElidedLabel* label : window.statusBar()->findChildren<ElidedLabel*>())
            if (label->fullText() == "No recording open") range = label;
        QVERIFY(range);
        QSignalSpy done(&workspace, &Workspace::loadsDone);
        workspace.open(test::fixture("sched-mix.dat"));
        QVERIFY(settle(workspace, done, 1));
        workspace.view().reset(workspace.recordings().fullRange()); // as the window does
        QVERIFY2(range->fullText().contains("events"), qPrintable(range->fullText()));
        // Markers set on the view are said without being asked.
        const uint64_t start = workspace.view().fullRange().start;
        workspace.view().setMarkerA(start);
        workspace.view().setMarkerB(start + 1000000);
        bool said = false;
        for (QLabel* label : window.statusBar()->findChildren<QLabel*>())
            said = said || label->text().contains("B−A = 1");
        QVERIFY(said);
        // A notice goes when the task rows change; a message does not.
        status.sayNotice("picked");
        QCOMPARE(window.statusBar()->currentMessage(), QString("picked"));
        workspace.view().addTaskRow(1);
        QCOMPARE(window.statusBar()->currentMessage(), QString());
        status.say("kept", 15000);
        workspace.view().addTaskRow(2);
        QCOMPARE(window.statusBar()->currentMessage(), QString("kept"));
    }
};

QTEST_MAIN(TestWorkspace)
#include "tst_workspace.moc"
