// SPDX-License-Identifier: GPL-2.0-or-later
// Recording from the local tracefs with ringside-cli record (through ringside-capture): the
// saved file reads the same in trace-cmd report and in Ringside; nothing is left behind (no
// instance, no top-level change), also after SIGTERM of the CLI and SIGKILL of it (the
// helper notices its caller gone); a stale instance of a dead capture is removed; what the
// kernel refuses is said before anything starts. Skipped, with the reason, where tracefs
// cannot be written.
#include "testsupport.h"

#include "capture/captureprotocol.h"
#include "capture/livecapture.h"
#include "capture/tracefscapture.h"
#include "decode/eventformatter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <future>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace ringside;

namespace {

const QString kTracing = "/sys/kernel/tracing";

QString unwritableReason()
{
    if (::geteuid() != 0) return "recording needs root here (pkexec cannot ask in a test)";
    if (!QFileInfo(kTracing + "/instances").isDir()) return kTracing + " is not mounted";
    if (::access(QString(kTracing + "/instances").toLocal8Bit().constData(), W_OK) != 0)
        return kTracing + "/instances is not writable";
    return {};
}

QStringList captureInstances()
{
    return QDir(kTracing + "/instances").entryList({"ringside-capture-*"}, QDir::Dirs | QDir::NoDotAndDotDot);
}

QByteArray readTracefs(const QString& file)
{
    QFile f(kTracing + "/" + file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// What a capture must leave as it found it: the top-level buffer's switch and events.
struct TopLevel {
    QByteArray tracingOn, setEvent, currentTracer, maxGraphDepth;
    static TopLevel now()
    {
        return {readTracefs("tracing_on"), readTracefs("set_event"), readTracefs("current_tracer"),
                readTracefs("max_graph_depth")};
    }
    bool operator==(const TopLevel& o) const
    {
        return tracingOn == o.tracingOn && setEvent == o.setEvent && currentTracer == o.currentTracer &&
               maxGraphDepth == o.maxGraphDepth;
    }
};

bool waitForText(QProcess& process, const QByteArray& text, QByteArray* seen, int timeoutMs = test::kWorkWaitMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!seen->contains(text) && timer.elapsed() < timeoutMs) {
        process.waitForReadyRead(100);
        *seen += process.readAllStandardError();
        if (process.state() == QProcess::NotRunning) break;
    }
    return seen->contains(text);
}

} // namespace

class TestCapture : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    TopLevel m_before;

private slots:
    static bool needsTracefs()
    {
        const QByteArray test = QTest::currentTestFunction();
        return test != "eventsAreNamedAsTraceCmdNamesThem" && test != "streamReaderDrainsThePipe";
    }

    void init()
    {
        if (!needsTracefs()) return;
        const QString why = unwritableReason();
        if (!why.isEmpty()) QSKIP(qPrintable(why));
        m_before = TopLevel::now();
    }

    void cleanup()
    {
        if (!unwritableReason().isEmpty() || !needsTracefs()) return;
        QCOMPARE(captureInstances(), QStringList());
        QVERIFY(TopLevel::now() == m_before);
    }

