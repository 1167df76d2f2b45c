// SPDX-License-Identifier: GPL-2.0-or-later
// Call slices from funcgraph records: the pairing driven with plain values (what real
// recordings contain at their edges), and every call of the fgraph fixtures against the exit
// records `trace-cmd report -R` prints (tests/data/NAME.calls.txt.xz, from calls-reference.py).
#include "testsupport.h"

#include "analysis/slicelanes.h"
#include "calls/callcontext.h"
#include "calls/calltree.h"
#include "calls/functioncalls.h"
#include "support/funcgraphwriter.h"
#include "syscallsplugin.h"
#include "trace.h"

#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>
#include <tuple>

using namespace ringside;

namespace {

// Feeds a CallSlices as the registry would: one stream per CPU, records in time order.
class Feeder {
public:
    explicit Feeder(CallSlices& calls, int cpus = 2, bool retval = false) : m_calls(calls)
    {
        m_calls.bind({true, true, retval});
        std::vector<StreamInfo> streams;
        for (int c = 0; c < cpus; ++c) streams.push_back({c, 0, 0});
        m_calls.setStreams(streams);
    }
    void entry(uint64_t ts, int cpu, int32_t pid, uint64_t func, int64_t depth, uint8_t flags = 0)
    {
        send(0, ts, cpu, pid, flags,
             {TypedValue::number(func, false, 8), TypedValue::number(uint64_t(depth), true, 4)});
    }
    // An exit at `ts` of a call that lasted `duration` (calltime..rettime).
    void exit(uint64_t ts, int cpu, int32_t pid, uint64_t func, int64_t depth, uint64_t duration, uint8_t flags = 0,
              std::optional<uint64_t> retval = std::nullopt)
    {
        std::vector<TypedValue> values = {TypedValue::number(func, false, 8),
                                          TypedValue::number(uint64_t(depth), true, 4), TypedValue::number(0, false, 4),
                                          TypedValue::number(ts - duration, false, 8),
                                          TypedValue::number(ts, false, 8)};
        if (retval) values.push_back(TypedValue::number(*retval, false, 8));
        send(retval ? 2 : 1, ts, cpu, pid, flags, values);
    }
    void done() { m_calls.flush(); }

private:
    void send(size_t request, uint64_t ts, int cpu, int32_t pid, uint8_t flags, const std::vector<TypedValue>& values)
    {
        ConsumedRecord r;
        r.request = request;
        r.timestamp = ts;
        r.stream = StreamId(uint16_t(cpu));
        r.index = m_index++;
        r.pid = pid;
        r.task = TaskId(uint32_t(pid)); // a task per pid here
        r.flags = flags;
        r.values = values.data();
        r.valueCount = values.size();
        m_calls.consume(r);
    }
    CallSlices& m_calls;
    uint32_t m_index = 0;
};

constexpr uint64_t kA = 0x1000, kB = 0x2000, kC = 0x3000, kIrq = 0x4000;

// The slice of function address `f` that starts at `start`.
int sliceOf(const CallSlices& calls, uint64_t f, uint64_t start)
{
    for (size_t i = 0; i < calls.size(); ++i)
        if (calls.functionAddresses()[calls.function(i)] == f && calls.start(i) == start) return int(i);
    return -1;
}

// Each call that returned, as "FUNCTION DEPTH DURATION", sorted; the same from trace-cmd's
// raw exit records (tests/data/calls-reference.py does it for the stored fixtures).
QStringList callsOf(const Trace& trace)
{
    const CallSlices& calls = trace.callSlices();
    const std::vector<std::string> names = functionNames(trace.tep(), calls.functionAddresses());
    QStringList lines;
    for (size_t i = 0; i < calls.size(); ++i)
        if (!(calls.flags(i) & kCallOpen))
            lines << QString("%1 %2 %3")
                         .arg(QString::fromStdString(names[calls.function(i)]))
                         .arg(calls.depth(i))
                         .arg(calls.duration(i));
    lines.sort();
    return lines;
}

QStringList traceCmdExits(const QString& path)
{
    QProcess report;
    report.start("trace-cmd", {"report", "-R", "-i", path});
    if (!report.waitForFinished(120000)) return {};
    QStringList lines;
    const QRegularExpression field("(\\w+)=(\\S+)");
    for (const QString& line : QString::fromUtf8(report.readAllStandardOutput()).split('\n')) {
        const qsizetype at = line.indexOf("funcgraph_exit:");
        if (at < 0) continue;
        QMap<QString, QString> fields;
        for (auto it = field.globalMatch(line.mid(at)); it.hasNext();) {
            const auto m = it.next();
            fields[m.captured(1)] = m.captured(2);
        }
        const qulonglong call = fields["calltime"].toULongLong(nullptr, 16);
        const qulonglong ret = fields["rettime"].toULongLong(nullptr, 16);
        lines << QString("%1 %2 %3").arg(fields["func"]).arg(fields["depth"].toInt()).arg(ret - call);
    }
    lines.sort();
    return lines;
}

// A made-up recording on 2 CPUs and 3 tasks that begins and ends mid-call, written in `dir`;
// with `lossy`, also lost events and return values.
QString writeUnbalancedRecording(const QTemporaryDir& dir, const QString& name, uint64_t records, bool lossy)
{
    test::FuncGraphShape shape;
    shape.records = records;
    shape.cpus = 2;
    shape.tasks = 3;
    shape.unbalanced = true;
    if (lossy) {
        shape.lostChance = 0.002;
        shape.retval = true;
    }
    const QString path = dir.filePath(name);
    return test::writeFile(path, test::writeFuncGraphRecording(shape)) ? path : QString();
}

// The flame chart of a pid's calls (every task of that pid), as the timeline lays out a task row.
SliceLanes lanesOfPid(const CallSlices& calls, int32_t pid, uint64_t endOfTrace)
{
    SliceLanes::Builder builder;
    for (uint32_t task = 0; task < calls.owners(); ++task)
        calls.forEachOf(task, [&](const SliceTable::View& v) {
            if (calls.pid(v.id) == pid) builder.add(v);
        });
    return std::move(builder).finish(endOfTrace);
}

// And a CPU row's: the calls that began on the stream.
SliceLanes lanesOfStream(const CallSlices& calls, StreamId stream, uint64_t endOfTrace)
{
    SliceLanes::Builder builder;
    calls.forEachOnStream(stream, [&](const SliceTable::View& v) { builder.add(v); });
    return std::move(builder).finish(endOfTrace);
}

} // namespace

