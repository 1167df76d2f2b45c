// SPDX-License-Identifier: GPL-2.0-or-later
// Plugins: the syscalls plugin's pairing and statistics on plain values and on real
// recordings (checked against trace-cmd's report), the syscall name tables, the catalog with
// broken modules beside good ones, a plugin that throws, and `ringside-cli stats`.
#include "testsupport.h"

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

using namespace ringside;
using namespace ringside::syscalls;

namespace {

// Feeds the syscalls plugin records by request, as the registry would.
class Feeder {
public:
    explicit Feeder(SyscallsPlugin& plugin) : m_plugin(plugin)
    {
        RecordingInfo info;
        info.machine = "x86_64";
        info.eventName = [](uint16_t type) {
            return type == kEnterExecve  ? std::string("sys_enter_execve")
                   : type == kExitExecve ? std::string("sys_exit_execve")
                                         : std::string();
        };
        m_plugin.setRecording(info);
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
        r.pid = pid;
        r.values = values.data();
        r.valueCount = values.size();
        m_plugin.consume(r);
    }
    SyscallsPlugin& m_plugin;
};

// The syscalls plugin fed in merged order, one record after another: what its pieces must
// come to.
class MergedOrderSyscalls : public SyscallsPlugin {
public:
    std::string name() const override { return "syscalls-in-merged-order"; }
    bool fedInPieces() const override { return false; }
};

// A call as text, with its name, for comparing two plugins' calls.
std::vector<std::string> callLines(const SyscallsPlugin& plugin)
{
    std::vector<std::string> lines;
    for (const SyscallsPlugin::Call& c : plugin.calls())
        lines.push_back(std::to_string(c.pid) + " " + std::to_string(c.enter) + "-" + std::to_string(c.exit) + " " +
                        plugin.names()[c.name] + " = " + std::to_string(c.ret) + " cpu " + std::to_string(c.cpu) +
                        (c.enterSeen ? " entered" : "") + (c.exitSeen ? " returned" : ""));
    std::sort(lines.begin(), lines.end());
    return lines;
}

const StatsTable* statsNamed(const PluginTables& tables, const std::string& key)
{
    for (const StatsTable& t : tables.statistics)
        if (t.key == key) return &t;
    return nullptr;
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

} // namespace

class TestPlugins : public QObject {
    Q_OBJECT

private slots:
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
    }

    // One call seen through both kinds of events is one call; NR -1 ends the call entered;
    // exits without entries and calls that never return are kept.
    void syscallsPairOnPlainValues()
    {
        SyscallsPlugin plugin;
        Feeder feed(plugin);
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
        QCOMPARE(plugin.callCount(), size_t(5));
        const std::vector<SyscallsPlugin::Call> calls = plugin.calls();
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

        RecordingInfo info;
        info.taskName = [](int32_t pid) { return pid == 5 ? std::string("sh") : std::string("cat"); };
        const PluginTables tables = plugin.tables(info);
        QCOMPARE(tables.slices.size(), size_t(1));
        const SliceTable& slices = tables.slices[0];
        QCOMPARE(slices.size(), size_t(5));
        QCOMPARE(slices.flags[0], uint8_t(SliceTable::kError));
        QCOMPARE(slices.flags[4], uint8_t(SliceTable::kOpen));
        QCOMPARE(slices.labels[slices.label[0]], std::string("execve"));

        const StatsTable* failures = statsNamed(tables, "failures");
        QVERIFY(failures);
        QCOMPARE(failures->rows.size(), size_t(2));
        const std::string json = tableJson(*failures);
        QVERIFY2(
            json.find(
                R"({"time": 200, "cpu": 1, "pid": 5, "comm": "sh", "name": "execve", "ret": -7, "errno": "E2BIG", "duration_ns": 100})") !=
                std::string::npos,
            json.c_str());
        const StatsTable* perCall = statsNamed(tables, "syscalls");
        QVERIFY(perCall);
        const std::string perCallJson = tableJson(*perCall);
        QVERIFY2(
            perCallJson.find(
                R"({"name": "execve", "calls": 1, "errors": {"E2BIG": 1}, "total_ns": 100, "avg_ns": 100, "max_ns": 100})") !=
                std::string::npos,
            perCallJson.c_str());
        QVERIFY(tableText(*perCall).find("E2BIG 1") != std::string::npos);
        QVERIFY(statsNamed(tables, "tasks"));
    }

