// SPDX-License-Identifier: GPL-2.0-or-later
// The .dat writer: a recording written again as v7 (zstd or uncompressed) or v6 reads the
// same in Ringside and in trace-cmd report as the one it came from; what it cannot carry
// or cannot write is refused with the file's name, and nothing half-written is left.
#include "file/datconvert.h"
#include "file/datfile.h"
#include "support/tracewriter.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ringside;

namespace {

// Two CPUs, one with many pages (more than one ten-page chunk, and a partial last chunk),
// the other with a single record.
std::string manyPages()
{
    test::TraceWriter writer;
    writer.formats.push_back({"test", std::string("name: tick\nID: 700\nformat:\n") +
                                          test::TraceWriter::commonFields() +
                                          "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
                                          "print fmt: \"value=%d\", REC->value\n"});
    writer.cmdlines = "42 ticker\n";
    writer.cpus.resize(2);
    for (int32_t i = 0; i < 5500; ++i)
        writer.cpus[0].push_back(
            {uint32_t(100 + i % 7), test::TraceWriter::payload(700, 42, std::string(reinterpret_cast<char*>(&i), 4))});
    const int32_t one = 1;
    writer.cpus[1].push_back(
        {5, test::TraceWriter::payload(700, 42, std::string(reinterpret_cast<const char*>(&one), 4))});
    return writer.write();
}

// trace-cmd report's lines with each record's time ("[000]    38.924357:") taken out.
QByteArray withoutTimestamps(const QByteArray& report)
{
    static const QRegularExpression time(R"((\[\d+\])\s+[0-9.]+:)");
    return QString::fromUtf8(report).replace(time, "\\1 <time>:").toUtf8();
}

} // namespace

class TestDatWriter : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString made()
    {
        const QString path = m_dir.filePath("made.dat");
        if (!QFile::exists(path)) test::writeFile(path, manyPages());
        return path;
    }