class TestCallSlices : public QObject {
    Q_OBJECT

private slots:
    void nestedCallsPair()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(110, 0, 7, kB, 1);
        feed.exit(130, 0, 7, kB, 1, 19);
        feed.entry(140, 0, 7, kC, 1);
        feed.exit(150, 0, 7, kC, 1, 9);
        feed.exit(200, 0, 7, kA, 0, 99);
        feed.done();
        QCOMPARE(calls.size(), size_t(3));
        const int a = sliceOf(calls, kA, 100), b = sliceOf(calls, kB, 110), c = sliceOf(calls, kC, 140);
        QCOMPARE(calls.parent(size_t(a)), CallSlices::kNoParent);
        QCOMPARE(calls.parent(size_t(b)), uint32_t(a));
        QCOMPARE(calls.parent(size_t(c)), uint32_t(a));
        // Durations are the exit's rettime - calltime, not the distance between the records.
        QCOMPARE(calls.duration(size_t(a)), uint64_t(99));
        QCOMPARE(calls.duration(size_t(b)), uint64_t(19));
        QCOMPARE(calls.depth(size_t(c)), int64_t(1));
        QCOMPARE(calls.pairing().exitsWithoutEntry, uint64_t(0));
        QCOMPARE(calls.pairing().openAtEnd, uint64_t(0));

