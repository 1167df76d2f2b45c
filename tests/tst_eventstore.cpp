// SPDX-License-Identifier: GPL-2.0-or-later
// The columnar store: per-CPU columns, the merged order, tasks, lost events, raw records.
#include "testsupport.h"

#include "decode/eventformatter.h"
#include "file/datfile.h"
#include "file/spoolpagesource.h"
#include "load/pageparser.h"
#include "load/storeappender.h"
#include "store/chunkedcolumn.h"
#include "store/cpucolumns.h"
#include "store/growinglist.h"
#include "store/mergedorder.h"
#include "store/timestampcolumn.h"

#include <traceevent/event-parse.h>

#include <QRegularExpression>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sys/resource.h>

using namespace ringside;

class TestEventStore : public QObject {
    Q_OBJECT
private slots:
    void mergedOrderIsTimeOrdered()
    {
        auto trace = test::openOrFail(test::fixturePath("instances.dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        QCOMPARE(store.eventCount(), size_t(7275));
        QCOMPARE(store.streamCount(), size_t(4));
        size_t perStream = 0;
        for (size_t s = 0; s < store.streamCount(); ++s)
            perStream += store.stream(StreamId(static_cast<uint16_t>(s))).columns.size();
        QCOMPARE(perStream, store.eventCount());
        std::set<uint64_t> seen;
        MergedOrder::Cursor cursor(store.order(), 0);
        for (size_t row = 0; row < store.eventCount(); ++row, cursor.next()) {
            EventRef e = store.eventAt(row);
            QVERIFY(cursor.event() == e);
            QVERIFY(e.index < store.stream(e.stream).columns.size());
            QVERIFY(seen.insert(EventStore::key(e)).second);
            if (row) {
                EventRef prev = store.eventAt(row - 1);
                QVERIFY(store.timestamp(prev) < store.timestamp(e) ||
                        (store.timestamp(prev) == store.timestamp(e) && prev.stream.value <= e.stream.value));
            }
        }
        QCOMPARE(store.firstTimestamp(), store.timestamp(store.eventAt(0)));
    }

    void countsPerCpuAndType()
    {
        auto trace = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        QCOMPARE(store.stream(StreamId(0)).columns.size(), size_t(4231));
        QCOMPARE(store.stream(StreamId(1)).columns.size(), size_t(437));
        tep_event* exitExecve = tep_find_event_by_name(trace->tep(), "syscalls", "sys_exit_execve");
        QVERIFY(exitExecve);
        QCOMPARE(store.eventTypeCounts()[static_cast<size_t>(exitExecve->id)], uint64_t(4));
    }

    void lostEventsArePlacedAndCounted()
    {
        auto trace = test::openOrFail(test::fixturePath("lost-events.dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        const Stream& cpu1 = store.stream(StreamId(1));
        QCOMPARE(cpu1.columns.lostTotal, uint64_t(35928));
        QCOMPARE(cpu1.columns.lostBefore(0), int64_t(35928));
        QCOMPARE(cpu1.statsOverrun, uint64_t(35928));
        bool diagnosed = false;
        for (const auto& d : store.diagnostics().items()) diagnosed |= d.code == "lost-events";
        QVERIFY(diagnosed);
    }

    void tasksAreInterned()
    {
        auto trace = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(trace);
        const TaskTable& tasks = trace->store().tasks();
        QVERIFY(tasks.size() > 3);
        uint64_t events = 0;
        for (const Task& t : tasks.all()) events += t.events;
        QCOMPARE(events, uint64_t(trace->store().eventCount()));
        TaskId dpkg = tasks.find(19702);
        QVERIFY(dpkg.valid());
        QCOMPARE(tasks[dpkg].comm, std::string("dpkg"));
        QCOMPARE(tasks[dpkg].events, uint64_t(1133));
        QVERIFY(!tasks.find(999999).valid());
    }

    void rawRecordsMatchColumns()
    {
        auto trace = test::openOrFail(test::fixturePath("fgraph-openat.dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        const TepAccess tep = trace->tep();
        RawRecord raw;
        for (size_t row = 0; row < store.eventCount(); row += 97) {
            EventRef e = store.eventAt(row);
            std::string reason;
            QVERIFY2(store.readRecord(e, raw, &reason), reason.c_str());
            tep_record record{};
            record.data = const_cast<uint8_t*>(raw.data);
            record.size = raw.size;
            QCOMPARE(tep_data_type(tep, &record), int(store.stream(e.stream).columns.eventType[e.index]));
            QCOMPARE(tep_data_pid(tep, &record), store.stream(e.stream).columns.pid[e.index]);
        }
    }

    // The live-capture path: pages arrive a run at a time, interleaved across CPUs, and are
    // published while arriving; the result must equal the bulk load.
    void appendingEqualsBulkLoad()
    {
        auto reference = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(reference);
        auto file = DatFile::open(test::fixturePath("execve-e2big.dat"));
        QVERIFY(file);
        EventStore store;
        size_t rounds = 0, firstPublished = 0;
        uint64_t late = 0;
        QVERIFY(test::appendRunByRun(
            **file, store,
            [&](size_t published) {
                QCOMPARE(store.eventCount(), published); // readers only ever see published rows
                if (!rounds++) firstPublished = published;
            },
            &late));
        QVERIFY(firstPublished > 0); // rows became visible while data was still arriving
        QCOMPARE(late, uint64_t(0));
        const EventStore& bulk = reference->store();
        QCOMPARE(store.eventCount(), bulk.eventCount());
        for (size_t row = 0; row < bulk.eventCount(); ++row)
            if (!(store.eventAt(row) == bulk.eventAt(row))) QFAIL(qPrintable(QString("row %1 differs").arg(row)));
        QCOMPARE(store.tasks().size(), bulk.tasks().size());
        QCOMPARE(store.eventTypeCounts(), bulk.eventTypeCounts());
        QCOMPARE(store.lastTimestamp(), bulk.lastTimestamp());
    }

    void progressIsReportedAndLoadCanBeCancelled()
    {
        std::vector<LoadProgress> seen;
        LoadOptions options;
        options.progress = [&](const LoadProgress& p) { seen.push_back(p); };
        auto trace = Trace::open(test::fixturePath("lost-events.dat"), options);
        QVERIFY(trace);
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back().bytesDone, seen.back().bytesTotal);
        QCOMPARE(seen.back().events, uint64_t((*trace)->store().eventCount()));
        for (size_t i = 1; i < seen.size(); ++i)
            if (seen[i].stage == LoadProgress::Stage::Pages) QVERIFY(seen[i].bytesDone >= seen[i - 1].bytesDone);
        // The stages in order: the pages, then the analyses (the consumers fed).
        for (size_t i = 1; i < seen.size(); ++i) QVERIFY(seen[i].stage >= seen[i - 1].stage);
        QCOMPARE(seen.back().stage, LoadProgress::Stage::Consumers);
        QVERIFY(std::any_of(seen.begin(), seen.end(),
                            [](const LoadProgress& p) { return p.stage == LoadProgress::Stage::Consumers; }));
        for (const LoadProgress& p : seen)
            if (p.stage == LoadProgress::Stage::Consumers) QVERIFY(p.recordsDone <= p.recordsTotal);

        // Cancelled while the consumers are fed.
        std::atomic<bool> late{false};
        options.cancel = &late;
        options.progress = [&](const LoadProgress& p) {
            if (p.stage == LoadProgress::Stage::Consumers) late = true;
        };
        auto stopped = Trace::open(test::fixturePath("lost-events.dat"), options);
        QVERIFY(!stopped);
        QVERIFY(QString::fromStdString(stopped.error().message).contains("cancelled"));

        std::atomic<bool> cancel{true};
        options.cancel = &cancel;
        auto cancelled = Trace::open(test::fixturePath("lost-events.dat"), options);
        QVERIFY(!cancelled);
        QVERIFY(QString::fromStdString(cancelled.error().message).contains("cancelled"));
    }

    // Which task ran where, captured from sched_switch while loading.
    void occupancyFollowsContextSwitches()
    {
        auto trace = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(trace);
        const RunningTasks running = trace->runningTasks();
        QVERIFY(running.available());
        const EventStore& store = trace->store();
        tep_event* sw = tep_find_event_by_name(trace->tep(), "sched", "sched_switch");
        EventFormatter formatter(*trace);
        size_t switches = 0;
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const StreamId id(static_cast<uint16_t>(s));
            const auto& c = store.stream(id).columns;
            const auto* rows = running.table()->byOwner().of(id.value);
            size_t row = 1; // rows[0] is the task before the first switch
            for (uint32_t i = 0; i < c.size(); ++i) {
                if (c.eventType[i] != sw->id) continue;
                ++switches;
                // Each switch ends a run and begins the next: its task is the switch's
                // next_pid, as libtraceevent decodes it; the last one runs on, open.
                QVERIFY(rows && row <= rows->size());
                QCOMPARE(row < rows->size() ? (*rows)[row].start : running.table()->openOf(id.value).start,
                         c.timestamp[i]);
                std::string nextPid;
                for (const FieldValue& f : formatter.fields({id, i}))
                    if (f.name == "next_pid") nextPid = f.value;
                const TaskId task = running.taskAt(id, c.timestamp[i]);
                QVERIFY(task.valid());
                QCOMPARE(QString::number(trace->taskIndex().task(task).pid), QString::fromStdString(nextPid));
                ++row;
            }
            if (rows) QCOMPARE(row, rows->size() + 1);
        }
        QCOMPARE(switches, size_t(806));
    }

    // Every task is named as trace-cmd report names its events: the saved comm, else the first
    // name an event gave it (a task forked during the recording, which the kernel's short
    // saved list forgot). Expected: "PID NAME" per task, from trace-cmd report.
    void tasksAreNamedAsTraceCmdNamesThem_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("unsaved"); // tasks the saved comms lack
        // 13 tasks named only by events; 8 of them exec'd (bash, then head, df...): trace-cmd
        // keeps the first name.
        QTest::newRow("langraph-perfclock") << "langraph-perfclock" << 13;
    }
    void tasksAreNamedAsTraceCmdNamesThem()
    {
        QFETCH(QString, fixture);
        QFETCH(int, unsaved);
        auto trace = test::openOrFail(test::fixturePath(fixture + ".dat"));
        QVERIFY(trace);
        // The same names once the tasks are known, before the other analyses read a record (a
        // window shows the store meanwhile, a long while on a big recording).
        LoadOptions options;
        options.analyse = false;
        auto early = Trace::open(test::fixturePath(fixture + ".dat"), options);
        QVERIFY(early);
        std::map<int32_t, std::string> namedEarly;
        bool told = false;
        QVERIFY(early.value()->analyse({}, nullptr, UINT64_MAX, [&] {
            told = true;
            for (const Task& task : early.value()->store().tasks().all())
                namedEarly[task.pid] = early.value()->taskName(task.pid);
        }));
        QVERIFY(told);
        QFile expected(QString::fromStdString(test::fixturePath(fixture + ".tasks.txt")));
        QVERIFY(expected.open(QIODevice::ReadOnly));
        int tasks = 0, unsavedSeen = 0;
        while (!expected.atEnd()) {
            const QString line = QString::fromUtf8(expected.readLine()).chopped(1);
            const qsizetype space = line.indexOf(' ');
            const int32_t pid = line.left(space).toInt();
            QCOMPARE(QString::fromStdString(trace->taskName(pid)), line.mid(space + 1));
            QCOMPARE(QString::fromStdString(namedEarly.at(pid)), line.mid(space + 1));
            const std::string saved = trace->store().tasks().comm(pid);
            if (pid && (saved.empty() || saved == "<...>")) ++unsavedSeen;
            ++tasks;
        }
        QCOMPARE(size_t(tasks), trace->store().tasks().size());
        QCOMPARE(unsavedSeen, unsaved);
        QCOMPARE(trace->taskName(INT32_MAX), std::string("<...>"));
    }

    // raw_syscalls' args (unsigned long[6]) read as six numbers in hex, as the event's print
    // format shows them (trace-cmd report: "NR 33 (b, 1, 56204e97a9bc, 0, 7, b)"), not as
    // the 48 bytes libtraceevent prints for an array.
    void numberArraysReadAsNumbers()
    {
        auto trace = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(trace);
        tep_event* enter = tep_find_event_by_name(trace->tep(), "raw_syscalls", "sys_enter");
        QVERIFY(enter);
        EventFormatter formatter(*trace);
        const EventStore& store = trace->store();
        size_t enters = 0, dup2 = 0;
        const QRegularExpression sixNumbers("^0x[0-9a-f]+(, 0x[0-9a-f]+){5}$");
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const StreamId id(static_cast<uint16_t>(s));
            const auto& c = store.stream(id).columns;
            for (uint32_t i = 0; i < c.size(); ++i) {
                if (c.eventType[i] != enter->id) continue;
                std::string nr, args;
                for (const FieldValue& f : formatter.fields({id, i}))
                    if (f.name == "id") nr = f.value;
                    else if (f.name == "args") args = f.value;
                QVERIFY2(sixNumbers.match(QString::fromStdString(args)).hasMatch(), args.c_str());
                ++enters;
                if (nr == "33" && args == "0xb, 0x1, 0x56204e97a9bc, 0x0, 0x7, 0xb") ++dup2;
            }
        }
        QVERIFY(enters > 100);
        QCOMPARE(dup2, size_t(2)); // as often as in the report
    }

    // A Python process starting four threads and a shell, recorded with task:task_newtask.
    void processGroupsFromThreadCreation()
    {
        auto trace = test::openOrFail(test::fixturePath("threads.dat"));
        QVERIFY(trace);
        const ProcessGroups& processes = trace->processes();
        QVERIFY(processes.available());
        const std::vector<int32_t> python{17569, 17610, 17611, 17612, 17613};
        QCOMPARE(processes.members(17611), python);
        QCOMPARE(processes.leader(17613), 17569);
        QCOMPARE(processes.leader(17569), 17569);
        // Forked children (no CLONE_THREAD) are processes of their own.
        QCOMPARE(processes.members(17570), std::vector<int32_t>{17570});
        auto noTasks = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(!noTasks->processes().available());
        QCOMPARE(noTasks->processes().members(42), std::vector<int32_t>{42});
    }

    void instancesBorrowTheirCpusOccupancy()
    {
        auto trace = test::openOrFail(test::fixturePath("instances.dat"));
        QVERIFY(trace);
        // Streams 2 and 3 ("second", irq and timer events only) share CPU 0 and 1's runs.
        const RunningTasks running = trace->runningTasks();
        QCOMPARE(running.shownStream(StreamId(0)).value, uint16_t(0));
        QCOMPARE(running.shownStream(StreamId(2)).value, uint16_t(0));
        QCOMPARE(running.shownStream(StreamId(3)).value, uint16_t(1));
        const EventStore& store = trace->store();
        const uint64_t middle = store.firstTimestamp() + (store.lastTimestamp() - store.firstTimestamp()) / 2;
        QVERIFY(running.taskAt(StreamId(2), middle).valid());
        QCOMPARE(running.taskAt(StreamId(2), middle), running.taskAt(StreamId(0), middle));
        QCOMPARE(running.taskAt(StreamId(3), middle), running.taskAt(StreamId(1), middle));
    }

    void chunkedColumnAppendAndResize()
    {
        ChunkedColumn<uint32_t, 4> a, b; // 16 values a block: appends cross blocks
        for (uint32_t i = 0; i < 37; ++i) a.push_back(i);
        for (uint32_t i = 37; i < 100; ++i) b.push_back(i);
        a.append(std::move(b));
        QCOMPARE(a.size(), size_t(100));
        QCOMPARE(b.size(), size_t(0));
        for (uint32_t i = 0; i < 100; ++i) QCOMPARE(a[i], i);
        QCOMPARE(a.lowerBound(50, 0, a.size()), size_t(50));
        ChunkedColumn<uint32_t, 4> c;
        c.resize(33);
        QCOMPARE(c.size(), size_t(33));
    }

    // A capture's pages in an unnamed file read back as they were written, also while more
    // come; where no file can be made they stay in memory, and nothing is lost.
    void spooledPagesReadBack()
    {
        constexpr uint32_t kPage = 4096;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const std::string& folder : {dir.path().toStdString(), std::string("/nonexistent/ringside")}) {
            SpoolPageSource source(kPage, folder);
            QCOMPARE(source.spooling(), folder != "/nonexistent/ringside");
            std::vector<uint8_t> pages;
            uint64_t written = 0;
            for (uint32_t run = 1; run <= 4; ++run) {
                std::vector<uint8_t> batch(size_t(run) * kPage);
                for (size_t b = 0; b < batch.size(); ++b) batch[b] = uint8_t((written + b) * 7 + b / kPage);
                source.append(batch.data(), run);
                pages.insert(pages.end(), batch.begin(), batch.end());
                written += batch.size();
            }
            QCOMPARE(source.runCount(), size_t(4));
            QCOMPARE(source.streamBytes(), uint64_t(pages.size()));
            QCOMPARE(source.memoryBytes(), source.spooling() ? uint64_t(0) : uint64_t(pages.size()));
            std::vector<uint8_t> out, scratch;
            std::string reason;
            for (size_t r = 0; r < source.runCount(); ++r) {
                const PageRun run = source.run(r);
                QVERIFY2(source.readRun(run, out, scratch, &reason), reason.c_str());
                QCOMPARE(out.size(), size_t(run.pages) * kPage + PageSource::kPadding);
                QVERIFY(std::equal(out.begin(), out.begin() + run.pages * kPage, pages.begin() + run.firstPage * kPage));
                QVERIFY(std::all_of(out.begin() + run.pages * kPage, out.end(), [](uint8_t b) { return b == 0; }));
            }
            for (uint64_t page = 0; page < pages.size() / kPage; ++page) {
                QVERIFY2(source.readPage(page, out, &reason), reason.c_str());
                QVERIFY(std::equal(out.begin(), out.begin() + kPage, pages.begin() + page * kPage));
            }
            QVERIFY(!source.readPage(pages.size() / kPage, out, &reason));
        }
        // A disk that fills up: the runs the file could not take stay in memory.
        struct rlimit before {};
        QCOMPARE(getrlimit(RLIMIT_FSIZE, &before), 0);
        const auto previous = std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit small = before;
        small.rlim_cur = 3 * kPage;
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
        SpoolPageSource source(kPage, dir.path().toStdString());
        std::vector<uint8_t> pages(4 * kPage);
        for (size_t b = 0; b < pages.size(); ++b) pages[b] = uint8_t(b * 13 + b / kPage);
        source.append(pages.data(), 2);
        source.append(pages.data() + 2 * kPage, 2); // past the limit
        setrlimit(RLIMIT_FSIZE, &before);
        std::signal(SIGXFSZ, previous);
        QVERIFY(!source.spooling());
        QCOMPARE(source.memoryBytes(), uint64_t(2 * kPage));
        std::vector<uint8_t> out;
        std::string reason;
        for (uint64_t page = 0; page < 4; ++page) {
            QVERIFY2(source.readPage(page, out, &reason), reason.c_str());
            QVERIFY(std::equal(out.begin(), out.begin() + kPage, pages.begin() + page * kPage));
        }
    }

    // A list's values stay where they were put across every block edge (4, 12, 28, ...),
    // values that own memory are destroyed once, a moved list takes its values, and a list of
    // a few values costs one small block: tables keep a list per task, for tens of thousands.
    void growingListKeepsValuesAcrossBlocks()
    {
        GrowingList<uint64_t> numbers;
        QCOMPARE(numbers.memoryBytes(), size_t(0));
        numbers.push_back(7);
        QCOMPARE(numbers.memoryBytes(), 4 * sizeof(uint64_t));
        for (uint64_t i = 1; i < 4; ++i) numbers.push_back(7 + i);
        QCOMPARE(numbers.memoryBytes(), 4 * sizeof(uint64_t)); // still no directory
        std::vector<const uint64_t*> places;
        for (size_t i = 0; i < 4; ++i) places.push_back(&numbers[i]);
        for (uint64_t i = 4; i < 100000; ++i) numbers.push_back(7 + i);
        QCOMPARE(numbers.size(), size_t(100000));
        for (size_t i = 0; i < 4; ++i) QCOMPARE(&numbers[i], places[i]); // never moved
        for (size_t i = 0; i < numbers.size(); ++i)
            if (numbers[i] != 7 + i) QFAIL(qPrintable(QString("value %1 is %2").arg(i).arg(numbers[i])));
        QVERIFY(numbers.memoryBytes() < 2 * 100000 * sizeof(uint64_t) + 1024);
        QCOMPARE(size_t(numbers.end() - numbers.begin()), numbers.size());
        QCOMPARE(numbers.lowerBound(uint64_t(5007), 0, numbers.size(), [](uint64_t v) { return v; }), size_t(5000));

        // Owning values: each destroyed once, whether the list stayed in its first block or not.
        auto owned = std::make_shared<int>(1);
        for (const size_t count : {size_t(0), size_t(1), size_t(4), size_t(5), size_t(13), size_t(1000)}) {
            {
                GrowingList<std::shared_ptr<int>> list;
                for (size_t i = 0; i < count; ++i) list.push_back(owned);
                QCOMPARE(size_t(owned.use_count()), count + 1);
                GrowingList<std::shared_ptr<int>> moved(std::move(list));
                QCOMPARE(list.size(), size_t(0));
                QCOMPARE(list.memoryBytes(), size_t(0));
                QCOMPARE(moved.size(), count);
                if (count) QCOMPARE(moved.back().get(), owned.get());
                QCOMPARE(size_t(owned.use_count()), count + 1);
            }
            QCOMPARE(owned.use_count(), 1L);
        }
    }

    // Times are kept in 4 bytes and the high words where they change: every time must come
    // back exactly, whatever the steps between them (steady, crossing 2^32 inside a block,
    // sparse with a new high word each time, random, backwards), pushed one by one or
    // appended in batches.
    // Values coded per block: every value comes back after pushes and after appends at a
    // block boundary (blocks adopted) and off it (re-coded), also where one block holds 2^16
    // distinct values; a column of few distinct values costs 2 bytes a value.
    void dictionaryColumnKeepsEveryValue()
    {
        constexpr size_t kBlock = DictionaryColumn<int32_t>::kBlockSize;
        std::mt19937 random(11);
        auto valueAt = [&](size_t i, int kind) -> int32_t {
            switch (kind) {
            case 0: return int32_t(random() % 7);              // few values
            case 1: return int32_t(i);                         // every value distinct
            case 2: return int32_t(random() >> 1) - (1 << 30); // anything, negatives too
            default: return int32_t(i / 1000 % 3 == 0 ? 5 : i); // runs and distinct values
            }
        };
        for (const size_t firstSize : {size_t(0), size_t(3), kBlock, kBlock + 17}) {
            DictionaryColumn<int32_t> column;
            std::vector<int32_t> expected;
            for (size_t i = 0; i < firstSize; ++i) {
                expected.push_back(valueAt(i, int(i % 4)));
                column.push_back(expected.back());
            }
            DictionaryColumn<int32_t> batch;
            for (int round = 0; round < 4; ++round) {
                const size_t events = round == 1 ? 2 * kBlock + 5 : 777 + size_t(round) * 1000;
                for (size_t i = 0; i < events; ++i) {
                    expected.push_back(valueAt(expected.size(), round));
                    batch.push_back(expected.back());
                }
                column.append(std::move(batch), round % 2 == 0);
                QCOMPARE(batch.size(), size_t(0));
                QCOMPARE(column.size(), expected.size());
            }
            for (size_t i = 0; i < 10; ++i) { // goes on after the appends
                expected.push_back(int32_t(i % 2));
                column.push_back(expected.back());
            }
            for (size_t i = 0; i < expected.size(); ++i)
                if (column[i] != expected[i])
                    QFAIL(qPrintable(QStringLiteral("first %1: value %2 is %3, not %4")
                                         .arg(firstSize)
                                         .arg(i)
                                         .arg(column[i])
                                         .arg(expected[i])));
        }
        DictionaryColumn<int32_t> few;
        for (size_t i = 0; i < 8 * kBlock; ++i) few.push_back(int32_t(i % 300) * 1000);
        QVERIFY(few.memoryBytes() < 8 * kBlock * 2 + 8 * 300 * 4 + 65536);
    }

    void timestampColumnKeepsEveryTime()
    {
        std::mt19937_64 random(27);
        const size_t n = 3 * TimestampColumn::kBlockSize + 123;
        std::vector<std::vector<uint64_t>> series(5);
        for (size_t i = 0; i < n; ++i) {
            series[0].push_back((uint64_t(7) << 32) - 1000 + i * 40000); // crosses 2^32 steps mid-block
            series[1].push_back(1000000000000ull + i * 5000000000ull);   // a new high word every time
            series[2].push_back(random());
            series[3].push_back(~uint64_t(0) - i * 70000);
            series[4].push_back(i < n / 2 ? 100 + i : (uint64_t(3) << 32) + i); // one jump
        }
        for (const auto& times : series) {
            // Batches filled again (a capture's), and segments each a column of its own (a
            // load's), of sizes that end inside blocks and span them.
            TimestampColumn pushed, appended, batch, joined, segment;
            for (size_t i = 0; i < times.size(); ++i) {
                pushed.push_back(times[i]);
                batch.push_back(times[i]);
                segment.push_back(times[i]);
                if (i % 7000 == 6999 || i + 1 == times.size()) appended.append(std::move(batch), true);
                if (i % 70001 == 70000 || i + 1 == times.size()) joined.append(std::move(segment));
            }
            QCOMPARE(pushed.size(), times.size());
            QCOMPARE(appended.size(), times.size());
            QCOMPARE(joined.size(), times.size());
            QCOMPARE(batch.size(), size_t(0));
            for (size_t i = 0; i < times.size(); ++i) {
                if (pushed[i] != times[i] || appended[i] != times[i] || joined[i] != times[i])
                    QFAIL(qPrintable(QString("time %1: %2, %3 and %4 read back, %5 stored")
                                         .arg(i)
                                         .arg(pushed[i])
                                         .arg(appended[i])
                                         .arg(joined[i])
                                         .arg(times[i])));
            }
            QCOMPARE(pushed.back(), times.back());
            if (std::is_sorted(times.begin(), times.end())) {
                for (size_t i : {size_t(0), size_t(1), n / 2, n - 1}) {
                    QCOMPARE(pushed.lowerBound(times[i], 0, n), i);
                    QCOMPARE(pushed.lowerBound(times[i] + 1, 0, n), i + 1);
                }
            }
        }
        // Half the bytes of 64-bit times, for a steady trace.
        TimestampColumn steady;
        for (size_t i = 0; i < 4 * TimestampColumn::kBlockSize; ++i) steady.push_back(i * 100);
        QVERIFY(steady.memoryBytes() < 4 * TimestampColumn::kBlockSize * 4 + 65536);
    }

    // A live capture's batch is filled, appended and filled again: it keeps its first block
    // (no mapping per batch) and never holds more than its values need.
    void batchColumnsAreReused()
    {
        const size_t kTimestampSideBlock = 1024 * sizeof(uint64_t); // its high words' blocks
        // The store holds an event already, so that it copies the batches rather than adopt
        // their blocks (which it does at a block boundary).
        CpuColumns store, batch;
        uint64_t next = 0;
        store.push_back(next, 0, 0, 0, 0), store.pageFirstEvent.push_back(0);
        store.publish();
        ++next;
        size_t keptPidBytes = 0;
        for (int round = 0; round < 5; ++round) {
            const size_t events = round == 3 ? TimestampColumn::kBlockSize + 10 : 1000 + size_t(round);
            for (size_t i = 0; i < events; ++i, ++next)
                batch.push_back(next, uint16_t(next), int32_t(next), uint8_t(next), uint8_t(next >> 3));
            batch.pageFirstEvent.push_back(0);
            batch.publish();
            const size_t blocks = (events + TimestampColumn::kBlockSize - 1) / TimestampColumn::kBlockSize;
            QCOMPARE(batch.timestamp.memoryBytes(), blocks * ChunkedColumn<uint32_t>::kBlockBytes + 2 * kTimestampSideBlock);
            store.appendBatch(batch);
            QCOMPARE(batch.size(), size_t(0));
            QCOMPARE(batch.timestamp.size(), size_t(0));
            QCOMPARE(batch.pid.size(), size_t(0));
            QCOMPARE(batch.eventType.size(), size_t(0));
            QCOMPARE(batch.pageFirstEvent.size(), size_t(0));
            QCOMPARE(batch.timestamp.memoryBytes(), ChunkedColumn<uint32_t>::kBlockBytes + 2 * kTimestampSideBlock);
            if (round == 0) keptPidBytes = batch.pid.memoryBytes();
            QCOMPARE(batch.pid.memoryBytes(), keptPidBytes); // its first blocks, no more
            QCOMPARE(batch.shapes.memoryBytes(), keptPidBytes);
        }
        QCOMPARE(store.size(), size_t(next));
        QCOMPARE(store.pageFirstEvent.size(), size_t(6));
        for (size_t i = 0; i < next; ++i) {
            QCOMPARE(store.timestamp[i], uint64_t(i));
            QCOMPARE(store.pid[i], int32_t(i));
            if (store.eventType[i] != uint16_t(i) || store.flags[i] != uint8_t(i) || store.preemptCount[i] != uint8_t(i >> 3))
                QFAIL("event shapes differ");
        }
    }

    // Rows name their stream in one byte up to 256 streams; a capture that gains more widens
    // them, and every row keeps its stream and its event; a merge of more is wide at once.
    void mergedOrderWidensPast256Streams()
    {
        MergedOrder order(3);
        std::vector<uint16_t> expected;
        for (size_t r = 0; r < 5000; ++r) {
            expected.push_back(uint16_t(r % 3));
            order.append(StreamId(expected.back()));
        }
        const size_t narrowBytes = order.memoryBytes();
        while (order.streamCount() < 300) order.addStream();
        for (size_t r = 0; r < 3000; ++r) {
            expected.push_back(uint16_t(r % 300));
            order.append(StreamId(expected.back()));
        }
        QVERIFY(order.memoryBytes() > narrowBytes);
        std::vector<uint32_t> next(300, 0);
        for (size_t r = 0; r < expected.size(); ++r) {
            if (order.streamAt(r).value != expected[r]) QFAIL(qPrintable(QStringLiteral("row %1").arg(r)));
            const EventRef event = order.eventAt(r);
            if (event.stream.value != expected[r] || event.index != next[expected[r]]++)
                QFAIL(qPrintable(QStringLiteral("event of row %1").arg(r)));
        }
        std::vector<TimestampColumn> times(300);
        std::vector<const TimestampColumn*> columns;
        for (size_t s = 0; s < times.size(); ++s) {
            times[s].push_back(1000 - s);
            columns.push_back(&times[s]);
        }
        MergedOrder merged;
        MergedOrder::mergeStreams(columns, true, 2, merged);
        QCOMPARE(merged.size(), size_t(300));
        for (size_t r = 0; r < 300; ++r) QCOMPARE(merged.streamAt(r).value, uint16_t(299 - r));
    }

    void parallelMergeEqualsSingleMerge()
    {
        std::mt19937_64 random(7);
        std::vector<TimestampColumn> streams(3);
        for (auto& s : streams) {
            uint64_t ts = 0;
            for (int i = 0; i < 600000; ++i) s.push_back(ts += random() % 5); // many equal times
        }
        std::vector<const TimestampColumn*> columns;
        size_t total = 0;
        for (auto& s : streams) {
            columns.push_back(&s);
            total += s.size();
        }
        MergedOrder one, four;
        MergedOrder::mergeStreams(columns, true, 1, one);
        MergedOrder::mergeStreams(columns, true, 4, four);
        QCOMPARE(one.size(), total);
        QCOMPARE(four.size(), total);
        for (size_t i = 0; i < one.size(); ++i)
            if (one.streamAt(i) != four.streamAt(i)) QFAIL(qPrintable(QString("differ at %1").arg(i)));
        // Every row maps back to a distinct event, in each stream's order.
        std::vector<uint32_t> next(streams.size(), 0);
        for (size_t i = 0; i < four.size(); i += 997) {
            EventRef e = four.eventAt(i);
            QVERIFY(e.index < streams[e.stream.value].size());
        }
        MergedOrder::Cursor cursor(four, 0);
        for (size_t i = 0; i < four.size(); ++i, cursor.next()) {
            EventRef e = cursor.event();
            QCOMPARE(e.index, next[e.stream.value]++);
            if (i % 4099 == 0) QVERIFY(four.eventAt(i) == e);
        }
    }
};

QTEST_GUILESS_MAIN(TestEventStore)
#include "tst_eventstore.moc"