    // The window's reader empties the helper's pipe on a thread of its own while its caller is
    // busy: the writer never waits for it, every message arrives whole and in order, and the
    // reader goes without waiting for the pipe to end.
    void streamReaderDrainsThePipe()
    {
        std::signal(SIGPIPE, SIG_IGN);
        int fds[2];
        QVERIFY(::pipe(fds) == 0);
        const int count = 2000; // 8 MB: far more than a pipe holds
        {
            CaptureStreamReader reader(fds[0], true);
            auto writing = std::async(std::launch::async, [&] {
                std::string page(4096, '\0');
                for (int i = 0; i < count; ++i) {
                    std::memcpy(page.data(), &i, sizeof i);
                    if (!writeCaptureMessage(fds[1], CaptureMessage::Page, i % 4, page.data(), page.size()))
                        return false;
                }
                return true;
            });
            // Nothing is taken from the reader meanwhile.
            const bool drained = writing.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
            if (!drained) ::close(fds[0]); // the writer fails instead of waiting forever
            QVERIFY(drained && writing.get());
            QVERIFY(reader.hasMessage());
            for (int i = 0; i < count; ++i) {
                const auto message = reader.next(nullptr);
                QVERIFY(message && message->type == CaptureMessage::Page);
                QCOMPARE(message->cpu, i % 4);
                QCOMPARE(message->body.size(), size_t(4096));
                int n = -1;
                std::memcpy(&n, message->body.data(), sizeof n);
                QCOMPARE(n, i);
            }
            QVERIFY(!reader.hasMessage());
        } // the write end is still open: the drain is stopped, not waited for
        ::close(fds[0]);
        ::close(fds[1]);
    }

    // -e as trace-cmd record reads it, against a made-up events folder: "all", a system, an
    // event of any system, system:event, globs in either part; nothing matched is an error.
    void eventsAreNamedAsTraceCmdNamesThem()
    {
        QTemporaryDir events;
        for (const char* path : {"sched/sched_switch", "sched/sched_wakeup", "sched/sched_waking", "irq/irq_handler_entry",
                                 "irq/irq_handler_exit", "ftrace/function", "kvm/kvm_exit"})
            QVERIFY(QDir(events.path()).mkpath(path));
        auto resolve = [&](std::vector<CaptureConfig::Event> asked) {
            auto r = TracefsCapture::resolveEvents(events.path().toStdString(), asked);
            QStringList out;
            if (!r) return QStringList{"error: " + QString::fromStdString(r.error().message)};
            for (const auto& e : *r)
                out << QString::fromStdString(e.system + (e.name.empty() ? "" : ":" + e.name) +
                                              (e.filter.empty() ? "" : " if " + e.filter));
            return out;
        };
        QCOMPARE(resolve({{"sched_switch", "", ""}}), QStringList{"sched:sched_switch"});
        QCOMPARE(resolve({{"sched", "", "prev_pid == 1"}}), QStringList{"sched if prev_pid == 1"});
        QCOMPARE(resolve({{"sched", "sched_switch", ""}}), QStringList{"sched:sched_switch"});
        QCOMPARE(resolve({{"sched", "sched_wak*", ""}}), (QStringList{"sched:sched_wakeup", "sched:sched_waking"}));
        QCOMPARE(resolve({{"*", "irq_handler_e*", ""}}),
                 (QStringList{"irq:irq_handler_entry", "irq:irq_handler_exit"}));
        QCOMPARE(resolve({{"irq_*", "", ""}}), (QStringList{"irq:irq_handler_entry", "irq:irq_handler_exit"}));
        QCOMPARE(resolve({{"sched", "*", ""}}), QStringList{"sched"});
        QCOMPARE(resolve({{"all", "", ""}}), (QStringList{"irq", "kvm", "sched"})); // not ftrace's records
        QCOMPARE(resolve({{"sched", "", ""}, {"sched_switch", "", ""}}), QStringList{"sched"});
        QCOMPARE(resolve({{"nosuch", "", ""}}), QStringList{"error: event nosuch is not in this kernel"});
        QCOMPARE(resolve({{"sched", "nosuch", ""}}), QStringList{"error: event sched:nosuch is not in this kernel"});
        QCOMPARE(resolve({{"function", "", ""}}), QStringList{"error: event function is not in this kernel"});
    }

