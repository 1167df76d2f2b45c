// SPDX-License-Identifier: GPL-2.0-or-later
// Bad input: a clear message naming the file, or a trace of what was readable with the rest
// counted in diagnostics; never a crash or a hang.
#include "testsupport.h"

#include "load/pageparser.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstring>
#include <new>
#include <random>
#include <stdexcept>

using namespace ringside;

namespace {

QByteArray readFixture(const QString& name)
{
    if (name.endsWith(".xz")) return test::readXz(test::fixture(name));
    QFile f(test::fixture(name));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool hasDiagnostic(const Trace& trace, const std::string& code)
{
    for (const auto& d : trace.store().diagnostics().items())
        if (d.code == code) return true;
    return false;
}

// A ring-buffer page: 8-byte timestamp, 8-byte commit, then records of `words` 32-bit words
// each (type_len = words, delta 1), every record an event of the given type and pid.
std::vector<uint8_t> makePage(int records, int words, uint16_t type, int32_t pid, uint64_t commit = 0)
{
    std::vector<uint8_t> page(4096 + 4096, 0);
    const uint64_t ts = 1000;
    std::memcpy(page.data(), &ts, 8);
    size_t at = 16;
    for (int i = 0; i < records; ++i) {
        const uint32_t header = static_cast<uint32_t>(words) | (1u << 5);
        std::memcpy(page.data() + at, &header, 4);
        std::memcpy(page.data() + at + 4, &type, 2);
        std::memcpy(page.data() + at + 8, &pid, 4);
        at += 4 + size_t(words) * 4;
    }
    const uint64_t size = commit ? commit : at - 16;
    std::memcpy(page.data() + 8, &size, 8);
    return page;
}

} // namespace

class TestBadInput : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const QString& name, const QByteArray& bytes)
    {
        QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) return {};
        return path;
    }

    void expectError(const QString& path, const char* problem)
    {
        auto trace = Trace::open(path.toStdString());
        QVERIFY(!trace);
        const QString message = QString::fromStdString(trace.error().message);
        QVERIFY2(message.contains(path), qPrintable(message));
        QVERIFY2(message.contains(problem), qPrintable(message));
    }

