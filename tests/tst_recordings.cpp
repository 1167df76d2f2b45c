// SPDX-License-Identifier: GPL-2.0-or-later
// Several recordings in one window, as KVM users open a host and its guest: each file's CPU
// rows in a group named by the file, a paired guest's CPU under the host thread that ran its
// vCPU with the host's time in the guest drawn there, tasks kept apart per file, the panes
// following the recording clicked, and unrelated or broken files said so.
#include "guisupport.h"
#include "testsupport.h"

#include "mainwindow.h"
#include "state/viewstate.h"
#include "state/workspace.h"
#include "table/eventtablemodel.h"
#include "table/eventtableview.h"
#include "timeline/timelinewidget.h"
#include "widgets/elidedlabel.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QHelpEvent>
#include <QSignalSpy>
#include <QToolTip>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

using namespace ringside;
using timeline::TimeRange;

namespace {

// Opens `paths` as one window's recordings and waits until all are in.
bool loadAll(MainWindow& window, const QStringList& paths)
{
    window.openFiles(paths);
    return QTest::qWaitFor([&] { return window.recordings().size() == size_t(paths.size()); }, 120000);
}

int findRow(const TimelineRows& rows, TimelineRows::Kind kind, int recording, int32_t pid = -1)
{
    for (int i = 0; i < rows.rows().size(); ++i) {
        const TimelineRows::Row& row = rows.rows()[i];
        if (row.kind == kind && row.recording == recording && (pid < 0 || row.pid == pid)) return i;
    }
    return -1;
}

int countRows(const TimelineRows& rows, TimelineRows::Kind kind, int recording)
{
    int n = 0;
    for (const TimelineRows::Row& row : rows.rows()) n += row.kind == kind && row.recording == recording;
    return n;
}

// The widget y of the middle of row `index`'s bar.
int rowMiddle(TimelineWidget* timeline, int index)
{
    const TimelineRows& rows = timeline->rows();
    return TimelineWidget::kRulerHeight + rows.rowTop(index) + 3 + (rows.rows()[index].height - 9) / 2;
}

void closeMessageBoxes()
{
    for (QWidget* top : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) box->close();
}

const QColor kInGuest(46, 139, 87);

} // namespace

class TestRecordings : public QObject {
    Q_OBJECT
private slots:
    // The workspace alone: who is active, each recording's view kept while another is shown,
    // and the order its observers hear things in (the recordings going before they go, the
    // one left still alive while the active one changes).
    void workspaceKeepsEachRecordingsView()
    {
        auto session = [](const char* fixture) {
            auto s = std::make_shared<TraceSession>();
            s->path = test::fixture(fixture);
            s->trace = test::openOrFail(s->path.toStdString());
            return s;
        };
        Workspace workspace;
        QCOMPARE(workspace.session(), nullptr);
        QVERIFY(workspace.views().empty());
        QStringList heard;
        std::weak_ptr<TraceSession> leaving;
        bool leavingAliveWhenHeard = false;
        connect(&workspace, &Workspace::recordingsAboutToGo, this, [&] { heard << "about to go"; });
        connect(&workspace, &Workspace::activeChanged, this, [&](size_t index, bool opened) {
            heard << QString("active %1%2").arg(index).arg(opened ? " opened" : "");
            leavingAliveWhenHeard = !leaving.expired();
        });
        connect(&workspace, &Workspace::recordingsChanged, this, [&] { heard << "appended"; });

        workspace.replace(session("sched-mix.dat"));
        workspace.append(session("threads.dat"));
        QCOMPARE(heard, QStringList({"about to go", "active 0 opened", "appended"}));
        QCOMPARE(workspace.recordings().size(), size_t(2));
        QCOMPARE(workspace.session(), workspace.recordings().at(0));

        // The view of the one left is kept; the one shown has a fresh one (the window resets it).
        workspace.view().reset(workspace.recordings().fullRange());
        workspace.view().setMarkerA(1234);
        QVERIFY(workspace.setActive(1));
        QVERIFY(!workspace.setActive(1)); // already
        QVERIFY(!workspace.setActive(2)); // no such recording
        QCOMPARE(heard.size(), 4);
        QCOMPARE(heard.last(), QString("active 1"));
        QCOMPARE(workspace.session(), workspace.recordings().at(1));
        QVERIFY(workspace.stashed(0));
        QCOMPARE(workspace.stashed(0)->markerA, std::optional<uint64_t>(1234));
        workspace.view().reset(workspace.recordings().fullRange());
        workspace.view().setMarkerB(99);
        const auto views = workspace.views();
        QCOMPARE(views.size(), size_t(2));
        QCOMPARE(views[0]->markerA, std::optional<uint64_t>(1234));
        QCOMPARE(views[1]->markerB, std::optional<uint64_t>(99)); // the active one's as shown

        // Replaced: every recording goes, the active one only after its observers heard.
        leaving = workspace.session();
        workspace.replace(session("lost-events.dat"));
        QVERIFY(leavingAliveWhenHeard);
        QVERIFY(leaving.expired());
        QCOMPARE(heard.mid(4), QStringList({"about to go", "active 0 opened"}));
        QCOMPARE(workspace.recordings().size(), size_t(1));
        QVERIFY(!workspace.stashed(0));
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("RingsideTests");
    }

