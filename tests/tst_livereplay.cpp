// SPDX-License-Identifier: GPL-2.0-or-later
// A live capture fed by ringside-capture-replay instead of the kernel: recordings whose pages
// are known arrive as a capture's would, in rounds, published between them, with pages that
// hold no event. The store that grew must read exactly as the file does, and save it again.
// Needs no tracefs; needs root only because LiveCapture asks pkexec otherwise.
#include "support/tracewriter.h"
#include "testsupport.h"

#include "capture/livecapture.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <unistd.h>

using namespace ringside;

namespace {

// Three CPUs: one of many pages, one that lost events twice, one without any; 3 s long, so
// that the CPU without pages is taken to have reached the others' time as rounds go by.
std::string madeRecording()
{
    test::TraceWriter writer;
    writer.formats.push_back({"test", std::string("name: tick\nID: 700\nformat:\n") +
                                          test::TraceWriter::commonFields() +
                                          "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
                                          "print fmt: \"value=%d\", REC->value\n"});
    writer.cmdlines = "42 ticker\n43 tocker\n";
    writer.cpus.resize(3);
    auto tick = [](int32_t pid, int32_t value) {
        return test::TraceWriter::payload(700, pid, std::string(reinterpret_cast<const char*>(&value), 4));
    };
    for (int32_t i = 0; i < 3000; ++i) writer.cpus[0].push_back({uint32_t(1'000'000 + i % 7), tick(42, i)});
    for (int32_t i = 0; i < 900; ++i)
        writer.cpus[1].push_back({uint32_t(3'000'000 + i % 5), tick(43, i), i == 300 || i == 600});
    return writer.write();
}

} // namespace

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
        const QString made = m_dir.filePath("made.dat");
        QVERIFY(test::writeFile(made, madeRecording()));
        QTest::newRow("made: lost events, a CPU without pages") << made;
        QTest::newRow("v6-i686-funcgraph: 32-bit") << test::fixture("v6-i686-funcgraph.dat");
    }

    void grownStoreReadsAsTheFile()
    {
        QFETCH(QString, file);
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
        QVERIFY(publishes > 1); // it grew, not all at once at the end
        capture.applyTaskNames();
        const QByteArray live = test::dump(capture.trace());
        QVERIFY2(live == expected.out, qPrintable(test::firstDifference(expected.out, live)));

        const QString saved = m_dir.filePath(QFileInfo(file).baseName() + "-saved.dat");
        std::string error;
        QVERIFY2(capture.save(saved.toStdString(), DatFormat(), &error), error.c_str());
        const auto again = test::runCli({"dump", saved});
        QCOMPARE(again.status, 0);
        QVERIFY2(again.out == expected.out, qPrintable(test::firstDifference(expected.out, again.out)));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestLiveReplay)
#include "tst_livereplay.moc"
