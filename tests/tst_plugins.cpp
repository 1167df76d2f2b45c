// SPDX-License-Identifier: GPL-2.0-or-later
// Plugins: the syscalls plugin's pairing and statistics on plain values and on real
// recordings (checked against trace-cmd's report), the syscall name tables, the catalog with
// broken modules beside good ones, a plugin that throws, and `ringside-cli stats`.
#include "testsupport.h"

#include "analysis/tracktables.h"
#include "kvmplugin.h"
#include "plugin/pluginloader.h"
#include "plugin/statstext.h"
#include "schedplugin.h"
#include "syscallsplugin.h"
#include "trace.h"
#include "workqueueplugin.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <mutex>

using namespace ringside;
using namespace ringside::syscalls;

namespace {

// A plugin set up as the registry sets one up: its tables in a set of their own, each call the
// syscalls plugin adds to its table collected (from any thread: pieces add from the parser's).
struct Tables {
    AnalysisTables tables;
    void publish() { tables.publish({}); }
    template <typename T>
    const T& find(const std::string& key) const
    {
        const TrackTable* t = tables.find(key);
        if (!t) qFatal("no table %s", key.c_str());
        return static_cast<const T&>(*t);
    }
};

struct CallLog {
    std::mutex lock;
    std::vector<SyscallsPlugin::Call> calls;
    void watch(SyscallsPlugin& plugin)
    {
        plugin.setCallObserver([this](const SyscallsPlugin::Call& c) {
            const std::lock_guard guard(lock);
            calls.push_back(c);
        });
    }
    // In entry order (a call without an entry by its exit), as the tests read them.
    std::vector<SyscallsPlugin::Call> sorted()
    {
        std::vector<SyscallsPlugin::Call> out = calls;
        std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
            return (a.enterSeen ? a.enter : a.exit) < (b.enterSeen ? b.enter : b.exit);
        });
        return out;
    }
};

// Feeds the syscalls plugin records by request, as the registry would.
class Feeder {
public:
    Feeder(SyscallsPlugin& plugin, TableSink& tables) : m_plugin(plugin)
    {
        RecordingInfo info;
        info.machine = "x86_64";
        info.eventName = [](uint16_t type) {
            return type == kEnterExecve  ? std::string("sys_enter_execve")
                   : type == kExitExecve ? std::string("sys_exit_execve")
                                         : std::string();
        };
        m_plugin.setRecording(info);
        m_plugin.setTables(tables);
        m_plugin.bind(std::vector<bool>(m_plugin.requests().size(), true));
        m_plugin.setStreams({{0, 0, 0}, {1, 0, 0}});
    }
    void rawEnter(uint64_t ts, int32_t pid, int64_t nr) { send(0, 0, ts, pid, {nr}); }
    void rawExit(uint64_t ts, int32_t pid, int64_t nr, int64_t ret) { send(1, 0, ts, pid, {nr, ret}); }
    void enterExecve(uint64_t ts, int32_t pid) { send(2, kEnterExecve, ts, pid, {59}); }
    void exitExecve(uint64_t ts, int32_t pid, int64_t ret) { send(3, kExitExecve, ts, pid, {59, ret}); }

    static constexpr uint16_t kEnterExecve = 700, kExitExecve = 701;

private:
    void send(size_t request, uint16_t type, uint64_t ts, int32_t pid, const std::vector<int64_t>& numbers)
    {
        std::vector<TypedValue> values;
        for (int64_t n : numbers) values.push_back(TypedValue::number(uint64_t(n), true, 8));
        ConsumedRecord r;
        r.request = request;
        r.type = type;
        r.timestamp = ts;
        r.stream = StreamId(uint16_t(pid % 2));
        r.index = m_index[pid % 2]++;
        r.pid = pid;
        r.values = values.data();
        r.valueCount = values.size();
        m_plugin.consume(r);
    }
    SyscallsPlugin& m_plugin;
    uint32_t m_index[2] = {0, 0};
};

// The syscalls plugin fed in merged order, one record after another: what its pieces must
// come to.
class MergedOrderSyscalls : public SyscallsPlugin {
public:
    std::string name() const override { return "syscalls-in-merged-order"; }
    bool fedInPieces() const override { return false; }
};

// Calls as text, with their names, for comparing two plugins' calls.
std::vector<std::string> callLines(const std::vector<SyscallsPlugin::Call>& calls, const SyscallsPlugin& plugin)
{
    std::vector<std::string> lines;
    for (const SyscallsPlugin::Call& c : calls)
        lines.push_back(std::to_string(c.pid) + " " + std::to_string(c.enter) + "-" + std::to_string(c.exit) + " " +
                        plugin.names()[c.name] + " = " + std::to_string(c.ret) + " stream " +
                        std::to_string(c.stream.value) + (c.enterSeen ? " entered" : "") +
                        (c.exitSeen ? " returned" : ""));
    std::sort(lines.begin(), lines.end());
    return lines;
}

const StatsTable* statsNamed(const std::vector<StatsTable>& tables, const std::string& key)
{
    for (const StatsTable& t : tables)
        if (t.key == key) return &t;
    return nullptr;
}

// A column of a statistics table by key.
const StatsTable::Column& column(const StatsTable& table, const std::string& key)
{
    for (const StatsTable::Column& c : table.columns)
        if (c.key == key) return c;
    qFatal("no column %s in %s", key.c_str(), table.key.c_str());
}

std::unique_ptr<Trace> openWith(const QString& fixture, std::unique_ptr<Plugin> plugin)
{
    std::vector<std::unique_ptr<Plugin>> plugins;
    plugins.push_back(std::move(plugin));
    auto trace = Trace::open(test::fixturePath(fixture), LoadOptions(), {}, std::move(plugins));
    return trace ? std::move(trace.value()) : nullptr;
}

// The failed system calls in a recording, counted from trace-cmd's report of its raw_syscalls
// exits ("sys_exit: NR 61 = -10").
int failuresInReport(const QString& reportXz, int* e2big)
{
    const QByteArray report = test::readXz(test::fixture(reportXz));
    if (report.isEmpty()) return -1;
    int failures = 0;
    const QRegularExpression exit(" sys_exit: +NR (-?\\d+) = (-\\d+)$");
    for (const QByteArray& line : report.split('\n')) {
        const auto m = exit.match(QString::fromUtf8(line));
        if (!m.hasMatch()) continue;
        const long long ret = m.captured(2).toLongLong();
        if (ret < 0 && ret >= -4095) {
            ++failures;
            if (ret == -7 && m.captured(1) == "59") ++*e2big;
        }
    }
    return failures;
}

// `calls` failing calls of two tasks, 100 ns apart, the i-th lasting 10 + i ns (10 + i %
// `durationCycle` with one), joined every `joinEvery` calls (0: once, at the end).
void feedFailingCalls(SyscallsPlugin& plugin, Tables& tables, uint64_t calls, uint64_t joinEvery,
                      uint64_t durationCycle)
{
    Feeder feed(plugin, tables.tables);
    for (uint64_t i = 0; i < calls; ++i) {
        const uint64_t t = 1000 + i * 100;
        const int32_t pid = 5 + int32_t(i % 2);
        feed.rawEnter(t, pid, 2);
        feed.rawExit(t + 10 + (durationCycle ? i % durationCycle : i), pid, 2, -int64_t(1 + i % 30));
        if (joinEvery && (i + 1) % joinEvery == 0) plugin.flush();
    }
    plugin.flush();
    plugin.finish();
}

} // namespace

class TestPlugins : public QObject {
    Q_OBJECT

private slots:
    // Slices anchored at their events keep the distance back and the label in a byte each:
    // long distances and labels past a stretch's first 255 must come back all the same.
    void anchoredSlicesKeepWideBacksAndLabels()
    {
        AnchoredSlices part;
        part.firstEvent = 70000;
        struct Row {
            uint32_t end, back;
            uint16_t label;
            uint8_t flags;
        };
        std::vector<Row> rows;
        const uint32_t backs[] = {1, 0, 254, 255, 256, 300, 65535, 2};
        for (uint32_t i = 0; i < 3000; ++i) {
            const uint32_t end = 60000 + i * 3;
            const uint32_t back = backs[i % 8];
            const auto label = uint16_t(i % 7 == 0 ? 40000 + i
                                        : i == 5   ? 0xffff
                                                   : i % 400); // 400 + many one-off labels
            const uint8_t flags = back ? (i % 11 == 0 ? Slice::kError : 0) : Slice::kNoStart;
            QVERIFY(part.append(end, back, label, flags, 0));
            rows.push_back({end, back, label, flags});
        }
        QVERIFY(!part.append(70000, 65536, 1, 0, 0)); // too far back for the part: kept whole
        part.seal(60000 + 3000 * 3);
        QCOMPARE(part.rows(), rows.size());
        QVERIFY(!part.wideBacks.empty());
        QVERIFY(!part.wideLabels.empty());
        AnchoredSlices::FlagWalk walk(part, 0);
        for (size_t r = 0; r < rows.size(); ++r) {
            if (part.labelOf(r) != rows[r].label || part.backOf(r) != rows[r].back || part.endOf(r) != rows[r].end ||
                walk.flags(r) != rows[r].flags)
                QFAIL(qPrintable(QString("row %1: label %2 back %3 end %4, %5 %6 %7 added")
                                     .arg(r)
                                     .arg(part.labelOf(r))
                                     .arg(part.backOf(r))
                                     .arg(part.endOf(r))
                                     .arg(rows[r].label)
                                     .arg(rows[r].back)
                                     .arg(rows[r].end)));
        }
        // A byte a row for its label, and one more for a back other than 1, beside the bits.
        size_t otherBacks = 0;
        for (const Row& r : rows) otherBacks += r.back != 1;
        const size_t perRow = part.memoryBytes() - part.bits.size() * 8 - part.rowsBefore.size() * 4 -
                              part.backIsOne.size() * 8 - part.onesBefore.size() * 4 - part.palette.size() * 2 -
                              (part.wideBacks.size() + part.wideLabels.size()) * 8 - part.flagged.size() * 8 -
                              sizeof part;
        QCOMPARE(perRow, rows.size() + otherBacks);
    }

