// SPDX-License-Identifier: GPL-2.0-or-later
// A live capture fed by ringside-capture-replay instead of the kernel: recordings whose pages
// are known arrive as a capture's would, in rounds, published between them, with pages that
// hold no event. The store that grew must read exactly as the file does, and save it again;
// its analyses, fed batch by batch as it grew, must come to the tables and statistics the
// file's have. Needs no tracefs; needs root only because LiveCapture asks pkexec otherwise.
#include "support/tracewriter.h"
#include "testsupport.h"

#include "analysis/tracktables.h"
#include "capture/livecapture.h"
#include "decode/eventformatter.h"
#include "file/datconvert.h"
#include "kvmplugin.h"
#include "plugin/statstext.h"
#include "schedplugin.h"
#include "syscallsplugin.h"
#include "trace.h"
#include "workqueueplugin.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <unistd.h>

using namespace ringside;

namespace {

std::vector<std::unique_ptr<Plugin>> everyPlugin()
{
    std::vector<std::unique_ptr<Plugin>> plugins;
    plugins.push_back(std::make_unique<sched::SchedPlugin>());
    plugins.push_back(std::make_unique<syscalls::SyscallsPlugin>());
    plugins.push_back(std::make_unique<workqueue::WorkqueuePlugin>());
    plugins.push_back(std::make_unique<kvm::KvmPlugin>());
    return plugins;
}

// Table by table: true when both traces' analyses have the same rows; else the rows only one
// of them has are printed.
bool sameAnalyses(const Trace& file, const Trace& other)
{
    auto byTable = [](const std::vector<std::string>& text) {
        std::vector<std::pair<std::string, std::vector<std::string>>> tables;
        for (const std::string& line : text) {
            if (line.rfind("== ", 0) == 0)
                tables.emplace_back(line, std::vector<std::string>());
            else
                tables.back().second.push_back(line);
        }
        return tables;
    };
    const auto want = byTable(test::analysesText(file)), got = byTable(test::analysesText(other));
    if (got.size() != want.size() || want.size() <= 10) {
        qInfo("%zu tables, the file's %zu", got.size(), want.size());
        return false;
    }
    bool same = true;
    for (size_t t = 0; t < want.size(); ++t) {
        if (want[t] == got[t]) continue;
        same = false;
        std::vector<std::string> fileOnly, captureOnly;
        const auto& w = want[t].second;
        const auto& g = got[t].second;
        std::set_difference(w.begin(), w.end(), g.begin(), g.end(), std::back_inserter(fileOnly));
        std::set_difference(g.begin(), g.end(), w.begin(), w.end(), std::back_inserter(captureOnly));
        qInfo("%s; the other's %s", want[t].first.c_str(), got[t].first.c_str());
        for (size_t i = 0; i < fileOnly.size() && i < 6; ++i) qInfo("  only the file's:    %s", fileOnly[i].c_str());
        for (size_t i = 0; i < captureOnly.size() && i < 6; ++i)
            qInfo("  only the other's:   %s", captureOnly[i].c_str());
    }
    return same;
}

} // namespace

class TestLiveReplay : public QObject {
    Q_OBJECT

    static void skipUnlessRoot()
    {
        if (::geteuid() != 0) QSKIP("the capture helper is started through pkexec when not root");
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        ::setenv("RINGSIDE_CAPTURE_HELPER", RINGSIDE_CAPTURE_REPLAY, 1);
    }