    void recordsAroundACommand()
    {
        const QString out = m_dir.filePath("around.dat");
        // A bare event name and a system, as trace-cmd record takes them.
        const auto run = test::runCli({"record", "-e", "sched_switch", "-e", "raw_syscalls", "-o", out, "--",
                                       "/bin/sh", "-c", "for i in 1 2 3; do ls / >/dev/null; done"});
        QVERIFY2(run.status == 0, run.err.constData());
        QVERIFY2(run.err.contains("recording 2 CPUs") || run.err.contains("recording "), run.err.constData());
        QVERIFY(run.err.contains(out.toUtf8() + ": "));
        QVERIFY(!QFileInfo::exists(out + ".cpu0.part"));
        QCOMPARE(test::datFormatOf(out), std::string("v7, zstd")); // unless asked otherwise
        const auto dump = test::runCli({"dump", out});
        QCOMPARE(dump.status, 0);
        QVERIFY(dump.out.contains(" sched_switch: "));
        QVERIFY(dump.out.contains(" sys_enter: "));
        QVERIFY(dump.out.contains("ls-")); // the command's own system calls
        // What trace-cmd report lists is exactly what Ringside shows.
        const QString traceCmd = QStandardPaths::findExecutable("trace-cmd");
        if (traceCmd.isEmpty()) QSKIP("trace-cmd is not installed: the comparison with its report is skipped");
        const auto report = test::runProgram(traceCmd, {"report", out});
        QCOMPARE(report.status, 0);
        QVERIFY2(report.out == dump.out, qPrintable(test::firstDifference(report.out, dump.out)));
    }

