// SPDX-License-Identifier: GPL-2.0-or-later
// Sessions: a view saved, its folder moved, and restored the same; a changed recording and a
// filter naming what the recording lacks are reported while the rest is restored; a file that
// is no session, or whose recording is nowhere, is refused with the reason.
#include "guisupport.h"
#include "testsupport.h"

#include "mainwindow.h"
#include "plugins/pluginsettings.h"
#include "query/querypane.h"
#include "session/sessioncontroller.h"
#include "state/viewstate.h"
#include "table/eventtableview.h"
#include "timeline/timelinewidget.h"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ringside;

namespace {

using test::load;

// Opens `session` in a new window; the problems reported, or nullopt when it failed.
struct Restored {
    std::unique_ptr<MainWindow> window;
    QStringList problems;
    QString failure;
};

Restored restore(const QString& session, SessionController::QueryConfirmation confirm = {})
{
    Restored r;
    r.window = std::make_unique<MainWindow>();
    r.window->show();
    if (confirm) r.window->sessions()->setQueryConfirmation(std::move(confirm));
    QSignalSpy restored(r.window->sessions(), &SessionController::restored);
    QSignalSpy failed(r.window->sessions(), &SessionController::failed);
    r.window->sessions()->open(session);
    if (failed.count() || (!restored.wait(test::kWorkWaitMs) && failed.count())) {
        r.failure = failed.first().first().toString();
        return r;
    }
    if (!restored.isEmpty()) r.problems = restored.first().at(1).toStringList();
    return r;
}

QJsonObject readJson(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).object() : QJsonObject();
}