    // A start at the event before the end (nearly every system call) takes a bit, not a byte:
    // read back the same among other distances, across words of rows.
    void anchoredSlicesKeepBacksOfOneInABit()
    {
        AnchoredSlices part;
        part.firstEvent = 1000; // a start may be before the stretch's first event
        std::vector<uint32_t> backs;
        for (uint32_t i = 0; i < 1000; ++i) {
            const uint32_t back = i % 97 == 0 ? 0 : i % 31 == 0 ? 7 : i % 211 == 0 ? 600 : 1;
            backs.push_back(back);
            QVERIFY(part.append(10 + i * 2, back, 1, back ? 0 : Slice::kNoStart, 0));
        }
        part.seal(10 + 1000 * 2);
        AnchoredSlices::FlagWalk walk(part, 0);
        for (size_t r = 0; r < backs.size(); ++r) {
            QCOMPARE(uint32_t(part.backOf(r)), backs[r]);
            QCOMPARE(walk.flags(r), backs[r] ? uint8_t(0) : uint8_t(Slice::kNoStart));
        }
        const size_t notOne = size_t(std::count_if(backs.begin(), backs.end(), [](uint32_t b) { return b != 1; }));
        QCOMPARE(part.otherBacks.size(), notOne);
        QCOMPARE(part.backIsOne.size(), size_t(1000 + 63) / 64);
    }

    // A piece that adds its stretch's anchored rows straight (SliceSink::anchoredRows) keeps
    // what adding them as slices keeps: the same rows, flags and fallbacks.
    void anchoredRowsAddedStraightAreTheSlicesAdded()
    {
        Tables asSlices, straight;
        SliceSink& a = asSlices.tables.slices({"calls", "Calls", RowOwner::Task, "", "ret", 0});
        SliceSink& b = straight.tables.slices({"calls", "Calls", RowOwner::Task, "", "ret", 0});
        QVERIFY(!b.anchoredRows()); // outside a piece's stretch
        for (uint32_t l = 0; l < 300; ++l) a.label("l" + std::to_string(l)), b.label("l" + std::to_string(l));
        StretchRows rowsA(StreamId(1)), rowsB(StreamId(1));
        size_t fellBack = 0;
        for (uint32_t i = 0; i < 2000; ++i) {
            Slice s;
            const uint32_t end = 10 + i * 4 - (i == 700 ? 8 : 0); // one out of order
            const uint32_t back = i % 9 == 0 ? 0 : i % 13 == 0 ? 300 : 1 + i % 3;
            s.endEvent = {StreamId(1), end};
            if (back) s.startEvent = {StreamId(1), end - back};
            s.start = s.end = 1000 + end;
            s.label = i % 290;
            s.flags = uint8_t((i % 7 == 0 ? Slice::kError : 0) | (back ? 0 : Slice::kNoStart));
            s.owner = 7;
            {
                const StretchRows::Scope scope(&rowsA);
                a.add(s);
            }
            const StretchRows::Scope scope(&rowsB);
            AnchoredSliceRows* rows = b.anchoredRows();
            QVERIFY(rows);
            if (!rows->add(end, back, s.label, s.flags)) ++fellBack, b.add(s);
        }
        QCOMPARE(fellBack, size_t(6)); // out of order, and five that began before the stretch
        rowsA.place(5000, 9000);
        rowsB.place(5000, 9000);
        asSlices.publish();
        straight.publish();
        const auto& ta = asSlices.find<SliceTable>("calls");
        const auto& tb = straight.find<SliceTable>("calls");
        QCOMPARE(tb.rows(), ta.rows());
        QCOMPARE(ta.rows(), size_t(2000));
        const auto* partsA = ta.anchored(StreamId(1));
        const auto* partsB = tb.anchored(StreamId(1));
        QVERIFY(partsA && partsB);
        QCOMPARE(partsB->size(), partsA->size());
        for (size_t p = 0; p < partsA->size(); ++p) {
            const AnchoredSlices& pa = *(*partsA)[p];
            const AnchoredSlices& pb = *(*partsB)[p];
            QCOMPARE(pb.firstEvent, pa.firstEvent);
            QCOMPARE(pb.rows(), pa.rows());
            AnchoredSlices::FlagWalk fa(pa, 0), fb(pb, 0);
            for (size_t r = 0; r < pa.rows(); ++r) {
                QCOMPARE(pb.endOf(r), pa.endOf(r));
                QCOMPARE(pb.backOf(r), pa.backOf(r));
                QCOMPARE(pb.labelOf(r), pa.labelOf(r));
                QCOMPARE(fb.flags(r), fa.flags(r));
            }
        }
    }

    // A call left open at the end of a stretch cannot return after its task entered another
    // call at the next stretch's start. That entry's time must be the entry's own, even once
    // its call is in the table and its place in the piece taken by a later call.
    void syscallsOpenAtAStretchEndEndAtTheNextEntry()
    {
        SyscallsPlugin plugin;
        Tables tables;
        CallLog log;
        log.watch(plugin);
        RecordingInfo info;
        info.machine = "x86_64";
        plugin.setRecording(info);
        plugin.setTables(tables.tables);
        std::vector<bool> bound(plugin.requests().size(), false);
        bound[0] = bound[1] = true; // raw_syscalls only
        plugin.bind(bound);
        plugin.setStreams({{0, 0, 0}, {1, 0, 0}});
        auto send = [](StreamPiece& piece, size_t request, uint16_t stream, uint32_t index, uint64_t ts,
                       std::vector<int64_t> numbers) {
            std::vector<TypedValue> values;
            for (int64_t n : numbers) values.push_back(TypedValue::number(uint64_t(n), true, 8));
            ConsumedRecord r;
            r.request = request;
            r.timestamp = ts;
            r.stream = StreamId(stream);
            r.index = index;
            r.pid = 5;
            r.values = values.data();
            r.valueCount = values.size();
            piece.consume(r);
        };
        auto first = plugin.newPiece(StreamId(0));
        send(*first, 0, 0, 0, 100, {0}); // read, not returned in this stretch
        first->end();
        auto next = plugin.newPiece(StreamId(0));
        send(*next, 0, 0, 0, 200, {1}); // write, entered first here
        send(*next, 1, 0, 1, 210, {1, 1});
        send(*next, 0, 0, 2, 220, {2}); // open, in the place write had
        send(*next, 1, 0, 3, 230, {2, 3});
        next->end();
        auto other = plugin.newPiece(StreamId(1));
        send(*other, 1, 1, 0, 215, {0, 7}); // a read's return on the other CPU, its entry not recorded
        other->end();
        std::vector<FedPiece> pieces;
        pieces.push_back({StreamId(0), 0, std::move(first)});
        pieces.push_back({StreamId(0), 1, std::move(next)});
        pieces.push_back({StreamId(1), 0, std::move(other)});
        plugin.join(std::move(pieces));
        plugin.finish();
        const std::vector<std::string> lines = callLines(log.sorted(), plugin);
        const std::vector<std::string> expected = {
            "5 100-100 read = 0 stream 0 entered", "5 200-210 write = 1 stream 0 entered returned",
            "5 215-215 read = 7 stream 1 returned", "5 220-230 open = 3 stream 0 entered returned"};
        QVERIFY2(lines == expected, qPrintable(QString::fromStdString([&] {
                     std::string all;
                     for (const std::string& l : lines) all += l + "; ";
                     return all;
                 }())));
    }

    // TaskLives answers as taskAt does, asking once per task while the answer holds, and at
    // each question when it is not to be kept (a task named only by records).
    // A statistics column keeps 4 bytes a cell until a value needs 8; every value reads back
    // as it was added, before and after the column widens, kUnknown and int32's edges too.
    void statisticsCellsKeepEveryValue()
    {
        const std::vector<int64_t> narrow = {0, -7, StatsTable::kUnknown, INT32_MAX, INT32_MIN + 1, 42};
        const std::vector<int64_t> wide = {int64_t(INT32_MAX) + 1, INT32_MIN, StatsTable::eventCell({StreamId(3), 9}),
                                           StatsTable::kUnknown, -5};
        NumberCells cells;
        for (int64_t v : narrow) cells.push_back(v);
        QCOMPARE(cells.memoryBytes() < narrow.size() * sizeof(int64_t), true);
        for (size_t i = 0; i < narrow.size(); ++i) QCOMPARE(cells[i], narrow[i]);
        for (int64_t v : wide) cells.push_back(v);
        std::vector<int64_t> all = narrow;
        all.insert(all.end(), wide.begin(), wide.end());
        QCOMPARE(cells.size(), all.size());
        size_t i = 0;
        for (int64_t v : cells) QCOMPARE(v, all[i++]);
        QCOMPARE(i, all.size());
        // INT32_MIN is what a narrow column keeps kUnknown as: a real one widens it.
        NumberCells edge;
        edge.push_back(INT32_MIN);
        QCOMPARE(edge[0], int64_t(INT32_MIN));
        QVERIFY(edge[0] != StatsTable::kUnknown);

        SparseCells<StatsTable::Counts> counts;
        counts.push_back({});
        counts.push_back({{"ENOENT", 3}, {"EAGAIN", 1}});
        counts.push_back({});
        counts.push_back({{"EINTR", 2}});
        QCOMPARE(counts.size(), size_t(4));
        QVERIFY(counts[0].empty() && counts[2].empty());
        QCOMPARE(counts[1].size(), size_t(2));
        QCOMPARE(counts[1][0].first, std::string("ENOENT"));
        QCOMPARE(counts[3][0].second, int64_t(2));
    }

