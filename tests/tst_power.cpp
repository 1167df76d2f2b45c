// SPDX-License-Identifier: GPL-2.0-or-later
// The power plugin: CPU frequency counters, idle states as slices and residency statistics,
// checked against what trace-cmd's report of the same recordings says (two ARM boards'
// recordings: cpu_frequency on one, cpu_idle on the other), and its answers to events that
// disagree with what came before.
#include "testsupport.h"

#include "analysis/tracktables.h"
#include "powerplugin.h"
#include "trace.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <tuple>

using namespace ringside;
using power::PowerPlugin;

namespace {

const StatsTable& table(const std::vector<StatsTable>& tables, const std::string& key)
{
    for (const StatsTable& t : tables)
        if (t.key == key) return t;
    qFatal("no table %s", key.c_str());
}

const StatsTable::Column& column(const StatsTable& table, const std::string& key)
{
    for (const StatsTable::Column& c : table.columns)
        if (c.key == key) return c;
    qFatal("no column %s in %s", key.c_str(), table.key.c_str());
}

// A report's event lines: time (ns), event name, the rest.
struct ReportLine {
    uint64_t time = 0;
    std::string event, fields;
};

std::vector<ReportLine> reportLines(const QString& reportXz)
{
    const QByteArray report = test::readXz(test::fixture(reportXz));
    // "  comm-pid  [cpu] secs.nanos: event:   fields" (trace-cmd report -t); a trace marker's
    // text that reads "cpu_frequency: ..." is a print event, not a cpu_frequency.
    static const QRegularExpression line(R"(\[\d+\] (\d+)\.(\d{9}): (\w+): +(.*)$)");
    std::vector<ReportLine> lines;
    for (const QByteArray& text : report.split('\n')) {
        const auto m = line.match(QString::fromUtf8(text));
        if (!m.hasMatch()) continue;
        lines.push_back({m.captured(1).toULongLong() * 1000000000ull + m.captured(2).toULongLong(),
                         m.captured(3).toStdString(), m.captured(4).toStdString()});
    }
    return lines;
}

// "state=2 cpu_id=5" -> {2, 5}
std::pair<uint64_t, uint32_t> stateAndCpu(const std::string& fields)
{
    static const QRegularExpression pair(R"(state=(\d+) cpu_id=(\d+))");
    const auto m = pair.match(QString::fromStdString(fields));
    return {m.captured(1).toULongLong(), uint32_t(m.captured(2).toUInt())};
}

} // namespace

class TestPower : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // A fixture kept compressed in tests/data, as a file to open.
    std::string unpacked(const QString& xz)
    {
        const QString file = m_dir.filePath(QString(xz).remove(".xz"));
        if (!QFile::exists(file) && !test::writeFile(file, test::readXz(test::fixture(xz)))) return {};
        return file.toStdString();
    }
    std::unique_ptr<Trace> open(const QString& xz, PowerPlugin** plugin)
    {
        auto owned = std::make_unique<PowerPlugin>();
        *plugin = owned.get();
        std::vector<std::unique_ptr<Plugin>> plugins;
        plugins.push_back(std::move(owned));
        auto trace = Trace::open(unpacked(xz), LoadOptions(), {}, std::move(plugins));
        return trace ? std::move(trace.value()) : nullptr;
    }
    // A query's CSV rows (header left out).
    QStringList query(const QString& xz, const QString& sql)
    {
        const test::ProgramRun run =
            test::runCli({"query", QString::fromStdString(unpacked(xz)), sql, "--format", "csv"});
        if (run.status != 0) qWarning("query failed: %s", run.err.constData());
        QStringList rows = QString::fromUtf8(run.out).split('\n', Qt::SkipEmptyParts);
        if (!rows.isEmpty()) rows.removeFirst();
        return rows;
    }