private slots:
    void convertedReadsTheSame_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("version");
        QTest::addColumn<bool>("zstd");
        for (const QString& source : {QString("made"), QString("v6-i686-funcgraph")}) {
            QTest::addRow("%s to v7 zstd", qPrintable(source)) << source << 7 << true;
            QTest::addRow("%s to v7 uncompressed", qPrintable(source)) << source << 7 << false;
            QTest::addRow("%s to v6", qPrintable(source)) << source << 6 << false;
        }
    }

    void convertedReadsTheSame()
    {
        QFETCH(QString, source);
        QFETCH(int, version);
        QFETCH(bool, zstd);
        const QString from = source == "made" ? made() : test::fixture(source + ".dat");
        const QString to = m_dir.filePath(QString("%1-v%2%3.dat").arg(source).arg(version).arg(zstd ? "-zstd" : ""));
        std::string error;
        const DatFormat format{version, zstd ? Codec::Zstd : Codec::None};
        QVERIFY2(convertDatV6(from.toStdString(), to.toStdString(), format, "ringside test", &error), error.c_str());
        QVERIFY(!QFile::exists(to + ".part"));
        QCOMPARE(test::datFormatOf(to), format.name());

        auto file = DatFile::open(to.toStdString());
        QVERIFY2(file, file ? "" : file.error().message.c_str());
        QCOMPARE((*file)->info().codec, zstd ? Codec::Zstd : Codec::None);
        QVERIFY2((*file)->diagnostics().empty(), "the written file reads without complaint");

        const auto original = test::runCli({"dump", from});
        const auto written = test::runCli({"dump", to});
        QCOMPARE(original.status, 0);
        QCOMPARE(written.status, 0);
        QVERIFY(original.out.count('\n') > 1);
        QVERIFY2(written.out == original.out, qPrintable(test::firstDifference(original.out, written.out)));
        if (zstd) QVERIFY(QFileInfo(to).size() < QFileInfo(from).size() / 2);

        const QString traceCmd = QStandardPaths::findExecutable("trace-cmd");
        if (traceCmd.isEmpty()) QSKIP("trace-cmd is not installed: the comparison with its report is skipped");
        auto theirs = test::runProgram(traceCmd, {"report", from});
        auto ours = test::runProgram(traceCmd, {"report", to});
        QCOMPARE(ours.status, 0);
        // A recording whose clock option is empty (the i686 one) makes trace-cmd read past it
        // (valgrind: strtok_r on a 0-byte block), so whether it prints seconds or raw counts
        // is chance; its times are compared above through our dump.
        const auto options = test::runProgram(traceCmd, {"dump", "--options", from});
        if (options.out.contains("[Option TRACECLOCK, 0 bytes]")) {
            theirs.out = withoutTimestamps(theirs.out);
            ours.out = withoutTimestamps(ours.out);
        }
        QVERIFY2(ours.out == theirs.out, qPrintable(test::firstDifference(theirs.out, ours.out)));
        QVERIFY2(!ours.err.contains("rror"), ours.err.constData());
    }

    void refusalsNameTheFile()
    {
        std::string error;
        // Not v6: the converter reads the layout it writes back, nothing else.
        const QString v7 = test::fixture("sched-mix.dat");
        QVERIFY(!convertDatV6(v7.toStdString(), m_dir.filePath("x.dat").toStdString(), DatFormat(), "t", &error));
        QVERIFY2(error == v7.toStdString() + ": not a version 6 recording", error.c_str());

        // Cut short: the metadata's end is missing.
        const QString cut = m_dir.filePath("cut.dat");
        QVERIFY(test::writeFile(cut, manyPages().substr(0, 600)));
        QVERIFY(!convertDatV6(cut.toStdString(), m_dir.filePath("y.dat").toStdString(), DatFormat(), "t", &error));
        QVERIFY2(error.rfind(cut.toStdString() + ": ", 0) == 0 && error.find("truncated") != std::string::npos,
                 error.c_str());
        QVERIFY(!QFile::exists(m_dir.filePath("y.dat")));

        // A folder that cannot be written: the message names the file, no part is left.
        const QString nowhere = m_dir.filePath("no/such/dir/out.dat");
        QVERIFY(!convertDatV6(made().toStdString(), nowhere.toStdString(), DatFormat(), "t", &error));
        QVERIFY2(error.rfind(nowhere.toStdString() + ".part: ", 0) == 0, error.c_str());

        // What is not written: a compressed v6, zlib.
        const QString out = m_dir.filePath("z.dat");
        QVERIFY(!convertDatV6(made().toStdString(), out.toStdString(), {6, Codec::Zstd}, "t", &error));
        QVERIFY2(error == out.toStdString() + ": a version 6 file is not compressed", error.c_str());
        QVERIFY(!convertDatV6(made().toStdString(), out.toStdString(), {7, Codec::Zlib}, "t", &error));
        QVERIFY2(error.find("zlib compression is not written") != std::string::npos, error.c_str());
        QVERIFY(!QFile::exists(out) && !QFile::exists(out + ".part"));
    }

    // A long conversion (Save Capture As) says how far it is, and stops when told to.
    void conversionReportsAndStops()
    {
        std::vector<std::pair<uint64_t, uint64_t>> reports;
        std::atomic<bool> cancel{false};
        WriteProgress progress{&cancel, [&](uint64_t done, uint64_t total) { reports.emplace_back(done, total); }};
        std::string error;
        const QString out = m_dir.filePath("reported.dat");
        QVERIFY2(convertDatV6(made().toStdString(), out.toStdString(), DatFormat(), "t", &error, progress),
                 error.c_str());
        // What it reports, not how often: growing to the whole, of the same whole.
        QVERIFY(!reports.empty());
        for (size_t r = 1; r < reports.size(); ++r) {
            QVERIFY(reports[r - 1].first < reports[r].first);
            QCOMPARE(reports[r].second, reports.front().second);
        }
        QCOMPARE(reports.back().first, reports.back().second);
        auto parts = readDatV6Parts(made().toStdString());
        QCOMPARE(reports.back().second, parts->cpuData[0].size + parts->cpuData[1].size);

        // Told to stop after the first CPU: it fails, and leaves nothing.
        const QString stopped = m_dir.filePath("stopped.dat");
        progress.report = [&](uint64_t, uint64_t) { cancel = true; };
        QVERIFY(!convertDatV6(made().toStdString(), stopped.toStdString(), DatFormat(), "t", &error, progress));
        QVERIFY2(error.find("cancelled") != std::string::npos, error.c_str());
        QVERIFY(!QFile::exists(stopped) && !QFile::exists(stopped + ".part"));
    }

    // A writer that fails part-way leaves neither the file nor its part.
    void failingDataLeavesNothing()
    {
        auto parts = readDatV6Parts(made().toStdString());
        QVERIFY(parts);
        const QString out = m_dir.filePath("failed.dat");
        std::string error;
        QVERIFY(!writeDat(
            out.toStdString(), parts->metadata,
            [](size_t cpu, CpuDataSink& sink, std::string* why) {
                const std::string page(4096, '\0');
                if (!sink.write(page.data(), page.size(), why)) return false;
                return cpu == 0 || (*why = "the capture's pages are gone", false);
            },
            "t", DatFormat(), &error));
        QVERIFY2(error == out.toStdString() + ": the capture's pages are gone", error.c_str());
        QVERIFY(!QFile::exists(out) && !QFile::exists(out + ".part"));
    }
};

QTEST_GUILESS_MAIN(TestDatWriter)
#include "tst_datwriter.moc"
