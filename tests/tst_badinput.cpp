// SPDX-License-Identifier: GPL-2.0-or-later
// Bad input: a clear message naming the file, or a trace of what was readable with the rest
// counted in diagnostics; never a crash or a hang.
#include "testsupport.h"

#include "analysis/runningtasks.h"
#include "analysis/tracktables.h"
#include "file/cutdata.h"
#include "load/pageparser.h"
#include "schedplugin.h"

#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QStandardPaths>
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

// The dump's lines by the CPU in their "[NNN]".
QMap<int, QList<QByteArray>> linesByCpu(const QByteArray& dump)
{
    QMap<int, QList<QByteArray>> byCpu;
    static const QRegularExpression cpuField(R"(\[(\d+)\])");
    for (const QByteArray& line : dump.split('\n')) {
        const QRegularExpressionMatch m = cpuField.match(QString::fromUtf8(line));
        if (m.hasMatch()) byCpu[m.captured(1).toInt()].append(line);
    }
    return byCpu;
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

    // A format 7 recording cut before its first options holds no events; cut right after
    // them, before its trace data, it has none to find either. Each says so.
    void cutFormat7SaysWhy()
    {
        const QByteArray bytes = readFixture("sched-mix.dat");
        expectError(write("cut-early.dat", bytes.left(600000)),
                    "the file ends at 600000 bytes, before its options at offset 1146184 (cut, or its writer stopped): "
                    "it holds no events");
        // The first options end at 1146762, where the trace data's section header begins.
        expectError(write("cut-before-data.dat", bytes.left(1146762 + 8)),
                    "before its options at offset 1693177 (cut, or its writer stopped): the data offsets of its CPUs "
                    "were in them, and no trace data follows the last options read (offset 1146762)");
    }

    // trace-cmd writes each buffer's CPU data offsets in options after the data: a recording
    // cut there, or whose writer stopped, opens with the pages it holds, found by walking the
    // data. Compressed (the chunk counts) and not (where the pages' time goes back).
    void cutFormat7OpensWithItsPages_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("uncompressed");  // converted by trace-cmd first
        QTest::addColumn<int>("cutCpu");         // the CPU whose data the cut ends in; -1: after all data
        QTest::addColumn<bool>("writerStopped"); // that CPU's chunk count never written
        QTest::newRow("after the data") << "sched-mix.dat" << false << -1 << false;
        QTest::newRow("in CPU 0") << "sched-mix.dat" << false << 0 << false;
        QTest::newRow("in CPU 1") << "sched-mix.dat" << false << 1 << false;
        QTest::newRow("writer stopped after the data") << "sched-mix.dat" << false << -1 << true;
        QTest::newRow("writer stopped in CPU 1") << "sched-mix.dat" << false << 1 << true;
        QTest::newRow("instances, after the data") << "instances.dat" << false << -1 << false;
        QTest::newRow("4 CPUs, in CPU 2") << "fgraph-all-short.dat" << false << 2 << false;
        QTest::newRow("uncompressed, after the data") << "execve-e2big.dat" << true << -1 << false;
        QTest::newRow("uncompressed, in CPU 1") << "execve-e2big.dat" << true << 1 << false;
        QTest::newRow("uncompressed, writer stopped after the data") << "execve-e2big.dat" << true << -1 << true;
    }
    void cutFormat7OpensWithItsPages()
    {
        QFETCH(QString, name);
        QFETCH(bool, uncompressed);
        QFETCH(int, cutCpu);
        QFETCH(bool, writerStopped);
        QString whole = test::fixture(name);
        if (uncompressed) {
            const QString traceCmd = QStandardPaths::findExecutable("trace-cmd");
            if (traceCmd.isEmpty()) QSKIP("trace-cmd is not installed: no uncompressed format 7 file to cut");
            const QString converted = m_dir.filePath("uncompressed.dat");
            const auto run = test::runProgram(
                traceCmd, {"convert", "-i", whole, "-o", converted, "--compression", "none", "--file-version", "7"});
            QVERIFY2(run.status == 0, run.err.constData());
            whole = converted;
        }
        auto full = Trace::open(whole.toStdString());
        QVERIFY(full);
        const std::vector<BufferInfo>& buffers = (*full)->file().buffers();
        QVERIFY(!buffers.empty());
        QCOMPARE(buffers[0].cpus.front().compressed, !uncompressed);
        uint64_t dataEnd = 0;
        const CpuDataInfo* last = nullptr;
        for (const BufferInfo& buffer : buffers)
            for (const CpuDataInfo& cpu : buffer.cpus)
                if (cpu.fileOffset + cpu.fileSize > dataEnd) {
                    dataEnd = cpu.fileOffset + cpu.fileSize;
                    last = &cpu;
                }
        const CpuDataInfo& cut = cutCpu < 0 ? *last : buffers[0].cpus.at(cutCpu);
        // trace-cmd's sizes of compressed data leave out the 4-byte chunk count before it.
        const uint64_t cutAt = cutCpu < 0 ? dataEnd + (uncompressed ? 0 : 4) : cut.fileOffset + cut.fileSize / 2 + 100;

        QFile file(whole);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray bytes = file.readAll();
        // Uncompressed, a writer that stopped after its data left the sections after it whole:
        // they are no cut page.
        if (!(writerStopped && uncompressed)) bytes.truncate(qsizetype(cutAt));
        if (writerStopped) {
            // trace-cmd writes a CPU's chunk count and the link to the next options once each is
            // done: a writer that stopped left both 0.
            if (!uncompressed) std::memset(bytes.data() + cut.fileOffset, 0, 4);
            // The first options' offset follows the header's compression name and version.
            const qsizetype name = bytes.indexOf('\0', 18), version = bytes.indexOf('\0', name + 1);
            // Then the options before the data: the link of the one that names the options
            // after it (its DONE option, last) is left 0.
            uint64_t options = 0;
            std::memcpy(&options, bytes.constData() + version + 1, 8);
            for (int hop = 0; hop < 8; ++hop) {
                uint64_t size = 0, next = 0;
                std::memcpy(&size, bytes.constData() + options + 8, 8);
                const qsizetype link = qsizetype(options + 16 + size - 8);
                std::memcpy(&next, bytes.constData() + link, 8);
                QVERIFY(next != 0);
                if (next >= dataEnd) {
                    std::memset(bytes.data() + link, 0, 8);
                    break;
                }
                options = next;
            }
        }
        const QString path = write("cut.dat", bytes);
        std::vector<std::unique_ptr<Plugin>> plugins;
        plugins.push_back(std::make_unique<sched::SchedPlugin>());
        auto trace = Trace::open(path.toStdString(), LoadOptions(), {}, std::move(plugins));
        QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
        QStringList said;
        for (const auto& d : (*trace)->store().diagnostics().items())
            if (d.code == "truncated") said << QString::fromStdString(d.message);
        QVERIFY2(said.join('\n').contains("was walked"), qPrintable(said.join('\n')));
        QCOMPARE(said.join('\n').contains("never written"), writerStopped && !uncompressed);
        QVERIFY2(!said.join('\n').contains("page is cut") || cutCpu >= 0, qPrintable(said.join('\n')));
        QCOMPARE(said.join('\n').contains("without the data offsets of its CPUs (its writer stopped"), writerStopped);

        // The task last switched in on the cut CPU ran until its last event; after that, what
        // ran there is not known (not drawn, not in sched_slice).
        const EventStore& store = (*trace)->store();
        const RunningTasks running = (*trace)->runningTasks();
        QVERIFY(running.available());
        for (const StreamId id : store.buffers()[0].streams) {
            const Stream& stream = store.stream(id);
            if (stream.cpu != (cutCpu < 0 ? 0 : cutCpu)) continue;
            const uint64_t last = stream.columns.timestamp.back();
            if (last >= store.lastTimestamp()) continue; // the cut left no other CPU after it
            const TaskId task = running.taskAt(id, last - 1);
            QVERIFY(task.valid());
            QCOMPARE(running.taskAt(id, last + 1).valid(), cutCpu < 0);
            // The sched plugin's task states say the same of that task.
            const Trace::Analysis* sched = (*trace)->analysis(sched::SchedPlugin::kName);
            QVERIFY(sched && sched->tables);
            const auto* states = dynamic_cast<const IntervalTable*>(sched->tables->find("task_states"));
            QVERIFY(states && states->rowAt(task.value, last - 1, last - 1));
            QCOMPARE(bool(states->rowAt(task.value, last + 1, last + 1)), cutCpu < 0);
        }

        const QByteArray wholeDump = test::dump(**full);
        const QByteArray cutDump = test::dump(**trace);
        if (cutCpu < 0) {
            QVERIFY(cutDump == wholeDump);
            return;
        }
        // Each CPU before the cut whole, the cut one's first events, none after it.
        const auto wholeLines = linesByCpu(wholeDump), cutLines = linesByCpu(cutDump);
        for (int cpu = 0; cpu < int(buffers[0].cpus.size()); ++cpu) {
            const QList<QByteArray> have = cutLines.value(cpu), want = wholeLines.value(cpu);
            if (cpu < cutCpu) QCOMPARE(have.size(), want.size());
            if (cpu == cutCpu)
                QVERIFY2(!have.isEmpty() && have.size() < want.size(), qPrintable(QString::number(have.size())));
            if (cpu > cutCpu) QCOMPARE(have.size(), 0);
            // The cut CPU's last line may differ: a function_graph entry is printed as a leaf
            // call by what follows it, which the cut took away.
            const qsizetype same = cpu == cutCpu ? have.size() - 1 : have.size();
            QVERIFY(have.mid(0, same) == want.mid(0, same));
        }
    }

    // Which CPU the data found belongs to: a CPU without pages writes nothing, so fewer data
    // than CPUs are numbered by the statistics of those that had events, or said to be guessed.
    void cutDataCpuNumbers()
    {
        auto stats = [](std::vector<std::pair<int, uint64_t>> readEvents) {
            std::vector<CpuStats> out;
            for (auto [cpu, events] : readEvents) {
                CpuStats one;
                one.cpu = cpu;
                one.readEvents = events;
                out.push_back(one);
            }
            return out;
        };
        bool guessed = true;
        QCOMPARE(cpuIdsOfFound(4, false, 4, {}, &guessed), (std::vector<int>{0, 1, 2, 3}));
        QVERIFY(!guessed);
        const auto twoOfFour = stats({{0, 0}, {1, 7}, {2, 0}, {3, 9}});
        QCOMPARE(cpuIdsOfFound(2, false, 4, twoOfFour, &guessed), (std::vector<int>{1, 3}));
        QVERIFY(!guessed);
        QCOMPARE(cpuIdsOfFound(1, true, 4, twoOfFour, &guessed), (std::vector<int>{1}));
        QVERIFY(!guessed);
        // A writer that stopped after a CPU: the first ones that had events.
        QCOMPARE(cpuIdsOfFound(1, false, 2, stats({{0, 5}, {1, 7}}), &guessed), (std::vector<int>{0}));
        QVERIFY(!guessed);
        QCOMPARE(cpuIdsOfFound(3, false, 4, twoOfFour, &guessed), (std::vector<int>{0, 1, 2}));
        QVERIFY(guessed);
        QCOMPARE(cpuIdsOfFound(2, true, 4, {}, &guessed), (std::vector<int>{0, 1}));
        QVERIFY(!guessed);
    }

    void truncatedFilesNeverCrash_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("opens"); // how many cuts open at least; -1: any number
        // v6-i686-funcgraph's kallsyms fill all but its last page. Those of format 7 keep their
        // CPUs' data offsets in options after their events: cut in the events, they open with
        // the pages before the cut, found by walking the data.
        QTest::newRow("v6-i686-funcgraph.dat") << "v6-i686-funcgraph.dat" << 0;
        for (const char* name : {"zlib-guest.dat", "instances.dat"}) QTest::newRow(name) << name << 1;
        // Its last cut falls inside the first compressed chunk: refused, saying so.
        QTest::newRow("execve-e2big.dat") << "execve-e2big.dat" << -1;
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