private slots:
    // Every cpu_frequency event is a counter row of its CPU, with its value; the time at each
    // frequency is worked out from the report and adds up to the recording's time.
    void frequencyAgreesWithTraceCmd()
    {
        const std::vector<ReportLine> lines = reportLines("arm-rtapp.report.txt.xz");
        QVERIFY(lines.size() > 7000);
        const uint64_t first = lines.front().time, last = lines.back().time;
        std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> samples; // cpu -> (time, kHz)
        for (const ReportLine& l : lines)
            if (l.event == "cpu_frequency") {
                const auto [khz, cpu] = stateAndCpu(l.fields);
                samples[cpu].emplace_back(l.time, khz);
            }
        QCOMPARE(samples.size(), size_t(4)); // CPUs 0, 3, 4, 5: the print events' values are no samples

        PowerPlugin* plugin = nullptr;
        auto trace = open("arm-rtapp.dat.xz", &plugin);
        QVERIFY(trace);
        QVERIFY(plugin->nothingToShow().empty());
        const auto tables = trace->statistics(*plugin);
        QVERIFY(tables);
        const StatsTable& residency = table(*tables, "frequency_residency");
        std::map<std::pair<uint32_t, int64_t>, uint64_t> expected;
        for (const auto& [cpu, list] : samples) {
            expected[{cpu, StatsTable::kUnknown}] = list.front().first - first;
            for (size_t i = 0; i < list.size(); ++i)
                expected[{cpu, int64_t(list[i].second)}] +=
                    (i + 1 < list.size() ? list[i + 1].first : last) - list[i].first;
        }
        std::map<std::pair<uint32_t, int64_t>, uint64_t> actual;
        std::map<uint32_t, uint64_t> perCpu;
        for (size_t r = 0; r < residency.rows(); ++r) {
            const auto cpu = uint32_t(column(residency, "cpu").numbers[r]);
            const uint64_t ns = uint64_t(column(residency, "time_ns").numbers[r]);
            actual[{cpu, column(residency, "frequency_khz").numbers[r]}] = ns;
            perCpu[cpu] += ns;
        }
        QCOMPARE(actual, expected);
        for (const auto& [cpu, ns] : perCpu) QCOMPARE(ns, last - first);

        // The counters, in SQL as the plugin's table.
        QStringList rows;
        for (const auto& [cpu, list] : samples)
            for (const auto& [t, khz] : list) rows << QStringLiteral("%1,%2,%3").arg(t).arg(cpu).arg(khz);
        QCOMPARE(query("arm-rtapp.dat.xz", "SELECT ts, cpu, value FROM power_cpufreq ORDER BY cpu, ts"), rows);

        // ... and as Perfetto has them: its documented query, unchanged, gives the same; a
        // track per CPU, numbered in CPU order; the join reads each track's rows by its id.
        const QString perfetto = "SELECT ts, value, cpu FROM counter JOIN cpu_counter_track t ON counter.track_id = "
                                 "t.id WHERE t.name = 'cpufreq'";
        QStringList perfettoRows;
        for (const auto& [cpu, list] : samples)
            for (const auto& [t, khz] : list) perfettoRows << QStringLiteral("%1,%2,%3").arg(t).arg(khz).arg(cpu);
        QCOMPARE(query("arm-rtapp.dat.xz", perfetto + " ORDER BY cpu, ts"), perfettoRows);
        QCOMPARE(query("arm-rtapp.dat.xz", "SELECT id, cpu, type, unit FROM cpu_counter_track WHERE name = 'cpufreq'"),
                 QStringList({"0,0,cpu_frequency,kHz", "1,3,cpu_frequency,kHz", "2,4,cpu_frequency,kHz",
                              "3,5,cpu_frequency,kHz"}));
        const QStringList plan = query("arm-rtapp.dat.xz", "EXPLAIN QUERY PLAN " + perfetto);
        QVERIFY2(plan.join('\n').contains("SCAN counter VIRTUAL TABLE INDEX 0:2:0,"), qPrintable(plan.join('\n')));
        // The tracks come in id order: a GROUP BY of the join sorts nothing (24.8M values: 13 s
        // with the sort).
        const QStringList grouped =
            query("arm-rtapp.dat.xz", "EXPLAIN QUERY PLAN SELECT t.cpu, count(*), avg(c.value) FROM counter c JOIN "
                                      "cpu_counter_track t ON c.track_id = t.id GROUP BY t.id");
        QVERIFY2(!grouped.join('\n').contains("TEMP B-TREE") && grouped.join('\n').contains("INDEX 0:2:0,"),
                 qPrintable(grouped.join('\n')));
        QCOMPARE(query("arm-rtapp.dat.xz", "SELECT t.cpu, count(*) FROM counter c JOIN cpu_counter_track t ON "
                                           "c.track_id = t.id GROUP BY t.id"),
                 QStringList({"0,3", "3,3", "4,3", "5,3"}));
        // Perfetto divides a REAL value.
        QCOMPARE(query("arm-rtapp.dat.xz", "SELECT value / 1000000 FROM counter WHERE id = 1"), QStringList({"0.85"}));
    }

    // Each CPU's idle states are slices from a cpu_idle entry to the exit after it, the time
    // before a CPU's first cpu_idle idle (state not recorded) when that event is an exit, and
    // the residency of each state adds up to the recording's time; CPU 4 recorded no events.
    void idleAgreesWithTraceCmd()
    {
        const std::vector<ReportLine> lines = reportLines("arm-idle.report.txt.xz");
        QCOMPARE(lines.size(), size_t(43));
        const uint64_t first = lines.front().time, last = lines.back().time;
        struct Cpu {
            int64_t state = -3; // -3 none yet, -2 idle in a state not recorded, -1 active
            uint64_t since = 0;
            std::map<std::string, uint64_t> residency;
        };
        auto name = [](int64_t state) {
            return state == -1   ? std::string("active")
                   : state == -2 ? std::string("idle, state not recorded")
                                 : "state " + std::to_string(state);
        };
        std::map<uint32_t, Cpu> cpus;
        QStringList slices;
        auto leave = [&](uint32_t cpu, Cpu& c, uint64_t t, bool open) {
            c.residency[name(c.state)] += t - c.since;
            if (c.state != -1)
                slices << QStringLiteral("%1,%2,%3,%4,%5")
                              .arg(cpu)
                              .arg(c.since)
                              .arg(t - c.since)
                              .arg(QString::fromStdString(c.state == -2 ? "idle (state not recorded)" : name(c.state)))
                              .arg(open ? 1 : 0);
        };
        for (const ReportLine& l : lines) {
            if (l.event != "cpu_idle") continue;
            const auto [state, cpu] = stateAndCpu(l.fields);
            Cpu& c = cpus[cpu];
            const bool exit = state == 4294967295u;
            if (c.state == -3) c.state = exit ? -2 : -1, c.since = first;
            if (exit) {
                QVERIFY(c.state != -1); // this recording has no exit without an entry
                leave(cpu, c, l.time, false);
                c.state = -1;
            } else {
                QCOMPARE(c.state, int64_t(-1)); // ... nor an entry while idle
                leave(cpu, c, l.time, false);
                c.state = int64_t(state);
            }
            c.since = l.time;
        }
        for (auto& [cpu, c] : cpus)
            if (c.state != -1)
                leave(cpu, c, last, true);
            else
                c.residency["active"] += last - c.since;
        QCOMPARE(cpus.size(), size_t(5));

        PowerPlugin* plugin = nullptr;
        auto trace = open("arm-idle.dat.xz", &plugin);
        QVERIFY(trace);
        const auto tables = trace->statistics(*plugin);
        QVERIFY(tables);
        const StatsTable& residency = table(*tables, "idle_residency");
        std::map<uint32_t, std::map<std::string, uint64_t>> actual, expected;
        for (const auto& [cpu, c] : cpus)
            for (const auto& [state, ns] : c.residency)
                if (ns) expected[cpu][state] = ns;
        for (size_t r = 0; r < residency.rows(); ++r)
            actual[uint32_t(column(residency, "cpu").numbers[r])][column(residency, "state").texts[r]] =
                uint64_t(column(residency, "time_ns").numbers[r]);
        QCOMPARE(actual, expected);
        for (const auto& [cpu, states] : actual) {
            uint64_t sum = 0;
            for (const auto& [state, ns] : states) sum += ns;
            QCOMPARE(sum, last - first);
        }
        const StatsTable& perCpu = table(*tables, "cpus");
        QCOMPARE(perCpu.rows(), size_t(5));
        for (size_t r = 0; r < perCpu.rows(); ++r) {
            QCOMPARE(column(perCpu, "exits_while_active").numbers[r], int64_t(0));
            QCOMPARE(column(perCpu, "has_row").texts[r], std::string("yes"));
        }

        std::sort(slices.begin(), slices.end());
        QStringList rows = query("arm-idle.dat.xz", "SELECT cpu, ts, dur, name, open FROM power_cpuidle");
        std::sort(rows.begin(), rows.end());
        QCOMPARE(rows, slices);
        // Each CPU's idle slices are a cpu_track (Perfetto's), the same rows through the join.
        QStringList tracked = query("arm-idle.dat.xz", "SELECT t.cpu, s.ts, s.dur, s.name, s.open FROM power_cpuidle s "
                                                       "JOIN cpu_track t ON s.track_id = t.id");
        std::sort(tracked.begin(), tracked.end());
        QCOMPARE(tracked, slices);
        QCOMPARE(query("arm-idle.dat.xz", "SELECT cpu, type FROM cpu_track ORDER BY cpu"),
                 QStringList(
                     {"0,power_cpuidle", "1,power_cpuidle", "2,power_cpuidle", "3,power_cpuidle", "5,power_cpuidle"}));
        QCOMPARE(query("arm-idle.dat.xz", "SELECT count(*) FROM thread_track WHERE type = 'power_cpuidle'"),
                 QStringList({"0"}));

        // Perfetto's cpuidle counter: every cpu_idle event's state as recorded, per CPU, read
        // through a view as Perfetto's own test makes it (the duration to the next one).
        QStringList events, durations;
        std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> byCpu;
        for (const ReportLine& l : lines)
            if (l.event == "cpu_idle") {
                const auto [state, cpu] = stateAndCpu(l.fields);
                byCpu[cpu].emplace_back(l.time, state);
            }
        for (const auto& [cpu, list] : byCpu)
            for (size_t i = 0; i < list.size(); ++i) {
                events << QStringLiteral("%1,%2,%3").arg(cpu).arg(list[i].first).arg(list[i].second);
                if (i + 1 < list.size()) durations << QString::number(list[i + 1].first - list[i].first);
            }
        QCOMPARE(query("arm-idle.dat.xz",
                       "SELECT cpu, ts, CAST(value AS INT) FROM counter c JOIN cpu_counter_track t ON c.track_id = "
                       "t.id WHERE t.name = 'cpuidle' ORDER BY cpu, ts"),
                 events);
        QCOMPARE(query("arm-idle.dat.xz",
                       "CREATE VIEW idle_view AS SELECT ts, lead(ts) OVER (PARTITION BY track_id ORDER BY ts) - ts "
                       "AS dur, cpu, name AS idle_name, value AS idle_value FROM counter INNER JOIN cpu_counter_track "
                       "ON counter.track_id = cpu_counter_track.id WHERE name = 'cpuidle'; "
                       "SELECT dur FROM idle_view WHERE dur IS NOT NULL ORDER BY cpu, ts"),
                 durations);
    }

    // Events that disagree with what came before: an exit while active is counted and changes
    // nothing, an entry while idle ends the state before it; a CPU that recorded no events of
    // its own has statistics and no row.
    void mismatchesAreCounted()
    {
        PowerPlugin plugin;
        AnalysisTables tables;
        RecordingInfo info;
        info.timeRange = [] { return std::pair<uint64_t, uint64_t>(1000, 2000); };
        plugin.setRecording(info);
        plugin.setTables(tables);
        plugin.bind({true, true, true});
        plugin.setStreams({{0, 0, 1000}, {1, 0, 1000}});
        auto send = [&](size_t request, uint64_t t, std::vector<uint64_t> fields) {
            std::vector<TypedValue> values;
            for (uint64_t f : fields) values.push_back(TypedValue::number(f, false, 4));
            ConsumedRecord r;
            r.request = request;
            r.timestamp = t;
            r.values = values.data();
            r.valueCount = values.size();
            plugin.consume(r);
        };
        constexpr uint64_t kExit = PowerPlugin::kIdleExit;
        send(2, 1100, {1, 0});      // CPU 0 enters state 1 (active before)
        send(2, 1200, {kExit, 0});  // ... leaves it
        send(2, 1300, {kExit, 0});  // leaves again: counted, stays active
        send(2, 1400, {2, 0});      // state 2
        send(2, 1500, {3, 0});      // state 3 while in 2: counted, 2 ends here
        send(0, 1600, {800000, 2}); // CPU 2: no stream of its own
        plugin.finish();

        const PowerPlugin::Cpu& cpu0 = plugin.cpus().at(0);
        QCOMPARE(cpu0.exitsWhileActive, uint64_t(1));
        QCOMPARE(cpu0.entriesWhileIdle, uint64_t(1));
        QCOMPARE(cpu0.idleEntries, uint64_t(3));
        const std::vector<StatsTable> stats = plugin.statistics();
        const StatsTable& residency = table(stats, "idle_residency");
        std::map<std::string, int64_t> states;
        for (size_t r = 0; r < residency.rows(); ++r)
            if (column(residency, "cpu").numbers[r] == 0)
                states[column(residency, "state").texts[r]] = column(residency, "time_ns").numbers[r];
        const std::map<std::string, int64_t> expected{
            {"active", 100 + 200}, {"state 1", 100}, {"state 2", 100}, {"state 3", 500}};
        QCOMPARE(states, expected);
        const StatsTable& frequencies = table(stats, "frequency_residency");
        QCOMPARE(frequencies.rows(), size_t(2)); // CPU 2: unknown until 1600, then 800 MHz
        const StatsTable& perCpu = table(stats, "cpus");
        QCOMPARE(column(perCpu, "has_row").texts.back(), std::string("no: the CPU recorded no events"));
    }

    void nothingToShowWithoutPowerEvents()
    {
        PowerPlugin* plugin = nullptr;
        std::vector<std::unique_ptr<Plugin>> plugins;
        auto owned = std::make_unique<PowerPlugin>();
        plugin = owned.get();
        plugins.push_back(std::move(owned));
        auto trace = Trace::open(test::fixturePath("sched-mix.dat"), LoadOptions(), {}, std::move(plugins));
        QVERIFY(trace);
        // Its formats are in the file (every event's is), its records are not.
        QCOMPARE(plugin->nothingToShow(), std::string("the recording's power events have no records"));
    }
};

QTEST_GUILESS_MAIN(TestPower)
#include "tst_power.moc"