        const CallTree tree = CallTree::topDown(calls, CallSelection());
        QCOMPARE(tree.root().children.size(), size_t(1));
        const CallTree::Node& top = tree.node(tree.root().children[0]);
        QCOMPARE(top.cost.total, uint64_t(99));
        QCOMPARE(top.cost.self, uint64_t(99 - 19 - 9));
        QCOMPARE(top.children.size(), size_t(2));
    }

    // The recording began inside a call: exits come without entries, deepest first, and each
    // adopts the parentless calls one level deeper that ran inside it.
    void exitsWithoutEntriesAdoptTheirCallees()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kC, 2);
        feed.exit(105, 0, 7, kC, 2, 5);
        feed.exit(120, 0, 7, kB, 1, 40);  // began at 80
        feed.exit(150, 0, 7, kA, 0, 100); // began at 50
        feed.done();
        QCOMPARE(calls.size(), size_t(3));
        const int a = sliceOf(calls, kA, 50), b = sliceOf(calls, kB, 80), c = sliceOf(calls, kC, 100);
        QVERIFY(a >= 0 && b >= 0 && c >= 0);
        QCOMPARE(calls.parent(size_t(c)), uint32_t(b));
        QCOMPARE(calls.parent(size_t(b)), uint32_t(a));
        QVERIFY(calls.flags(size_t(a)) & kCallNoEntry);
        QCOMPARE(calls.pairing().exitsWithoutEntry, uint64_t(2));

        // The tree resolves callers stored after their callees.
        const CallTree tree = CallTree::topDown(calls, CallSelection());
        const std::vector<uint32_t> path = tree.hottestPath();
        QCOMPARE(path.size(), size_t(3));
        QCOMPARE(tree.node(path[0]).function, calls.function(size_t(a)));
        QCOMPARE(tree.node(path[2]).function, calls.function(size_t(c)));
    }

    // A task switched out mid-call resumes on another CPU: its stack is the task's, not the CPU's.
    void callResumesOnAnotherCpu()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(110, 0, 8, kB, 0); // another task on the same CPU
        feed.exit(120, 0, 8, kB, 0, 10);
        feed.entry(130, 1, 7, kC, 1); // task 7 now on CPU 1
        feed.exit(140, 1, 7, kC, 1, 10);
        feed.exit(150, 1, 7, kA, 0, 50);
        feed.done();
        const int a = sliceOf(calls, kA, 100), c = sliceOf(calls, kC, 130);
        QCOMPARE(calls.parent(size_t(c)), uint32_t(a));
        QCOMPARE(calls.duration(size_t(a)), uint64_t(50));
        QCOMPARE(calls.cpu(size_t(a)), 0);
        QCOMPARE(calls.cpu(size_t(c)), 1);
        QCOMPARE(calls.pairing().entriesWithoutExit, uint64_t(0));
    }

    // Idle tasks share pid 0 but have a stack per CPU.
    void idleTasksHaveOneStackPerCpu()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 0, kA, 0);
        feed.entry(105, 1, 0, kB, 0);
        feed.exit(110, 0, 0, kA, 0, 10);
        feed.exit(120, 1, 0, kB, 0, 15);
        feed.done();
        QCOMPARE(calls.size(), size_t(2));
        QCOMPARE(calls.pairing().entriesWithoutExit + calls.pairing().exitsWithoutEntry, uint64_t(0));
    }

    // Lost events break the stacks of that CPU: the open calls there are closed, marked broken.
    void lostEventsBreakTheCpusStacks()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(101, 1, 9, kC, 0);
        feed.entry(110, 0, 7, kB, 1);
        calls.eventsLost(StreamId(0), 150);
        feed.exit(200, 0, 7, kA, 0, 100);
        feed.exit(210, 1, 9, kC, 0, 109);
        feed.done();
        const int a = sliceOf(calls, kA, 100), b = sliceOf(calls, kB, 110);
        QVERIFY(calls.flags(size_t(a)) & kCallBroken);
        QVERIFY(calls.flags(size_t(b)) & kCallBroken);
        QVERIFY(calls.flags(size_t(b)) & kCallOpen);
        QCOMPARE(calls.pairing().brokenByLoss, uint64_t(2));
        QCOMPARE(calls.pairing().lossGaps, uint64_t(1));
        // After the gap, A's exit has no entry to pair with; CPU 1's task is untouched.
        QCOMPARE(calls.pairing().exitsWithoutEntry, uint64_t(1));
        QCOMPARE(calls.duration(size_t(sliceOf(calls, kC, 101))), uint64_t(109));
    }

    // An entry at or above an open call's depth means that call's exit never came.
    void missingExitsAreClosedAndCounted()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(110, 0, 7, kB, 1);
        feed.entry(120, 0, 7, kC, 0); // A and B never returned
        feed.exit(130, 0, 7, kC, 0, 10);
        feed.entry(140, 0, 7, kA, 0); // still running at the end
        feed.done();
        QCOMPARE(calls.pairing().entriesWithoutExit, uint64_t(2));
        QCOMPARE(calls.pairing().openAtEnd, uint64_t(1));
        QVERIFY(calls.flags(size_t(sliceOf(calls, kB, 110))) & kCallOpen);
        QCOMPARE(calls.parent(size_t(sliceOf(calls, kC, 120))), CallSlices::kNoParent);
        const CallTree tree = CallTree::topDown(calls, CallSelection());
        QCOMPARE(tree.root().cost.open, uint64_t(2)); // both A calls, at the top
        QCOMPARE(tree.root().cost.total, uint64_t(10));
    }

    // A damaged depth (huge or negative) and a rettime before calltime are kept and counted,
    // never trusted for arithmetic.
    void damagedFieldsAreContained()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kA, 0x7fffffff);
        feed.entry(110, 0, 7, kB, -3);
        ConsumedRecord r;
        const std::vector<TypedValue> values = {TypedValue::number(kC, false, 8), TypedValue::number(0, true, 4),
                                                TypedValue::number(0, false, 4), TypedValue::number(500, false, 8),
                                                TypedValue::number(400, false, 8)};
        r.request = 1;
        r.stream = StreamId(0);
        r.timestamp = 120;
        r.pid = 7;
        r.values = values.data();
        r.valueCount = values.size();
        calls.consume(r);
        feed.done();
        QCOMPARE(calls.depth(size_t(sliceOf(calls, kA, 100))), int64_t(0x7fffffff));
        QCOMPARE(calls.depth(size_t(sliceOf(calls, kB, 110))), int64_t(-3));
        QCOMPARE(calls.pairing().badDurations, uint64_t(1));
        QCOMPARE(calls.duration(size_t(sliceOf(calls, kC, 120))), uint64_t(0));
        const CallTree tree = CallTree::topDown(calls, CallSelection());
        QVERIFY(!tree.empty());
    }

    // Durations past 2^32 ns and return values that do not fit 32 bits are kept whole.
    void wideValuesAreKept()
    {
        CallSlices calls;
        Feeder feed(calls, 1, true);
        const uint64_t long_ = 10'000'000'000ull;
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(110, 0, 7, kB, 1);
        feed.exit(200, 0, 7, kB, 1, 80, 0, uint64_t(-7));
        feed.exit(long_ + 100, 0, 7, kA, 0, long_, 0, 0xffff888812345678ull);
        feed.done();
        QVERIFY(calls.recordsRetval());
        const size_t a = size_t(sliceOf(calls, kA, 100)), b = size_t(sliceOf(calls, kB, 110));
        QCOMPARE(calls.duration(a), long_);
        QCOMPARE(calls.retval(a), int64_t(0xffff888812345678ull));
        QCOMPARE(calls.retval(b), int64_t(-7));
        QCOMPARE(QString::fromStdString(errnoName(calls.retval(b))), QStringLiteral("E2BIG"));
        QVERIFY(errnoName(calls.retval(a)).empty());
        QCOMPARE(errnoName(-513), std::string("ERESTARTNOINTR")); // the kernel's own, named too
        const CallTree tree = CallTree::topDown(calls, CallSelection());
        const CallTree::Node& bNode = tree.node(tree.hottestPath().back());
        QCOMPARE(bNode.cost.errors, uint64_t(1));
        QCOMPARE(bNode.cost.returns.size(), size_t(1));
        QCOMPARE(bNode.cost.returns[0].value, int64_t(-7));
    }

    // A 32-bit kernel's unsigned long return value is sign-extended: 0xfffffff9 is -7.
    void thirtyTwoBitReturnValues()
    {
        CallSlices calls(4);
        Feeder feed(calls, 1, true);
        feed.entry(100, 0, 7, kA, 0);
        feed.exit(110, 0, 7, kA, 0, 10, 0, 0xfffffff9u);
        feed.done();
        QCOMPARE(calls.retval(0), int64_t(-7));
    }

    // An interrupt taken inside a task's call nests in the task's stack by depth (the kernel's
    // return stack is the task's) but is a tree of its own.
    void interruptsAreTreesOfTheirOwn()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(110, 0, 7, kIrq, 1, kFlagHardIrq);
        feed.entry(111, 0, 7, kC, 2, kFlagHardIrq);
        feed.exit(115, 0, 7, kC, 2, 4, kFlagHardIrq);
        feed.exit(120, 0, 7, kIrq, 1, 10, kFlagHardIrq);
        feed.exit(200, 0, 7, kA, 0, 100);
        feed.done();
        const size_t irq = size_t(sliceOf(calls, kIrq, 110)), c = size_t(sliceOf(calls, kC, 111));
        QVERIFY(calls.isInterruptRoot(irq));
        QVERIFY(!calls.isInterruptRoot(c));
        const CallTree tree = CallTree::topDown(calls, CallSelection());
        QCOMPARE(tree.root().children.size(), size_t(2));
        bool sawContext = false;
        for (uint32_t n : tree.root().children) {
            const CallTree::Node& node = tree.node(n);
            if (node.function != CallTree::kNoFunction) {
                // The interrupt's time stays in A's self time: it ran while A was running.
                QCOMPARE(node.cost.self, uint64_t(100));
                QVERIFY(node.children.empty());
            } else {
                sawContext = true;
                QCOMPARE(node.context, CallContext::HardIrq);
                QCOMPARE(node.cost.total, uint64_t(10));
            }
        }
        QVERIFY(sawContext);
        // The interrupt entry code raises the hardirq count inside the call: an exit in
        // interrupt context makes the call the interrupt's root too.
        CallSlices late;
        Feeder lateFeed(late);
        lateFeed.entry(100, 0, 7, kA, 0);
        lateFeed.entry(110, 0, 7, kIrq, 1);
        lateFeed.exit(120, 0, 7, kIrq, 1, 10, kFlagHardIrq);
        lateFeed.exit(200, 0, 7, kA, 0, 100);
        lateFeed.done();
        QVERIFY(late.isInterruptRoot(size_t(sliceOf(late, kIrq, 110))));
    }

    void selectionsAndViews()
    {
        CallSlices calls;
        Feeder feed(calls);
        // Task 7: A { B, B }, then task 8: B, on CPU 1.
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(110, 0, 7, kB, 1);
        feed.exit(120, 0, 7, kB, 1, 10);
        feed.entry(130, 0, 7, kB, 1);
        feed.exit(150, 0, 7, kB, 1, 20);
        feed.exit(200, 0, 7, kA, 0, 100);
        feed.entry(300, 1, 8, kB, 0);
        feed.exit(305, 1, 8, kB, 0, 5);
        feed.done();

        CallSelection task8;
        task8.pids = {8};
        QCOMPARE(CallTree::topDown(calls, task8).root().cost.total, uint64_t(5));
        CallSelection cpu0;
        cpu0.cpu = 0;
        QCOMPARE(CallTree::topDown(calls, cpu0).root().cost.total, uint64_t(100));
        // A range keeps the callers of the calls in it: B at 130 brings A.
        CallSelection range;
        range.from = 135;
        range.to = 140;
        const CallTree ranged = CallTree::topDown(calls, range);
        QCOMPARE(ranged.root().cost.calls, uint64_t(1));
        QCOMPARE(ranged.node(ranged.hottestPath().back()).cost.calls, uint64_t(1));
        CallSelection within;
        within.root = uint32_t(sliceOf(calls, kA, 100));
        QCOMPARE(CallTree::topDown(calls, within).root().cost.total, uint64_t(100));

        const CallTree all = CallTree::topDown(calls, CallSelection());
        // Bottom-up: B's self time (35) under B, split by caller (A: 30, the root: 5).
        const CallTree up = CallTree::bottomUp(all);
        const uint32_t bFunction = calls.function(size_t(sliceOf(calls, kB, 110)));
        bool sawB = false;
        for (uint32_t n : up.root().children) {
            if (up.node(n).function != bFunction) continue;
            sawB = true;
            QCOMPARE(up.node(n).cost.total, uint64_t(35));
            QCOMPARE(up.node(n).cost.calls, uint64_t(3));
            QCOMPARE(up.node(n).children.size(), size_t(1)); // A (the root is not a caller node)
            QCOMPARE(up.node(up.node(n).children[0]).cost.total, uint64_t(30));
        }
        QVERIFY(sawB);

        const CallerCallee b = CallerCallee::of(all, bFunction);
        QCOMPARE(b.cost.calls, uint64_t(3));
        QCOMPARE(b.cost.total, uint64_t(35));
        QCOMPARE(b.callers.size(), size_t(2));
        QVERIFY(b.callees.empty());

        const FunctionStats stats = FunctionStats::of(calls, CallSelection());
        QCOMPARE(stats.overall.size(), size_t(2));
        for (const FunctionStats::Row& row : stats.overall) {
            if (row.function != bFunction) continue;
            QCOMPARE(row.cost.calls, uint64_t(3));
            QCOMPARE(row.cost.min, uint64_t(5));
            QCOMPARE(row.cost.max, uint64_t(20));
            QCOMPARE(row.cost.average(), uint64_t(11));
            // Sample standard deviation of 10, 20, 5.
            QVERIFY(qAbs(row.stddev() - 7.6376) < 0.001);
        }
        QCOMPARE(stats.cpus.size(), size_t(2));
        QCOMPARE(stats.cpus[1].size(), size_t(1));
    }

    // Every call's duration and depth equal the file's exit records, as trace-cmd reads them.
    void callsMatchTraceCmd_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("openat") << "fgraph-openat";
        QTest::newRow("all-short") << "fgraph-all-short";
        QTest::newRow("e2big") << "fgraph-e2big";
        QTest::newRow("i686") << "v6-i686-funcgraph";
    }
    void callsMatchTraceCmd()
    {
        QFETCH(QString, name);
        auto trace = test::openOrFail(test::fixturePath(name + ".dat"));
        QVERIFY(trace);
        const CallSlices& calls = trace->callSlices();
        QVERIFY(calls.available());
        const std::vector<std::string> names = functionNames(trace->tep(), calls.functionAddresses());
        // trace-cmd -R prints an address where it has no symbol: either spelling matches.
        std::map<std::string, int> byName, byAddress;
        size_t returned = 0;
        for (size_t i = 0; i < calls.size(); ++i) {
            if (calls.flags(i) & kCallOpen) continue;
            ++returned;
            const std::string tail = " " + std::to_string(calls.depth(i)) + " " + std::to_string(calls.duration(i));
            ++byName[names[calls.function(i)] + tail];
            char hex[32];
            std::snprintf(hex, sizeof hex, "%llx",
                          static_cast<unsigned long long>(calls.functionAddresses()[calls.function(i)]));
            ++byAddress[hex + tail];
        }
        const QList<QByteArray> reference = test::readXz(test::fixture(name + ".calls.txt.xz")).split('\n');
        size_t exits = 0;
        for (const QByteArray& line : reference) {
            if (line.isEmpty()) continue;
            ++exits;
            const std::string key = line.toStdString();
            // A function is spelt one way throughout a reference (a symbol, or none).
            if (byName[key] > 0) {
                --byName[key];
            } else {
                QVERIFY2(byAddress[key] > 0, qPrintable("no call like the exit record " + QString::fromStdString(key)));
                --byAddress[key];
            }
        }
        QCOMPARE(returned, exits);
        QCOMPARE(calls.pairing().exits, uint64_t(exits));
    }

    // The calls are a slice table of the trace's (a flame chart per task) read from the same
    // columns: each call once, on its task's row, with its function's name (named once by the
    // trace, as the handle names it), depth, parent and return value; one not returned ends
    // where the next call at its depth or above began, inside its caller, or runs on (kOpen).
    void callsAreATable_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("e2big") << QString::fromStdString(test::fixturePath("fgraph-e2big.dat"));
        QTest::newRow("i686") << QString::fromStdString(test::fixturePath("v6-i686-funcgraph.dat"));
        QTest::newRow("generated, unbalanced, lost events") << QString();
    }
    void callsAreATable()
    {
        QFETCH(QString, path);
        QTemporaryDir dir;
        if (path.isEmpty()) {
            path = writeUnbalancedRecording(dir, "calls.dat", 60000, true);
            QVERIFY(!path.isEmpty());
        }
        auto trace = test::openOrFail(path.toStdString());
        QVERIFY(trace);
        const CallSlices& calls = trace->callSlices();
        const Trace::Analysis* analysis = trace->analysis(CallSlices::kName);
        QVERIFY(analysis && analysis->tables);
        const auto* table = dynamic_cast<const SliceTable*>(analysis->tables->find(CallSlices::kTableKey));
        QVERIFY(table);
        QVERIFY(table->spec().flameChart);
        QCOMPARE(table->source(), static_cast<const SliceRowSource*>(&calls));
        QCOMPARE(table->rows(), calls.size());
        const std::vector<std::string> names = functionNames(trace->tep(), calls.functionAddresses());
        QCOMPARE(table->labelCount(), names.size());
        for (uint32_t f = 0; f < names.size(); ++f) QCOMPARE(table->labelText(f), names[f]);

        const TaskIndex& tasks = trace->taskIndex();
        std::vector<int> seen(calls.size(), 0);
        size_t stillOpen = 0, endedUnseen = 0;
        table->forEach(trace->store(), &tasks, [&](const SliceTable::View& v) {
            QVERIFY(v.id < calls.size());
            ++seen[v.id];
            QCOMPARE(v.start, calls.start(v.id));
            QCOMPARE(v.label, calls.function(v.id));
            QCOMPARE(int64_t(v.depth), std::min<int64_t>(calls.depth(v.id), 255));
            QCOMPARE(v.parent, calls.parent(v.id));
            QCOMPARE(v.value, calls.retval(v.id));
            QCOMPARE((v.flags & Slice::kNoValue) == 0, calls.hasRetval(v.id));
            QCOMPARE(tasks.task(TaskId(v.owner)).pid, calls.pid(v.id));
            QCOMPARE((v.flags & Slice::kNoStart) != 0, (calls.flags(v.id) & kCallNoEntry) != 0);
            if (!(calls.flags(v.id) & kCallOpen)) {
                QCOMPARE(v.end, calls.end(v.id));
                QVERIFY(!(v.flags & Slice::kOpen));
                return;
            }
            if (v.flags & Slice::kOpen) {
                ++stillOpen;
                return;
            }
            ++endedUnseen;
            QVERIFY(v.end >= v.start);
            const uint32_t caller = calls.parent(v.id);
            if (caller != CallSlices::kNoParent && !(calls.flags(caller) & kCallOpen)) QVERIFY(v.end <= calls.end(caller));
        });
        for (size_t i = 0; i < seen.size(); ++i) QVERIFY2(seen[i] == 1, qPrintable(QString::number(i)));
        size_t open = 0;
        for (size_t i = 0; i < calls.size(); ++i) open += (calls.flags(i) & kCallOpen) != 0;
        QCOMPARE(stillOpen + endedUnseen, open);
        if (path.endsWith("calls.dat")) QVERIFY(endedUnseen > 0);
    }

    // Made-up recordings of the shapes real ones have at their edges: every call that returned
    // equals trace-cmd's exit record, and what could not be paired is counted.
    void generatedRecordings_data()
    {
        QTest::addColumn<bool>("unbalanced");
        QTest::addColumn<double>("lost");
        QTest::newRow("balanced, retval, migrations, interrupts") << false << 0.0;
        QTest::newRow("begins and ends mid-call, lost events") << true << 0.002;
    }
    void generatedRecordings()
    {
        QFETCH(bool, unbalanced);
        QFETCH(double, lost);
        test::FuncGraphShape shape;
        shape.records = 20000;
        shape.cpus = 3;
        shape.tasks = 5;
        shape.retval = true;
        shape.migrateChance = 0.01;
        shape.interruptChance = 0.02;
        shape.unbalanced = unbalanced;
        shape.lostChance = lost;
        QTemporaryDir dir;
        const QString path = dir.filePath("generated.dat");
        QVERIFY(test::writeFile(path, test::writeFuncGraphRecording(shape)));

        auto trace = test::openOrFail(path.toStdString());
        QVERIFY(trace);
        const CallSlices& calls = trace->callSlices();
        const CallPairing& pairing = calls.pairing();
        QCOMPARE(pairing.entries + pairing.exits, uint64_t(trace->store().eventCount()));
        if (!unbalanced) {
            QCOMPARE(pairing.exitsWithoutEntry, uint64_t(0));
            QCOMPARE(pairing.openAtEnd, uint64_t(0));
            QCOMPARE(pairing.entries, pairing.exits);
        } else {
            // The calls running at the start, and those whose entries a gap took.
            QVERIFY(pairing.exitsWithoutEntry > uint64_t(shape.tasks * 3));
            QVERIFY(pairing.openAtEnd > 0);
            QVERIFY(pairing.lossGaps > 0);
            QVERIFY(pairing.brokenByLoss > 0);
        }
        // Return values: the err_ functions return -7, -8 or -9, named.
        const std::vector<std::string> names = functionNames(trace->tep(), calls.functionAddresses());
        size_t errors = 0;
        for (size_t i = 0; i < calls.size(); ++i) {
            if (!calls.hasRetval(i)) continue;
            const bool failing = names[calls.function(i)].rfind("err_", 0) == 0;
            QCOMPARE(calls.retval(i) < 0, failing);
            if (failing) {
                QVERIFY(!errnoName(calls.retval(i)).empty());
                ++errors;
            }
        }
        QVERIFY(errors > 10);
        QVERIFY(CallTree::topDown(calls, CallSelection()).node(0).cost.errors > 0);

        if (QStandardPaths::findExecutable("trace-cmd").isEmpty()) QSKIP("trace-cmd is not installed");
        const QStringList reference = traceCmdExits(path);
        QVERIFY(reference.size() > 1000);
        const QStringList ours = callsOf(*trace);
        QCOMPARE(ours.size(), reference.size());
        for (qsizetype k = 0; k < ours.size(); ++k) QCOMPARE(ours[k], reference[k]);
    }

    // The function tracer's counts per function and caller equal trace-cmd's "func <-- parent"
    // lines (tests/data/function-write.callers.txt.xz).
    void functionTracerCountsMatchTraceCmd()
    {
        auto trace = test::openOrFail(test::fixturePath("function-write.dat"));
        QVERIFY(trace);
        QVERIFY(!trace->callSlices().available());
        QVERIFY(trace->functionCalls().available());
        const FunctionCallGraph graph = FunctionCallGraph::of(trace->functionCalls(), *trace);
        QStringList ours;
        for (const FunctionCallGraph::Function& f : graph.functions)
            for (const FunctionCallGraph::Link& caller : f.callers)
                ours << QString("%1 %2 %3")
                            .arg(QString::fromStdString(f.name), QString::fromStdString(caller.function))
                            .arg(caller.count);
        ours.sort();
        QStringList reference = QString::fromUtf8(test::readXz(test::fixture("function-write.callers.txt.xz")))
                                    .split('\n', Qt::SkipEmptyParts);
        reference.sort();
        QCOMPARE(ours.size(), reference.size());
        for (qsizetype k = 0; k < ours.size(); ++k) QCOMPARE(ours[k], reference[k]);
        const FunctionCallGraph::Function* vfsWrite = graph.find("vfs_write");
        QVERIFY(vfsWrite);
        QCOMPARE(vfsWrite->hits, uint64_t(502));
        QCOMPARE(vfsWrite->callers.front().function, std::string("ksys_write"));
    }

    // A task's lanes for the flame-chart track: per depth, its calls in order; asked with a
    // grain, boxes closer than it merged, so a zoomed-out frame draws few of them.
    void lanesLayOutATasksCalls()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(110, 0, 7, kB, 1);
        feed.exit(120, 0, 7, kB, 1, 10);
        feed.entry(125, 0, 7, kB, 1);
        feed.exit(130, 0, 7, kB, 1, 5);
        feed.exit(200, 0, 7, kA, 0, 100);
        feed.entry(300, 0, 7, kC, 0); // runs to the end
        feed.entry(150, 1, 8, kA, 0); // another task
        feed.done();
        const SliceLanes lanes = lanesOfPid(calls, 7, 1000);
        QCOMPARE(lanes.laneCount(), 2);
        QCOMPARE(lanes.sliceCount(), size_t(4));
        std::vector<SliceLanes::Span> out;
        lanes.spans(1, 0, 1000, 0, out);
        QCOMPARE(out.size(), size_t(2));
        QCOMPARE(out[0].start, uint64_t(110));
        QCOMPARE(out[1].end, uint64_t(130));
        out.clear();
        lanes.spans(1, 0, 1000, 10, out); // a 5 ns gap under a 10 ns grain: one box
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(out[0].count, uint32_t(2));
        out.clear();
        lanes.spans(0, 250, 400, 0, out);
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(out[0].end, uint64_t(1000)); // the open call
        out.clear();
        lanes.spans(0, 201, 299, 0, out);
        QVERIFY(out.empty());
    }

    // A call's family for the details pane: direct children, interrupts begun inside it, every
    // call below it, self time; and the lanes' hit test and per-CPU lanes.
    void callFamilyAndLaneLookups()
    {
        CallSlices calls;
        Feeder feed(calls);
        feed.entry(100, 0, 7, kA, 0);
        feed.entry(110, 0, 7, kB, 1);
        feed.entry(112, 0, 7, kC, 2);
        feed.exit(115, 0, 7, kC, 2, 3);
        feed.exit(120, 0, 7, kB, 1, 10);
        feed.entry(121, 1, 8, kA, 0); // another task, meanwhile
        feed.exit(124, 1, 8, kA, 0, 3);
        feed.entry(125, 0, 7, kB, 1, kFlagHardIrq); // an interrupt inside A
        feed.exit(130, 0, 7, kB, 1, 5, kFlagHardIrq);
        feed.entry(140, 0, 7, kC, 1);
        feed.exit(150, 0, 7, kC, 1, 10);
        feed.exit(200, 0, 7, kA, 0, 100);
        feed.done();
        QCOMPARE(calls.size(), size_t(6));
        const CallFamily a = CallFamily::of(calls, 0);
        QCOMPARE(a.children, uint64_t(2)); // B and the second C
        QCOMPARE(a.interrupts, uint64_t(1));
        QCOMPARE(a.descendants, uint64_t(4)); // B, its C, the interrupt, C
        QCOMPARE(a.childTime, uint64_t(20));
        QCOMPARE(a.selfTime(calls, 0), uint64_t(80));
        const CallFamily b = CallFamily::of(calls, 1);
        QCOMPARE(b.children, uint64_t(1));
        QCOMPARE(b.selfTime(calls, 1), uint64_t(7));
        QCOMPARE(CallFamily::of(calls, 2).descendants, uint64_t(0));

        const SliceLanes lanes = lanesOfPid(calls, 7, 1000);
        auto idAt = [&](int lane, uint64_t t, uint64_t slack) -> std::optional<uint32_t> {
            const SliceLanes::Span* s = lanes.sliceAt(lane, t, slack);
            return s ? std::optional<uint32_t>(s->id) : std::nullopt;
        };
        QCOMPARE(idAt(1, 111, 0), std::optional<uint32_t>(1)); // inside B
        QCOMPARE(idAt(1, 122, 0), std::nullopt);               // between calls
        QCOMPARE(idAt(1, 123, 2), std::optional<uint32_t>(4)); // 2 ns before the interrupt
        QCOMPARE(idAt(1, 134, 5), std::optional<uint32_t>(4)); // nearest: 4 after the interrupt
        QCOMPARE(idAt(3, 111, 100), std::nullopt);             // no such lane
        // The interrupt's flag reaches the lanes (drawn in a shade of its own), the others' not.
        QVERIFY(lanes.sliceAt(1, 126, 0)->flags & Slice::kInterrupt);
        QVERIFY(!(lanes.sliceAt(1, 111, 0)->flags & Slice::kInterrupt));
        QCOMPARE(lanes.sliceAt(1, 111, 0)->label, calls.function(1));
        const SliceLanes cpu1 = lanesOfStream(calls, StreamId(uint16_t(1)), 1000);
        QCOMPARE(cpu1.sliceCount(), size_t(1));
        QCOMPARE(calls.cpu(3), 1);
        QCOMPARE(lanesOfStream(calls, StreamId(uint16_t(0)), 1000).sliceCount(), size_t(5));
        // One call by its id, as the timeline outlines the selected one.
        QCOMPARE(calls.slice(4)->start, uint64_t(125));
        QCOMPARE(int(calls.slice(4)->depth), 1);
        QVERIFY(!calls.slice(6));
    }

    // The coarser levels of a lane together hold fewer spans than its slices, however the gaps
    // between them spread: here over every grain, so that each coarser grain merges a few more.
    void laneLevelsStayUnderTwiceTheSlices()
    {
        SliceLanes::Builder builder;
        uint64_t t = 1000;
        const uint32_t n = 20000;
        for (uint32_t i = 0; i < n; ++i) {
            SliceTable::View v;
            v.start = t;
            v.end = t + 10;
            v.id = i;
            builder.add(v);
            // Gaps from 1 us to 8^8 us, log-uniform.
            t += 10 + uint64_t(1000 * std::pow(8.0, double(i * 7919 % 800) / 100));
        }
        const SliceLanes lanes = std::move(builder).finish(t);
        QCOMPARE(lanes.sliceCount(), size_t(n));
        QVERIFY2(lanes.memoryBytes() < 2 * n * sizeof(SliceLanes::Span),
                 qPrintable(QString("%1 bytes for %2 slices").arg(lanes.memoryBytes()).arg(n)));
        // Zoomed out, still about a box per grain.
        std::vector<SliceLanes::Span> boxes;
        lanes.spans(0, 0, t, t / 1600, boxes);
        QVERIFY2(boxes.size() <= 2400, qPrintable(QString::number(boxes.size())));
    }

    // On a generated recording: every call in a range is inside a returned box, boxes are in
    // order and apart by at least the grain unless one is a call wide enough to show, such a
    // call is a box of its own, and a whole-range query at a pixel's grain returns about as
    // many boxes as there are pixels.
    void lanesAgreeWithTheCalls()
    {
        QTemporaryDir dir;
        const QString path = writeUnbalancedRecording(dir, "lanes.dat", 200000, false);
        QVERIFY(!path.isEmpty());
        auto trace = test::openOrFail(path.toStdString());
        QVERIFY(trace);
        const CallSlices& calls = trace->callSlices();
        const uint64_t first = trace->store().firstTimestamp(), last = trace->store().lastTimestamp();
        const SliceLanes lanes = lanesOfPid(calls, 1001, last);
        QVERIFY(lanes.sliceCount() > 10000);
        const uint64_t span = last - first;
        for (const auto& [from, to, grain] : std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>{
                 {first, last + 1, 0},
                 {first + span / 3, first + span / 3 + span / 50, 0},
                 {first, last + 1, span / 1600},
                 {first + span / 2, first + span / 2 + span / 10, span / 16000}}) {
            for (int lane = 0; lane < lanes.laneCount(); ++lane) {
                std::vector<SliceLanes::Span> boxes;
                lanes.spans(lane, from, to, grain, boxes);
                const uint64_t wide = grain * SliceLanes::kNarrowGrains;
                auto isWideCall = [&](const SliceLanes::Span& s) { return s.count == 1 && s.end - s.start >= wide; };
                for (size_t k = 1; k < boxes.size(); ++k) {
                    QVERIFY(boxes[k].start >= boxes[k - 1].end);
                    if (grain)
                        QVERIFY(boxes[k].start >= boxes[k - 1].end + grain || isWideCall(boxes[k]) ||
                                isWideCall(boxes[k - 1]));
                }
                if (grain == span / 1600) QVERIFY2(boxes.size() <= 2500, qPrintable(QString::number(boxes.size())));
                // Every call of this task and depth that overlaps the range lies in a box.
                size_t inRange = 0;
                for (size_t i = 0; i < calls.size(); ++i) {
                    if (calls.pid(i) != 1001 || calls.depth(i) != lane || (calls.flags(i) & kCallOpen)) continue;
                    if (calls.start(i) >= to || calls.end(i) <= from) continue;
                    ++inRange;
                    const auto box =
                        std::upper_bound(boxes.begin(), boxes.end(), calls.start(i),
                                         [](uint64_t t, const SliceLanes::Span& s) { return t < s.start; });
                    QVERIFY(box != boxes.begin());
                    QVERIFY(std::prev(box)->start <= calls.start(i) && calls.end(i) <= std::prev(box)->end);
                    // A call wide enough to see is never merged into a box of others.
                    if (grain && calls.end(i) - calls.start(i) >= wide) {
                        QCOMPARE(std::prev(box)->count, uint32_t(1));
                        QCOMPARE(std::prev(box)->start, calls.start(i));
                    }
                }
                if (grain == 0 && lane == 0) QVERIFY(boxes.size() >= inRange);
            }
        }
    }

    // The failing execve in fgraph-e2big.dat: its do_execveat_common ran in the execve the
    // syscalls plugin paired, which returned -7 (E2BIG), and skipped what the successful one did.
    void failingExecIsFoundWithItsResult()
    {
        std::vector<std::unique_ptr<Plugin>> plugins;
        plugins.push_back(std::make_unique<syscalls::SyscallsPlugin>());
        auto opened = Trace::open(test::fixturePath("fgraph-e2big.dat"), LoadOptions(), {}, std::move(plugins));
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        const std::unique_ptr<Trace>& trace = *opened;
        QVERIFY(hasSyscallTable(*trace));
        const CallSlices& calls = trace->callSlices();
        const std::vector<std::string> names = functionNames(trace->tep(), calls.functionAddresses());
        std::vector<size_t> execs;
        for (size_t i = 0; i < calls.size(); ++i)
            if (names[calls.function(i)] == "do_execveat_common.isra.0") execs.push_back(i);
        QCOMPARE(execs.size(), size_t(3));
        std::vector<int64_t> results;
        for (size_t i : execs) {
            const auto call = syscallAround(*trace, calls.pid(i), calls.start(i));
            QVERIFY(call);
            QCOMPARE(call->name, std::string("execve"));
            QVERIFY(call->enter <= calls.start(i) && calls.start(i) <= call->exit);
            results.push_back(call->ret);
            // The same call, found from its return event (the System call tab's way).
            const auto ended = syscallEndedBy(*trace, call->exitEvent);
            QVERIFY(ended);
            QCOMPARE(ended->enter, call->enter);
            QCOMPARE(ended->ret, call->ret);
            QCOMPARE(ended->name, std::string("execve"));
        }
        QCOMPARE(results, (std::vector<int64_t>{0, 0, -7}));
        // Not a return event: no call; without the syscalls analysis: none either.
        const std::optional<EventRef> entry = callRecord(*trace, calls, execs[2]); // a funcgraph_entry
        QVERIFY(entry && !syscallEndedBy(*trace, *entry));
        auto without = test::openOrFail(test::fixturePath("fgraph-e2big.dat"));
        QVERIFY(without && !hasSyscallTable(*without));
        QVERIFY(!syscallAround(*without, calls.pid(execs[2]), calls.start(execs[2])));
        // The failing exec never reached bprm_execve.
        auto callees = [&](size_t exec) {
            CallSelection one;
            one.root = uint32_t(exec);
            const CallTree tree = CallTree::topDown(calls, one);
            std::vector<std::string> functions;
            const CallTree::Node& top = tree.node(tree.hottestPath().front());
            for (uint32_t c : top.children) functions.push_back(names[tree.node(c).function]);
            return functions;
        };
        const auto succeeded = callees(execs[1]), failed = callees(execs[2]);
        QVERIFY(std::count(succeeded.begin(), succeeded.end(), "bprm_execve"));
        QVERIFY(!std::count(failed.begin(), failed.end(), "bprm_execve"));
        QVERIFY(std::count(failed.begin(), failed.end(), "copy_strings.isra.0"));
    }
};

QTEST_GUILESS_MAIN(TestCallSlices)
#include "tst_callslices.moc"
