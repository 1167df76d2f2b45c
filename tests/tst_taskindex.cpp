// SPDX-License-Identifier: GPL-2.0-or-later
// The per-task index: equal to a scan of every event, grown piece by piece equal to one
// build, a reused pid split into tasks, running intervals as the CPU occupancy says.
#include "testsupport.h"

#include "store/taskindex.h"
#include "trace.h"

#include <QTest>

#include <limits>
#include <map>

using namespace ringside;

namespace {

// Every event of each task (by the index's own pid → task rule), found by scanning.
std::map<uint32_t, std::vector<EventRef>> scanAll(const EventStore& store, const TaskIndex& index)
{
    std::map<uint32_t, std::vector<EventRef>> out;
    for (size_t s = 0; s < store.streamCount(); ++s) {
        const CpuColumns& c = store.stream(StreamId(uint16_t(s))).columns;
        for (size_t i = 0; i < c.size(); ++i) {
            const TaskId id = index.taskAt(c.pid[i], c.timestamp[i]);
            out[id.value].push_back({StreamId(uint16_t(s)), uint32_t(i)});
        }
    }
    return out;
}

// The index's events of a task, stream by stream.
std::vector<EventRef> indexed(const TaskIndex& index, TaskId id)
{
    std::vector<EventRef> out;
    for (const auto& list : index.streams(id))
        for (uint64_t k = 0; k < list.events(); ++k) out.push_back(TaskIndex::eventAt(list, k));
    return out;
}

// The task with the most events, the idle task left out (it is always there).
TaskId busiestTask(const TaskIndex& index)
{
    TaskId busiest(1);
    for (size_t t = 1; t < index.size(); ++t)
        if (index.task(TaskId(uint32_t(t))).events > index.task(busiest).events) busiest = TaskId(uint32_t(t));
    return busiest;
}

bool sameEvents(std::vector<EventRef> a, std::vector<EventRef> b)
{
    auto order = [](EventRef x, EventRef y) { return EventStore::key(x) < EventStore::key(y); };
    std::sort(a.begin(), a.end(), order);
    std::sort(b.begin(), b.end(), order);
    return a == b;
}

} // namespace