    // Calls are stored narrow; a wait of more than 4.3 s and an address returned by mmap
    // come back whole.
    void syscallsKeepWideValues()
    {
        SyscallsPlugin plugin;
        Feeder feed(plugin);
        const uint64_t tenSeconds = 10'000'000'000;
        const int64_t address = 0x7f3a12345000;
        feed.rawEnter(1000, 5, 7); // poll
        feed.rawEnter(2000, 6, 9); // mmap
        feed.rawExit(3000, 6, 9, address);
        feed.rawExit(1000 + tenSeconds, 5, 7, -4); // EINTR
        plugin.flush();
        QCOMPARE(plugin.callCount(), size_t(2));
        const SyscallsPlugin::Call poll = plugin.calls()[0], mmap = plugin.calls()[1];
        QCOMPARE(poll.duration(), tenSeconds);
        QCOMPARE(poll.exit, 1000 + tenSeconds);
        QCOMPARE(poll.ret, int64_t(-4));
        QVERIFY(poll.failed());
        QCOMPARE(mmap.ret, address);
        QCOMPARE(mmap.duration(), uint64_t(1000));
        QVERIFY(!mmap.failed());
        QCOMPARE(mmap.cpu, 0); // pid 6 runs on stream 0
        const PluginTables tables = plugin.tables(RecordingInfo());
        QCOMPARE(tables.slices[0].value[1], address);
        QCOMPARE(tables.slices[0].end[0], 1000 + tenSeconds);

        // Returns past 48 bits, the stored marker's own value, and a call 100 hours on.
        const uint64_t later = 1000 + uint64_t(100) * 3600 * 1'000'000'000;
        const int64_t marker = -(int64_t(1) << 47);
        feed.rawEnter(20'000, 7, 8);
        feed.rawExit(20'010, 7, 8, INT64_MAX);
        feed.rawEnter(30'000, 7, 8);
        feed.rawExit(30'010, 7, 8, marker);
        feed.rawEnter(later, 7, 8);
        feed.rawExit(later + 5, 7, 8, marker + 1);
        plugin.flush();
        const std::vector<SyscallsPlugin::Call> more = plugin.calls();
        QCOMPARE(more.size(), size_t(5));
        QCOMPARE(more[2].ret, INT64_MAX);
        QCOMPARE(more[3].ret, marker);
        QCOMPARE(more[4].ret, marker + 1);
        QCOMPARE(more[4].enter, later);
        QCOMPARE(more[4].duration(), uint64_t(5));
        QCOMPARE(more[3].enter, uint64_t(30'000));
    }

    // On real recordings: the failing execve is found, and the failures are exactly the
    // negative returns of trace-cmd's report.
    void syscallsOnRecordings()
    {
        auto trace = openWith("execve-e2big.dat", std::make_unique<SyscallsPlugin>());
        QVERIFY(trace);
        const auto& plugin = static_cast<const SyscallsPlugin&>(*trace->plugins().front());
        QCOMPARE(plugin.architecture(), Architecture::X86_64);
        int e2bigInReport = 0;
        const int inReport = failuresInReport("execve-e2big.report.txt.xz", &e2bigInReport);
        QVERIFY(inReport > 10);
        QCOMPARE(e2bigInReport, 1);
        const PluginTables tables = plugin.tables(RecordingInfo());
        const StatsTable* failures = statsNamed(tables, "failures");
        QCOMPARE(int(failures->rows.size()), inReport);
        int e2big = 0;
        for (const auto& row : failures->rows)
            e2big += std::get<std::string>(row[4]) == "execve" && std::get<std::string>(row[6]) == "E2BIG";
        QCOMPARE(e2big, 1);
        // Per task and system call: bash's execve calls, the E2BIG among them, add up.
        const StatsTable* perTaskCall = statsNamed(tables, "task_syscalls");
        QVERIFY(perTaskCall);
        int64_t calls = 0, failed = 0;
        for (const auto& row : perTaskCall->rows) {
            calls += std::get<int64_t>(row[3]);
            if (std::get<int64_t>(row[0]) == 31462 && std::get<std::string>(row[2]) == "execve")
                for (const auto& [name, n] : std::get<StatsTable::Counts>(row[4])) failed += name == "E2BIG" ? n : 0;
        }
        QCOMPARE(failed, int64_t(1));
        QCOMPARE(size_t(calls), plugin.callCount());
        // Entries: the report's raw sys_enter lines (the sys_enter_execve events join them).
        size_t entered = 0;
        for (const SyscallsPlugin::Call& c : plugin.calls()) entered += c.enterSeen;
        QCOMPARE(entered, size_t(1723));

        auto graph = openWith("fgraph-e2big.dat", std::make_unique<SyscallsPlugin>());
        QVERIFY(graph);
        const PluginTables graphTables = graph->plugins().front()->tables(RecordingInfo());
        const StatsTable* graphFailures = statsNamed(graphTables, "failures");
        bool found = false;
        for (const auto& row : graphFailures->rows)
            found |= std::get<std::string>(row[4]) == "execve" && std::get<int64_t>(row[5]) == -7;
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
        plugins.push_back(std::make_unique<SyscallsPlugin>());
        plugins.push_back(std::make_unique<MergedOrderSyscalls>());
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
        const std::vector<std::string> got = callLines(pieces), want = callLines(merged);
        std::vector<std::string> extra, missing;
        std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
        std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
        for (size_t i = 0; i < extra.size() && i < 10; ++i) qInfo("pieces made %s", extra[i].c_str());
        for (size_t i = 0; i < missing.size() && i < 10; ++i) qInfo("pieces lack %s", missing[i].c_str());
        QVERIFY(extra.empty() && missing.empty());
        QCOMPARE(pieces.callCount(), merged.callCount());
        const PluginTables a = pieces.tables(RecordingInfo()), b = merged.tables(RecordingInfo());
        QCOMPARE(a.statistics.size(), b.statistics.size());
        for (size_t t = 0; t < a.statistics.size(); ++t)
            QCOMPARE(tableJson(a.statistics[t]), tableJson(b.statistics[t]));
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
        plugin.bind(std::vector<bool>(plugin.requests().size(), true));
        std::vector<TypedValue> values;
        auto send = [&](size_t request, uint64_t ts, int32_t current, std::vector<int64_t> fields) {
            values.clear();
            for (int64_t f : fields) values.push_back(TypedValue::number(uint64_t(f), true, 8));
            ConsumedRecord r;
            r.request = request;
            r.timestamp = ts;
            r.pid = current;
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
        const PluginTables tables = plugin.tables(RecordingInfo());
        QCOMPARE(tables.flows[0].size(), size_t(2));
        QCOMPARE(tables.flows[0].value[0], int64_t(50));
        QVERIFY(tables.intervals[0].size() >= 6);
    }

    // Against an independent count from trace-cmd's report of a recording: per task, its
    // switches out (sched_switch as prev) and its run time (switch-in to switch-out). One
    // recording of this machine, one from elsewhere (4 CPUs, the perf clock).
    void schedAgreesWithTraceCmd_data()
    {
        QTest::addColumn<QString>("recording");
        QTest::addColumn<QString>("switches");
        QTest::addColumn<int>("expectedLines");
        QTest::newRow("sched-mix") << "sched-mix.dat"
                                   << "sched-mix.switches.txt.xz" << 1992;
        QTest::newRow("langraph") << "langraph-perfclock.dat"
                                  << "langraph-perfclock.switches.txt.xz" << 2255;
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
        const QRegularExpression line(R"( (\d+)\.(\d{9}): sched_switch: +.*:(\d+) \[-?\d+\] \S+ ==> .*:(\d+) \[)");
        std::map<int32_t, uint64_t> out, run;
        std::map<int32_t, uint64_t> since;
        int lines = 0;
        for (const QByteArray& text : report.split('\n')) {
            const auto m = line.match(QString::fromUtf8(text));
            if (!m.hasMatch()) continue;
            ++lines;
            const uint64_t t = m.captured(1).toULongLong() * 1000000000ull + m.captured(2).toULongLong();
            const int32_t prev = m.captured(3).toInt(), next = m.captured(4).toInt();
            if (prev != 0) {
                ++out[prev];
                if (auto it = since.find(prev); it != since.end()) run[prev] += t - it->second, since.erase(it);
            }
            if (next != 0) since[next] = t;
        }
        QCOMPARE(lines, expectedLines);
        size_t tasks = 0;
        for (const auto& [pid, n] : out) {
            const auto it = plugin.stats().find(pid);
            QVERIFY(it != plugin.stats().end());
            QCOMPARE(it->second.switchesOut, n);
            QCOMPARE(it->second.run, run[pid]);
            ++tasks;
        }
        QVERIFY(tasks > 20);
    }

    void workqueueOnPlainValues()
    {
        using workqueue::WorkqueuePlugin;
        WorkqueuePlugin plugin;
        plugin.bind(std::vector<bool>(plugin.requests().size(), true));
        constexpr uint64_t kWork = 0x1000, kOther = 0x2000, kEarly = 0x3000, kSelf = 0x4000;
        constexpr uint64_t kOne = 0xffff0001, kTwo = 0xffff0002;
        plugin.queued(100, kWork, kOne, 10, 1);
        plugin.activated(101, kWork);
        plugin.started(150, kWork, kOne, 20);
        plugin.ended(170, kWork);
        plugin.queued(200, kOther, kTwo, 10, 0); // never runs
        plugin.started(300, kEarly, kOne, 20);   // queued before the recording
        plugin.ended(310, kEarly);
        plugin.ended(400, 0x9999); // began before the recording
        // Queued again while it runs: two runs, the second waiting from its own queuing.
        plugin.queued(500, kSelf, kOne, 11, 1);
        plugin.started(600, kSelf, kOne, 21);
        plugin.queued(605, kSelf, kOne, 21, 1);
        plugin.ended(610, kSelf);
        plugin.started(620, kSelf, kOne, 21);
        plugin.ended(630, kSelf);
        QCOMPARE(plugin.endsWithoutStart(), uint64_t(1));
        QCOMPARE(plugin.items().size(), size_t(5));
        QCOMPARE(plugin.items()[0].latency(), uint64_t(50));
        QCOMPARE(plugin.items()[0].activated, uint64_t(101));
        QCOMPARE(plugin.items()[0].runTime(), uint64_t(20));
        QVERIFY(!plugin.items()[1].ran());
        QCOMPARE(plugin.items()[2].latency(), uint64_t(0));
        QCOMPARE(plugin.items()[4].latency(), uint64_t(15));

        RecordingInfo info;
        info.functionName = [](uint64_t a) {
            return a == kOne ? std::string("fn_one") : a == kTwo ? std::string("fn_two") : std::string();
        };
        const PluginTables tables = plugin.tables(info);
        const StatsTable* functions = statsNamed(tables, "functions");
        QVERIFY(functions);
        QCOMPARE(functions->rows.size(), size_t(1));
        const auto& row = functions->rows[0];
        QCOMPARE(std::get<std::string>(row[0]), std::string("fn_one"));
        QCOMPARE(std::get<uint64_t>(row[1]), uint64_t(4));             // runs
        QCOMPARE(std::get<uint64_t>(row[2]), uint64_t(50 + 100 + 15)); // total latency
        QCOMPARE(std::get<uint64_t>(row[4]), uint64_t(100));           // max latency
        QCOMPARE(std::get<uint64_t>(row[5]), uint64_t(600));           // ... at its start
        QCOMPARE(std::get<int64_t>(row[6]), int64_t(21));              // ... by its worker
        QCOMPARE(std::get<uint64_t>(row[7]), uint64_t(20 + 10 + 10 + 10));
        const StatsTable* never = statsNamed(tables, "never_run");
        QVERIFY(never);
        QCOMPARE(never->rows.size(), size_t(1));
        QCOMPARE(std::get<std::string>(never->rows[0][4]), std::string("fn_two"));
        QCOMPARE(std::get<std::string>(never->rows[0][5]), std::string("0x2000"));
        QCOMPARE(tables.slices[0].size(), size_t(4));
        QCOMPARE(tables.slices[0].ownerId[0], int32_t(20));
        QCOMPARE(tables.flows[0].size(), size_t(3)); // the queued ones
        QCOMPARE(tables.instants[0].size(), size_t(1));
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
        RecordingInfo info = trace->recordingInfo();
        const PluginTables tables = plugin.tables(info);
        const StatsTable* vcpus = statsNamed(tables, "vcpus");
        QVERIFY(vcpus && vcpus->rows.size() == 3);

        const QByteArray report = test::runCli({"dump", test::fixture("zlib-host.dat")}).out;
        const QRegularExpression exitLine(R"(-(\d+) +\[\d+\] +\d+\.\d+: kvm_exit: +reason (\S+))");
        std::map<int32_t, std::map<std::string, int64_t>> expected;
        for (const QByteArray& bytes : report.split('\n')) {
            const auto m = exitLine.match(QString::fromUtf8(bytes));
            if (m.hasMatch()) ++expected[m.captured(1).toInt()][m.captured(2).toStdString()];
        }
        for (const auto& row : vcpus->rows) {
            const int32_t pid = int32_t(std::get<int64_t>(row[1]));
            std::map<std::string, int64_t> got;
            for (const auto& [name, count] : std::get<StatsTable::Counts>(row[6])) got[name] = count;
            QVERIFY2(got == expected[pid], qPrintable(QString("pid %1").arg(pid)));
        }
        const IntervalTable& guest = tables.intervals.front();
        QCOMPARE(guest.size(), size_t(265 + 239 + 5356));
        for (size_t i = 0; i < guest.size(); ++i) QVERIFY(guest.end[i] >= guest.start[i]);

        auto none = openWith("sched-mix.dat", std::make_unique<kvm::KvmPlugin>());
        QVERIFY(none && !none->plugins().front()->nothingToShow().empty());
    }

    void workqueueAgreesWithTraceCmd()
    {
        auto trace = openWith("sched-mix.dat", std::make_unique<workqueue::WorkqueuePlugin>());
        QVERIFY(trace);
        const Plugin& plugin = *trace->plugins().front();
        QVERIFY(plugin.nothingToShow().empty());
        RecordingInfo info = trace->recordingInfo();
        const PluginTables tables = plugin.tables(info);
        const StatsTable* functions = statsNamed(tables, "functions");
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
        QCOMPARE(functions->rows.size(), expected.size());
        for (const auto& row : functions->rows) {
            const std::string name = std::get<std::string>(row[0]);
            QVERIFY2(expected.count(name), name.c_str());
            QCOMPARE(std::get<uint64_t>(row[1]), expected[name].runs);
            QCOMPARE(std::get<uint64_t>(row[2]), expected[name].latency);
            QCOMPARE(std::get<uint64_t>(row[7]), expected[name].run);
        }
        // Queued and not run by the end: the report's leftovers.
        QCOMPARE(statsNamed(tables, "never_run")->rows.size(), queuedAt.size());
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

    // A plugin that throws is stopped with its message; the load and the other analyses go on.
    void throwingPluginIsStopped()
    {
        const PluginCatalog catalog = PluginCatalog::discover({RINGSIDE_TEST_PLUGIN_DIR});
        const PluginModule* module = catalog.find("throwing");
        QVERIFY(module);
        std::vector<std::unique_ptr<Plugin>> plugins;
        plugins.push_back(module->instantiate());
        plugins.push_back(std::make_unique<SyscallsPlugin>());
        auto trace = Trace::open(test::fixturePath("execve-e2big.dat"), LoadOptions(), {}, std::move(plugins));
        QVERIFY(trace);
        const Trace& t = **trace;
        QCOMPARE(t.plugins().size(), size_t(2));
        QCOMPARE(t.pluginFailure(*t.plugins()[0]), std::string("third record refused"));
        QCOMPARE(t.pluginFailure(*t.plugins()[1]), std::string());
        QVERIFY(t.occupancy().available());
        QVERIFY(static_cast<const SyscallsPlugin&>(*t.plugins()[1]).callCount() > 0);
    }

    void statsCommand()
    {
        QProcess cli;
        cli.start(RINGSIDE_CLI, {"stats", test::fixture("fgraph-e2big.dat"), "--plugin", "syscalls"});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const QString text = QString::fromUtf8(cli.readAllStandardOutput());
        QVERIFY2(text.contains(QRegularExpression("\\n *\\d+ +\\d +177 +sh +execve +-7 +E2BIG +\\d+\\n")),
                 qPrintable(text));

        cli.start(RINGSIDE_CLI, {"stats", test::fixture("execve-e2big.dat"), "--plugin", "syscalls", "--json"});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        QJsonParseError error;
        const QJsonObject doc = QJsonDocument::fromJson(cli.readAllStandardOutput(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(doc["plugin"].toString(), QStringLiteral("syscalls"));
        const QJsonObject failure = doc["failures"].toArray().at(0).toObject();
        for (const char* key : {"time", "cpu", "pid", "comm", "name", "ret", "errno"}) QVERIFY(failure.contains(key));
        bool execve = false;
        for (const QJsonValue& v : doc["syscalls"].toArray()) {
            const QJsonObject s = v.toObject();
            for (const char* key : {"name", "calls", "errors", "total_ns", "max_ns"}) QVERIFY(s.contains(key));
            if (s["name"] == "execve") execve = s["errors"].toObject()["E2BIG"].toInt() == 1;
        }
        QVERIFY(execve);

        cli.start(RINGSIDE_CLI, {"stats", test::fixture("execve-e2big.dat"), "--plugin", "nosuch"});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY(
            cli.readAllStandardError().contains("no plugin named \"nosuch\" (found: kvm, sched, syscalls, workqueue)"));
        cli.start(RINGSIDE_CLI, {"stats", test::fixture("execve-e2big.dat")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 2);
    }
};

QTEST_MAIN(TestPlugins)
#include "tst_plugins.moc"