    void taskLivesAskOncePerTask()
    {
        RecordingInfo info;
        int asked = 0;
        constexpr uint64_t kReused = 500; // pid 7 is created again then
        info.taskAt = [&](int32_t pid, uint64_t time) {
            ++asked;
            return uint32_t(pid * 10 + (pid == 7 && time >= kReused));
        };
        info.taskEnds = [&](int32_t pid, uint64_t time) {
            if (pid == 9) return time; // no events of its own
            return pid == 7 && time < kReused ? kReused : UINT64_MAX;
        };
        TaskLives lives(info);
        const std::vector<std::pair<int32_t, uint64_t>> questions{{7, 100}, {7, 200}, {7, 499}, {7, 500}, {7, 900},
                                                                  {7, 300}, {9, 100}, {9, 100}, {3, 5},   {3, 1}};
        for (const auto& [pid, time] : questions) {
            const int before = asked;
            const uint32_t task = lives.at(pid, time);
            const int askedNow = asked - before;
            QCOMPARE(task, info.taskAt(pid, time));
            asked -= 1; // the check's own question
            if (askedNow > 1) QFAIL("asked twice for one question");
        }
        // 7: at 100, at 500 (its next life), at 300 (before what was kept); 9: each time; 3: at 5
        // and again at 1, before it.
        QCOMPARE(asked, 3 + 2 + 2);
        // Without taskEnds nothing is kept.
        RecordingInfo bare;
        bare.taskAt = info.taskAt;
        TaskLives each(bare);
        asked = 0;
        for (int i = 0; i < 3; ++i) QCOMPARE(each.at(7, 100), uint32_t(70));
        QCOMPARE(asked, 3);
        lives.clear();
        asked = 0;
        QCOMPARE(lives.at(7, 900), uint32_t(71));
        QCOMPARE(asked, 1);
    }

    void syscallNamesAndErrnos()
    {
        QCOMPARE(syscallName(Architecture::X86_64, 0), std::string("read"));
        QCOMPARE(syscallName(Architecture::X86_64, 59), std::string("execve"));
        QCOMPARE(syscallName(Architecture::I386, 11), std::string("execve"));
        QCOMPARE(syscallName(Architecture::Arm64, 63), std::string("read"));
        QCOMPARE(syscallName(Architecture::Arm64, 221), std::string("execve"));
        QCOMPARE(syscallName(Architecture::Arm, 322), std::string("openat"));
        QCOMPARE(syscallName(Architecture::Unknown, 5), std::string("NR 5"));
        QCOMPARE(syscallName(Architecture::X86_64, 3999), std::string("NR 3999"));
        QVERIFY(architectureOf("x86_64") == Architecture::X86_64);
        QVERIFY(architectureOf("i686") == Architecture::I386);
        QVERIFY(architectureOf("aarch64") == Architecture::Arm64);
        QVERIFY(architectureOf("armv7l") == Architecture::Arm);
        QVERIFY(architectureOf("riscv64") == Architecture::Unknown);
        QCOMPARE(errnoName(-7), std::string("E2BIG"));
        QCOMPARE(errnoName(-2), std::string("ENOENT"));
        QCOMPARE(errnoName(0), std::string());
        QCOMPARE(errnoName(-5000), std::string()); // an address, not an error
        // The kernel's own: a call interrupted by a signal, before it is restarted.
        QCOMPARE(errnoName(-512), std::string("ERESTARTSYS"));
        QCOMPARE(errnoName(-514), std::string("ERESTARTNOHAND"));
        QCOMPARE(errnoName(-515), std::string("ENOIOCTLCMD"));
        QCOMPARE(errnoName(-516), std::string("ERESTART_RESTARTBLOCK"));
        QCOMPARE(errnoName(-524), std::string("ENOTSUPP"));
        QCOMPARE(errnoName(-520), std::string("errno 520")); // unused in the kernel
    }

    // One call seen through both kinds of events is one call; NR -1 ends the call entered;
    // exits without entries and calls that never return are kept.
    void syscallsPairOnPlainValues()
    {
        SyscallsPlugin plugin;
        Tables tables;
        CallLog log;
        log.watch(plugin);
        Feeder feed(plugin, tables.tables);
        feed.rawEnter(100, 5, 59);
        feed.enterExecve(100, 5);
        feed.rawEnter(150, 6, 2); // open, on another task meanwhile
        feed.rawExit(160, 6, 2, -2);
        feed.rawExit(200, 5, 59, -7);
        feed.exitExecve(200, 5, -7);
        feed.rawEnter(300, 5, 15); // rt_sigreturn returns as NR -1
        feed.rawExit(310, 5, -1, 0);
        feed.rawExit(400, 5, 0, 5); // read, entered before the recording
        feed.rawEnter(500, 5, 231); // exit_group never returns
        plugin.flush();
        plugin.finish();
        QCOMPARE(plugin.callCount(), size_t(5));
        const std::vector<SyscallsPlugin::Call> calls = log.sorted();
        auto name = [&](size_t i) { return plugin.names()[calls[i].name]; };
        QCOMPARE(name(0), std::string("execve"));
        QCOMPARE(calls[0].duration(), uint64_t(100));
        QVERIFY(calls[0].failed());
        QCOMPARE(name(1), std::string("open"));
        QCOMPARE(calls[1].ret, int64_t(-2));
        QCOMPARE(name(2), std::string("rt_sigreturn"));
        QCOMPARE(calls[2].duration(), uint64_t(10));
        QCOMPARE(name(3), std::string("read"));
        QVERIFY(!calls[3].enterSeen && calls[3].exitSeen);
        QCOMPARE(name(4), std::string("exit_group"));
        QVERIFY(calls[4].enterSeen && !calls[4].exitSeen);
        QCOMPARE(plugin.nothingToShow(), std::string());

        // The table: each call once, the failure flagged, the call never returned open, the
        // one entered before the recording without a start.
        tables.publish();
        const SliceTable& slices = tables.find<SliceTable>("syscalls");
        QCOMPARE(slices.rows(), size_t(5));
        // Flags by name, from both kinds of rows (anchored at their events, or kept whole).
        std::map<std::string, uint8_t> flags;
        for (uint32_t owner = 0; owner < slices.explicitRows().owners(); ++owner)
            if (const auto* rows = slices.explicitRows().of(owner))
                for (size_t r = 0; r < rows->size(); ++r) flags[slices.labelText((*rows)[r].label)] = (*rows)[r].flags;
        for (uint16_t stream = 0; stream < 2; ++stream)
            if (const auto* parts = slices.anchored(StreamId(stream)))
                for (size_t p = 0; p < parts->size(); ++p) {
                    AnchoredSlices::FlagWalk walk(*(*parts)[p], 0);
                    for (size_t r = 0; r < (*parts)[p]->rows(); ++r)
                        flags[slices.labelText((*parts)[p]->labelOf(r))] = walk.flags(r);
                }
        QCOMPARE(flags["execve"], uint8_t(Slice::kError));
        QCOMPARE(flags["exit_group"], uint8_t(Slice::kOpen));
        QCOMPARE(flags["read"], uint8_t(Slice::kNoStart));

        const std::vector<StatsTable> stats = plugin.statistics();
        const StatsTable* failures = statsNamed(stats, "failures");
        QVERIFY(failures && failures->headline);
        QCOMPARE(failures->rows(), size_t(2));
        StatsContext names;
        names.taskName = [](uint32_t task) { return task == 5 ? std::string("sh") : std::string("cat"); };
        names.taskPid = [](uint32_t task) { return int32_t(task); };
        names.eventTime = [&](EventRef e) { return e.stream.value == 1 && e.index == 2 ? uint64_t(200) : 0; };
        const std::string json = tableJson(*failures, names);
        QVERIFY2(
            json.find(
                R"({"at": 200, "cpu": 1, "task": {"pid": 5, "comm": "sh"}, "name": "execve", "ret": -7, "errno": "E2BIG", "duration_ns": 100})") !=
                std::string::npos,
            json.c_str());
        const StatsTable* perCall = statsNamed(stats, "syscalls");
        QVERIFY(perCall);
        const std::string perCallJson = tableJson(*perCall);
        QVERIFY2(
            perCallJson.find(
                R"({"name": "execve", "calls": 1, "errors": {"E2BIG": 1}, "total_ns": 100, "avg_ns": 100, "max_ns": 100})") !=
                std::string::npos,
            perCallJson.c_str());
        QVERIFY(tableText(*perCall).find("E2BIG 1") != std::string::npos);
        // A call entered before the recording: its duration is unknown, not 0.
        const std::string readJson = tableJson(*statsNamed(stats, "syscalls"));
        QVERIFY2(readJson.find(R"({"name": "read", "calls": 1, "errors": {}, "total_ns": null, "avg_ns": null, "max_ns": null})") !=
                     std::string::npos,
                 readJson.c_str());
        QVERIFY(statsNamed(stats, "tasks"));

        // The last statistics, made as the sums they come from are freed, are the same tables;
        // the plugin then has nothing left to make them from (the core keeps these).
        const std::vector<StatsTable> final = plugin.finalStatistics();
        QCOMPARE(final.size(), stats.size());
        for (size_t t = 0; t < stats.size(); ++t) {
            QCOMPARE(final[t].key, stats[t].key);
            QCOMPARE(tableJson(final[t], names), tableJson(stats[t], names));
        }
        QVERIFY(plugin.statistics().empty());
    }