    void sigtermKeepsWhatWasCaptured()
    {
        const QString out = m_dir.filePath("term.dat");
        QProcess cli;
        cli.start(RINGSIDE_CLI, {"record", "-e", "sched:sched_switch", "--file-version", "6", "-o", out});
        QByteArray err;
        QVERIFY2(waitForText(cli, "Ctrl+C stops", &err), err.constData());
        QTest::qWait(300);
        ::kill(pid_t(cli.processId()), SIGTERM);
        QVERIFY(cli.waitForFinished(test::kWorkWaitMs));
        err += cli.readAllStandardError();
        QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0, err.constData());
        const auto dump = test::runCli({"dump", out});
        QCOMPARE(dump.status, 0);
        QVERIFY(dump.out.startsWith("cpus="));
        QCOMPARE(test::datFormatOf(out), std::string("v6"));
    }

    void sigkillOfTheCallerStopsTheHelper()
    {
        const QString out = m_dir.filePath("kill.dat");
        QProcess cli;
        cli.start(RINGSIDE_CLI, {"record", "-e", "sched:sched_switch", "-o", out});
        QByteArray err;
        QVERIFY2(waitForText(cli, "Ctrl+C stops", &err), err.constData());
        QCOMPARE(captureInstances().size(), 1);
        cli.kill(); // SIGKILL: no cleanup of its own
        QVERIFY(cli.waitForFinished(test::kWorkWaitMs));
        // The helper sees its caller's pipe close and removes the instance.
        QTRY_COMPARE_WITH_TIMEOUT(captureInstances(), QStringList(), test::kWorkWaitMs);
        for (int cpu = 0; cpu < 1024 && QFileInfo::exists(out + QString(".cpu%1.part").arg(cpu)); ++cpu)
            QFile::remove(out + QString(".cpu%1.part").arg(cpu));
    }

    void staleInstanceIsRemoved()
    {
        // A pid that is surely gone: a process that ran and was reaped.
        QProcess gone;
        gone.start("/bin/true");
        QVERIFY(gone.waitForFinished());
        const qint64 pid = gone.processId() ? gone.processId() : 999999;
        const QString stale = QString("ringside-capture-%1").arg(pid > 1 ? pid : 999999);
        QVERIFY(QDir(kTracing + "/instances").mkdir(stale));
        const auto run =
            test::runCli({"record", "-e", "sched:sched_switch", "-o", m_dir.filePath("stale.dat"), "--", "/bin/true"});
        QVERIFY2(run.status == 0, run.err.constData());
        QVERIFY2(run.err.contains("removed the tracing instance " + stale.toUtf8()), run.err.constData());
    }

    // Streamed into a store that grows while it is read; the saved recording reads the same in
    // trace-cmd report as the live store does in Ringside.
    void liveCaptureGrowsTheStoreAndSavesIt()
    {
        // This process's threads before the capture: the helper leaves them out from its start.
        std::set<int32_t> ownThreads;
        for (const QString& tid : QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            ownThreads.insert(tid.toInt());
        QVERIFY(!ownThreads.empty());
        auto started =
            LiveCapture::start({"-e", "sched:sched_switch", "-e", "raw_syscalls"}, m_dir.path().toStdString());
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        LiveCapture& capture = **started;
        std::atomic<size_t> announced{0};
        capture.setGrowthListener([&](size_t rows) { announced = rows; });
        QProcess work;
        work.start("/bin/sh", {"-c", "for i in 1 2 3 4 5 6 7 8; do ls / >/dev/null; sleep 0.1; done"});
        // Rows are published while the capture runs, not only at its end.
        QTRY_VERIFY_WITH_TIMEOUT(announced > 0, test::kWorkWaitMs);
        QVERIFY(!capture.progress().ended);
        // Tasks are named as they appear, not only at the end: the shell running the loop (where
        // this process sees the kernel's pids, the initial pid namespace).
        struct stat ns {};
        if (::stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino == 0xEFFFFFFCu) {
            const EventFormatter namesSoFar(capture.trace());
            QTRY_VERIFY_WITH_TIMEOUT(
                (capture.applySeenTaskNames(), namesSoFar.comm(int32_t(work.processId())) == "sh"), 10000);
        }
        QVERIFY(work.waitForFinished(test::kWorkWaitMs));
        QTest::qWait(200);
        const size_t whileRunning = capture.store().eventCount();
        QVERIFY(whileRunning > 0);
        capture.stop();
        capture.waitUntilEnded();
        const LiveCapture::Progress progress = capture.progress();
        QVERIFY(progress.ended);
        QVERIFY2(progress.error.empty(), progress.error.c_str());
        QVERIFY(capture.store().eventCount() >= whileRunning);
        QCOMPARE(size_t(announced), capture.store().eventCount());
        // The capture does not record the process reading it: the system calls of its threads
        // are left out, those it had at the start from the start (threads started later, the
        // reading thread among them, from the helper's next round: how soon depends on the
        // machine's load, so they are not counted here). Their context switches stay: the
        // kernel records a switch unless both sides are left out.
        const EventStore& store = capture.store();
        const EventFormatter names(capture.trace());
        size_t ownLate = 0, later = 0;
        for (size_t row = 0; row < store.eventCount(); ++row) {
            const EventRef e = store.eventAt(row);
            const CpuColumns& columns = store.stream(e.stream).columns;
            const bool syscall = names.eventName(columns.eventType[e.index]).rfind("sys_", 0) == 0;
            later += syscall;
            ownLate += syscall && ownThreads.count(columns.pid[e.index]);
        }
        QVERIFY(later > 100); // ls's, at least
        QCOMPARE(ownLate, size_t(0));
        const QString out = m_dir.filePath("live.dat");
        std::string error;
        QVERIFY2(capture.save(out.toStdString(), DatFormat(), &error), error.c_str());
        const QString outV6 = m_dir.filePath("live-v6.dat");
        QVERIFY2(capture.save(outV6.toStdString(), DatFormat::v6(), &error), error.c_str());
        capture.applyTaskNames();
        const QByteArray live = test::dump(capture.trace());
        QVERIFY(live.contains(" sys_enter: ") && live.contains(" sched_switch: "));
        const auto dump = test::runCli({"dump", out});
        QCOMPARE(dump.status, 0);
        if (progress.overrun == 0 && progress.dropped == 0) {
            QVERIFY2(live == dump.out, qPrintable(test::firstDifference(dump.out, live)));
        } else {
            // Pages the kernel overwrote (a busy machine) may reach the live store late, after
            // rows already shown: the same events, not always in the file's order.
            auto sorted = [](const QByteArray& text) {
                QList<QByteArray> lines = text.split('\n');
                std::sort(lines.begin(), lines.end());
                return lines;
            };
            QCOMPARE(sorted(live), sorted(dump.out));
        }
        const QString traceCmd = QStandardPaths::findExecutable("trace-cmd");
        if (traceCmd.isEmpty()) QSKIP("trace-cmd is not installed: the comparison with its report is skipped");
        for (const QString& saved : {out, outV6}) {
            const auto report = test::runProgram(traceCmd, {"report", saved});
            QVERIFY2(report.out == dump.out, qPrintable(saved + ": " + test::firstDifference(report.out, dump.out)));
        }
    }

    void refusalsAreSaidBeforeStarting()
    {
        const QString out = m_dir.filePath("refused.dat");
        const auto noEvent = test::runCli({"record", "-e", "nosuch:event", "-o", out});
        QCOMPARE(noEvent.status, 1);
        QVERIFY2(noEvent.err.contains("event nosuch:event is not in this kernel"), noEvent.err.constData());
        const auto badFilter =
            test::runCli({"record", "-e", "sched:sched_switch", "-f", "no_such_field == 1", "-o", out});
        QCOMPARE(badFilter.status, 1);
        QVERIFY2(badFilter.err.contains("rejected the filter \"no_such_field == 1\" of sched:sched_switch"),
                 badFilter.err.constData());
        const auto badClock = test::runCli({"record", "-e", "sched:sched_switch", "-C", "sundial", "-o", out});
        QCOMPARE(badClock.status, 1);
        QVERIFY2(badClock.err.contains("clock sundial is not offered by this kernel"), badClock.err.constData());
        QVERIFY(!QFileInfo::exists(out));
        const auto usage = test::runCli({"record", "-e", "sched:sched_switch"});
        QCOMPARE(usage.status, 2);
        const auto compressedV6 = test::runCli(
            {"record", "-e", "sched:sched_switch", "--file-version", "6", "--compression", "zstd", "-o", out});
        QCOMPARE(compressedV6.status, 2);
        QVERIFY2(compressedV6.err.contains("a version 6 file is not compressed"), compressedV6.err.constData());

        // Function settings without a tracer would be silently dropped: refused.
        const auto noTracer = test::runCli({"record", "-e", "sched:sched_switch", "-l", "vfs_read", "-o", out});
        QCOMPARE(noTracer.status, 1);
        QVERIFY2(noTracer.err.contains("function filters and the graph depth apply to a tracer"),
                 noTracer.err.constData());
        const auto noSuchTracer = test::runCli({"record", "-p", "no_such_tracer", "-o", out});
        QCOMPARE(noSuchTracer.status, 1);
        QVERIFY2(noSuchTracer.err.contains("tracer no_such_tracer is not offered by this kernel"),
                 noSuchTracer.err.constData());
        if (!readTracefs("available_tracers").simplified().split(' ').contains("function")) return;
        // A function the kernel does not know (or, here, function tracing not allowed): its word.
        const auto badNotrace =
            test::runCli({"record", "-p", "function", "-n", "no_such_function_ringside", "-o", out});
        QCOMPARE(badNotrace.status, 1);
        QVERIFY2(badNotrace.err.contains("the kernel rejected no_such_function_ringside in set_ftrace_notrace: "),
                 badNotrace.err.constData());
        if (!QFileInfo::exists(kTracing + "/max_graph_depth")) {
            const auto noDepth = test::runCli({"record", "-p", "function", "--max-graph-depth", "3", "-o", out});
            QCOMPARE(noDepth.status, 1);
            QVERIFY2(noDepth.err.contains("this kernel has no max_graph_depth"), noDepth.err.constData());
        }
        QVERIFY(!QFileInfo::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestCapture)
#include "tst_capture.moc"
