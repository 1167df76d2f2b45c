// SPDX-License-Identifier: GPL-2.0-or-later
// The store read by several threads while one writer grows it, as during a live capture:
// readers filter, walk the merged order, find rows and read raw records of what is published,
// and never see a published row change; the grown store equals the bulk load. Run under
// ThreadSanitizer too (the tsan preset).
#include "testsupport.h"

#include "decode/eventformatter.h"
#include "load/pageparser.h"
#include "load/storeappender.h"
#include "query/eventfilter.h"
#include "query/search.h"
#include "store/growinglist.h"

#include <traceevent/event-parse.h>

#include <QTest>

#include <atomic>
#include <thread>

using namespace ringside;

namespace {

// What one reader thread checks, over and over, until the writer is done.
struct Reader {
    const Trace& trace;
    const EventStore& store;
    const std::atomic<bool>& done;
    int32_t hiddenPid;
    std::vector<bool> enterTypes;        // the event types whose name has "sys_enter"
    std::vector<EventRef> seen;          // the first rows, as first seen: they must never change
    EventFormatter* formatter = nullptr; // the trace's tep handle: one reader formats
    std::string failure;
    size_t rounds = 0;

    void fail(const std::string& what)
    {
        if (failure.empty()) failure = what;
    }

    void run()
    {
        while (failure.empty()) {
            const bool last = done.load(std::memory_order_acquire);
            check();
            ++rounds;
            if (last) break;
        }
    }

    void check()
    {
        const size_t rows = store.eventCount();
        // Rows never move: the first ones are what they were.
        MergedOrder::Cursor cursor(store.order(), 0);
        uint64_t previous = 0;
        for (size_t row = 0; row < rows && !cursor.atEnd(); ++row, cursor.next()) {
            const EventRef e = cursor.event();
            if (e.index >= store.stream(e.stream).columns.size())
                return fail("a published row names an unpublished event");
            const uint64_t t = store.timestamp(e);
            if (t < previous) return fail("published rows out of time order");
            previous = t;
            if (row < seen.size()) {
                if (!(seen[row] == e)) return fail("a published row changed");
            } else if (row < 4096) {
                seen.push_back(e);
            }
        }
        // A type counted is a type whose format is known: the filter lists name it by its count.
        if (formatter) {
            const size_t types = store.eventTypeCounts().size(); // the table never moves; its counts grow
            for (size_t type = 0; type < types; ++type)
                if (store.eventTypeCount(uint16_t(type)) && formatter->systemName(uint16_t(type)).empty())
                    return fail("event type " + std::to_string(type) + " is counted before its format is parsed");
        }
        if (!rows) return;
        // Rows found again from their events, and by time.
        for (size_t row = rounds % 97; row < rows; row += rows / 50 + 1) {
            const EventRef e = store.eventAt(row);
            if (store.rowOf(e) != row) return fail("rowOf does not find a published row");
            if (store.firstRowAtOrAfter(store.timestamp(e)) > row) return fail("firstRowAtOrAfter passed a row");
            RawRecord raw;
            std::string reason;
            if (!store.readRecord(e, raw, &reason)) return fail("readRecord: " + reason);
            if (formatter && formatter->reportLine(e).find(formatter->eventName(
                                 store.stream(e.stream).columns.eventType[e.index])) == std::string::npos)
                return fail("a formatted row lacks its event name");
        }
        // A filter over what is published: every row it keeps is not the hidden task's.
        FilterSpec spec;
        spec.hiddenPids.insert(hiddenPid);
        auto result = applyFilter(store, spec, nullptr);
        if (!result) return fail("filter failed");
        const RowSet& merged = (*result)->merged;
        if (merged.universe() > store.eventCount()) return fail("filter saw rows that were not published");
        for (size_t k = 0; k < merged.size(); k += merged.size() / 40 + 1) {
            const EventRef e = store.eventAt(merged.select(k));
            if (store.stream(e.stream).columns.pid[e.index] == hiddenPid) return fail("filter kept a hidden task");
        }
        // The table search: by event name from the columns over the rows published now, and
        // through formatted text (the workers' own tep handles) over a sample of them.
        SearchRequest byName;
        byName.column = SearchColumn::Event;
        byName.match = containsText("sys_enter", false);
        byName.threads = 2;
        const std::vector<size_t> found = searchRows(trace, byName);
        // Counted after the search: it searches the rows published when it starts, which may
        // be many more than were a moment before (a writer's next segment).
        const size_t searched = store.eventCount();
        for (size_t row : found) {
            if (row >= store.eventCount()) return fail("search found a row that was not published");
            const EventRef e = store.eventAt(row);
            if (!enterTypes[store.stream(e.stream).columns.eventType[e.index]])
                return fail("search found another event");
        }
        if (found.size() > searched) return fail("search found more rows than were published");
        RowSet sample(rows);
        for (size_t row = rounds % 7; row < rows; row += 61) sample.set(row);
        sample.seal();
        SearchRequest byText;
        byText.column = SearchColumn::Info;
        byText.match = containsText("NR ", false);
        byText.rows = &sample;
        byText.threads = 2;
        for (size_t k : searchRows(trace, byText))
            if (k >= sample.size()) return fail("text search found a row outside its rows");
    }
};

// The event types of `trace`'s store whose name has "sys_enter" (what the readers search for).
std::vector<bool> enterTypesOf(const Trace& trace)
{
    const EventStore& store = trace.store();
    std::vector<bool> enter(65536, false);
    for (size_t type = 0; type < store.eventTypeCounts().size(); ++type) {
        tep_event* event = store.eventTypeCounts()[type] ? tep_find_event(trace.tep(), int(type)) : nullptr;
        enter[type] = event && std::string(event->name).find("sys_enter") != std::string::npos;
    }
    return enter;
}

} // namespace