    // A capture joins batch after batch, each adding lists of failures: past 64 lists they
    // become one. The failures table is the same as from one join, in time order.
    void syscallsFailuresOfManyJoins()
    {
        auto feedAll = [](SyscallsPlugin& plugin, Tables& tables, bool joinEach) {
            feedFailingCalls(plugin, tables, 150, joinEach ? 1 : 0, 0);
        };
        SyscallsPlugin once, many;
        Tables onceTables, manyTables;
        feedAll(once, onceTables, false);
        feedAll(many, manyTables, true);
        StatsContext context;
        context.taskName = [](uint32_t task) { return std::to_string(task); };
        context.taskPid = [](uint32_t task) { return int32_t(task); };
        context.eventTime = [](EventRef e) { return uint64_t(e.stream.value) << 32 | e.index; };
        const std::vector<StatsTable> stats = many.statistics();
        const StatsTable* failures = statsNamed(stats, "failures");
        QVERIFY(failures);
        QCOMPARE(failures->rows(), size_t(150));
        const StatsTable::Column& durations = failures->columns[6];
        QCOMPARE(durations.key, std::string("duration_ns"));
        for (size_t r = 0; r < failures->rows(); ++r) QCOMPARE(durations.numbers[r], int64_t(10 + r)); // in time order
        const std::vector<StatsTable> expected = once.finalStatistics();
        const std::vector<StatsTable> final = many.finalStatistics();
        QCOMPARE(final.size(), expected.size());
        for (size_t t = 0; t < final.size(); ++t)
            QCOMPARE(tableJson(final[t], context), tableJson(expected[t], context));
    }

    // Failures are kept in chunks of a megabyte (32,768 of them): lists longer than a chunk,
    // sorted across chunks and let go chunk by chunk while the table is made, give the table a
    // list that fits one chunk gives.
    void syscallsFailuresPastAChunk()
    {
        struct Value {
            uint64_t key = 0;
            uint32_t filler = 0;
        };
        ChunkedList<Value> list;
        const size_t count = 2 * ChunkedList<Value>::kPerChunk + 1000;
        for (size_t i = 0; i < count; ++i) list.push_back({uint64_t(count - i), uint32_t(i)});
        QCOMPARE(list.chunks(), size_t(3));
        std::sort(list.begin(), list.end(), [](const Value& a, const Value& b) { return a.key < b.key; });
        for (size_t i = 0; i < count; ++i) QCOMPARE(list[i].key, uint64_t(i + 1));
        list.releaseBefore(ChunkedList<Value>::kPerChunk + 5); // the first chunk only
        QCOMPARE(list.chunks(), size_t(2));
        QCOMPARE(list[ChunkedList<Value>::kPerChunk].key, uint64_t(ChunkedList<Value>::kPerChunk + 1));
        QCOMPARE(list[count - 1].key, uint64_t(count));

        // 70,000 failures of two tasks, in one list or in seven joins' lists.
        auto feedAll = [](SyscallsPlugin& plugin, Tables& tables, uint64_t joinEvery) {
            feedFailingCalls(plugin, tables, 70000, joinEvery, 50);
        };
        SyscallsPlugin once, many;
        Tables onceTables, manyTables;
        feedAll(once, onceTables, 0);
        feedAll(many, manyTables, 10000);
        StatsContext context;
        context.taskName = [](uint32_t task) { return std::to_string(task); };
        context.taskPid = [](uint32_t task) { return int32_t(task); };
        context.eventTime = [](EventRef e) { return uint64_t(e.stream.value) << 32 | e.index; };
        const std::vector<StatsTable> asked = once.statistics(); // keeps what it was made from
        const std::vector<StatsTable> expected = once.finalStatistics();
        const std::vector<StatsTable> final = many.finalStatistics();
        const StatsTable* failures = statsNamed(final, "failures");
        QVERIFY(failures);
        QCOMPARE(failures->rows(), size_t(70000));
        const StatsTable::Column& durations = failures->columns[6];
        for (size_t r = 0; r < failures->rows(); ++r)
            QCOMPARE(durations.numbers[r], int64_t(10 + r % 50)); // in time order
        QCOMPARE(final.size(), expected.size());
        QCOMPARE(asked.size(), expected.size());
        for (size_t t = 0; t < final.size(); ++t) {
            QCOMPARE(tableJson(final[t], context), tableJson(expected[t], context));
            QCOMPARE(tableJson(asked[t], context), tableJson(expected[t], context));
        }
    }

    // A wait of more than 4.3 s and an address returned by mmap come back whole.
    // A row for an owner no task or CPU can be (a plugin's "no task", UINT32_MAX) would take a
    // lane for every number below it: 32 GB. It is refused and counted, and not in rows().
    void rowsOfNoOwnerAreRefused()
    {
        SliceTableSpec callsSpec;
        callsSpec.key = "calls";
        SliceTable slices(callsSpec);
        Slice kept, noOwner;
        kept.start = 10, kept.end = 20, kept.owner = 3;
        noOwner.start = 30, noOwner.end = 40, noOwner.owner = UINT32_MAX;
        slices.add(kept);
        slices.add(noOwner);
        slices.stageUnanchored(noOwner); // owner resolved from its events: it has none
        slices.publish({});
        QCOMPARE(slices.rows(), size_t(1));
        QCOMPARE(slices.explicitRows().refused(), size_t(2));
        QCOMPARE(slices.explicitRows().owners(), size_t(4));
        IntervalTableSpec statesSpec;
        statesSpec.key = "states";
        IntervalTable states(statesSpec);
        states.add(1, 2, UINT32_MAX - 1, 0);
        states.add(1, 2, 0, 0);
        states.publish({});
        QCOMPARE(states.rows(), size_t(1));
    }

    void syscallsKeepWideValues()
    {
        SyscallsPlugin plugin;
        Tables tables;
        CallLog log;
        log.watch(plugin);
        Feeder feed(plugin, tables.tables);
        const uint64_t tenSeconds = 10'000'000'000;
        const int64_t address = 0x7f3a12345000;
        feed.rawEnter(1000, 5, 7); // poll
        feed.rawEnter(2000, 6, 9); // mmap
        feed.rawExit(3000, 6, 9, address);
        feed.rawExit(1000 + tenSeconds, 5, 7, -4); // EINTR
        plugin.flush();
        plugin.finish();
        QCOMPARE(plugin.callCount(), size_t(2));
        const SyscallsPlugin::Call poll = log.sorted()[0], mmap = log.sorted()[1];
        QCOMPARE(poll.duration(), tenSeconds);
        QCOMPARE(poll.exit, 1000 + tenSeconds);
        QCOMPARE(poll.ret, int64_t(-4));
        QVERIFY(poll.failed());
        QCOMPARE(mmap.ret, address);
        QCOMPARE(mmap.duration(), uint64_t(1000));
        QVERIFY(!mmap.failed());
        QCOMPARE(mmap.stream, StreamId(0)); // pid 6 runs on stream 0
    }

    // A failed call whose entry is not in the recording (it began before): its duration is
    // unknown, "-" in text and null in JSON, never 0. lost-events.dat's futex returned
    // ETIMEDOUT with its entry before the recording; wait4's ECHILD took 1479 ns.
    void failureWithoutEntryHasNoDuration()
    {
        auto trace = openWith("lost-events.dat", std::make_unique<SyscallsPlugin>());
        QVERIFY(trace);
        const auto stats = trace->statistics(*trace->plugins().front());
        QVERIFY(stats);
        const StatsTable* failures = statsNamed(*stats, "failures");
        QVERIFY(failures);
        QCOMPARE(failures->rows(), size_t(2));
        const StatsTable::Column& name = column(*failures, "name");
        const StatsTable::Column& duration = column(*failures, "duration_ns");
        QCOMPARE(StatsTable::labelOf(name, 0), std::string("futex"));
        QCOMPARE(duration.numbers[0], StatsTable::kUnknown);
        QCOMPARE(StatsTable::labelOf(name, 1), std::string("wait4"));
        QCOMPARE(duration.numbers[1], int64_t(1479));
        const std::string json = tableJson(*failures);
        QVERIFY2(json.find(R"("duration_ns": null)") != std::string::npos, json.c_str());
        QVERIFY2(json.find(R"("duration_ns": 0)") == std::string::npos, json.c_str());
        // Nor do the sums over it read 0: futex's total (no call of it timed) is unknown too.
        const StatsTable* grouped = statsNamed(*stats, "failure_groups");
        QVERIFY(grouped);
        QCOMPARE(column(*grouped, "name").texts[0], std::string("futex"));
        QCOMPARE(column(*grouped, "total_ns").numbers[0], StatsTable::kUnknown);
        QCOMPARE(column(*grouped, "total_ns").numbers[1], int64_t(1479));
        const StatsTable* bySyscall = statsNamed(*stats, "syscalls");
        QVERIFY(bySyscall);
        const auto& names = column(*bySyscall, "name").texts;
        const size_t futex = size_t(std::find(names.begin(), names.end(), "futex") - names.begin());
        QVERIFY(futex < names.size());
        QCOMPARE(column(*bySyscall, "total_ns").numbers[futex], StatsTable::kUnknown);
    }