private slots:
    void missingFile() { expectError(m_dir.filePath("nope.dat"), "No such file"); }
    void emptyFile() { expectError(write("empty.dat", {}), "empty file (0 bytes)"); }
    void cutInTheMagic()
    {
        expectError(write("cut.dat", readFixture("execve-e2big.dat").left(5)), "truncated file header (5 bytes)");
    }
    void textFile() { expectError(write("text.dat", "hello, this is not a trace\n"), "not a trace-cmd data file"); }

    void unsupportedVersion()
    {
        QByteArray bytes = readFixture("execve-e2big.dat");
        bytes[10] = '9'; // "7\0" -> "9\0"
        expectError(write("v9.dat", bytes), "unsupported file version '9'");
    }

    void unsupportedCompression()
    {
        QByteArray bytes = readFixture("execve-e2big.dat");
        const qsizetype at = bytes.indexOf("zstd");
        QVERIFY(at > 0 && at < 64);
        bytes.replace(at, 4, "lz4x");
        expectError(write("lz4.dat", bytes), "unsupported compression 'lz4x'");
    }

    void truncatedHeader() { expectError(write("short.dat", readFixture("execve-e2big.dat").left(14)), "truncated"); }

    // A format 7 recording cut before its options says so, and why no event can be read:
    // trace-cmd writes the CPUs' data offsets in the options after the data.
    void cutFormat7SaysWhy()
    {
        const QByteArray bytes = readFixture("sched-mix.dat");
        expectError(write("cut-early.dat", bytes.left(600000)),
                    "the file ends at 600000 bytes, before its options at offset 1146184 (cut, or its writer stopped): "
                    "it holds no events");
        expectError(write("cut-late.dat", bytes.left(1200000)),
                    "before its options at offset 1693177 (cut, or its writer stopped): the CPUs' data offsets were in "
                    "them, so no event can be found");
    }

    void truncatedFilesNeverCrash_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("opens"); // how many cuts open at least; -1: any number
        // Those of format 7 keep their CPUs' data offsets in options after their events (a cut
        // refuses them, as trace-cmd does); v6-i686-funcgraph's kallsyms fill all but its last
        // page. instances.dat's instance buffers have their offsets before the top buffer's
        // data: cut in that, it opens with the instances' events.
        for (const char* name : {"execve-e2big.dat", "v6-i686-funcgraph.dat", "zlib-guest.dat"})
            QTest::newRow(name) << name << 0;
        QTest::newRow("instances.dat") << "instances.dat" << -1;
        // Format 6, its events last: cut inside them, it opens with those before the cut.
        QTest::newRow("sched-mix-v6.dat.xz") << "sched-mix-v6.dat.xz" << 10;
    }
    void truncatedFilesNeverCrash()
    {
        QFETCH(QString, name);
        QFETCH(int, opens);
        const QByteArray bytes = readFixture(name);
        QVERIFY(!bytes.isEmpty());
        // Cut inside its headers, a file is refused, naming it; cut inside its events, it
        // opens with those before the cut and says the rest is missing. A longer cut never
        // shows fewer events, and a cut at the last step shows some.
        int opened = 0;
        uint64_t eventsBefore = 0;
        for (int step = 1; step < 40; ++step) {
            const qsizetype cut = bytes.size() * step / 40;
            const QString path = write("cut.dat", bytes.left(cut));
            auto trace = Trace::open(path.toStdString());
            if (trace) {
                ++opened;
                test::dump(**trace);
                const uint64_t events = (*trace)->store().eventCount();
                QVERIFY2(hasDiagnostic(**trace, "truncated") || events == 0,
                         qPrintable(QString("cut at %1 of %2: no word of what is missing").arg(cut).arg(bytes.size())));
                QVERIFY2(events >= eventsBefore, qPrintable(QString("cut at %1: %2 events, %3 at a shorter cut")
                                                                .arg(cut).arg(events).arg(eventsBefore)));
                eventsBefore = events;
            } else {
                QVERIFY2(opened == 0, qPrintable(QString("cut at %1 refused after a shorter cut opened").arg(cut)));
                QVERIFY(QString::fromStdString(trace.error().message).contains(path));
            }
        }
        if (opens > 0) {
            QVERIFY2(opened >= opens, qPrintable(QString::number(opened)));
            QVERIFY(eventsBefore > 0);
        } else if (opens == 0) {
            QCOMPARE(opened, 0);
        }
    }

    void flippedBytesNeverCrash_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name :
             {"execve-e2big.dat", "lost-events.dat", "fgraph-openat.dat", "v6-i686-funcgraph.dat", "zlib-guest.dat"})
            QTest::newRow(name) << name;
    }
    void flippedBytesNeverCrash()
    {
        QFETCH(QString, name);
        const QByteArray original = readFixture(name);
        std::mt19937 random(42);
        for (int round = 0; round < 12; ++round) {
            QByteArray bytes = original;
            // Flip bytes anywhere, and more of them in the trace data at the end of the file.
            for (int i = 0; i < 8; ++i) bytes[random() % bytes.size()] ^= char(1 + random() % 255);
            for (int i = 0; i < 32; ++i) {
                const qsizetype tail = bytes.size() / 4;
                bytes[bytes.size() - 1 - random() % tail] ^= char(1 + random() % 255);
            }
            const QString path = write("flipped.dat", bytes);
            auto trace = Trace::open(path.toStdString());
            if (trace)
                test::dump(**trace);
            else
                QVERIFY(QString::fromStdString(trace.error().message).contains(path));
        }
    }

    // A worker that fails (here: told to, as a failed allocation would) fails the load with a
    // message naming the file; it never yields a shorter store reported as a success.
    void workerFailuresFailTheLoad_data()
    {
        QTest::addColumn<int>("failing");
        QTest::addColumn<bool>("outOfMemory");
        QTest::addColumn<QString>("message");
        QTest::newRow("first segment, out of memory") << 0 << true << ": out of memory while loading";
        QTest::newRow("last segment, other error") << -1 << false << ": loading failed: disk went away";
    }
    void workerFailuresFailTheLoad()
    {
        QFETCH(int, failing);
        QFETCH(bool, outOfMemory);
        QFETCH(QString, message);
        const std::string path = test::fixturePath("instances.dat");
        // Count the segments first, so that "the last one" is a real segment.
        std::atomic<size_t> segments{0}; // workers call the hook from their threads
        LoadOptions counting;
        counting.beforeSegment = [&](size_t) { ++segments; };
        QVERIFY(Trace::open(path, counting));
        QVERIFY(segments >= 2);
        const size_t target = failing < 0 ? segments - 1 : size_t(failing);
        for (int threads : {1, 2}) {
            LoadOptions options;
            options.threads = threads;
            options.beforeSegment = [&](size_t segment) {
                if (segment != target) return;
                if (outOfMemory) throw std::bad_alloc();
                throw std::runtime_error("disk went away");
            };
            auto trace = Trace::open(path, options);
            QVERIFY2(!trace, "a load whose worker failed was reported as a success");
            QCOMPARE(QString::fromStdString(trace.error().message), QString::fromStdString(path) + message);
        }
    }

    // The loading thread's own failure (memory for the appends, here its progress report)
    // fails the load too, bulk or shown while it loads: the workers stop, nothing hangs.
    void loadingThreadFailureFailsTheLoad()
    {
        const std::string path = test::fixturePath("instances.dat");
        for (bool growing : {false, true}) {
            LoadOptions options;
            options.growing = growing;
            options.progress = [](const LoadProgress&) { throw std::bad_alloc(); };
            auto trace = Trace::open(path, options);
            QVERIFY2(!trace, "a load whose loading thread failed was reported as a success");
            QCOMPARE(QString::fromStdString(trace.error().message),
                     QString::fromStdString(path) + ": out of memory while loading");
        }
    }

    void corruptChunkKeepsTheRest()
    {
        QByteArray bytes = readFixture("lost-events.dat");
        auto file = DatFile::open(test::fixturePath("lost-events.dat"));
        QVERIFY(file);
        const CpuDataInfo& cpu0 = (*file)->buffers()[0].cpus[0];
        QVERIFY(cpu0.chunks.size() >= 1);
        auto reference = test::openOrFail(test::fixturePath("lost-events.dat"));
        QVERIFY(reference);
        // Garble the first compressed chunk of CPU 0.
        const CompressedChunk& chunk = cpu0.chunks[0];
        for (uint32_t i = 0; i < std::min<uint32_t>(chunk.compressedSize, 64); ++i)
            bytes[static_cast<qsizetype>(chunk.fileOffset + i)] = char(0xA5);
        auto trace = test::openOrFail(write("garbled.dat", bytes).toStdString());
        QVERIFY(trace);
        const EventStore& store = trace->store();
        QCOMPARE(store.stream(StreamId(1)).columns.size(), reference->store().stream(StreamId(1)).columns.size());
        QVERIFY(store.stream(StreamId(0)).columns.size() < reference->store().stream(StreamId(0)).columns.size());
        QVERIFY(hasDiagnostic(*trace, "unreadable-page"));
        test::dump(*trace);
    }

    void pageParserSkipsCorruptPages()
    {
        FileInfo info;
        TimestampConverter converter(info);
        CommonLayout layout;
        PageParser parser(8, false, layout, converter, 0);
        CpuColumns columns;
        CpuLoadStats stats;
        std::vector<uint64_t> perType(65536);

        auto good = makePage(3, 3, 7, 42);
        parser.parse(good.data(), 4096, columns, stats, perType.data());
        QCOMPARE(columns.size(), size_t(3));
        QCOMPARE(columns.pid[2], 42);
        QCOMPARE(columns.eventType[0], uint16_t(7));
        QCOMPARE(perType[7], uint64_t(3));
        QCOMPARE(columns.timestamp[0], uint64_t(1001));

        auto impossible = makePage(3, 3, 7, 42, 5000); // commit larger than the page
        parser.parse(impossible.data(), 4096, columns, stats, perType.data());
        QCOMPARE(columns.size(), size_t(3));
        QCOMPARE(stats.corruptPages, uint64_t(1));

        auto tiny = makePage(2, 1, 7, 42); // 4-byte payloads cannot hold the common fields
        parser.parse(tiny.data(), 4096, columns, stats, perType.data());
        QCOMPARE(stats.shortRecords, uint64_t(2));
        QCOMPARE(columns.pageFirstEvent.size(), size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "tst_badinput.moc"
