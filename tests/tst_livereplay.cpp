// SPDX-License-Identifier: GPL-2.0-or-later
// A live capture fed by ringside-capture-replay instead of the kernel: recordings whose pages
// are known arrive as a capture's would, in rounds, published between them, with pages that
// hold no event. The store that grew must read exactly as the file does, and save it again.
// Needs no tracefs; needs root only because LiveCapture asks pkexec otherwise.
#include "support/tracewriter.h"
#include "testsupport.h"

#include "capture/livecapture.h"
#include "file/datconvert.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <unistd.h>

using namespace ringside;

class TestLiveReplay : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (::geteuid() != 0) QSKIP("the capture helper is started through pkexec when not root");
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
        QFETCH(QString, file);
        QFETCH(bool, manyRounds);
        const auto expected = test::runCli({"dump", file});
        QCOMPARE(expected.status, 0);

        auto started = LiveCapture::start({file.toStdString()}, m_dir.path().toStdString());
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

    // A capture of this machine names a task the kernel did not keep in its saved names by
    // what /proc said while it lived, in the window and in the file saved: both read the same.
    void namesSeenAreSaved()
    {
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