    // On real recordings: the failing execve is found, and the failures are exactly the
    // negative returns of trace-cmd's report; the table holds every call, most anchored at
    // their events (a few bytes each), each one's times those of its events.
    void syscallsOnRecordings()
    {
        auto owned = std::make_unique<SyscallsPlugin>();
        CallLog log;
        log.watch(*owned);
        auto trace = openWith("execve-e2big.dat", std::move(owned));
        QVERIFY(trace);
        const auto& plugin = static_cast<const SyscallsPlugin&>(*trace->plugins().front());
        QCOMPARE(plugin.architecture(), Architecture::X86_64);
        int e2bigInReport = 0;
        const int inReport = failuresInReport("execve-e2big.report.txt.xz", &e2bigInReport);
        QVERIFY(inReport > 10);
        QCOMPARE(e2bigInReport, 1);
        const auto stats = trace->statistics(plugin);
        const StatsTable* failures = statsNamed(*stats, "failures");
        QCOMPARE(int(failures->rows()), inReport);
        int e2big = 0;
        for (size_t r = 0; r < failures->rows(); ++r)
            e2big += StatsTable::labelOf(column(*failures, "name"), r) == "execve" &&
                     StatsTable::labelOf(column(*failures, "errno"), r) == "E2BIG";
        QCOMPARE(e2big, 1);
        // Per task and system call: bash's execve calls, the E2BIG among them, add up.
        const StatsTable* perTaskCall = statsNamed(*stats, "task_syscalls");
        QVERIFY(perTaskCall);
        const StatsContext context = trace->statsContext();
        int64_t calls = 0, failed = 0;
        for (size_t r = 0; r < perTaskCall->rows(); ++r) {
            calls += column(*perTaskCall, "calls").numbers[r];
            const uint32_t task = uint32_t(column(*perTaskCall, "task").numbers[r]);
            if (context.taskPid(task) == 31462 && StatsTable::labelOf(column(*perTaskCall, "name"), r) == "execve")
                for (const auto& [name, n] : column(*perTaskCall, "errors").counts[r]) failed += name == "E2BIG" ? n : 0;
        }
        QCOMPARE(failed, int64_t(1));
        QCOMPARE(size_t(calls), plugin.callCount());
        // Entries: the report's raw sys_enter lines (the sys_enter_execve events join them).
        size_t entered = 0;
        for (const SyscallsPlugin::Call& c : log.calls) entered += c.enterSeen;
        QCOMPARE(entered, size_t(1723));
        // The table: every call, at the times of its events, owned by its task.
        const SliceTable& table = static_cast<const SliceTable&>(*trace->analysis("syscalls")->tables->find("syscalls"));
        QCOMPARE(table.rows(), plugin.callCount());
        size_t rows = 0, anchored = 0;
        const EventStore& store = trace->store();
        table.forEach(store, &trace->taskIndex(), [&](const SliceTable::View& v) {
            ++rows;
            if (!v.anchored) return;
            ++anchored;
            QCOMPARE(v.end, store.timestamp(v.endEvent));
            const CpuColumns& c = store.stream(v.endEvent.stream).columns;
            QCOMPARE(trace->taskIndex().taskAt(c.pid[v.endEvent.index], v.end).value, v.owner);
            if (v.startEvent.valid()) QCOMPARE(c.pid[v.startEvent.index], c.pid[v.endEvent.index]);
        });
        QCOMPARE(rows, plugin.callCount());
        // Both kinds of events recorded: a task's first and last call in a stretch wait for the
        // join, whose calls are kept whole; most are anchored all the same.
        QVERIFY2(anchored * 10 > rows * 6, qPrintable(QString("%1 of %2 anchored").arg(anchored).arg(rows)));

        auto graph = openWith("fgraph-e2big.dat", std::make_unique<SyscallsPlugin>());
        QVERIFY(graph);
        const StatsTable* graphFailures = statsNamed(*graph->statistics(*graph->plugins().front()), "failures");
        bool found = false;
        for (size_t r = 0; r < graphFailures->rows(); ++r)
            found |= StatsTable::labelOf(column(*graphFailures, "name"), r) == "execve" && column(*graphFailures, "ret").numbers[r] == -7;
        QVERIFY(found);

        auto none = openWith("instances.dat", std::make_unique<SyscallsPlugin>());
        QVERIFY(none);
        QVERIFY(!none->plugins().front()->nothingToShow().empty());
    }