class TestTaskIndex : public QObject {
    Q_OBJECT
private slots:
    void equalsAScanOfEveryEvent_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("threads") << "threads.dat";
        QTest::newRow("two buffers") << "instances.dat";
        QTest::newRow("lost events") << "lost-events.dat";
        QTest::newRow("function_graph") << "fgraph-openat.dat";
    }
    void equalsAScanOfEveryEvent()
    {
        QFETCH(QString, name);
        auto trace = test::openOrFail(test::fixturePath(name));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        const TaskIndex& index = trace->taskIndex();
        const auto scanned = scanAll(store, index);
        QVERIFY(!scanned.count(TaskId().value)); // every event belongs to a task
        // Tasks a record names (a switch's next task) without events of their own have none.
        size_t withEvents = 0;
        for (size_t t = 0; t < index.size(); ++t) withEvents += index.task(TaskId(uint32_t(t))).events > 0;
        QCOMPARE(scanned.size(), withEvents);
        uint64_t total = 0;
        for (const auto& [task, events] : scanned) {
            const TaskId id{task};
            QVERIFY(sameEvents(events, indexed(index, id)));
            const TaskIndex::Task t = index.task(id);
            QCOMPARE(t.events, uint64_t(events.size()));
            total += t.events;
            uint64_t first = UINT64_MAX, last = 0;
            for (EventRef e : events)
                first = std::min(first, store.timestamp(e)), last = std::max(last, store.timestamp(e));
            QCOMPARE(t.firstTime, first);
            QCOMPARE(t.lastTime, last);
            // Counting by time agrees with the events' timestamps.
            for (const auto& list : index.streams(id)) {
                const uint64_t mid = store.timestamp(TaskIndex::eventAt(list, list.events() / 2));
                uint64_t before = 0;
                for (uint64_t k = 0; k < list.events(); ++k)
                    before += store.timestamp(TaskIndex::eventAt(list, k)) < mid;
                QCOMPARE(TaskIndex::countBefore(store, list, mid), before);
                QCOMPARE(TaskIndex::countBefore(store, list, 0), uint64_t(0));
                QCOMPARE(TaskIndex::countBefore(store, list, UINT64_MAX), list.events());
            }
            // The events at one moment: exactly the task's events with that timestamp.
            const EventRef middle = events[events.size() / 2];
            const uint64_t at = store.timestamp(middle);
            std::vector<EventRef> same;
            for (EventRef e : events)
                if (store.timestamp(e) == at) same.push_back(e);
            std::vector<EventRef> found = index.eventsAt(store, t.pid, at);
            QVERIFY(std::find(found.begin(), found.end(), middle) != found.end());
            QVERIFY(sameEvents(same, found));
            for (EventRef e : index.eventsAt(store, t.pid, at + 1)) QCOMPARE(store.timestamp(e), at + 1);
        }
        QCOMPARE(total, uint64_t(store.eventCount()));
        // No pid is reused in these recordings: one task per pid, with the pid's count.
        for (const Task& pidEntry : store.tasks().all()) {
            QCOMPARE(index.tasksOf(pidEntry.pid).size(), size_t(1));
            QCOMPARE(index.task(index.busiestTaskOf(pidEntry.pid)).events, pidEntry.events);
        }
        QVERIFY(!index.taskAt(-12345, 0).valid());
    }

    void runningIntervalsFollowTheOccupancy()
    {
        auto trace = test::openOrFail(test::fixturePath("threads.dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        const RunningTasks running = trace->runningTasks();
        QVERIFY(running.available());
        const TaskIndex& index = trace->taskIndex();
        size_t intervals = 0, runs = 0;
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const auto* rows = running.table()->byOwner().of(uint32_t(s));
            runs += (rows ? rows->size() : 0) + (running.table()->openOf(uint32_t(s)).end ? 1 : 0);
        }
        for (size_t t = 0; t < index.size(); ++t) {
            const auto& running = index.running(TaskId(uint32_t(t)));
            intervals += running.size();
            for (size_t i = 0; i < running.size(); ++i) {
                if (i) QVERIFY(running[i - 1].start <= running[i].start);
                // The CPU's runs say this task ran there, from the interval's start to its end.
                const uint64_t mid = running[i].start + (running[i].end - running[i].start) / 2;
                QCOMPARE(trace->runningTasks().taskAt(running[i].stream, mid), TaskId(uint32_t(t)));
            }
        }
        QVERIFY(intervals > 100);
        QVERIFY(intervals <= runs);
    }

    // A live capture: the index extended after every published round equals one build.
    void extendedPieceByPieceEqualsOneBuild()
    {
        auto file = DatFile::open(test::fixturePath("execve-e2big.dat"));
        QVERIFY(file);
        EventStore store;
        TaskIndex grown;
        size_t rounds = 0;
        QVERIFY(test::appendRunByRun(**file, store, [&](size_t published) {
            grown.update(store, store.order().countsAt(published, store.streamCount()), 1);
            ++rounds;
        }));
        QVERIFY(rounds > 2);
        const auto built = TaskIndex::build(store, {}, 2);
        const TaskIndex& once = *built;
        QCOMPARE(grown.size(), once.size());
        for (size_t t = 0; t < once.size(); ++t) {
            const TaskId id{uint32_t(t)};
            const TaskId same = grown.taskAt(once.task(id).pid, once.task(id).firstTime);
            QVERIFY(same.valid());
            QCOMPARE(grown.task(same).events, once.task(id).events);
            QCOMPARE(grown.task(same).firstTime, once.task(id).firstTime);
            QCOMPARE(grown.task(same).lastTime, once.task(id).lastTime);
            QVERIFY(sameEvents(indexed(grown, same), indexed(once, id)));
            // Runs that continued across rounds were joined, not split.
            QCOMPARE(grown.streams(same).size(), once.streams(id).size());
            for (const auto& list : once.streams(id)) {
                const auto& lists = grown.streams(same);
                auto it =
                    std::find_if(lists.begin(), lists.end(), [&](const auto& l) { return l.stream == list.stream; });
                QVERIFY(it != lists.end());
                QCOMPARE(it->runs.size(), list.runs.size());
            }
        }
    }

    // A pid handed to a new task (task_newtask of a pid that had events) is a second task
    // from the creation on; a creation before the pid's first event is its first life.
    void reusedPidIsTwoTasks()
    {
        auto trace = test::openOrFail(test::fixturePath("threads.dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        // The busiest pid, "created again" in the middle of its events.
        const TaskIndex& plain = trace->taskIndex();
        const TaskIndex::Task whole = plain.task(busiestTask(plain));
        const uint64_t middle = whole.firstTime + (whole.lastTime - whole.firstTime) / 2;
        const auto built =
            TaskIndex::build(store, {{whole.pid, whole.firstTime - 1}, {whole.pid, middle}});
        built->addRunning(store, trace->runningTasks().table(), true);
        const TaskIndex& split = *built;
        const std::vector<TaskId> lives = split.tasksOf(whole.pid);
        QCOMPARE(lives.size(), size_t(2));
        auto withEvents = [](const TaskIndex& index) {
            size_t n = 0;
            for (size_t t = 0; t < index.size(); ++t) n += index.task(TaskId(uint32_t(t))).events > 0;
            return n;
        };
        QCOMPARE(withEvents(split), withEvents(plain) + 1);
        const TaskIndex::Task before = split.task(lives[0]);
        const TaskIndex::Task after = split.task(lives[1]);
        QCOMPARE(before.events + after.events, whole.events);
        QVERIFY(before.lastTime < middle);
        QVERIFY(after.firstTime >= middle);
        QCOMPARE(split.taskAt(whole.pid, middle - 1), lives[0]);
        QCOMPARE(split.taskAt(whole.pid, middle), lives[1]);
        QCOMPARE(split.taskAt(whole.pid, 0), lives[0]);
        // Each life holds until the next begins; the last, for good.
        QCOMPARE(split.lifeEnds(whole.pid, whole.firstTime), middle);
        QCOMPARE(split.lifeEnds(whole.pid, middle - 1), middle);
        QCOMPARE(split.lifeEnds(whole.pid, middle), std::numeric_limits<uint64_t>::max());
        QCOMPARE(split.lifeEnds(-7, 123), uint64_t(123)); // no task yet: ask again
        for (EventRef e : indexed(split, lives[1])) QVERIFY(store.timestamp(e) >= middle);
        const TaskIndex::Runs runs = split.running(lives[1]);
        for (size_t i = 0; i < runs.size(); ++i) QVERIFY(runs[i].start >= middle);
    }

    // A creation handed in before the batch with the pid's earlier events (a capture hands
    // records in before their rows are published) still splits the pid when they come.
    void creationBeforeItsBatchWaitsForIt()
    {
        auto trace = test::openOrFail(test::fixturePath("threads.dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        const TaskIndex& plain = trace->taskIndex();
        const TaskIndex::Task whole = plain.task(busiestTask(plain));
        const uint64_t middle = whole.firstTime + (whole.lastTime - whole.firstTime) / 2;
        std::vector<size_t> before, all;
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const auto& ts = store.stream(StreamId(uint16_t(s))).columns.timestamp;
            before.push_back(ts.lowerBound(whole.firstTime, 0, ts.size()));
            all.push_back(ts.size());
        }
        TaskIndex index;
        index.addCreations({{whole.pid, middle}});
        index.update(store, before);
        QVERIFY(index.tasksOf(whole.pid).empty());
        index.update(store, all);
        const std::vector<TaskId> lives = index.tasksOf(whole.pid);
        QCOMPARE(lives.size(), size_t(2));
        QCOMPARE(index.task(lives[0]).events + index.task(lives[1]).events, whole.events);
        QVERIFY(index.task(lives[1]).firstTime >= middle);
    }

    // What a plugin is told of how long a task's answer holds stops at the batches analysed
    // so far: a later batch of a capture may create the pid again.
    void taskEndsStopAtTheAnalysedBatch()
    {
        LoadOptions options;
        options.analyse = false;
        auto opened = Trace::open(test::fixturePath("threads.dat"), options);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        Trace& trace = **opened;
        const EventStore& store = trace.store();
        const RecordingInfo& info = trace.recordingInfo();
        QVERIFY(info.taskEnds);
        const size_t half = store.eventCount() / 2;
        QVERIFY(trace.analyse({}, nullptr, half));
        const TaskIndex& index = trace.taskIndex();
        const TaskId busiestId = busiestTask(index);
        const TaskIndex::Task busiest = index.task(busiestId);
        uint64_t batchEnd = 0;
        const std::vector<size_t> counts = store.order().countsAt(half, store.streamCount());
        for (size_t s = 0; s < counts.size(); ++s)
            if (counts[s])
                batchEnd = std::max(batchEnd, store.stream(StreamId(uint16_t(s))).columns.timestamp[counts[s] - 1]);
        QVERIFY(busiest.firstTime < batchEnd);
        QCOMPARE(info.taskEnds(busiest.pid, busiest.firstTime), batchEnd);
        QVERIFY(trace.analyse());
        trace.finishAnalyses();
        QCOMPARE(info.taskEnds(busiest.pid, busiest.firstTime), std::numeric_limits<uint64_t>::max());
        QCOMPARE(info.taskAt(busiest.pid, busiest.firstTime), busiestId.value);
    }

    // A task only named by records (switched in, woken; no events of its own) is timed by the
    // earliest and latest that name it, in whatever order they are given; the ids of the
    // batch's new tasks follow the time each first appears, then the pid; the idle task is 0.
    void tasksNamedOnlyAreTimedAndNumberedInAFixedOrder()
    {
        const EventStore empty;
        const std::vector<TaskIndex::Mention> forward = {{42, 100, 100}, {42, 300, 300}, {7, 200, 200}, {42, 200, 200},
                                                         {9, 200, 250}};
        std::vector<TaskIndex::Mention> backward(forward.rbegin(), forward.rend());
        TaskIndex a, b;
        a.update(empty, {}, 1, forward);
        b.update(empty, {}, 1, backward);
        for (const TaskIndex* index : {&a, &b}) {
            QCOMPARE(index->size(), size_t(4));
            QCOMPARE(index->task(TaskId(0)).pid, 0); // idle, made before anything
            QCOMPARE(index->task(TaskId(1)).pid, 42);
            QCOMPARE(index->task(TaskId(2)).pid, 7); // at 200, before pid 9 at 200
            QCOMPARE(index->task(TaskId(3)).pid, 9);
            const TaskIndex::Task task = index->task(index->taskAt(42, 150));
            QCOMPARE(task.firstTime, uint64_t(100));
            QCOMPARE(task.lastTime, uint64_t(300));
            QCOMPARE(task.events, uint64_t(0));
        }
        // Asking makes nothing: a pid never named has no task, until a batch names it.
        QVERIFY(!a.taskAt(5, 150).valid());
        QCOMPARE(a.lifeEnds(5, 150), uint64_t(150));
        QCOMPARE(a.size(), size_t(4));
        // Its answer holds like any task's, for good once the recording ended.
        a.finish();
        QCOMPARE(a.lifeEnds(42, 150), std::numeric_limits<uint64_t>::max());
    }

    // A recording's tasks with events: numbered by their first event's time then pid, not by
    // the stream they came in first; the idle task is 0 however late it first runs. (Loaded,
    // a pid a record names before its first event counts from that mention.)
    void tasksWithEventsAreNumberedByFirstAppearance()
    {
        auto trace = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(trace);
        const auto built = TaskIndex::build(trace->store(), {}, 2);
        const TaskIndex& index = *built;
        QVERIFY(index.size() > 100);
        QCOMPARE(index.task(TaskId(0)).pid, 0);
        for (size_t t = 2; t < index.size(); ++t) {
            const TaskIndex::Task before = index.task(TaskId(uint32_t(t - 1))), task = index.task(TaskId(uint32_t(t)));
            QVERIFY2(std::pair(before.firstTime, before.pid) <= std::pair(task.firstTime, task.pid),
                     qPrintable(QString("task %1 (pid %2 at %3) after pid %4 at %5")
                                    .arg(t)
                                    .arg(task.pid)
                                    .arg(task.firstTime)
                                    .arg(before.pid)
                                    .arg(before.firstTime)));
        }
    }
};

QTEST_GUILESS_MAIN(TestTaskIndex)
#include "tst_taskindex.moc"