    void hostAndGuestOnOneTimeline()
    {
        MainWindow window;
        window.resize(1400, 1000);
        window.show();
        QVERIFY(loadAll(window, {test::fixture("zlib-host.dat"), test::fixture("zlib-guest.dat")}));
        const RecordingSet& set = window.recordings();
        QCOMPARE(window.activeRecording(), size_t(0));
        // Paired by trace id: the guest's clock was converted, and the window says so.
        QCOMPARE(set.notes().size(), 1);
        QVERIFY(set.notes().first().contains("converted to the host's clock"));
        QCOMPARE(set.guestViews().size(), size_t(1));
        const RecordingSet::GuestView& guest = set.guestViews().front();
        QCOMPARE(guest.host, size_t(0));
        QCOMPARE(guest.guest, size_t(1));
        QCOMPARE(guest.vcpuPids.size(), size_t(1));
        const int vcpu = guest.vcpuPids[0].first;
        const int32_t thread = guest.vcpuPids[0].second;
        QCOMPARE(vcpu, 0);
        QCOMPARE(thread, 483882);
        // Six-digit pids fit their column.
        QVERIFY(window.table()->header()->sectionSize(EventTableModel::Pid) >=
                window.table()->fontMetrics().horizontalAdvance(QString::number(thread)) + 8);
        auto* note = window.findChild<ElidedLabel*>("recordingNote");
        QVERIFY(note && note->isVisible() && note->fullText().contains("zlib-guest.dat is on zlib-host.dat's clock"));
        QVERIFY(window.windowTitle().contains("zlib-host.dat") && window.windowTitle().contains("zlib-guest.dat"));
        // The whole range spans both recordings.
        const EventStore& hostStore = set.at(0)->store();
        const EventStore& guestStore = set.at(1)->store();
        QCOMPARE(window.viewState()->fullRange().start,
                 std::min(hostStore.firstTimestamp(), guestStore.firstTimestamp()));
        QCOMPARE(window.viewState()->fullRange().end,
                 std::max(hostStore.lastTimestamp(), guestStore.lastTimestamp()) + 1);

        // The host's CPUs under its file's name; the guest's one CPU right under the host
        // thread that ran vCPU 0, and nowhere else.
        TimelineWidget* timeline = window.timeline();
        const TimelineRows& rows = timeline->rows();
        QCOMPARE(rows.rows()[0].kind, TimelineRows::Kind::BufferHeader);
        QCOMPARE(rows.rows()[0].label, QString("zlib-host.dat"));
        QCOMPARE(countRows(rows, TimelineRows::Kind::Cpu, 0), int(hostStore.streamCount()));
        int threadRow = findRow(rows, TimelineRows::Kind::GuestTask, 0, thread);
        QVERIFY(threadRow > 0);
        QCOMPARE(rows.rows()[threadRow - 1].kind, TimelineRows::Kind::BufferHeader);
        QCOMPARE(int(rows.rows()[threadRow - 1].recording), 1);
        QVERIFY(rows.rows()[threadRow - 1].label.contains("guest zlib-guest.dat"));
        QCOMPARE(countRows(rows, TimelineRows::Kind::Cpu, 1), 1);
        const TimelineRows::Row guestCpu = rows.rows()[threadRow + 1]; // a copy: the rows are rebuilt
        QCOMPARE(guestCpu.kind, TimelineRows::Kind::Cpu);
        QCOMPARE(int(guestCpu.recording), 1);
        QCOMPARE(guestStore.stream(guestCpu.stream).cpu, vcpu);

        // The guest's events line up with the host thread's stays in the guest: what the view
        // shows one above the other.
        const GuestTime& guestTime = set.at(0)->trace->guestTime();
        QVERIFY(guestTime.available());
        const CpuColumns& guestColumns = guestStore.stream(guestCpu.stream).columns;
        size_t inside = 0;
        for (size_t i = 0; i < guestColumns.size(); ++i)
            inside += guestTime.stayAt(thread, guestColumns.timestamp[i]) != nullptr;
        QVERIFY2(inside * 100 >= guestColumns.size() * 99,
                 qPrintable(QString("%1 of %2 guest events inside a stay").arg(inside).arg(guestColumns.size())));

        // Drawn: zoomed on the longest stay, its middle is the in-guest colour; the middle of a
        // long gap between stays is not.
        const auto& stays = guestTime.tasks().at(thread).stays;
        size_t longest = 0, widestGap = 1;
        for (size_t i = 1; i < stays.size(); ++i) {
            if (stays[i].exit - stays[i].entry > stays[longest].exit - stays[longest].entry) longest = i;
            if (stays[i].entry - stays[i - 1].exit > stays[widestGap].entry - stays[widestGap - 1].exit) widestGap = i;
        }
        const int middleX = TimelineWidget::kLabelWidth + timeline->dataWidth() / 2;
        auto colourAtMiddle = [&](uint64_t start, uint64_t end) {
            const uint64_t pad = (end - start) / 2;
            window.viewState()->setVisibleRange({start - pad, end + pad});
            return timeline->grab().toImage().pixelColor(middleX, rowMiddle(timeline, threadRow));
        };
        window.viewState()->setCollapsed(0, true); // the host's CPUs, for the guest rows to be in view
        threadRow = findRow(rows, TimelineRows::Kind::GuestTask, 0, thread);
        // ... and its tooltip says so, with the exit that ended the stay (from the table that
        // declares the stays, the kvm_exit event at its end).
        auto toolTipAtMiddle = [&] {
            const QPoint at(middleX, rowMiddle(timeline, threadRow));
            QHelpEvent help(QEvent::ToolTip, at, timeline->mapToGlobal(at));
            QCoreApplication::sendEvent(timeline, &help);
            return QToolTip::text();
        };
        QCOMPARE(colourAtMiddle(stays[longest].entry, stays[longest].exit), kInGuest);
        QString tip = toolTipAtMiddle();
        QVERIFY2(tip.contains("In the guest for") && tip.contains("until kvm_exit: ") && tip.contains("reason"),
                 qPrintable(tip));
        QVERIFY(colourAtMiddle(stays[widestGap - 1].exit, stays[widestGap].entry) != kInGuest);
        tip = toolTipAtMiddle();
        QVERIFY2(tip.contains("In the host"), qPrintable(tip));

        // A click on a guest event shows the guest in the panes, with that event selected.
        window.viewState()->zoomToFit();
        const size_t pick = guestColumns.size() / 2;
        const int x = timeline->xOfTime(guestColumns.timestamp[pick]);
        const int guestRowIndex = threadRow + 1;
        QTest::mouseClick(timeline, Qt::LeftButton, {}, QPoint(x, rowMiddle(timeline, guestRowIndex)));
        QCOMPARE(window.activeRecording(), size_t(1));
        QCOMPARE(window.session(), set.at(1).get());
        auto selection = window.viewState()->selection();
        QVERIFY(selection);
        QCOMPARE(selection->stream, guestCpu.stream);
        QVERIFY(std::abs(timeline->xOfTime(guestStore.timestamp(*selection)) - x) <= 6);
        QCOMPARE(window.tableModel()->rowCount(), int(guestStore.eventCount()));
        QCOMPARE(window.findChild<QComboBox*>("recordingBox")->currentIndex(), 1);

        // Tasks stay apart: the guest's task row is the guest's; the host's view comes back as
        // it was left (a folded buffer, no task rows), and the guest's again after.
        window.viewState()->addTaskRow(428);
        QCOMPARE(findRow(rows, TimelineRows::Kind::Task, 1, 428) >= 0, true);
        window.setActiveRecording(0);
        QVERIFY(window.viewState()->taskRows().isEmpty());
        QCOMPARE(countRows(rows, TimelineRows::Kind::Task, 1), 0);
        QCOMPARE(window.tableModel()->rowCount(), int(hostStore.eventCount()));
        QVERIFY(window.viewState()->isCollapsed(0)); // as it was left
        window.setActiveRecording(1);
        QCOMPARE(window.viewState()->taskRows(), QVector<int32_t>{428});
        QVERIFY(findRow(rows, TimelineRows::Kind::Task, 1, 428) >= 0);
        QVERIFY(rows.isCollapsed(0, 0)); // the host's fold stays while the guest is active
        QCOMPARE(countRows(rows, TimelineRows::Kind::Cpu, 0), 0);
        window.setActiveRecording(0);
        QVERIFY(window.viewState()->isCollapsed(0));
    }