    // Pieces pair what their stretch of a CPU holds and join() the rest (a call whose task
    // moved to another CPU while it waited, an entry and its return in two stretches): the calls
    // are those of the plugin fed in merged order, however the streams are cut.
    void syscallsPiecesMatchMergedOrder_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<qulonglong>("segmentBytes");
        // syscalls-8cpu.dat: eight CPUs, and raw_syscalls with the syscalls:* events (whose
        // formats are parsed after the pages: the pieces must name calls by them anyway).
        for (const char* fixture : {"execve-e2big.dat", "sched-mix.dat", "syscalls-8cpu.dat"}) {
            QTest::addRow("%s whole", fixture) << QString(fixture) << qulonglong(0);
            QTest::addRow("%s in stretches", fixture) << QString(fixture) << qulonglong(1);
        }
    }
    void syscallsPiecesMatchMergedOrder()
    {
        QFETCH(QString, fixture);
        QFETCH(qulonglong, segmentBytes);
        std::vector<std::unique_ptr<Plugin>> plugins;
        auto inPieces = std::make_unique<SyscallsPlugin>();
        auto inOrder = std::make_unique<MergedOrderSyscalls>();
        CallLog piecesLog, mergedLog;
        piecesLog.watch(*inPieces);
        mergedLog.watch(*inOrder);
        plugins.push_back(std::move(inPieces));
        plugins.push_back(std::move(inOrder));
        LoadOptions options;
        options.segmentBytes = segmentBytes; // 1: every run of pages a stretch of its own
        size_t stretches = 0;
        options.beforeSegment = [&](size_t) { ++stretches; };
        auto trace = Trace::open(test::fixturePath(fixture), options, {}, std::move(plugins));
        QVERIFY(trace);
        const auto& pieces = static_cast<const SyscallsPlugin&>(*(*trace)->plugins()[0]);
        const auto& merged = static_cast<const SyscallsPlugin&>(*(*trace)->plugins()[1]);
        if (segmentBytes) QVERIFY2(stretches > (*trace)->store().streamCount(), std::to_string(stretches).c_str());
        QVERIFY(merged.callCount() > 150);
        const std::vector<std::string> got = callLines(piecesLog.calls, pieces),
                                       want = callLines(mergedLog.calls, merged);
        std::vector<std::string> extra, missing;
        std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
        std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
        for (size_t i = 0; i < extra.size() && i < 10; ++i) qInfo("pieces made %s", extra[i].c_str());
        for (size_t i = 0; i < missing.size() && i < 10; ++i) qInfo("pieces lack %s", missing[i].c_str());
        QVERIFY(extra.empty() && missing.empty());
        QCOMPARE(pieces.callCount(), merged.callCount());
        const auto a = (*trace)->statistics(pieces), b = (*trace)->statistics(merged);
        QCOMPARE(a->size(), b->size());
        const StatsContext context = (*trace)->statsContext();
        for (size_t t = 0; t < a->size(); ++t) QCOMPARE(tableJson((*a)[t], context), tableJson((*b)[t], context));
        // Both tables hold the same slices, however they were kept.
        auto slices = [&](const std::string& analysis) {
            std::vector<std::string> lines;
            const auto& table =
                static_cast<const SliceTable&>(*(*trace)->analysis(analysis)->tables->find("syscalls"));
            table.forEach((*trace)->store(), &(*trace)->taskIndex(), [&](const SliceTable::View& v) {
                lines.push_back(std::to_string(v.owner) + " " + std::to_string(v.start) + "-" + std::to_string(v.end) +
                                " " + table.labelText(v.label) + " " + std::to_string(v.flags));
            });
            std::sort(lines.begin(), lines.end());
            // A call goes into the table once, whichever of a piece's end, a join or the finish
            // decides it.
            const auto twice = std::adjacent_find(lines.begin(), lines.end());
            if (twice != lines.end()) qInfo("%s: twice %s", analysis.c_str(), twice->c_str());
            [&] { QVERIFY(twice == lines.end()); }();
            return lines;
        };
        QCOMPARE(slices("syscalls"), slices("syscalls-in-merged-order"));
        if (QTest::currentTestFailed()) return;
    }

    void schedStatesOnPlainValues()
    {
        using sched::SchedPlugin;
        using sched::TaskState;
        QCOMPARE(SchedPlugin::stateAfterSwitch(0), TaskState::Runnable);
        QCOMPARE(SchedPlugin::stateAfterSwitch(0x100), TaskState::Runnable); // "R+"
        QCOMPARE(SchedPlugin::stateAfterSwitch(1), TaskState::Sleeping);
        QCOMPARE(SchedPlugin::stateAfterSwitch(2), TaskState::Blocked);
        QCOMPARE(SchedPlugin::stateAfterSwitch(0x10), TaskState::Dead);
        SchedPlugin plugin;
        Tables tables;
        plugin.setTables(tables.tables);
        plugin.bind(std::vector<bool>(plugin.requests().size(), true));
        std::vector<TypedValue> values;
        auto send = [&](size_t request, uint64_t ts, int32_t current, std::vector<int64_t> fields) {
            values.clear();
            for (int64_t f : fields) values.push_back(TypedValue::number(uint64_t(f), true, 8));
            ConsumedRecord r;
            r.request = request;
            r.timestamp = ts;
            r.pid = current;
            r.task = TaskId(uint32_t(current)); // a task per pid here
            r.values = values.data();
            r.valueCount = values.size();
            plugin.consume(r);
        };
        send(0, 100, 5, {5, 1, 7}); // 5 sleeps (its start unknown), 7 runs
        send(1, 150, 7, {5});       // 7 wakes 5
        send(0, 200, 7, {7, 0, 5}); // 7 preempted, 5 runs: woken 50 ns before
        send(0, 260, 5, {5, 2, 7}); // 5 blocks (D), 7 runs again
        send(1, 300, 7, {5});
        send(0, 330, 7, {7, 1, 5}); // 7 sleeps, 5 runs
        const auto& stats = plugin.stats();
        const auto& five = stats.at(5);
        QCOMPARE(five.switchesOut, uint64_t(2));
        QCOMPARE(five.switchesIn, uint64_t(2));
        QCOMPARE(five.run, uint64_t(60));   // 200..260 (100..? not counted: its start unknown)
        QCOMPARE(five.sleep, uint64_t(50)); // 100..150
        QCOMPARE(five.runnable, uint64_t(50 + 30));
        QCOMPARE(five.blocked, uint64_t(40)); // 260..300
        QCOMPARE(five.wakeups, uint64_t(2));
        QCOMPARE(five.latencyMax, uint64_t(50));
        const auto& seven = stats.at(7);
        QCOMPARE(seven.preempted, uint64_t(1));
        QCOMPARE(seven.run, uint64_t(100 + 70)); // 100..200, 260..330
        QCOMPARE(seven.runnable, uint64_t(60));
        QCOMPARE(plugin.mismatches(), uint64_t(0));
        tables.publish();
        const FlowTable& wakeups = tables.find<FlowTable>("wakeups");
        QCOMPARE(wakeups.rows(), size_t(2));
        QCOMPARE(wakeups.flows()[0].value, int64_t(50));
        const IntervalTable& states = tables.find<IntervalTable>("task_states");
        QVERIFY(states.rows() >= 6);
        // Each task's current state is open: 5 runs from 330 on.
        QCOMPARE(states.openOf(5).start, uint64_t(330));
        QCOMPARE(states.openOf(5).state, uint32_t(TaskState::Running));
    }

    // A CPU's next switch ends whatever ran there, whatever its prev says: a task whose
    // switch-out is missing does not run for the rest of the recording.
    void schedSwitchOutMissing()
    {
        using sched::SchedPlugin;
        SchedPlugin plugin;
        Tables tables;
        plugin.setTables(tables.tables);
        plugin.bind(std::vector<bool>(plugin.requests().size(), true));
        std::vector<TypedValue> values;
        auto send = [&](uint16_t cpu, uint64_t ts, int32_t prev, int64_t state, int32_t next) {
            values = {TypedValue::number(uint64_t(prev), true, 8), TypedValue::number(uint64_t(state), true, 8),
                      TypedValue::number(uint64_t(next), true, 8)};
            ConsumedRecord r;
            r.request = 0;
            r.timestamp = ts;
            r.stream = StreamId(cpu);
            r.pid = prev;
            r.values = values.data();
            r.valueCount = values.size();
            plugin.consume(r);
        };
        send(0, 100, 1, 1, 5);   // 5 runs on CPU 0
        send(0, 200, 6, 1, 7);   // 5's switch-out lost: this switch ends it anyway; 7 runs
        send(0, 300, 7, 1, 0);   // 7 runs 100
        send(1, 1000, 0, 0, 5);  // 5 again, on CPU 1
        send(1, 1100, 5, 1, 0);  // 5 runs 100 there
        QCOMPARE(plugin.mismatches(), uint64_t(1));
        // 5: its run on CPU 0 ended with the CPU's next switch (100), then 100 on CPU 1; not
        // 900 more for the time it was said to run on CPU 0.
        QCOMPARE(plugin.stats().at(5).run, uint64_t(100 + 100));
        QCOMPARE(plugin.stats().at(7).run, uint64_t(100));
        // 6 switched out where it was not seen running: its run is not counted.
        QCOMPARE(plugin.stats().at(6).run, uint64_t(0));
    }

    // Against an independent count from trace-cmd's report of a recording: per task, its
    // switches out (sched_switch as prev) and its run time (from its switch-in to the next
    // sched_switch on that CPU, whatever its prev says, or to its switch-in on another CPU if
    // that comes first). One recording of this machine, one
    // from elsewhere (4 CPUs, the perf clock), and one whose switch-outs are partly missing: it
    // was recorded with the filter "prev_pid & 3", so no switch away from a pid divisible by 4
    // (idle included) is in it.
    void schedAgreesWithTraceCmd_data()
    {
        QTest::addColumn<QString>("recording");
        QTest::addColumn<QString>("switches");
        QTest::addColumn<int>("expectedLines");
        QTest::newRow("sched-mix") << "sched-mix.dat"
                                   << "sched-mix.switches.txt.xz" << 1992;
        QTest::newRow("langraph") << "langraph-perfclock.dat"
                                  << "langraph-perfclock.switches.txt.xz" << 2255;
        QTest::newRow("switch-outs missing") << "sched-partial.dat"
                                             << "sched-partial.switches.txt.xz" << 1859;
    }
    void schedAgreesWithTraceCmd()
    {
        QFETCH(QString, recording);
        QFETCH(QString, switches);
        QFETCH(int, expectedLines);
        auto trace = openWith(recording, std::make_unique<sched::SchedPlugin>());
        QVERIFY(trace);
        const auto& plugin = static_cast<const sched::SchedPlugin&>(*trace->plugins().front());
        QVERIFY(plugin.nothingToShow().empty());
        const QByteArray report = test::readXz(test::fixture(switches));
        QVERIFY(!report.isEmpty());
        const QRegularExpression line(
            R"(\[(\d+)\] +(\d+)\.(\d{9}): sched_switch: +.*:(\d+) \[-?\d+\] \S+ ==> .*:(\d+) \[)");
        std::map<int32_t, uint64_t> out, run;
        std::map<int, std::pair<int32_t, uint64_t>> running; // per CPU: the task switched in, since
        int lines = 0;
        for (const QByteArray& text : report.split('\n')) {
            const auto m = line.match(QString::fromUtf8(text));
            if (!m.hasMatch()) continue;
            ++lines;
            const int cpu = m.captured(1).toInt();
            const uint64_t t = m.captured(2).toULongLong() * 1000000000ull + m.captured(3).toULongLong();
            const int32_t prev = m.captured(4).toInt(), next = m.captured(5).toInt();
            if (prev != 0) ++out[prev];
            if (auto it = running.find(cpu); it != running.end()) {
                run[it->second.first] += t - it->second.second;
                running.erase(it);
            }
            if (next == 0) continue;
            // A task runs on one CPU at a time: a run elsewhere whose end is missing ends here.
            for (auto other = running.begin(); other != running.end(); ++other)
                if (other->second.first == next) {
                    run[next] += t - other->second.second;
                    running.erase(other);
                    break;
                }
            running[cpu] = {next, t};
        }
        QCOMPARE(lines, expectedLines);
        size_t tasks = 0;
        for (const auto& [pid, n] : run) out.try_emplace(pid, 0); // switched in, never out
        for (const auto& [pid, n] : out) {
            // No pid of these recordings is handed out twice: one task each.
            const std::vector<TaskId> lives = trace->taskIndex().tasksOf(pid);
            QCOMPARE(lives.size(), size_t(1));
            const auto it = plugin.stats().find(lives.front().value);
            QVERIFY(it != plugin.stats().end());
            QCOMPARE(it->second.switchesOut, n);
            QVERIFY2(it->second.run == run[pid], qPrintable(QString("pid %1: %2 against %3").arg(pid).arg(it->second.run).arg(run[pid])));
            ++tasks;
        }
        QVERIFY(tasks > 20);
    }

    void workqueueOnPlainValues()
    {
        using workqueue::WorkqueuePlugin;
        WorkqueuePlugin plugin;
        Tables tables;
        RecordingInfo info;
        constexpr uint64_t kWork = 0x1000, kOther = 0x2000, kEarly = 0x3000, kSelf = 0x4000;
        constexpr uint64_t kOne = 0xffff0001, kTwo = 0xffff0002;
        info.functionName = [](uint64_t a) {
            return a == kOne ? std::string("fn_one") : a == kTwo ? std::string("fn_two") : std::string();
        };
        plugin.setRecording(info);
        plugin.setTables(tables.tables);
        plugin.bind(std::vector<bool>(plugin.requests().size(), true));
        auto at = [](uint32_t index) { return EventRef{StreamId(0), index}; };
        plugin.queued(100, kWork, kOne, 10, 1, at(1));
        plugin.activated(101, kWork);
        plugin.started(150, kWork, kOne, 20, at(2));
        plugin.ended(170, kWork, at(3));
        plugin.queued(200, kOther, kTwo, 10, 0, at(4)); // never runs
        plugin.started(300, kEarly, kOne, 20, at(5));   // queued before the recording
        plugin.ended(310, kEarly, at(6));
        plugin.ended(400, 0x9999, at(7)); // began before the recording
        // Queued again while it runs: two runs, the second waiting from its own queuing.
        plugin.queued(500, kSelf, kOne, 11, 1, at(8));
        plugin.started(600, kSelf, kOne, 21, at(9));
        plugin.queued(605, kSelf, kOne, 21, 1, at(10));
        plugin.ended(610, kSelf, at(11));
        plugin.started(620, kSelf, kOne, 21, at(12));
        plugin.ended(630, kSelf, at(13));
        plugin.finish();
        QCOMPARE(plugin.endsWithoutStart(), uint64_t(1));
        QCOMPARE(plugin.waiting().size(), size_t(1));
        QCOMPARE(plugin.waiting()[0].work, kOther);

        const std::vector<StatsTable> stats = plugin.statistics();
        const StatsTable* functions = statsNamed(stats, "functions");
        QVERIFY(functions);
        QCOMPARE(functions->rows(), size_t(1));
        QCOMPARE(column(*functions, "function").texts[0], std::string("fn_one"));
        QCOMPARE(column(*functions, "count").numbers[0], int64_t(4));                      // runs
        QCOMPARE(column(*functions, "total_latency_ns").numbers[0], int64_t(50 + 100 + 15)); // total latency
        QCOMPARE(column(*functions, "max_latency_ns").numbers[0], int64_t(100));
        QCOMPARE(StatsTable::eventOf(column(*functions, "max_latency_at").numbers[0]), at(9)); // its start
        QCOMPARE(column(*functions, "max_latency_worker").numbers[0], int64_t(21));
        QCOMPARE(column(*functions, "total_run_ns").numbers[0], int64_t(20 + 10 + 10 + 10));
        const StatsTable* never = statsNamed(stats, "never_run");
        QVERIFY(never);
        QCOMPARE(never->rows(), size_t(1));
        QCOMPARE(column(*never, "function").texts[0], std::string("fn_two"));
        QCOMPARE(column(*never, "work").texts[0], std::string("0x2000"));
        tables.publish();
        QCOMPARE(tables.find<SliceTable>("work_items").rows(), size_t(4));
        QCOMPARE(tables.find<FlowTable>("work_queued").rows(), size_t(3)); // the queued ones
        QCOMPARE(tables.find<InstantTable>("work_never_run").rows(), size_t(1));
        QVERIFY(tables.find<SliceTable>("work_items").explicitRows().of(20)); // on the worker's row
    }

    // Against an independent count from trace-cmd's report of sched-mix.dat's workqueue events:
    // per work function, its runs, run time (execute_start to execute_end of one work struct)
    // and queue latency (queue_work to execute_start).
    // The kvm plugin on a KVM host: its stays are the task's kvm_entry→kvm_exit pairs, and its
    // exit reasons are named as libtraceevent's kvm plugin prints them in the report.
    void kvmAgreesWithTheReport()
    {
        auto trace = openWith("zlib-host.dat", std::make_unique<kvm::KvmPlugin>());
        QVERIFY(trace);
        const Plugin& plugin = *trace->plugins().front();
        QVERIFY(plugin.nothingToShow().empty());
        const auto stats = trace->statistics(plugin);
        const StatsTable* vcpus = statsNamed(*stats, "vcpus");
        QVERIFY(vcpus && vcpus->rows() == 3);

        const QByteArray report = test::runCli({"dump", test::fixture("zlib-host.dat")}).out;
        const QRegularExpression exitLine(R"(-(\d+) +\[\d+\] +\d+\.\d+: kvm_exit: +reason (\S+))");
        std::map<int32_t, std::map<std::string, int64_t>> expected;
        for (const QByteArray& bytes : report.split('\n')) {
            const auto m = exitLine.match(QString::fromUtf8(bytes));
            if (m.hasMatch()) ++expected[m.captured(1).toInt()][m.captured(2).toStdString()];
        }
        const StatsContext context = trace->statsContext();
        for (size_t r = 0; r < vcpus->rows(); ++r) {
            const int32_t pid = context.taskPid(uint32_t(column(*vcpus, "task").numbers[r]));
            std::map<std::string, int64_t> got;
            for (const auto& [name, count] : column(*vcpus, "exit_reasons").counts[r]) got[name] = count;
            QVERIFY2(got == expected[pid], qPrintable(QString("pid %1").arg(pid)));
        }
        // The stays, on the vCPU threads' rows: the core's guest time table.
        const auto& guest =
            static_cast<const IntervalTable&>(*trace->analysis("guest-time")->tables->find("guest_time"));
        QCOMPARE(guest.rows(), size_t(265 + 239 + 5356));
        for (uint32_t owner = 0; owner < guest.byOwner().owners(); ++owner)
            if (const auto* rows = guest.byOwner().of(owner))
                for (size_t i = 0; i < rows->size(); ++i) QVERIFY((*rows)[i].end >= (*rows)[i].start);

        auto none = openWith("sched-mix.dat", std::make_unique<kvm::KvmPlugin>());
        QVERIFY(none && !none->plugins().front()->nothingToShow().empty());
    }

    void workqueueAgreesWithTraceCmd()
    {
        auto trace = openWith("sched-mix.dat", std::make_unique<workqueue::WorkqueuePlugin>());
        QVERIFY(trace);
        const Plugin& plugin = *trace->plugins().front();
        QVERIFY(plugin.nothingToShow().empty());
        const auto tables = trace->statistics(plugin);
        const StatsTable* functions = statsNamed(*tables, "functions");
        QVERIFY(functions);

        const QByteArray report = test::readXz(test::fixture("sched-mix.workqueue.txt.xz"));
        QVERIFY(!report.isEmpty());
        const QRegularExpression line(
            R"( (\d+)\.(\d{9}): workqueue_(queue_work|execute_start|execute_end|activate_work): work struct[= ](0x[0-9a-f]+):? function[= ](\S+))");
        struct Sums {
            uint64_t runs = 0, run = 0, latency = 0;
        };
        std::map<std::string, Sums> expected;
        std::map<QString, uint64_t> queuedAt, startedAt;
        int lines = 0;
        for (const QByteArray& text : report.split('\n')) {
            const auto m = line.match(QString::fromUtf8(text));
            if (!m.hasMatch()) continue;
            ++lines;
            const uint64_t t = m.captured(1).toULongLong() * 1000000000ull + m.captured(2).toULongLong();
            const QString what = m.captured(3), work = m.captured(4);
            Sums& sums = expected[m.captured(5).toStdString()];
            if (what == "queue_work") {
                queuedAt.try_emplace(work, t); // queued again before it ran: one wait
            } else if (what == "execute_start") {
                ++sums.runs;
                if (auto q = queuedAt.find(work); q != queuedAt.end()) sums.latency += t - q->second, queuedAt.erase(q);
                startedAt[work] = t;
            } else if (what == "execute_end") {
                if (auto s = startedAt.find(work); s != startedAt.end()) sums.run += t - s->second, startedAt.erase(s);
            }
        }
        QCOMPARE(lines, 220);
        QCOMPARE(functions->rows(), expected.size());
        for (size_t r = 0; r < functions->rows(); ++r) {
            const std::string name = column(*functions, "function").texts[r];
            QVERIFY2(expected.count(name), name.c_str());
            QCOMPARE(uint64_t(column(*functions, "count").numbers[r]), expected[name].runs);
            QCOMPARE(uint64_t(column(*functions, "total_latency_ns").numbers[r]), expected[name].latency);
            QCOMPARE(uint64_t(column(*functions, "total_run_ns").numbers[r]), expected[name].run);
        }
        // Queued and not run by the end: the report's leftovers.
        QCOMPARE(statsNamed(*tables, "never_run")->rows(), queuedAt.size());
    }

    // Broken modules are problems naming their file; the good one is found once.
    void catalogReportsBrokenModules()
    {
        QTemporaryDir dir;
        auto copy = [&](const QString& from, const QString& name) { return QFile::copy(from, dir.filePath(name)); };
        QVERIFY(copy(RINGSIDE_PLUGIN_DIR "/syscalls.so", "a-syscalls.so"));
        QVERIFY(copy(RINGSIDE_PLUGIN_DIR "/syscalls.so", "b-syscalls-again.so"));
        QVERIFY(copy(RINGSIDE_TEST_PLUGIN_DIR "/oldversion.so", "oldversion.so"));
        QVERIFY(copy(RINGSIDE_TEST_PLUGIN_DIR "/changedheader.so", "changedheader.so"));
        QVERIFY(copy(RINGSIDE_TEST_PLUGIN_DIR "/noentry.so", "noentry.so"));
        QVERIFY(test::writeFile(dir.filePath("garbage.so"), QByteArray("not an ELF file")));
        const PluginCatalog catalog = PluginCatalog::discover({dir.path().toStdString(), "/nonexistent"});
        QCOMPARE(catalog.modules().size(), size_t(1));
        QCOMPARE(catalog.modules()[0].name, std::string("syscalls"));
        QVERIFY(catalog.find("syscalls")->instantiate());
        QCOMPARE(catalog.problems().size(), size_t(5));
        auto problem = [&](const char* file, const std::string& says) {
            for (const std::string& p : catalog.problems())
                if (p.find(file) != std::string::npos && p.find(says) != std::string::npos) return true;
            return false;
        };
        QVERIFY(problem("b-syscalls-again.so", "is another \"syscalls\""));
        QVERIFY(problem("oldversion.so", "was built for an older plugin interface"));
        // The example plugin, built against headers with one field added to StreamInfo.
        QVERIFY(problem("changedheader.so", std::string("was built against other plugin headers (interface ")));
        QVERIFY(problem("changedheader.so", std::string("this Ringside's is ") + RINGSIDE_PLUGIN_INTERFACE));
        QVERIFY(problem("noentry.so", "lacks ringside_plugin_interface"));
        QVERIFY(problem("garbage.so", "cannot be loaded"));
    }

    // A plugin that throws, in any of its calls and with anything, is stopped with its message;
    // the load and the other analyses go on, and the trace says what failed.
    void throwingPluginIsStopped_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QString>("message");
        QTest::newRow("consume") << "consume" << "third record refused";
        QTest::newRow("std::bad_alloc") << "bad_alloc" << "std::bad_alloc";
        QTest::newRow("not a std::exception") << "other" << "an exception that is not a std::exception";
        QTest::newRow("statistics") << "statistics" << "making its statistics: no statistics today";
        QTest::newRow("statistics, not a std::exception")
            << "statistics-other" << "making its statistics: an exception that is not a std::exception";
        QTest::newRow("setRecording") << "recording" << "taking the recording: recording refused";
    }
    void throwingPluginIsStopped()
    {
        QFETCH(QString, how);
        QFETCH(QString, message);
        qputenv("RINGSIDE_TEST_THROW", how.toUtf8());
        const PluginCatalog catalog = PluginCatalog::discover({RINGSIDE_TEST_PLUGIN_DIR});
        const PluginModule* module = catalog.find("throwing");
        QVERIFY(module);
        std::vector<std::unique_ptr<Plugin>> plugins;
        plugins.push_back(module->instantiate());
        plugins.push_back(std::make_unique<SyscallsPlugin>());
        auto trace = Trace::open(test::fixturePath("execve-e2big.dat"), LoadOptions(), {}, std::move(plugins));
        qunsetenv("RINGSIDE_TEST_THROW");
        QVERIFY(trace);
        const Trace& t = **trace;
        QCOMPARE(t.plugins().size(), size_t(2));
        QCOMPARE(QString::fromStdString(t.pluginFailure(*t.plugins()[0])), message);
        QCOMPARE(t.pluginFailure(*t.plugins()[1]), std::string());
        const std::vector<Trace::Failure> failures = t.failures();
        QCOMPARE(failures.size(), size_t(1));
        QCOMPARE(failures[0].who, std::string("throwing"));
        QVERIFY(t.analysisFailure().empty());
        QVERIFY(t.statistics(*t.plugins()[0])->empty());
        QVERIFY(t.analysesFinished() && t.statisticsFinished());
        QVERIFY(t.runningTasks().available());
        QVERIFY(static_cast<const SyscallsPlugin&>(*t.plugins()[1]).callCount() > 0);
        QVERIFY(!t.statistics(*t.plugins()[1])->empty());
    }

    // A plugin that throws while it is made is a problem of the catalog, naming its file.
    void pluginThatCannotBeMadeIsAProblem()
    {
        qputenv("RINGSIDE_TEST_THROW", "make");
        const PluginCatalog catalog = PluginCatalog::discover({RINGSIDE_TEST_PLUGIN_DIR});
        qunsetenv("RINGSIDE_TEST_THROW");
        QVERIFY(!catalog.find("throwing"));
        bool said = false;
        for (const std::string& p : catalog.problems())
            said = said || (p.find("throwing.so") != std::string::npos && p.find("refused to be made") != std::string::npos);
        QVERIFY(said);
    }

    // An error outside any one analysis (here the caller's own callback, as memory that cannot
    // be had in the core's work would be) stops the analyses for good, says why, and leaves the
    // store and what was published as they were.
    void analysesThatFailAsAWholeSaySo()
    {
        LoadOptions options;
        options.analyse = false;
        auto opened = Trace::open(test::fixturePath("execve-e2big.dat"), options);
        QVERIFY(opened);
        Trace& trace = **opened;
        QVERIFY(!trace.analyse({}, nullptr, UINT64_MAX, [] { throw std::bad_alloc(); }));
        QCOMPARE(trace.analysisFailure(), std::string("std::bad_alloc"));
        QVERIFY(!trace.analyse()); // for good
        trace.finishAnalyses();
        QVERIFY(trace.analysesFinished() && trace.statisticsFinished());
        const std::vector<Trace::Failure> failures = trace.failures();
        QCOMPARE(failures.size(), size_t(1));
        QVERIFY(failures[0].who.empty());
        QCOMPARE(trace.store().eventCount(), size_t(4668));
    }

    // The command line says which plugin failed, on which file, and exits non-zero, after
    // printing what did not fail.
    void cliNamesTheFailedPlugin_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("says");
        const QString file = test::fixture("execve-e2big.dat");
        QTest::newRow("stats, in consume") << "consume" << QStringList{"stats", file, "--plugin", "throwing"}
                                           << "plugin throwing failed on " + file + " and was stopped: third record refused";
        QTest::newRow("stats, in statistics")
            << "statistics" << QStringList{"stats", file, "--plugin", "throwing"}
            << "plugin throwing failed on " + file + " and was stopped: making its statistics: no statistics today";
        QTest::newRow("query, std::bad_alloc")
            << "bad_alloc" << QStringList{"query", file, "SELECT count(*) AS n FROM sched_switch", "--format", "csv"}
            << "plugin throwing failed on " + file + " and was stopped: std::bad_alloc";
        QTest::newRow("bench, not a std::exception")
            << "other" << QStringList{"bench", file, "--plugin", "throwing"}
            << "plugin throwing failed on " + file + " and was stopped: an exception that is not a std::exception";
    }
    void cliNamesTheFailedPlugin()
    {
        QFETCH(QString, how);
        QFETCH(QStringList, args);
        QFETCH(QString, says);
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("RINGSIDE_PLUGIN_PATH", RINGSIDE_TEST_PLUGIN_DIR);
        env.insert("RINGSIDE_TEST_THROW", how);
        cli.setProcessEnvironment(env);
        cli.start(RINGSIDE_CLI, args);
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(cli.exitCode(), 1);
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(err.contains(says), qPrintable(err));
        const QByteArray out = cli.readAllStandardOutput();
        if (args.front() == "query") QCOMPARE(out, QByteArray("n\n806\n"));
        if (args.front() == "bench") QVERIFY(out.contains("events=4668"));
    }

    void statsCommand()
    {
        QProcess cli;
        cli.start(RINGSIDE_CLI, {"stats", test::fixture("fgraph-e2big.dat"), "--plugin", "syscalls"});
        QVERIFY(cli.waitForFinished(test::kWorkWaitMs));
        QCOMPARE(cli.exitCode(), 0);
        const QString text = QString::fromUtf8(cli.readAllStandardOutput());
        QVERIFY2(text.contains(QRegularExpression("\\n *\\d+ +\\d +sh \\(177\\) +execve +-7 +E2BIG +\\d+\\n")),
                 qPrintable(text));

        // A histogram's counts are bars too: sched-mix's largest bucket (2-4 us, 256 wakeups)
        // 40 characters, one of 81 wakeups 13.
        cli.start(RINGSIDE_CLI, {"stats", test::fixture("sched-mix.dat"), "--plugin", "sched"});
        QVERIFY(cli.waitForFinished(test::kWorkWaitMs));
        QCOMPARE(cli.exitCode(), 0);
        const QString sched = QString::fromUtf8(cli.readAllStandardOutput());
        QVERIFY2(sched.contains(QRegularExpression("\\n +2 +4 +256  #{40}\\n")), qPrintable(sched));
        QVERIFY2(sched.contains(QRegularExpression("\\n +8 +16 +81  #{13}\\n")), qPrintable(sched));

        cli.start(RINGSIDE_CLI, {"stats", test::fixture("execve-e2big.dat"), "--plugin", "syscalls", "--json"});
        QVERIFY(cli.waitForFinished(test::kWorkWaitMs));
        QCOMPARE(cli.exitCode(), 0);
        QJsonParseError error;
        const QJsonObject doc = QJsonDocument::fromJson(cli.readAllStandardOutput(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(doc["plugin"].toString(), QStringLiteral("syscalls"));
        const QJsonObject failure = doc["failures"].toArray().at(0).toObject();
        for (const char* key : {"at", "cpu", "task", "name", "ret", "errno"}) QVERIFY(failure.contains(key));
        for (const char* key : {"pid", "comm"}) QVERIFY(failure["task"].toObject().contains(key));
        bool execve = false;
        for (const QJsonValue& v : doc["syscalls"].toArray()) {
            const QJsonObject s = v.toObject();
            for (const char* key : {"name", "calls", "errors", "total_ns", "max_ns"}) QVERIFY(s.contains(key));
            if (s["name"] == "execve") execve = s["errors"].toObject()["E2BIG"].toInt() == 1;
        }
        QVERIFY(execve);

        cli.start(RINGSIDE_CLI, {"stats", test::fixture("execve-e2big.dat"), "--plugin", "nosuch"});
        QVERIFY(cli.waitForFinished(test::kWorkWaitMs));
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY(cli.readAllStandardError().contains(
            "no plugin named \"nosuch\" (found: kvm, power, sched, syscalls, workqueue)"));
        cli.start(RINGSIDE_CLI, {"stats", test::fixture("execve-e2big.dat")});
        QVERIFY(cli.waitForFinished(test::kWorkWaitMs));
        QCOMPARE(cli.exitCode(), 2);
    }

    // plugins/README.md documents each table kind with parts of example/cpuruns.cpp (which
    // tst_timelinewidget builds and draws): each quoted part is the file's own, as it is now.
    void readmeQuotesTheExample()
    {
        QFile readmeFile(RINGSIDE_SOURCE_DIR "/plugins/README.md"), sourceFile(RINGSIDE_SOURCE_DIR "/plugins/example/cpuruns.cpp");
        QVERIFY(readmeFile.open(QIODevice::ReadOnly) && sourceFile.open(QIODevice::ReadOnly));
        const QString readme = QString::fromUtf8(readmeFile.readAll()), source = QString::fromUtf8(sourceFile.readAll());
        for (const char* part : {"tables", "intervals", "slices", "instants", "counters", "flows"}) {
            const QString marker = QStringLiteral("// [%1]").arg(part);
            const QStringList pieces = source.split(marker);
            QVERIFY2(pieces.size() == 3, part);
            // The lines between the markers, less their common indentation.
            QStringList lines = pieces[1].split('\n');
            lines = lines.mid(1, lines.size() - 2);
            qsizetype indent = 1000;
            for (const QString& line : lines)
                if (!line.trimmed().isEmpty()) indent = std::min(indent, line.size() - line.trimmed().size());
            for (QString& line : lines) line = line.mid(indent);
            const QString quoted = "```cpp\n" + lines.join('\n') + "\n```";
            QVERIFY2(readme.contains(quoted), qPrintable(QStringLiteral("plugins/README.md does not quote %1 as it is:\n%2").arg(part, quoted)));
        }
    }
};

QTEST_MAIN(TestPlugins)
#include "tst_plugins.moc"