class TestConcurrentAppend : public QObject {
    Q_OBJECT
private slots:
    void readersWhileTheStoreGrows_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("execve-e2big") << "execve-e2big.dat";
        QTest::newRow("lost-events") << "lost-events.dat";
    }
    void readersWhileTheStoreGrows()
    {
        QFETCH(QString, name);
        auto reference = test::openOrFail(test::fixturePath(name));
        QVERIFY(reference);
        auto file = DatFile::open(test::fixturePath(name));
        QVERIFY(file);
        const EventStore& bulk = reference->store();
        // The busiest task: hiding it makes the filter's work visible.
        int32_t busiest = 0;
        uint64_t most = 0;
        for (const Task& t : bulk.tasks().all())
            if (t.events > most) most = t.events, busiest = t.pid;

        EventStore* grown = nullptr;
        auto growing = Trace::growing(test::fixturePath(name), &grown);
        QVERIFY(growing);
        const Trace& trace = **growing;
        EventStore& store = *grown;
        const std::vector<bool> enterTypes = enterTypesOf(*reference);
        EventFormatter formatter(trace);
        std::atomic<bool> done{false};
        std::vector<std::unique_ptr<Reader>> readers;
        std::vector<std::thread> threads;
        for (int r = 0; r < 2; ++r)
            readers.push_back(
                std::make_unique<Reader>(Reader{trace, store, done, busiest, enterTypes, {}, nullptr, {}, 0}));
        readers[0]->formatter = &formatter;
        size_t rounds = 0;
        bool appended = false;
        std::thread writer([&] {
            appended = test::appendRunByRun(**file, store, [&](size_t) {
                // Readers start once the first rows exist, then race the writer.
                if (rounds++ == 0)
                    for (auto& reader : readers) threads.emplace_back([r = reader.get()] { r->run(); });
            });
            done.store(true, std::memory_order_release);
        });
        writer.join();
        for (auto& t : threads) t.join();
        QVERIFY(appended);
        QVERIFY(rounds > 2);
        for (const auto& reader : readers) {
            QVERIFY2(reader->failure.empty(), reader->failure.c_str());
            QVERIFY(reader->rounds > 0);
        }
        QCOMPARE(store.eventCount(), bulk.eventCount());
        for (size_t row = 0; row < bulk.eventCount(); ++row) {
            const EventRef a = store.eventAt(row), b = bulk.eventAt(row);
            if (!(a == b)) QFAIL(qPrintable(QString("row %1 differs").arg(row)));
            const CpuColumns& ca = store.stream(a.stream).columns;
            const CpuColumns& cb = bulk.stream(b.stream).columns;
            if (ca.timestamp[a.index] != cb.timestamp[b.index] || ca.pid[a.index] != cb.pid[b.index] ||
                ca.eventType[a.index] != cb.eventType[b.index])
                QFAIL(qPrintable(QString("row %1: columns differ").arg(row)));
        }
    }

    // A recording read while the window shows it: its merged order is published as its pages
    // are parsed (the CPUs read side by side), readers race the workers, and the store ends
    // equal to the bulk load, with no event published late.
    void readersWhileARecordingLoads_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("execve-e2big") << "execve-e2big.dat";
        QTest::newRow("syscalls-8cpu") << "syscalls-8cpu.dat";
        QTest::newRow("sched-mix") << "sched-mix.dat";
    }
    void readersWhileARecordingLoads()
    {
        QFETCH(QString, name);
        auto reference = test::openOrFail(test::fixturePath(name));
        QVERIFY(reference);
        const EventStore& bulk = reference->store();
        auto unloaded = Trace::unloaded(test::fixturePath(name));
        QVERIFY(unloaded);
        Trace& trace = **unloaded;
        const EventStore& store = trace.store();
        const std::vector<bool> enterTypes = enterTypesOf(*reference);
        EventFormatter formatter(trace);
        std::atomic<bool> done{false};
        std::vector<std::unique_ptr<Reader>> readers;
        std::vector<std::thread> threads;
        for (int r = 0; r < 2; ++r)
            readers.push_back(std::make_unique<Reader>(Reader{trace, store, done, 0, enterTypes, {}, nullptr, {}, 0}));
        readers[0]->formatter = &formatter;
        for (auto& reader : readers) threads.emplace_back([r = reader.get()] { r->run(); });

        LoadOptions options;
        options.growing = true;
        options.analyse = false;
        options.threads = 1;      // segments parsed in the order planned
        options.segmentBytes = 1; // a segment per run of pages
        // Before the last segment is parsed, rows are out already: every other segment is done
        // by then (a bounded wait: the loading thread publishes them).
        size_t runs = 0;
        for (size_t i = 0; i < bulk.streamCount(); ++i) runs += bulk.stream(StreamId(uint16_t(i))).pages->runCount();
        QVERIFY(runs > bulk.streamCount());
        size_t rowsBeforeTheEnd = 0, segments = 0;
        options.beforeSegment = [&](size_t k) {
            ++segments;
            if (k + 1 != runs) return;
            for (int i = 0; i < 6000 && store.eventCount() == 0; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            rowsBeforeTheEnd = store.eventCount();
        };
        auto loaded = trace.load(options);
        done.store(true, std::memory_order_release);
        for (auto& t : threads) t.join();
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
        QCOMPARE(int(loaded.value()), int(LoadEnd::Whole));
        for (const auto& reader : readers) QVERIFY2(reader->failure.empty(), reader->failure.c_str());
        QCOMPARE(segments, runs);
        QVERIFY(rowsBeforeTheEnd > 0);
        QVERIFY(rowsBeforeTheEnd < bulk.eventCount());
        for (const Diagnostic& d : store.diagnostics().items()) QVERIFY2(d.code != "late-events", d.message.c_str());
        QCOMPARE(store.eventCount(), bulk.eventCount());
        for (size_t row = 0; row < bulk.eventCount(); ++row)
            if (!(store.eventAt(row) == bulk.eventAt(row))) QFAIL(qPrintable(QString("row %1 differs").arg(row)));
        QVERIFY(trace.analyse());
        trace.finishAnalyses();
        QCOMPARE(trace.taskIndex().size(), reference->taskIndex().size());
    }

    // Stopping a load the window shows keeps what was read: each stream's first events, in
    // order, the rest said missing; its analyses run on it.
    void aStoppedLoadKeepsWhatWasRead()
    {
        const std::string path = test::fixturePath("execve-e2big.dat");
        auto reference = test::openOrFail(path);
        QVERIFY(reference);
        const EventStore& bulk = reference->store();
        auto unloaded = Trace::unloaded(path);
        QVERIFY(unloaded);
        Trace& trace = **unloaded;
        std::atomic<bool> stop{false};
        LoadOptions options;
        options.growing = true;
        options.analyse = false;
        options.threads = 1;
        options.segmentBytes = 1;
        options.cancel = &stop;
        const size_t streams = bulk.streamCount();
        options.beforeSegment = [&](size_t k) {
            if (k == 2 * streams) stop = true; // this segment is finished, no other begun
        };
        auto loaded = trace.load(options);
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
        QCOMPARE(int(loaded.value()), int(LoadEnd::Stopped));
        const EventStore& store = trace.store();
        QVERIFY(store.eventCount() > 0);
        QVERIFY(store.eventCount() < bulk.eventCount());
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const CpuColumns& part = store.stream(StreamId(uint16_t(s))).columns;
            const CpuColumns& whole = bulk.stream(StreamId(uint16_t(s))).columns;
            QVERIFY(part.size() <= whole.size());
            // A stream read in part says so (what ran on its CPU after is not known).
            if (part.size() < whole.size()) QVERIFY(store.stream(StreamId(uint16_t(s))).endsEarly);
            for (size_t i = 0; i < part.size(); ++i)
                if (part.timestamp[i] != whole.timestamp[i] || part.eventType[i] != whole.eventType[i])
                    QFAIL(qPrintable(QString("stream %1 event %2 differs").arg(s).arg(i)));
        }
        uint64_t previous = 0;
        for (size_t row = 0; row < store.eventCount(); ++row) {
            QVERIFY(store.timestamp(store.eventAt(row)) >= previous);
            previous = store.timestamp(store.eventAt(row));
        }
        bool said = false;
        for (const Diagnostic& d : store.diagnostics().items()) said |= d.code == "load-stopped";
        QVERIFY(said);
        QVERIFY(trace.analyse());
        trace.finishAnalyses();
        QVERIFY(trace.analysesFinished());
        // A trace is loaded once.
        QVERIFY(!trace.load(options));
    }

    // Readers of a GrowingList see every published value, from its first block (made
    // without a directory) through the blocks the writer adds while they read.
    void growingListReadWhileWritten()
    {
        constexpr uint64_t kValues = 200000;
        GrowingList<uint64_t> list;
        std::atomic<bool> done{false};
        std::atomic<uint64_t> wrong{0}, reads{0};
        auto read = [&] {
            for (bool last = false; !last;) {
                last = done.load(std::memory_order_acquire);
                const size_t n = list.size();
                for (size_t i = n > 64 ? n - 64 : 0; i < n; ++i) wrong += list[i] != i * 3;
                if (n) wrong += list[0] != 0;
                ++reads;
            }
        };
        std::thread a(read), b(read);
        for (uint64_t i = 0; i < kValues; ++i) {
            list.stage(i * 3);
            if (i % 7 == 0) list.publish();
        }
        list.publish();
        done.store(true, std::memory_order_release);
        a.join();
        b.join();
        QCOMPARE(wrong.load(), uint64_t(0));
        QVERIFY(reads.load() >= 2); // each reader's last read came after the last value
        QCOMPARE(list.size(), size_t(kValues));
        for (size_t i = 0; i < kValues; ++i)
            if (list[i] != i * 3) QFAIL("a value moved");
    }

    // A stream added while rows are published copies nothing and changes no row; a stream
    // that stops delivering holds back publishing until it is advanced; data older than what
    // is published follows it, counted, never lost.
    void streamsJoinGoIdleAndArriveLate()
    {
        auto file = DatFile::open(test::fixturePath("execve-e2big.dat"));
        QVERIFY(file);
        const FileInfo& info = (*file)->info();
        EventStore store;
        StoreAppender appender(store, {});
        appender.addBuffer({"", info.traceClock, info.pageSize, {}, {}});
        appender.setLayout({info.kernelLongSize, info.bigEndian, 8});
        const auto& cpus = (*file)->buffers()[0].cpus;
        QVERIFY(cpus.size() >= 2);
        auto source = [&](size_t c) {
            return std::make_unique<FilePageSource>((*file)->mapping(), cpus[c], info.codec, info.pageSize);
        };
        TimestampConverter converter(info);
        std::vector<uint64_t> perType(65536);
        std::vector<uint8_t> buffer, scratch;
        // Parses page run `run` of CPU `c` into a segment.
        auto segmentOf = [&](size_t c, const PageSource& pages, size_t run) {
            PageParser parser(info.kernelLongSize, info.bigEndian, CommonLayout(), converter, int(c));
            std::string reason;
            CpuColumns segment;
            CpuLoadStats stats;
            if (!pages.readRun(pages.run(run), buffer, scratch, &reason)) return segment;
            for (uint32_t p = 0; p < pages.run(run).pages; ++p)
                parser.parse(buffer.data() + size_t(p) * info.pageSize, info.pageSize, segment, stats, perType.data());
            return segment;
        };
        const StreamId cpu0 = appender.addStream(0, cpus[0].cpu, source(0));
        const StreamId cpu1 = appender.addStream(0, cpus[1].cpu, source(1));
        auto pages0 = source(0), pages1 = source(1);
        QVERIFY(pages0->runCount() >= 2);
        // CPU 1 delivers its first run, CPU 0 everything: the stream that ends first is idle
        // from then on, and the other's later events wait for it.
        appender.append(cpu1, segmentOf(1, *pages1, 0));
        for (size_t run = 0; run < pages0->runCount(); ++run) appender.append(cpu0, segmentOf(0, *pages0, run));
        auto lastOf = [&](StreamId s) { return store.stream(s).columns.timestamp[store.stream(s).columns.size() - 1]; };
        const StreamId idle = lastOf(cpu0) < lastOf(cpu1) ? cpu0 : cpu1;
        const StreamId busy = idle == cpu0 ? cpu1 : cpu0;
        const size_t total = store.stream(cpu0).columns.size() + store.stream(cpu1).columns.size();
        appender.publish(false);
        const size_t held = store.eventCount();
        QVERIFY(held < total);
        for (size_t row = 0; row < held; ++row) QVERIFY(store.timestamp(store.eventAt(row)) < lastOf(idle));
        // Told that the idle one has delivered everything up to the end, the rest (but the
        // busy one's last instant) goes out; told the same of the busy one, all of it.
        const uint64_t end = lastOf(busy) + 1;
        appender.advance(idle, end);
        appender.publish(false);
        QVERIFY(store.eventCount() > held);
        appender.advance(busy, end);
        appender.publish(false);
        QCOMPARE(store.eventCount(), total);
        std::vector<EventRef> before;
        for (size_t row = 0; row < store.eventCount(); ++row) before.push_back(store.eventAt(row));
        // A CPU joins: nothing published moves.
        const StreamId joined = appender.addStream(0, 7, source(1));
        QCOMPARE(store.streamCount(), size_t(3));
        for (size_t row = 0; row < before.size(); ++row) QVERIFY(store.eventAt(row) == before[row]);
        // The new CPU then delivers data older than what is published: it follows, counted.
        CpuColumns old = segmentOf(1, *pages1, 0);
        const size_t late = old.size();
        size_t older = 0; // strictly older than the last published row: out of time order
        for (size_t i = 0; i < late; ++i) older += old.timestamp[i] < store.lastTimestamp();
        QVERIFY(older > 0);
        appender.append(joined, std::move(old));
        appender.publish(true);
        QCOMPARE(appender.lateEvents(), uint64_t(older));
        for (size_t row = 0; row < before.size(); ++row) QVERIFY(store.eventAt(row) == before[row]);
        QCOMPARE(store.eventCount(), before.size() + late);
        QCOMPARE(store.stream(joined).columns.size(), late);
        bool diagnosed = false;
        for (const auto& d : store.diagnostics().items()) diagnosed |= d.code == "late-events";
        QVERIFY(diagnosed);
        // Every row is found again from its event, late ones too.
        for (size_t row = 0; row < store.eventCount(); ++row) QCOMPARE(store.rowOf(store.eventAt(row)), row);
    }
};

QTEST_GUILESS_MAIN(TestConcurrentAppend)
#include "tst_concurrentappend.moc"