    void unrelatedRecordingsKeepTheirOwnGroups()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(loadAll(window, {test::fixture("sched-mix.dat"), test::fixture("tsc-clock.dat")}));
        const RecordingSet& set = window.recordings();
        QVERIFY(set.guestViews().empty());
        QCOMPARE(set.notes().size(), 1);
        QVERIFY2(set.notes().first().contains("cannot be compared"), qPrintable(set.notes().first()));
        const TimelineRows& rows = window.timeline()->rows();
        QCOMPARE(rows.rows()[findRow(rows, TimelineRows::Kind::BufferHeader, 0)].label, QString("sched-mix.dat"));
        QCOMPARE(rows.rows()[findRow(rows, TimelineRows::Kind::BufferHeader, 1)].label, QString("tsc-clock.dat"));
        QCOMPARE(countRows(rows, TimelineRows::Kind::Cpu, 0), int(set.at(0)->store().streamCount()));
        QCOMPARE(countRows(rows, TimelineRows::Kind::Cpu, 1), int(set.at(1)->store().streamCount()));
        // The same pid in both is two tasks: a row for it shows the active recording's only.
        window.viewState()->addTaskRow(0);
        QCOMPARE(countRows(rows, TimelineRows::Kind::Task, 0), 1);
        QCOMPARE(countRows(rows, TimelineRows::Kind::Task, 1), 0);
    }

    // Recordings apart in time: while the view shows one, the other's rows are blank (its
    // CPUs' last tasks are held to its end, not to the view's edge).
    void rowsOfARecordingOverBeforeTheViewAreBlank()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(loadAll(window, {test::fixture("sched-mix.dat"), test::fixture("threads.dat")}));
        const RecordingSet& set = window.recordings();
        const uint64_t start = set.at(1)->store().firstTimestamp(), end = set.at(1)->store().lastTimestamp();
        QVERIFY(set.at(0)->store().lastTimestamp() < start);
        QVERIFY(test::waitForAnalyses(window));
        TimelineWidget* timeline = window.timeline();
        const TimelineRows& rows = timeline->rows();
        const QColor background = timeline->grab().toImage().pixelColor(timeline->width() - 30, 5);
        auto firstColumn = [&](int row) {
            return timeline->grab().toImage().pixelColor(TimelineWidget::kLabelWidth, rowMiddle(timeline, row));
        };
        // The whole: sched-mix.dat's CPU 0 ran a task until its end.
        const int cpu0 = findRow(rows, TimelineRows::Kind::Cpu, 0);
        QVERIFY(cpu0 >= 0);
        window.viewState()->setVisibleRange({set.at(0)->store().firstTimestamp(), set.at(0)->store().lastTimestamp()});
        QTRY_VERIFY_WITH_TIMEOUT(firstColumn(cpu0) != timeline->palette().color(QPalette::Base), test::kWorkWaitMs);
        window.viewState()->setVisibleRange({start, end});
        // Once the timeline has drawn the new range (waited for, not timed).
        auto blankAtTheLeft = [&](QString* which) {
            for (int i = 0; i < rows.rows().size(); ++i) {
                if (rows.rows()[i].kind != TimelineRows::Kind::Cpu || rows.rows()[i].recording != 0) continue;
                const QColor c = firstColumn(i);
                if (c != timeline->palette().color(QPalette::Base) && c != background)
                    return *which = QString("row %1: %2 at the view's left edge").arg(i).arg(c.name()), false;
            }
            return true;
        };
        QString which;
        QTRY_VERIFY2_WITH_TIMEOUT(blankAtTheLeft(&which), qPrintable(which), test::kWorkWaitMs);
    }

    // Long file names: elided where they show (the recording box, the note beside it, the
    // group headers), whole in the tooltips, and never widening the window beyond the screen.
    void longFileNamesLeaveTheWindowItsSize()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString stem =
            QString("host-recording-of-the-nightly-regression-run-on-the-build-farm-machine-").repeated(2);
        const QString first = dir.filePath(stem + "sched-mix.dat"), second = dir.filePath(stem + "threads.dat");
        QVERIFY(QFile::copy(test::fixture("sched-mix.dat"), first));
        QVERIFY(QFile::copy(test::fixture("threads.dat"), second));
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(loadAll(window, {first, second}));
        QTest::qWait(100);
        QVERIFY2(window.width() <= 1280, qPrintable(QString::number(window.width())));
        QVERIFY2(window.minimumSizeHint().width() <= 1280,
                 qPrintable(QString::number(window.minimumSizeHint().width())));
        auto* box = window.findChild<QComboBox*>("recordingBox");
        QVERIFY(box->isVisible());
        QVERIFY2(box->width() < 400, qPrintable(QString::number(box->width())));
        QCOMPARE(box->itemData(1, Qt::ToolTipRole).toString(), second);
        auto* note = window.findChild<ElidedLabel*>("recordingNote");
        QVERIFY(note->fullText().contains(stem + "threads.dat"));
        QVERIFY(note->text() != note->fullText() && note->text().contains(QChar(0x2026)));
        QVERIFY(note->toolTip().contains(stem + "threads.dat"));
    }

    void appendingKeepsWhatIsOpen()
    {
        MainWindow window;
        window.show();
        QVERIFY(test::load(window, test::fixture("sched-mix.dat")));
        // A broken file: said, and the open recording stays.
        QSignalSpy failed(window.workspace(), &Workspace::loadFailed);
        QTimer::singleShot(1000, closeMessageBoxes); // the error box is modal
        window.appendFile(test::fixture("crash-format-0.dat"));
        QVERIFY(failed.wait(test::kWorkWaitMs));
        QVERIFY(failed.first().first().toString().contains("crash-format-0.dat"));
        closeMessageBoxes();
        QCOMPARE(window.recordings().size(), size_t(1));
        QVERIFY(window.session());
        // The same file again is not a second recording.
        window.appendFile(test::fixture("sched-mix.dat"));
        QTest::qWait(200);
        QCOMPARE(window.recordings().size(), size_t(1));
        // Another is appended beside it; opening a file alone replaces them all.
        QSignalSpy appended(window.workspace(), &Workspace::recordingsChanged);
        window.appendFile(test::fixture("threads.dat"));
        QVERIFY(appended.wait(test::kWorkWaitMs));
        QCOMPARE(window.recordings().size(), size_t(2));
        QCOMPARE(window.activeRecording(), size_t(0));
        // Same clock, other boots: said, since each shows as a sliver of the whole.
        QCOMPARE(window.recordings().notes().size(), 1);
        QVERIFY2(window.recordings().notes().first().contains(
                     "do not overlap in time: threads.dat starts 4992.604 s after sched-mix.dat ends"),
                 qPrintable(window.recordings().notes().first()));
        QVERIFY(window.findChild<ElidedLabel*>("recordingNote")->fullText().contains("do not overlap"));
        QVERIFY(test::load(window, test::fixture("threads.dat")));
        QCOMPARE(window.recordings().size(), size_t(1));
        QVERIFY(!window.findChild<QComboBox*>("recordingBox")->isVisible());
    }

    // Two files of the same name are told apart by their folders.
    void sameNamesAreToldApart()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(test::fixture("threads.dat"), dir.filePath("threads.dat")));
        MainWindow window;
        window.show();
        QVERIFY(loadAll(window, {test::fixture("threads.dat"), dir.filePath("threads.dat")}));
        const QString a = window.recordings().name(0), b = window.recordings().name(1);
        QCOMPARE(a, QString("data/threads.dat"));
        QCOMPARE(b, QFileInfo(dir.path()).fileName() + "/threads.dat");
        const TimelineRows& rows = window.timeline()->rows();
        QCOMPARE(rows.rows()[findRow(rows, TimelineRows::Kind::BufferHeader, 1)].label, b);
    }

    // A group of the recording not shown, folded, stays folded when it is shown; switching
    // does not pan the timeline to the other recording's old selection; task rows say whose
    // they are.
    void switchingKeepsFoldsAndTheView()
    {
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(loadAll(window, {test::fixture("instances.dat"), test::fixture("sched-mix.dat")}));
        ViewState& view = *window.viewState();
        const EventStore& first = window.recordings().at(0)->store();
        view.select(first.eventAt(0));
        const auto late = TimeRange{first.lastTimestamp() - 1000000, first.lastTimestamp()};
        view.setVisibleRange(late);
        window.setActiveRecording(1);
        TimelineWidget* timeline = window.timeline();
        const TimelineRows& rows = timeline->rows();
        int second = -1;
        for (int i = 0; i < rows.rows().size(); ++i)
            if (rows.rows()[i].kind == TimelineRows::Kind::BufferHeader && rows.rows()[i].recording == 0 &&
                rows.rows()[i].buffer == 1)
                second = i;
        QVERIFY(second >= 0);
        QTest::mouseClick(
            timeline, Qt::LeftButton, {},
            QPoint(40, TimelineWidget::kRulerHeight + rows.rowTop(second) + TimelineRows::kHeaderHeight / 2));
        QVERIFY(rows.isCollapsed(0, 1));
        window.setActiveRecording(0);
        QVERIFY(view.isCollapsed(1));
        QVERIFY(rows.isCollapsed(0, 1));
        QCOMPARE(view.visibleRange(), late); // not panned to event 0
        view.addTaskRow(first.stream(first.eventAt(0).stream).columns.pid[0]);
        const int header = findRow(rows, TimelineRows::Kind::ProcessHeader, 0);
        QVERIFY(header >= 0);
        QCOMPARE(rows.rows()[header].label, QString("task rows of instances.dat"));
    }

    void droppingSeveralFilesOpensThemAll()
    {
        MainWindow window;
        window.show();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(test::fixture("zlib-host.dat")),
                      QUrl::fromLocalFile(test::fixture("zlib-guest.dat"))});
        // As a drag delivers it: the drop goes to the widget that accepted the enter.
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(QTest::qWaitFor([&] { return window.recordings().size() == 2; }, 120000));
        QCOMPARE(window.recordings().guestViews().size(), size_t(1));
    }
};

QTEST_MAIN(TestRecordings)
#include "tst_recordings.moc"