void writeJson(const QString& path, const QJsonObject& json)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QJsonDocument(json).toJson());
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    ViewSnapshot m_saved;
    int m_timeWidth = 0;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("RingsideTests");
        QVERIFY(QDir().mkpath(m_dir.filePath("a")));
        QVERIFY(QFile::copy(test::fixture("execve-e2big.dat"), m_dir.filePath("a/trace.dat")));
    }

    // Everything the view holds comes back after the folder moved with the session.
    void savedViewComesBackAfterAMove()
    {
        {
            MainWindow window;
            window.show();
            QVERIFY(load(window, m_dir.filePath("a/trace.dat")));
            ViewState& view = *window.viewState();
            const EventStore& store = window.session()->store();
            const uint64_t first = store.firstTimestamp(), last = store.lastTimestamp();
            view.setVisibleRange({first + (last - first) / 4, first + (last - first) / 2});
            view.select(store.eventAt(store.eventCount() / 3));
            view.setMarkerA(first + (last - first) / 3);
            view.setMarkerB(first + (last - first) * 2 / 5);
            view.addTaskRows({1, 31462});
            view.setTaskShowsCalls(31462, true);
            FilterSpec filter;
            filter.expression = "sched/sched_switch: prev_state != 0";
            filter.hiddenPids = {12, 13};
            filter.hiddenStreams = {false, true};
            window.restoreView([&] {
                ViewSnapshot s = view.snapshot();
                s.filter = filter;
                return s;
            }());
            window.table()->header()->resizeSection(2, 177);
            window.findChild<QDockWidget*>("healthDock")->hide();
            PluginSettings::setDisabled({"workqueue"});
            m_saved = view.snapshot();
            m_timeWidth = window.table()->header()->sectionSize(2);
            QString error;
            QVERIFY2(window.sessions()->save(m_dir.filePath("a/view.ringside"), &error), qPrintable(error));
        }
        // Readable: named parts, times as the table shows them.
        const QJsonObject json = readJson(m_dir.filePath("a/view.ringside"));
        QCOMPARE(json.value("ringside_session").toInt(), 1);
        const QJsonObject view = json.value("view").toObject();
        QVERIFY(view.value("visible").toObject().value("start").toString().contains('.'));
        QCOMPARE(view.value("filter").toObject().value("expression").toString(),
                 QString("sched/sched_switch: prev_state != 0"));
        QCOMPARE(view.value("filter").toObject().value("hidden_cpus").toArray().first().toObject().value("cpu").toInt(),
                 1);
        QCOMPARE(json.value("recordings").toArray().first().toObject().value("relative_to_session").toString(),
                 QString("trace.dat"));

        QVERIFY(QDir().rename(m_dir.filePath("a"), m_dir.filePath("b")));
        PluginSettings::setDisabled({});
        Restored r = restore(m_dir.filePath("b/view.ringside"));
        QCOMPARE(PluginSettings::disabled(), QStringList{"workqueue"});
        QVERIFY2(r.failure.isEmpty(), qPrintable(r.failure));
        QCOMPARE(r.window->session()->path, m_dir.filePath("b/trace.dat"));
        QCOMPARE(r.problems.size(), 1); // only the note that it was found elsewhere
        QVERIFY2(r.problems.first().contains("the same recording was found at"), qPrintable(r.problems.first()));
        const ViewSnapshot now = r.window->viewState()->snapshot();
        QCOMPARE(now.visible.start, m_saved.visible.start);
        QCOMPARE(now.visible.end, m_saved.visible.end);
        QVERIFY(now.selection && *now.selection == *m_saved.selection);
        QCOMPARE(now.markerA, m_saved.markerA);
        QCOMPARE(now.markerB, m_saved.markerB);
        QCOMPARE(now.filter.expression, m_saved.filter.expression);
        QCOMPARE(now.filter.hiddenPids, m_saved.filter.hiddenPids);
        QCOMPARE(now.filter.hiddenStreams, m_saved.filter.hiddenStreams);
        QCOMPARE(now.taskRows, m_saved.taskRows);
        QCOMPARE(now.callTaskRows, m_saved.callTaskRows);
        QCOMPARE(r.window->table()->header()->sectionSize(2), m_timeWidth);
        QVERIFY(!r.window->findChild<QDockWidget*>("healthDock")->isVisible());
    }

    // Another recording under the same name: said so; what fits is restored, what does not
    // is listed.
    void changedRecordingIsReported()
    {
        QVERIFY(QFile::remove(m_dir.filePath("b/trace.dat")));
        QVERIFY(QFile::copy(test::fixture("sched-mix.dat"), m_dir.filePath("b/trace.dat")));
        Restored r = restore(m_dir.filePath("b/view.ringside"));
        QVERIFY2(r.failure.isEmpty(), qPrintable(r.failure));
        const QString all = r.problems.join('\n');
        QVERIFY2(all.contains("has changed since the session was saved"), qPrintable(all));
        QVERIFY2(all.contains("the selected event"), qPrintable(all));
        const ViewSnapshot now = r.window->viewState()->snapshot();
        QCOMPARE(now.taskRows, m_saved.taskRows);
        QCOMPARE(now.filter.expression, m_saved.filter.expression);
    }

    // A host and its guest: both come back, each with its own view, the guest in the panes as
    // it was; a recording gone since is listed and the rest restored.
    void severalRecordingsComeBack()
    {
        QVERIFY(QDir().mkpath(m_dir.filePath("kvm")));
        QVERIFY(QFile::copy(test::fixture("zlib-host.dat"), m_dir.filePath("kvm/host.dat")));
        QVERIFY(QFile::copy(test::fixture("zlib-guest.dat"), m_dir.filePath("kvm/guest.dat")));
        QVERIFY(QFile::copy(test::fixture("sched-mix.dat"), m_dir.filePath("kvm/other.dat")));
        ViewSnapshot guestView;
        {
            MainWindow window;
            window.show();
            window.openFiles(
                {m_dir.filePath("kvm/host.dat"), m_dir.filePath("kvm/guest.dat"), m_dir.filePath("kvm/other.dat")});
            QVERIFY(QTest::qWaitFor([&] { return window.recordings().size() == 3; }, 120000));
            window.viewState()->setCollapsed(0, true); // the host's CPUs
            const EventStore& guest = window.recordings().at(1)->store();
            window.setActiveRecording(1, guest.eventAt(guest.eventCount() / 2));
            window.viewState()->addTaskRow(428);
            guestView = window.viewState()->snapshot();
            QString error;
            QVERIFY2(window.sessions()->save(m_dir.filePath("kvm/kvm.ringside"), &error), qPrintable(error));
        }
        const QJsonObject json = readJson(m_dir.filePath("kvm/kvm.ringside"));
        QCOMPARE(json.value("recordings").toArray().size(), 3);
        QCOMPARE(json.value("active_recording").toInt(), 1);
        QVERIFY(json.value("recordings").toArray()[1].toObject().contains("view"));
        QVERIFY(!json.value("recordings").toArray()[2].toObject().contains("view")); // never shown

        QVERIFY(QDir().rename(m_dir.filePath("kvm"), m_dir.filePath("kvm-moved")));
        QVERIFY(QFile::remove(m_dir.filePath("kvm-moved/other.dat")));
        Restored r = restore(m_dir.filePath("kvm-moved/kvm.ringside"));
        QVERIFY2(r.failure.isEmpty(), qPrintable(r.failure));
        QCOMPARE(r.window->recordings().size(), size_t(2));
        QCOMPARE(r.window->recordings().guestViews().size(), size_t(1));
        QCOMPARE(r.window->activeRecording(), size_t(1));
        const QString all = r.problems.join('\n');
        QVERIFY2(all.contains("other.dat"), qPrintable(all));
        const ViewSnapshot now = r.window->viewState()->snapshot();
        QVERIFY(now.selection && *now.selection == *guestView.selection);
        QCOMPARE(now.taskRows, QVector<int32_t>{428});
        QVERIFY(r.window->timeline()->rows().isCollapsed(0, 0)); // the host's fold, while the guest is shown
        r.window->setActiveRecording(0);
        QVERIFY(r.window->viewState()->isCollapsed(0));
        QVERIFY(r.window->viewState()->taskRows().isEmpty());
    }

    // The table's columns come back whatever the shown recording's clock (their titles
    // differ: "Time (s)", "Time (ticks)").
    void columnsOfACounterClockRecording()
    {
        {
            MainWindow window;
            window.show();
            window.openFiles({test::fixture("sched-mix.dat"), test::fixture("tsc-clock.dat")});
            QVERIFY(QTest::qWaitFor([&] { return window.recordings().size() == 2; }, 120000));
            window.setActiveRecording(1);
            window.table()->header()->resizeSection(2, 181);
            QString error;
            QVERIFY2(window.sessions()->save(m_dir.filePath("ticks.ringside"), &error), qPrintable(error));
        }
        Restored r = restore(m_dir.filePath("ticks.ringside"));
        QVERIFY2(r.failure.isEmpty(), qPrintable(r.failure));
        const QString all = r.problems.join('\n');
        QVERIFY2(!all.contains("has no column"), qPrintable(all));
        QCOMPARE(r.window->activeRecording(), size_t(1));
        QCOMPARE(r.window->table()->header()->visualIndex(2), 2);
        QCOMPARE(r.window->table()->header()->sectionSize(2), 181);
    }

    // A filter naming an event the recording lacks: reported, the rest of the filter kept.
    void unknownEventsInTheFilterAreReported()
    {
        QJsonObject json = readJson(m_dir.filePath("b/view.ringside"));
        QJsonObject view = json.value("view").toObject();
        QJsonObject filter = view.value("filter").toObject();
        filter["expression"] = "nosuch/event: x == 1";
        filter["hidden_events"] = QJsonArray{"nosuch/event", "sched/sched_wakeup"};
        filter["hidden_cpus"] = QJsonArray{QJsonObject{{"buffer", ""}, {"cpu", 7}}};
        view["filter"] = filter;
        json["view"] = view;
        QJsonObject plugins = json.value("plugins").toObject();
        QJsonArray enabled = plugins.value("enabled").toArray();
        enabled.append("nosuchplugin");
        plugins["enabled"] = enabled;
        json["plugins"] = plugins;
        writeJson(m_dir.filePath("b/unknown.ringside"), json);
        Restored r = restore(m_dir.filePath("b/unknown.ringside"));
        QVERIFY2(r.failure.isEmpty(), qPrintable(r.failure));
        const QString all = r.problems.join('\n');
        QVERIFY2(all.contains("event nosuch/event, which the recording does not have"), qPrintable(all));
        QVERIFY2(all.contains("\"nosuch/event: x == 1\" does not fit"), qPrintable(all));
        QVERIFY2(all.contains("CPU 7"), qPrintable(all));
        QVERIFY2(all.contains("plugin nosuchplugin, which the session used, is not installed"), qPrintable(all));
        const ViewSnapshot now = r.window->viewState()->snapshot();
        QVERIFY(now.filter.expression.empty());
        QCOMPARE(now.filter.hiddenPids, m_saved.filter.hiddenPids);
        QVERIFY(!now.filter.hiddenTypes.empty()); // sched_wakeup is hidden
    }

    // `ringside --session FILE` (QApplication would take --session for X11 session management).
    void commandLine()
    {
        const QString shot = m_dir.filePath("shot.png");
        // The window it opens keeps its settings (recent files) here, not in the user's.
        const QByteArray config = qgetenv("XDG_CONFIG_HOME");
        qputenv("XDG_CONFIG_HOME", m_dir.filePath("config").toLocal8Bit());
        const auto run =
            test::runProgram(RINGSIDE_GUI, {"--session", m_dir.filePath("b/view.ringside"), "--screenshot", shot});
        // A session file given as the file to open is opened as a session, not as a recording.
        const auto plain = test::runProgram(RINGSIDE_GUI, {m_dir.filePath("b/view.ringside"), "--screenshot", shot});
        if (config.isNull())
            qunsetenv("XDG_CONFIG_HOME");
        else
            qputenv("XDG_CONFIG_HOME", config);
        QCOMPARE(run.status, 0);
        QVERIFY2(run.err.contains("has changed since the session was saved"), run.err.constData());
        QVERIFY(QImage(shot).width() > 0);
        QCOMPARE(plain.status, 0);
        QVERIFY2(plain.err.contains("has changed since the session was saved") && !plain.err.contains("bad magic"),
                 plain.err.constData());
    }

    // A session's queries are listed before any runs; declined, none runs and their SQL stays in
    // the history; run, they can only read the recording (a received session writes no file).
    void sessionQueriesAreShownBeforeTheyRun()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(test::fixture("sched-mix.dat"), dir.filePath("trace.dat")));
        const QString copy = dir.filePath("copy.db"), attached = dir.filePath("attached.db");
        const QString runs = "SELECT ts, dur, utid FROM sched WHERE utid = 4";
        {
            MainWindow window;
            window.show();
            QVERIFY(load(window, dir.filePath("trace.dat")));
            window.viewState()->addQueryTrack({"Runs of utid 4", runs});
            window.viewState()->addQueryTrack({"Copy", "VACUUM INTO '" + copy + "'"});
            window.viewState()->addQueryTrack({"Attach", "ATTACH DATABASE '" + attached +
                                                             "' AS p; CREATE TABLE "
                                                             "p.t(x); SELECT 1 AS ts, 1 AS dur, 1 AS utid"});
            QVERIFY(QTest::qWaitFor([&] { return !window.queryPane()->makingTracks(); }, test::kWorkWaitMs));
            QString error;
            QVERIFY2(window.sessions()->save(dir.filePath("s.ringside"), &error), qPrintable(error));
        }
        QVERIFY(!QFile::exists(copy) && !QFile::exists(attached));
        std::vector<SessionController::SessionQuery> asked;
        Restored declined = restore(dir.filePath("s.ringside"), [&](const auto& queries) {
            asked = queries;
            return false;
        });
        QVERIFY2(declined.failure.isEmpty(), qPrintable(declined.failure));
        QCOMPARE(asked.size(), size_t(3));
        QCOMPARE(asked[0].name, QString("Runs of utid 4"));
        QCOMPARE(asked[0].sql, runs);
        QVERIFY(declined.window->viewState()->queryTracks().isEmpty());
        QVERIFY(declined.window->viewState()->queryHistory().contains(runs));
        QVERIFY2(declined.problems.join('\n').contains("not made"), qPrintable(declined.problems.join('\n')));
        declined.window.reset();

        Restored accepted = restore(dir.filePath("s.ringside"), [](const auto&) { return true; });
        QVERIFY2(accepted.failure.isEmpty(), qPrintable(accepted.failure));
        QCOMPARE(accepted.window->viewState()->queryTracks().size(), 3);
        // The two others refused, with the reason.
        QVERIFY(
            QTest::qWaitFor([&] { return accepted.window->session()->queryTracks.size() == 1; }, test::kWorkWaitMs));
        QVERIFY(QTest::qWaitFor([&] { return !accepted.window->queryPane()->makingTracks(); }, test::kWorkWaitMs));
        QCOMPARE(accepted.window->session()->queryTracks.size(), size_t(1));
        QVERIFY(!QFile::exists(copy) && !QFile::exists(attached));
    }

    void unusableSessionsAreRefused()
    {
        QVERIFY(test::writeFile(m_dir.filePath("b/broken.ringside"), std::string_view("{ not json")));
        Restored broken = restore(m_dir.filePath("b/broken.ringside"));
        QVERIFY2(broken.failure.contains("broken.ringside") && broken.failure.contains("not a session file"),
                 qPrintable(broken.failure));
        QVERIFY(!broken.window->session());

        QJsonObject json = readJson(m_dir.filePath("b/view.ringside"));
        QJsonObject recording = json.value("recordings").toArray().first().toObject();
        recording["path"] = "/nowhere/gone.dat";
        recording["relative_to_session"] = "gone.dat";
        json["recordings"] = QJsonArray{recording};
        writeJson(m_dir.filePath("b/gone.ringside"), json);
        Restored gone = restore(m_dir.filePath("b/gone.ringside"));
        QVERIFY2(gone.failure.contains("/nowhere/gone.dat was not found"), qPrintable(gone.failure));
    }
};

QTEST_MAIN(TestSession)
#include "tst_session.moc"