    void grownStoreReadsAsTheFile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("manyRounds"); // published before the end, not only at it
        const QString made = m_dir.filePath("made.dat");
        QVERIFY(test::writeFile(made, test::tickRecording()));
        QTest::newRow("made: lost events, a CPU without pages") << made << true;
        QTest::newRow("v6-i686-funcgraph: 32-bit, a page") << test::fixture("v6-i686-funcgraph.dat") << false;
    }

    void grownStoreReadsAsTheFile()
    {
        skipUnlessRoot();
        QFETCH(QString, file);
        QFETCH(bool, manyRounds);
        const auto expected = test::runCli({"dump", file});
        QCOMPARE(expected.status, 0);

        ::setenv("RINGSIDE_REPLAY_SPREAD_MS", "500", 1); // rounds apart even on a slow build
        auto started = LiveCapture::start({file.toStdString()}, m_dir.path().toStdString());
        ::unsetenv("RINGSIDE_REPLAY_SPREAD_MS");
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        LiveCapture& capture = **started;
        std::atomic<int> publishes{0};
        capture.setGrowthListener([&](size_t) { ++publishes; });
        capture.waitUntilEnded();
        const LiveCapture::Progress progress = capture.progress();
        QVERIFY2(progress.error.empty(), progress.error.c_str());
        if (manyRounds) QVERIFY(publishes > 1); // it grew, not all at once at the end
        capture.applyTaskNames();
        const QByteArray live = test::dump(capture.trace());
        QVERIFY2(live == expected.out, qPrintable(test::firstDifference(expected.out, live)));

        const QString saved = m_dir.filePath(QFileInfo(file).baseName() + "-saved.dat");
        std::string error;
        QVERIFY2(capture.save(saved.toStdString(), DatFormat(), &error), error.c_str());
        const auto again = test::runCli({"dump", saved});
        QCOMPARE(again.status, 0);
        QVERIFY2(again.out == expected.out, qPrintable(test::firstDifference(expected.out, again.out)));

        // Saved with progress: it reaches all of the pages; stopped, it leaves nothing.
        uint64_t reached = 0, total = 0;
        std::atomic<bool> cancel{false};
        WriteProgress writing{&cancel, [&](uint64_t done, uint64_t all) { reached = done, total = all; }};
        const QString reported = m_dir.filePath(QFileInfo(file).baseName() + "-reported.dat");
        QVERIFY2(capture.save(reported.toStdString(), DatFormat::v6(), &error, writing), error.c_str());
        QVERIFY(total > 0);
        QCOMPARE(reached, total);
        // The pages kept, no more: the file's CPU data is what was reported.
        auto parts = readDatV6Parts(reported.toStdString());
        QVERIFY2(parts, parts ? "" : parts.error().message.c_str());
        uint64_t written = 0;
        for (const auto& range : parts->cpuData) written += range.size;
        QCOMPARE(written, total);
        cancel = true;
        const QString stopped = m_dir.filePath(QFileInfo(file).baseName() + "-stopped.dat");
        QVERIFY(!capture.save(stopped.toStdString(), DatFormat(), &error, writing));
        QVERIFY2(error.find("cancelled") != std::string::npos, error.c_str());
        QVERIFY(!QFile::exists(stopped) && !QFile::exists(stopped + ".part"));
    }

    // The analyses of a capture, fed batch by batch while it grows (as the window's analysis
    // thread feeds them), come to what they make of the file loaded at once: every table's
    // rows, every plugin's statistics.
    void analysesMatchTheFile_data()
    {
        // The recordings as version 6 (what the replay sends), made by `trace-cmd convert
        // --file-version 6 --compression none` from the fixtures of the same name.
        QTest::addColumn<QString>("fixture");
        QTest::newRow("sched-mix: sched, syscalls, workqueue") << "sched-mix-v6.dat.xz";
        QTest::newRow("execve-e2big: both kinds of syscall events") << "execve-e2big-v6.dat.xz";
        QTest::newRow("lost-events: calls across lost events") << "lost-events-v6.dat.xz";
    }
    void analysesMatchTheFile()
    {
        skipUnlessRoot();
        QFETCH(QString, fixture);
        const QString file = m_dir.filePath(QString(fixture).remove(".xz"));
        QVERIFY(test::writeFile(file, test::readXz(test::fixture(fixture)).toStdString()));
        auto loaded = Trace::open(file.toStdString(), LoadOptions(), {}, everyPlugin());
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());

        // Rounds spread over 1.5 s, so that even a slow build (sanitizers, a loaded machine)
        // sees a small recording grow in several batches: 3 ms apart, one came in three; with
        // other builds competing for both cores, a second spread came in one.
        ::setenv("RINGSIDE_REPLAY_SPREAD_MS", "1500", 1);
        auto started = LiveCapture::start({file.toStdString()}, m_dir.path().toStdString(), everyPlugin());
        ::unsetenv("RINGSIDE_REPLAY_SPREAD_MS");
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        LiveCapture& capture = **started;
        Trace& live = capture.trace();
        size_t batches = 0, lastRows = 0;
        // The first batch takes half of what came: a slow machine may see the whole recording
        // arrive before it analyses anything, and it is still analysed in two batches.
        auto analyseWhatCame = [&] {
            const uint64_t came = live.store().eventCount() - live.analysedRows();
            QVERIFY(live.analyse({}, nullptr, batches == 0 && came > 1 ? live.analysedRows() + came / 2 : UINT64_MAX));
            if (live.analysedRows() > lastRows) ++batches, lastRows = live.analysedRows();
        };
        while (!capture.progress().ended) {
            analyseWhatCame();
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        capture.waitUntilEnded();
        QVERIFY2(capture.progress().error.empty(), capture.progress().error.c_str());
        // However fast the capture came (a slow machine may analyse it only at its end), at least
        // two batches: half of what is left, then the rest.
        const uint64_t left = live.store().eventCount() - live.analysedRows();
        if (left > 1) {
            QVERIFY(live.analyse({}, nullptr, live.analysedRows() + left / 2));
            ++batches, lastRows = live.analysedRows();
        }
        analyseWhatCame();
        live.finishAnalyses();
        capture.applyTaskNames();
        QCOMPARE(live.analysedRows(), (*loaded)->store().eventCount());
        // Every event came in time (a late one is analysed after later ones: then the tables may
        // differ, and the store says so).
        for (const Diagnostic& d : live.store().diagnostics().items()) QVERIFY2(d.code != "late-events", d.message.c_str());
        QVERIFY2(batches > 1, qPrintable(QString("analysed in %1 batches").arg(batches)));

        QVERIFY2(sameAnalyses(**loaded, live), "the capture's analyses differ from the file's");
    }

    // The analyses of a recording fed in batches of a few rows come to what they make of it
    // fed at once, whatever the batches (here fixed, where a capture's vary with timing).
    void analysesDoNotDependOnBatches_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("rows");
        for (int rows : {1, 97, 4099}) {
            QTest::addRow("sched-mix by %d", rows) << "sched-mix-v6.dat.xz" << rows;
            QTest::addRow("execve-e2big by %d", rows) << "execve-e2big-v6.dat.xz" << rows;
            QTest::addRow("lost-events by %d", rows) << "lost-events-v6.dat.xz" << rows;
        }
    }
    void analysesDoNotDependOnBatches()
    {
        QFETCH(QString, fixture);
        QFETCH(int, rows);
        const QString file = m_dir.filePath(QString(fixture).remove(".xz"));
        QVERIFY(test::writeFile(file, test::readXz(test::fixture(fixture)).toStdString()));
        auto whole = Trace::open(file.toStdString(), LoadOptions(), {}, everyPlugin());
        QVERIFY2(whole, whole ? "" : whole.error().message.c_str());
        LoadOptions later;
        later.analyse = false;
        auto batched = Trace::open(file.toStdString(), later, {}, everyPlugin());
        QVERIFY2(batched, batched ? "" : batched.error().message.c_str());
        Trace& trace = **batched;
        const uint64_t all = trace.store().eventCount();
        // Batches of `rows` at first, then growing, so that a single row a batch stays quick.
        uint64_t step = uint64_t(rows);
        for (uint64_t upTo = step; trace.analysedRows() < all; upTo += step, step += std::max<uint64_t>(1, step / 8)) QVERIFY(trace.analyse({}, nullptr, upTo));
        trace.finishAnalyses();
        QVERIFY2(sameAnalyses(**whole, trace), "the analyses fed in batches differ from those fed at once");
    }


    // What the helper sends that cannot be taken (a page of a CPU it never named, a page longer
    // than a page, metadata that does not parse) is left out, counted, and said in the store's
    // diagnostics; every page that could be taken is there.
    void refusedPagesAreCountedAndSaid()
    {
        const QString file = m_dir.filePath("refused.dat");
        QVERIFY(test::writeFile(file, test::readXz(test::fixture("execve-e2big-v6.dat.xz")).toStdString()));
        ::setenv("RINGSIDE_REPLAY_REFUSED", "1", 1);
        auto started = LiveCapture::start({file.toStdString()}, m_dir.path().toStdString());
        ::unsetenv("RINGSIDE_REPLAY_REFUSED");
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        LiveCapture& capture = **started;
        capture.waitUntilEnded();
        const LiveCapture::Progress p = capture.progress();
        QCOMPARE(p.refusedPages, uint64_t(2));
        QCOMPARE(p.refusedMetadata, uint64_t(1));
        QCOMPARE(capture.store().eventCount(), size_t(4668));
        bool pagesSaid = false, metadataSaid = false;
        for (const Diagnostic& d : capture.store().diagnostics().items()) {
            pagesSaid = pagesSaid || (d.code == "capture-refused-pages" && d.count == 2 &&
                                      d.message.find("a page of CPU 9") != std::string::npos);
            metadataSaid = metadataSaid || d.code == "capture-refused-metadata";
        }
        QVERIFY(pagesSaid);
        QVERIFY(metadataSaid);
    }

    // A capture of this machine names a task the kernel did not keep in its saved names by
    // what /proc said while it lived, in the window and in the file saved: both read the same.
    void namesSeenAreSaved()
    {
        skipUnlessRoot();
        QProcess sleeper;
        sleeper.start("sleep", {"30"});
        QVERIFY(sleeper.waitForStarted());
        const auto pid = int32_t(sleeper.processId());
        test::TraceWriter writer;
        writer.uname = CaptureMetadata::localUname(); // as ringside-capture describes this machine
        writer.formats.push_back({"test", std::string("name: tick\nID: 700\nformat:\n") +
                                              test::TraceWriter::commonFields() +
                                              "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
                                              "print fmt: \"value=%d\", REC->value\n"});
        writer.cmdlines = "1 init\n"; // not the sleeper
        writer.cpus.resize(1);
        for (int32_t i = 0; i < 50; ++i)
            writer.cpus[0].push_back(
                {1000, test::TraceWriter::payload(700, pid, std::string(reinterpret_cast<const char*>(&i), 4))});
        const QString file = m_dir.filePath("sleeper.dat");
        QVERIFY(test::writeFile(file, writer.write()));

        auto started = LiveCapture::start({file.toStdString()}, m_dir.path().toStdString());
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        LiveCapture& capture = **started;
        capture.waitUntilEnded();
        sleeper.kill();
        sleeper.waitForFinished();
        capture.applyTaskNames();
        const QByteArray live = test::dump(capture.trace());
        const QByteArray named = "sleep-" + QByteArray::number(pid) + " ";
        QVERIFY2(live.contains(named), live.left(400).constData());
        const QString saved = m_dir.filePath("sleeper-saved.dat");
        std::string error;
        QVERIFY2(capture.save(saved.toStdString(), DatFormat(), &error), error.c_str());
        const auto again = test::runCli({"dump", saved});
        QCOMPARE(again.status, 0);
        QVERIFY2(again.out == live, qPrintable(test::firstDifference(live, again.out)));
        // The file's own list of names: the kernel's first (readers keep a pid's first name).
        QVERIFY(again.out.contains(named));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestLiveReplay)
#include "tst_livereplay.moc"
