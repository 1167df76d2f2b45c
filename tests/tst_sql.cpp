// SPDX-License-Identifier: GPL-2.0-or-later
// SQL over a recording: results against counts taken from `trace-cmd report` output (the
// checked-in reports), pushdown that reads fewer rows and returns the same, and the errors.
#include "testsupport.h"

#include "schedplugin.h"
#include "sql/recordingsql.h"
#include "support/tracewriter.h"
#include "syscallsplugin.h"
#include "trace.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

using namespace ringside;
using namespace ringside::sql;
using namespace ringside::test;

namespace {

// Every row of every statement, as text ("NULL" for null), statement by statement.
struct Rows : ResultSink {
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> rows;
    void columns(const std::vector<std::string>& n) override { names = n, rows.clear(); }
    bool row(const std::vector<Value>& values) override
    {
        std::vector<std::string> cells;
        for (const Value& v : values) cells.push_back(v.kind == Value::Kind::Null ? "NULL" : v.toString());
        rows.push_back(std::move(cells));
        return true;
    }
    // The first two columns as a map.
    std::map<std::string, int64_t> pairs() const
    {
        std::map<std::string, int64_t> out;
        for (const auto& r : rows) out[r.at(0)] = std::stoll(r.at(1));
        return out;
    }
};

struct Opened {
    std::unique_ptr<Trace> trace;
    std::unique_ptr<RecordingSql> sql;
};

Opened openPathWithPlugins(const std::string& path)
{
    std::vector<std::unique_ptr<Plugin>> plugins;
    plugins.push_back(std::make_unique<syscalls::SyscallsPlugin>());
    plugins.push_back(std::make_unique<sched::SchedPlugin>());
    auto trace = Trace::open(path, LoadOptions(), {}, std::move(plugins));
    if (!trace) {
        QTest::qFail(trace.error().message.c_str(), __FILE__, __LINE__);
        return {};
    }
    auto sql = RecordingSql::open(**trace);
    if (!sql) {
        QTest::qFail(sql.error().message.c_str(), __FILE__, __LINE__);
        return {};
    }
    return {std::move(trace.value()), std::move(sql.value())};
}

Opened openWithPlugins(const QString& name)
{
    return openPathWithPlugins(fixturePath(name));
}

Rows query(RecordingSql& sql, const std::string& text)
{
    Rows rows;
    const RunOutcome outcome = sql.run(text, rows);
    if (!outcome.ok) QTest::qFail(("query failed: " + outcome.message + "\n" + text).c_str(), __FILE__, __LINE__);
    return rows;
}

// The report's lines: "comm-pid [cpu] secs: event: info".
struct ReportLine {
    std::string event, info;
};
std::vector<ReportLine> reportLines(const QString& name)
{
    std::vector<ReportLine> lines;
    static const QRegularExpression line(R"(\s\d+\.\d+: (\w+):\s+(.*)$)");
    for (const QByteArray& text : readXz(fixture(name)).split('\n')) {
        const auto m = line.match(QString::fromUtf8(text));
        if (m.hasMatch()) lines.push_back({m.captured(1).toStdString(), m.captured(2).toStdString()});
    }
    return lines;
}

} // namespace

class TestSql : public QObject {
    Q_OBJECT
private slots:
    void eventsPerTypeMatchTheReport()
    {
        Opened o = openWithPlugins("execve-e2big.dat");
        QVERIFY(o.sql);
        std::map<std::string, int64_t> expected;
        for (const ReportLine& l : reportLines("execve-e2big.report.txt.xz")) ++expected[l.event];
        QVERIFY(expected.size() > 5);
        const Rows byName = query(*o.sql, "SELECT name, count(*) FROM ftrace_event GROUP BY name");
        QCOMPARE(byName.pairs(), expected);
        // The store's counts say the same without a scan; `raw` is ftrace_event (Perfetto's older name).
        QCOMPARE(query(*o.sql, "SELECT name, events FROM event_type").pairs(), expected);
        QCOMPARE(query(*o.sql, "SELECT name, count(*) FROM raw GROUP BY name").pairs(), expected);
        // Each type's own table holds the same rows.
        for (const auto& [event, count] : expected)
            QCOMPARE(std::stoll(query(*o.sql, "SELECT count(*) FROM " + event).rows.at(0).at(0)), count);
    }

    void switchesPerPrevPidMatchTheReport()
    {
        Opened o = openWithPlugins("execve-e2big.dat");
        QVERIFY(o.sql);
        // "bash:31458 [120] S ==> m:29345 [120]": prev's pid before the first " [".
        std::map<std::string, int64_t> expected;
        static const QRegularExpression prev(R"(^.*?:(\d+) \[)");
        for (const ReportLine& l : reportLines("execve-e2big.report.txt.xz"))
            if (l.event == "sched_switch")
                ++expected[prev.match(QString::fromStdString(l.info)).captured(1).toStdString()];
        QCOMPARE(expected.size() > 3, true);
        QCOMPARE(query(*o.sql, "SELECT prev_pid, count(*) FROM sched_switch GROUP BY 1").pairs(), expected);
    }

    void failedSysExitsPerSyscallMatchTheReport()
    {
        Opened o = openWithPlugins("execve-e2big.dat");
        QVERIFY(o.sql);
        // "NR 59 = -7": a failure is a return in [-4095, -1].
        std::map<std::string, int64_t> expected;
        static const QRegularExpression exit(R"(^NR (-?\d+) = (-?\d+))");
        for (const ReportLine& l : reportLines("execve-e2big.report.txt.xz")) {
            if (l.event != "sys_exit") continue;
            const auto m = exit.match(QString::fromStdString(l.info));
            QVERIFY(m.hasMatch());
            const long long ret = m.captured(2).toLongLong();
            if (ret < 0 && ret >= -4095) ++expected[m.captured(1).toStdString()];
        }
        QVERIFY(!expected.empty());
        QCOMPARE(query(*o.sql, "SELECT id, count(*) FROM sys_exit WHERE ret BETWEEN -4095 AND -1 GROUP BY id").pairs(),
                 expected);
        // The E2BIG hunt: the plugin's failures name the call and the error.
        const Rows e2big =
            query(*o.sql, "SELECT name, count(*) FROM syscalls_failures WHERE errno = 'E2BIG' GROUP BY 1");
        QCOMPARE(e2big.rows.size(), size_t(1));
        QCOMPARE(e2big.rows[0][0], std::string("execve"));
    }

    void wakeupLatencyCountsEveryWakeupFollowedByItsSwitch()
    {
        Opened o = openWithPlugins("execve-e2big.dat");
        QVERIFY(o.sql);
        // 397: the report's sched_wakeup lines whose woken pid's next wakeup-or-switch-in is a
        // switch in (counted with a script over execve-e2big.report.txt, ties in report order;
        // pids read before " [", as comms like "kworker/0:1" hold colons).
        const Rows latency = query(*o.sql, R"(
            WITH e AS (SELECT ts, id, pid AS tid, 0 AS kind FROM sched_wakeup
                       UNION ALL SELECT ts, id, next_pid, 1 FROM sched_switch),
                 n AS (SELECT kind, ts, LEAD(kind) OVER w AS next_kind, LEAD(ts) OVER w AS next_ts
                       FROM e WINDOW w AS (PARTITION BY tid ORDER BY ts, id))
            SELECT count(*), min(next_ts - ts) >= 0 FROM n WHERE kind = 0 AND next_kind = 1)");
        QCOMPARE(latency.rows.at(0).at(0), std::string("397"));
        QCOMPARE(latency.rows.at(0).at(1), std::string("1"));
    }

    void fieldsReadByNameAsByColumn()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        QCOMPARE(query(*o.sql, "SELECT count(*) FROM sched_switch s JOIN ftrace_event e USING (id) "
                               "WHERE EXTRACT_ARG(e.arg_set_id, 'prev_pid') IS NOT s.prev_pid "
                               "OR EXTRACT_ARG(e.arg_set_id, 'args.next_comm') IS NOT s.next_comm "
                               "OR e.pid IS NOT s.common_pid")
                     .rows.at(0)
                     .at(0),
                 std::string("0"));
        // args: a row per field of each event, read by the event's arg_set_id, agreeing with
        // EXTRACT_ARG and with the type's own columns.
        QCOMPARE(query(*o.sql, "SELECT count(*) FROM sched_switch s JOIN args a ON a.arg_set_id = s.id "
                               "WHERE a.key = 'next_pid' AND a.int_value = s.next_pid AND a.value_type = 'int'")
                     .rows[0][0],
                 query(*o.sql, "SELECT count(*) FROM sched_switch").rows[0][0]);
        QCOMPARE(query(*o.sql, "SELECT count(*) FROM sched_switch s JOIN args a ON a.arg_set_id = s.id").rows[0][0],
                 std::to_string(7 * std::stoll(query(*o.sql, "SELECT count(*) FROM sched_switch").rows[0][0])));
        QCOMPARE(query(*o.sql, "SELECT count(*) FROM ftrace_event e JOIN args a USING (arg_set_id) "
                               "WHERE a.display_value IS NOT CAST(EXTRACT_ARG(e.arg_set_id, a.key) AS TEXT)")
                     .rows[0][0],
                 std::string("0"));
        const Rows argsPlan =
            query(*o.sql, "EXPLAIN QUERY PLAN SELECT count(*) FROM sched_switch s JOIN args a ON a.arg_set_id = s.id");
        QVERIFY(argsPlan.rows.back().back().find("SCAN a VIRTUAL TABLE INDEX 0:0:0,") == 0);
        QCOMPARE(
            query(*o.sql, "SELECT key, string_value FROM args WHERE arg_set_id = (SELECT min(id) FROM "
                          "sched_switch) AND key = 'prev_comm'")
                .rows,
            (std::vector<std::vector<std::string>>{
                {"prev_comm", query(*o.sql, "SELECT prev_comm FROM sched_switch ORDER BY id LIMIT 1").rows[0][0]}}));
        // The switches of the checked-in text: "bash:29482 [120] R ==> bash:29502 [120]".
        QList<QByteArray> switches;
        for (const QByteArray& line : readXz(fixture("sched-mix.switches.txt.xz")).split('\n'))
            if (line.contains(" sched_switch: ")) switches.push_back(line);
        const Rows first =
            query(*o.sql, "SELECT prev_comm, prev_pid, next_comm, next_pid FROM sched_switch ORDER BY id LIMIT 1");
        QVERIFY(switches.first().contains(QByteArray::fromStdString(first.rows[0][0] + ":" + first.rows[0][1] + " [")));
        QVERIFY(
            switches.first().contains(QByteArray::fromStdString("==> " + first.rows[0][2] + ":" + first.rows[0][3])));
        QCOMPARE(std::stoll(query(*o.sql, "SELECT count(*) FROM sched_switch").rows[0][0]), int64_t(switches.size()));
    }

    void constraintsNarrowTheScanAndKeepTheAnswer()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        const Rows range =
            query(sql, "SELECT min(ts) + (max(ts) - min(ts)) / 3, min(ts) + (max(ts) - min(ts)) / 3 + 10000000 "
                       "FROM ftrace_event");
        const std::string from = range.rows[0][0], to = range.rows[0][1];
        struct Case {
            std::string pushed, scanned; // the same question, with and without a usable constraint
        };
        const std::vector<Case> cases = {
            {"ts BETWEEN " + from + " AND " + to, "ts + 0 BETWEEN " + from + " AND " + to},
            {"ts > " + from + " AND ts <= " + to, "+ts > " + from + " AND +ts <= " + to},
            {"cpu = 1", "cpu + 0 = 1"},
            {"utid = 2", "utid + 0 = 2"},
            {"pid = 29452", "pid + 0 = 29452"},
            {"id >= 1000 AND id < 1500", "id + 0 >= 1000 AND id + 0 < 1500"},
        };
        for (const Case& c : cases) {
            const std::string what =
                "SELECT count(*), sum(ts % 1000), group_concat(DISTINCT cpu) FROM ftrace_event WHERE ";
            const uint64_t before = sql.rowsRead();
            const Rows pushed = query(sql, what + c.pushed);
            const uint64_t readPushed = sql.rowsRead() - before;
            const Rows scanned = query(sql, what + c.scanned);
            const uint64_t readScanned = sql.rowsRead() - before - readPushed;
            QVERIFY2(pushed.rows == scanned.rows, c.pushed.c_str());
            QVERIFY2(std::stoll(pushed.rows[0][0]) > 0, c.pushed.c_str());
            QCOMPARE(readScanned, uint64_t(o.trace->store().eventCount()));
            if (c.pushed.rfind("ts", 0) == 0 || c.pushed.rfind("id", 0) == 0 || c.pushed.rfind("utid", 0) == 0)
                QVERIFY2(readPushed < readScanned / 2, c.pushed.c_str());
        }
        // The plan says it searches rather than scans.
        const Rows plan = query(sql, "EXPLAIN QUERY PLAN SELECT count(*) FROM sched_switch WHERE ts > " + from);
        QVERIFY(plan.rows.at(0).back().find("VIRTUAL TABLE INDEX") != std::string::npos);
    }

    void eventsByNameWithoutASort()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        // ftrace_event gives its rows type after type for a GROUP BY, DISTINCT or ORDER BY on
        // name (the plan's ";order"): the same answer as SQLite's own sort, under every narrowing.
        const Rows plan = query(sql, "EXPLAIN QUERY PLAN SELECT name, count(*) FROM ftrace_event GROUP BY name");
        QCOMPARE(plan.rows.size(), size_t(1)); // no "USE TEMP B-TREE FOR GROUP BY"
        QVERIFY(plan.rows[0].back().find(";3") != std::string::npos);
        const Rows range = query(sql, "SELECT min(ts) + (max(ts) - min(ts)) / 3, max(ts) - (max(ts) - min(ts)) / 3, "
                                      "count(*) / 4, count(*) / 2 FROM ftrace_event");
        const std::string from = range.rows[0][0], to = range.rows[0][1], low = range.rows[0][2],
                          high = range.rows[0][3];
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"", ""},
            {"WHERE cpu = 1", "WHERE cpu + 0 = 1"},
            {"WHERE ts BETWEEN " + from + " AND " + to, "WHERE ts + 0 BETWEEN " + from + " AND " + to},
            {"WHERE utid = 3", "WHERE utid + 0 = 3"},
            {"WHERE pid = 29452", "WHERE pid + 0 = 29452"},
            {"WHERE id BETWEEN " + low + " AND " + high, "WHERE id + 0 BETWEEN " + low + " AND " + high},
        };
        for (const auto& [pushed, scanned] : cases) {
            const std::string columns = "name, count(*), sum(id), sum(ts), sum(pid), sum(cpu), count(DISTINCT comm)";
            const Rows grouped = query(sql, "SELECT " + columns + " FROM ftrace_event " + pushed + " GROUP BY name");
            QVERIFY2(grouped.rows.size() > 3, pushed.c_str());
            QCOMPARE(
                grouped.rows,
                query(sql, "SELECT " + columns + " FROM ftrace_event " + scanned + " GROUP BY +name ORDER BY 1").rows);
            // Reading nothing but the name: the store's counts per type where nothing narrows.
            QCOMPARE(
                query(sql, "SELECT name, count(*) FROM ftrace_event " + pushed + " GROUP BY name").rows,
                query(sql, "SELECT name, count(*) FROM ftrace_event " + scanned + " GROUP BY +name ORDER BY 1").rows);
            // The rowid (the event's id), which SQLite does not say it reads: the events found.
            QCOMPARE(
                query(sql, "SELECT name, count(*), sum(rowid) FROM ftrace_event " + pushed + " GROUP BY name").rows,
                query(sql, "SELECT name, count(*), sum(id) FROM ftrace_event " + scanned + " GROUP BY +name ORDER BY 1")
                    .rows);
            // Rows passed over by OFFSET read no column: the rowid asked for in the middle of a type.
            QCOMPARE(query(sql, "SELECT rowid FROM ftrace_event " + pushed + " ORDER BY name LIMIT 5 OFFSET 30").rows,
                     query(sql, "SELECT id FROM ftrace_event " + pushed + " ORDER BY name LIMIT 5 OFFSET 30").rows);
            QCOMPARE(query(sql, "SELECT name FROM ftrace_event " + pushed + " ORDER BY name DESC").rows,
                     query(sql, "SELECT name FROM ftrace_event " + scanned + " ORDER BY +name DESC").rows);
            QCOMPARE(query(sql, "SELECT DISTINCT name FROM ftrace_event " + pushed).rows,
                     query(sql, "SELECT DISTINCT +name FROM ftrace_event " + scanned + " ORDER BY 1").rows);
            QCOMPARE(query(sql, "SELECT name, id FROM ftrace_event " + pushed + " ORDER BY name DESC, id").rows,
                     query(sql, "SELECT name, id FROM ftrace_event " + scanned + " ORDER BY +name DESC, id").rows);
        }
        // The counts are the store's.
        QCOMPARE(query(sql, "SELECT name, count(*) FROM ftrace_event GROUP BY name").rows,
                 query(sql, "SELECT name, sum(events) FROM event_type GROUP BY name ORDER BY name").rows);
    }

    void analysisTablesHoldWhatTheAnalysesMade()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        QCOMPARE(std::stoll(query(sql, "SELECT count(*) FROM thread").rows[0][0]),
                 int64_t(o.trace->taskIndex().size()));
        // Each CPU's slices follow each other: one sched_switch ends one and begins the next.
        const Rows gaps =
            query(sql, "SELECT count(*) FROM (SELECT ts, dur, LEAD(ts) OVER (PARTITION BY cpu ORDER BY ts) "
                       "AS next FROM sched_slice) WHERE next IS NOT NULL AND ts + dur != next");
        QCOMPARE(gaps.rows[0][0], std::string("0"));
        QCOMPARE(query(sql, "SELECT count(*) FROM sched_slice").rows[0][0],
                 query(sql, "SELECT count(*) FROM sched_switch").rows[0][0]);
        // A task's states, and the system calls the plugin paired, name its threads.
        QCOMPARE(query(sql, "SELECT count(*) FROM thread_state WHERE utid NOT IN (SELECT utid FROM thread)").rows[0][0],
                 std::string("0"));
        const Rows calls = query(sql, "SELECT count(*), sum(failed) FROM syscalls");
        QVERIFY(std::stoll(calls.rows[0][0]) > 20000);
        QCOMPARE(calls.rows[0][1], query(sql, "SELECT count(*) FROM syscalls_failures").rows[0][0]);
        // A statement reads only the columns it names (the return value is decoded from its exit
        // event only when asked for); those it names are always there.
        QCOMPARE(query(sql, "SELECT count(*) FROM syscalls WHERE ret BETWEEN -4095 AND -1 AND NOT open").rows[0][0],
                 calls.rows[0][1]);
        QCOMPARE(query(sql, "SELECT count(*) FROM syscalls WHERE name IS NULL").rows[0][0], std::string("0"));
        // A failure's return event, by its time and its row: the exit that failed.
        QCOMPARE(query(sql, "SELECT count(*) FROM syscalls_failures f JOIN ftrace_event e ON e.id = f.at_id "
                            "WHERE e.ts = f.at AND e.name = 'sys_exit'")
                     .rows[0][0],
                 calls.rows[0][1]);
        // From the events to the failures: each exit's failures read by at_id (an index made on
        // first use), the same rows as the join the other way, the failures scanned once and
        // each one's event read by its id (a scan of the failures per exit is quadratic).
        const std::string fromEvents = "SELECT e.id, f.name, f.ret FROM ftrace_event e CROSS JOIN syscalls_failures f "
                                       "ON f.at_id = e.id WHERE e.name = 'sys_exit' ORDER BY 1, 2, 3";
        const Rows byIndex = query(sql, fromEvents);
        QCOMPARE(std::to_string(byIndex.rows.size()), calls.rows[0][1]);
        QCOMPARE(byIndex.rows, query(sql, "SELECT e.id, f.name, f.ret FROM syscalls_failures f CROSS JOIN "
                                          "ftrace_event e ON e.id = f.at_id WHERE e.name = 'sys_exit' ORDER BY 1, 2, 3")
                                   .rows);
        const Rows plan = query(sql, "EXPLAIN QUERY PLAN " + fromEvents);
        QVERIFY(std::any_of(plan.rows.begin(), plan.rows.end(), [](const std::vector<std::string>& row) {
            return row.back().find("SCAN f VIRTUAL TABLE INDEX 0:1:0,") != std::string::npos; // at_id =
        }));
        QCOMPARE(query(sql, "SELECT count(*) FROM syscalls_failures WHERE at_id = -1").rows[0][0], std::string("0"));
        const Rows all = query(sql, "SELECT * FROM syscalls WHERE failed ORDER BY ts LIMIT 1");
        QVERIFY(all.rows.size() == 1 && all.rows[0][4] != "NULL" && all.rows[0][5] != "NULL");
    }

    // A join on utid, upid, tid or pid reads the task or process by that value (the table's
    // index), and answers as the same join read by scanning (`+` keeps SQLite from the index).
    void schedMeansWhatPerfettoMeans()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        // The checked-in report's switches: "[000] 1022.903382178: sched_switch: bash:29482 [120]
        // R ==> bash:29502 [120]". Its prev_state letters are libtraceevent's sched_switch
        // plugin's (an older table: W for idle I, X and Z swapped, no "+"); `sched` says them as
        // the recording's own format does, as Perfetto does.
        const QRegularExpression line(R"(\[(\d+)\]\s+\S+: sched_switch:.* \[(\d+)\] (\S+) ==> .*:(\d+) \[(\d+)\]$)");
        std::map<std::string, int64_t> endStates; // the report's letters, in Perfetto's
        std::set<std::string> cpus;
        int64_t switches = 0, toIdle = 0, priorities = 0;
        for (const QByteArray& text : readXz(fixture("sched-mix.switches.txt.xz")).split('\n')) {
            const QRegularExpressionMatch m = line.match(QString::fromUtf8(text));
            if (!m.hasMatch()) continue;
            ++switches;
            toIdle += m.captured(4) == "0";
            priorities += m.captured(5).toLongLong();
            // A CPU's first switch ends no row of `sched` (its rows begin at its first switch).
            if (!cpus.insert(m.captured(1).toStdString()).second) {
                static const std::map<QString, std::string> perfetto = {{"W", "I"}, {"X", "Z"}, {"Z", "X"}};
                const auto it = perfetto.find(m.captured(3));
                ++endStates[it == perfetto.end() ? m.captured(3).toStdString() : it->second];
            }
        }
        QCOMPARE(switches, int64_t(1992));
        // Perfetto's own test query, unchanged: a row per switch.
        const Rows perfettoQuery = query(sql, "SELECT ts, cpu, dur, ts_end, end_state, priority, tid, name FROM sched "
                                              "JOIN thread ON sched.utid == thread.utid ORDER BY cpu, sched.ts");
        QCOMPARE(int64_t(perfettoQuery.rows.size()), switches);
        // Each CPU's rows follow each other; the run after its last switch has not ended.
        QCOMPARE(query(sql, "SELECT count(*) FROM (SELECT ts, ts_end, LEAD(ts) OVER (PARTITION BY cpu ORDER BY ts) "
                            "AS next FROM sched) WHERE next IS NOT NULL AND ts_end != next")
                     .rows[0][0],
                 std::string("0"));
        QCOMPARE(query(sql, "SELECT count(*), count(end_state) FROM sched WHERE dur = -1").rows[0],
                 (std::vector<std::string>{std::to_string(cpus.size()), "0"}));
        // end_state: the prev_state of the switch that ended the run, R+ for a preempted task.
        std::map<std::string, int64_t> states =
            query(sql, "SELECT end_state, count(*) FROM sched WHERE end_state IS NOT NULL GROUP BY 1").pairs();
        QVERIFY(states.count("R+") && states.count("I"));
        states["R"] += states["R+"];
        states.erase("R+");
        QCOMPARE(states, endStates);
        QCOMPARE(std::stoll(query(sql, "SELECT sum(priority) FROM sched").rows[0][0]), priorities);
        // Idle is utid 0 (tid 0); id is the switch's row of ftrace_event.
        QCOMPARE(std::stoll(query(sql, "SELECT count(*) FROM sched JOIN thread USING (utid) WHERE utid = 0 AND tid = 0")
                                .rows[0][0]),
                 toIdle);
        QCOMPARE(query(sql, "SELECT count(*) FROM sched s JOIN ftrace_event e USING (id) "
                            "WHERE e.name = 'sched_switch' AND e.ts = s.ts AND e.cpu = s.cpu")
                     .rows[0][0],
                 std::to_string(switches));
        QCOMPARE(query(sql, "SELECT count(*) FROM sched_slice").rows[0][0], std::to_string(switches));
        // A task's rows are looked up, not scanned for: the same rows either way.
        const std::string byTask = "SELECT count(*), sum(s.dur), sum(s.id) FROM thread t CROSS JOIN sched s ";
        const Rows plan = query(sql, "EXPLAIN QUERY PLAN " + byTask + "WHERE s.utid = t.utid");
        QVERIFY(plan.rows.at(1).back().find("INDEX 0:6:0") != std::string::npos);
        const Rows lookedUp = query(sql, byTask + "WHERE s.utid = t.utid");
        QCOMPARE(lookedUp.rows, query(sql, byTask + "WHERE s.utid + 0 = t.utid").rows);
        QCOMPARE(lookedUp.rows[0][0], std::to_string(switches));
        QCOMPARE(query(sql, "SELECT count(*) FROM sched WHERE id = (SELECT min(id) FROM sched_switch)").rows[0][0],
                 std::string("1"));
        // Task after task in time order, from that index: a window partitioned by utid or a
        // GROUP BY utid sorts nothing, and answers as SQLite's own sort does.
        const std::string window = "SELECT utid, count(*), max(gap), sum(gap) FROM (SELECT utid, ts - LAG(ts_end) "
                                   "OVER (PARTITION BY %1 ORDER BY %2) AS gap FROM sched WHERE cpu = 1) GROUP BY 1 "
                                   "ORDER BY 1";
        auto windowed = [&](const char* partition, const char* order) {
            return QString::fromStdString(window).arg(partition, order).toStdString();
        };
        const Rows windowPlan = query(sql, "EXPLAIN QUERY PLAN " + windowed("utid", "ts"));
        QVERIFY(std::any_of(windowPlan.rows.begin(), windowPlan.rows.end(), [](const std::vector<std::string>& r) {
            return r.back().find("SCAN sched VIRTUAL TABLE") != std::string::npos &&
                   r.back().find(";1") != std::string::npos;
        }));
        const Rows taskAfterTask = query(sql, windowed("utid", "ts"));
        QVERIFY(taskAfterTask.rows.size() > 20);
        QCOMPARE(taskAfterTask.rows, query(sql, windowed("+utid", "+ts")).rows);
        QCOMPARE(query(sql, "SELECT utid, count(*), sum(dur), sum(id) FROM sched GROUP BY utid").rows,
                 query(sql, "SELECT utid, count(*), sum(dur), sum(id) FROM sched GROUP BY +utid ORDER BY 1").rows);
    }

    void perfettosDocumentedQueriesRunUnchanged()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        // Each task's time on a CPU worked out from the checked-in report: a switch begins the
        // run of next_pid on its CPU, the CPU's next switch ends it.
        const QRegularExpression line(R"(\[(\d+)\]\s+(\d+)\.(\d+): sched_switch:.* ==> .*:(\d+) \[\d+\]$)");
        std::map<std::string, std::pair<int64_t, int64_t>> open; // cpu -> (ts, tid)
        std::map<std::string, int64_t> onCpu;                    // tid -> ns
        int64_t switches = 0;
        for (const QByteArray& text : readXz(fixture("sched-mix.switches.txt.xz")).split('\n')) {
            const QRegularExpressionMatch m = line.match(QString::fromUtf8(text));
            if (!m.hasMatch()) continue;
            ++switches;
            const int64_t ts = m.captured(2).toLongLong() * 1000000000 + m.captured(3).toLongLong();
            const std::string cpu = m.captured(1).toStdString();
            if (open.count(cpu)) onCpu[std::to_string(open[cpu].second)] += ts - open[cpu].first;
            open[cpu] = {ts, m.captured(4).toLongLong()};
        }
        // Perfetto's CPU scheduling page, its sched_slices and systrace_html test queries.
        QCOMPARE(int64_t(query(sql, "select ts, dur, cpu, end_state, priority, process.name, thread.name from "
                                    "sched_slice left join thread using(utid) left join process using(upid)")
                             .rows.size()),
                 switches);
        QCOMPARE(int64_t(query(sql, "select ts, cpu, dur, ts_end, utid, end_state, priority, upid, name, tid from "
                                    "sched join thread using(utid) order by ts")
                             .rows.size()),
                 switches);
        // Time on CPU per thread, as Perfetto's docs sum it (the run still going has dur -1).
        std::map<std::string, int64_t> perThread =
            query(sql, "SELECT tid, SUM(dur) FROM sched JOIN thread USING (utid) WHERE dur != -1 GROUP BY tid").pairs();
        QCOMPARE(perThread, onCpu);
        // Idle is utid 0, filtered as Perfetto's docs filter it.
        QCOMPARE(query(sql, "SELECT count(*) FROM sched WHERE utid != 0").rows[0][0],
                 query(sql, "SELECT count(*) FROM sched JOIN thread USING (utid) WHERE tid != 0").rows[0][0]);
        // The states of one thread, with the CPU of each run.
        const Rows states = query(sql, "SELECT ts, dur, state, cpu, io_wait, blocked_function FROM thread_state "
                                       "WHERE utid = 4 ORDER BY ts");
        QVERIFY(states.rows.size() > 5);
        for (const auto& row : states.rows) QCOMPARE(row[3] != "NULL", row[2] == "Running");
    }

    void threadStateHasPerfettosColumns()
    {
        Opened o = openWithPlugins("execve-e2big.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        // Running: the CPU of the switch that began the run (sched's row at that time).
        QCOMPARE(query(sql, "SELECT count(*) = count(cpu), sum(cpu IS NOT ucpu) FROM thread_state WHERE state = "
                            "'Running'")
                     .rows[0],
                 (std::vector<std::string>{"1", "0"}));
        QCOMPARE(query(sql, "SELECT count(*) FROM thread_state s JOIN sched r ON r.utid = s.utid AND r.ts = s.ts "
                            "WHERE s.state = 'Running' AND r.cpu IS NOT s.cpu")
                     .rows[0][0],
                 std::string("0"));
        QCOMPARE(
            query(sql, "SELECT count(*) FROM thread_state WHERE state != 'Running' AND cpu IS NOT NULL").rows[0][0],
            std::string("0"));
        // Runnable after a wakeup: the waker is the task that recorded the sched_wakeup naming the
        // woken pid at that instant, read from the event table; 397 such states, as the report's
        // wakeups followed by their switch (wakeupLatencyCountsEveryWakeupFollowedByItsSwitch).
        QCOMPARE(query(sql, "SELECT count(waker_utid) FROM thread_state").rows[0][0], std::string("397"));
        QCOMPARE(query(sql, "SELECT count(*) FROM thread_state s JOIN thread t ON t.utid = s.utid "
                            "JOIN thread w ON w.utid = s.waker_utid WHERE NOT EXISTS (SELECT 1 FROM sched_wakeup e "
                            "WHERE e.ts = s.ts AND e.pid = t.tid AND e.common_pid = w.tid)")
                     .rows[0][0],
                 std::string("0"));
        QCOMPARE(query(sql, "SELECT sum(irq_context) FROM thread_state").rows[0][0],
                 query(sql, "SELECT count(*) FROM thread_state s JOIN thread t USING (utid) JOIN sched_wakeup e "
                            "ON e.ts = s.ts AND e.pid = t.tid WHERE s.waker_utid IS NOT NULL "
                            "AND (e.common_flags & 24) != 0")
                     .rows[0][0]);
        // waker_id: the waker's own state then; an id names its row without a scan.
        QCOMPARE(query(sql, "SELECT count(*) FROM thread_state s JOIN thread_state w ON w.id = s.waker_id "
                            "WHERE w.utid = s.waker_utid AND w.ts <= s.ts AND s.ts <= w.ts + w.dur")
                     .rows[0][0],
                 query(sql, "SELECT count(waker_id) FROM thread_state").rows[0][0]);
        QVERIFY(std::stoll(query(sql, "SELECT count(waker_id) FROM thread_state").rows[0][0]) > 300);
        const Rows plan = query(sql, "EXPLAIN QUERY PLAN SELECT * FROM thread_state WHERE id = 12884901889");
        QVERIFY(plan.rows.at(0).back().find("INDEX 0:5:0,") != std::string::npos);
        QCOMPARE(query(sql, "SELECT count(*), count(DISTINCT id), sum(id = (utid << 32) + (id & 4294967295)) "
                            "FROM thread_state")
                     .rows[0][0],
                 query(sql, "SELECT count(DISTINCT id) FROM thread_state").rows[0][0]);
        QCOMPARE(query(sql, "SELECT count(*) FROM thread_state a JOIN thread_state b ON b.id = a.id "
                            "WHERE b.ts = a.ts AND b.dur = a.dur AND b.state = a.state")
                     .rows[0][0],
                 query(sql, "SELECT count(*) FROM thread_state").rows[0][0]);
        // Not recorded here: sched_blocked_reason's columns are null.
        QCOMPARE(query(sql, "SELECT count(io_wait), count(blocked_function) FROM thread_state").rows[0],
                 (std::vector<std::string>{"0", "0"}));
    }

    // The SQL tables' version, where a script reads it, and Perfetto's metadata and trace_bounds.
    void metadataNamesTheSchemaAndTheMachine()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        QCOMPARE(query(sql, "SELECT str_value FROM metadata WHERE name = 'ringside_sql_schema'").rows,
                 (std::vector<std::vector<std::string>>{{kSqlSchema}}));
        QCOMPARE(std::string(kSqlSchema), std::string("ringside.sql/7"));
        // `trace-cmd report --uname`: "Linux vm 6.18.44-fc-v669 x86_64".
        QCOMPARE(query(sql, "SELECT name, str_value FROM metadata WHERE name LIKE 'system_%' ORDER BY name").rows,
                 (std::vector<std::vector<std::string>>{
                     {"system_machine", "x86_64"}, {"system_name", "Linux"}, {"system_release", "6.18.44-fc-v669"}}));
        QCOMPARE(query(sql, "SELECT start_ts, end_ts FROM trace_bounds").rows,
                 query(sql, "SELECT min(ts), max(ts) FROM ftrace_event").rows);
        // The recording's length: the report's first and last events, 1022.903151 and 1023.456217.
        QCOMPARE(query(sql, "SELECT (end_ts + 500) / 1000 - (start_ts + 500) / 1000 FROM trace_bounds").rows[0][0],
                 std::string("553066"));
    }

    // sched_blocked_reason (Android's kernels; no recording at hand has it): a recording made to
    // measure, whose task blocks in D twice and is woken once with a reason. The reason belongs
    // to the blocked state it was recorded in, its caller named by the recording's kallsyms.
    void threadStateBlockedReasons()
    {
        using test::TraceWriter;
        TraceWriter writer;
        writer.formats = {TraceWriter::schedSwitchFormat(), TraceWriter::schedWakeupFormat()};
        writer.formats.push_back({"sched", std::string("name: sched_blocked_reason\nID: 380\nformat:\n") +
                                               TraceWriter::commonFields() +
                                               "\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
                                               "\tfield:void* caller;\toffset:16;\tsize:8;\tsigned:0;\n"
                                               "\tfield:bool io_wait;\toffset:24;\tsize:1;\tsigned:0;\n\n"
                                               "print fmt: \"pid=%d iowait=%d caller=%pS\", REC->pid, "
                                               "REC->io_wait, REC->caller\n"});
        writer.kallsyms = "ffffffff81001000 T io_schedule\nffffffff81002000 T mutex_lock\n";
        writer.cmdlines = "100 worker\n200 waker\n";
        auto sw = [](int32_t prev, const char* prevComm, int64_t prevState, int32_t next, const char* nextComm) {
            return TraceWriter::schedSwitch(prev, prevComm, prevState, next, nextComm);
        };
        auto wakeup = [](int32_t by, int32_t pid) { return TraceWriter::schedWakeup(by, pid, "worker", 0); };
        auto reason = [](int32_t by, int32_t pid, uint64_t caller, bool ioWait) {
            std::string f;
            test::put(f, pid), test::put(f, int32_t(0)), test::put(f, caller), test::put(f, uint8_t(ioWait));
            f += std::string(7, '\0');
            return TraceWriter::payload(380, by, f);
        };
        writer.cpus.resize(1);
        auto& cpu = writer.cpus[0];
        cpu.push_back({1000, sw(0, "swapper/0", 0, 100, "worker")}); // worker runs
        cpu.push_back({1000, sw(100, "worker", 2, 200, "waker")});   // and blocks in D
        cpu.push_back({1000, reason(200, 100, 0xffffffff81001010, true)});
        cpu.push_back({10, wakeup(200, 100)});
        cpu.push_back({1000, sw(200, "waker", 1, 100, "worker")});   // worker runs again
        cpu.push_back({1000, sw(100, "worker", 2, 0, "swapper/0")}); // blocks in D, no reason
        cpu.push_back({1000, sw(0, "swapper/0", 0, 200, "waker")});
        QTemporaryDir dir;
        const std::string path = dir.filePath("blocked.dat").toStdString();
        QVERIFY(test::writeFile(QString::fromStdString(path), writer.write()));
        Opened o = openPathWithPlugins(path);
        QVERIFY(o.sql);
        const Rows rows = query(*o.sql, "SELECT s.ts, s.state, s.io_wait, s.blocked_function FROM thread_state s "
                                        "JOIN thread t USING (utid) WHERE t.tid = 100 ORDER BY s.ts");
        const uint64_t first = o.trace->store().firstTimestamp();
        std::vector<std::string> seen;
        for (const auto& r : rows.rows)
            seen.push_back(std::to_string(std::stoull(r[0]) - first) + " " + r[1] + " " + r[2] + " " + r[3]);
        QCOMPARE(seen, (std::vector<std::string>{"0 Running NULL NULL", "1000 D 1 io_schedule", "2010 R NULL NULL",
                                                 "3010 Running NULL NULL", "4010 D NULL NULL"}));
        // Where tasks blocked, as a user asks it.
        QCOMPARE(query(*o.sql, "SELECT blocked_function, count(*) FROM thread_state WHERE state = 'D' "
                               "AND blocked_function IS NOT NULL GROUP BY blocked_function")
                     .rows,
                 (std::vector<std::vector<std::string>>{{"io_schedule", "1"}}));
    }

    void spanJoinsMeetIntervals()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        // Perfetto's operator on two small tables whose answer is worked out by hand: in
        // partition 1, a holds [0, 10) and [20, 30), b holds [5, 25); in partition 2 only a
        // [0, 5); b holds [40, 50) in partition 3.
        query(sql, "CREATE TEMP TABLE a (ts INT, dur INT, part INT, x TEXT); "
                   "INSERT INTO a VALUES (0, 10, 1, 'a1'), (20, 10, 1, 'a2'), (0, 5, 2, 'a3'); "
                   "CREATE TEMP TABLE b (ts INT, dur INT, part INT, y TEXT); "
                   "INSERT INTO b VALUES (5, 20, 1, 'b1'), (40, 10, 3, 'b2'); "
                   "CREATE VIRTUAL TABLE inner_span USING SPAN_JOIN(a PARTITIONED part, b PARTITIONED part); "
                   "CREATE VIRTUAL TABLE left_span USING SPAN_LEFT_JOIN(a PARTITIONED part, b PARTITIONED part); "
                   "CREATE VIRTUAL TABLE outer_span USING span_outer_join(a PARTITIONED part, b PARTITIONED part)");
        using Table = std::vector<std::vector<std::string>>;
        QCOMPARE(query(sql, "SELECT * FROM inner_span").rows,
                 (Table{{"5", "5", "1", "a1", "b1"}, {"20", "5", "1", "a2", "b1"}}));
        QCOMPARE(query(sql, "SELECT * FROM left_span").rows, (Table{{"0", "5", "1", "a1", "NULL"},
                                                                    {"5", "5", "1", "a1", "b1"},
                                                                    {"20", "5", "1", "a2", "b1"},
                                                                    {"25", "5", "1", "a2", "NULL"},
                                                                    {"0", "5", "2", "a3", "NULL"}}));
        QCOMPARE(query(sql, "SELECT * FROM outer_span").rows, (Table{{"0", "5", "1", "a1", "NULL"},
                                                                     {"5", "5", "1", "a1", "b1"},
                                                                     {"10", "10", "1", "NULL", "b1"},
                                                                     {"20", "5", "1", "a2", "b1"},
                                                                     {"25", "5", "1", "a2", "NULL"},
                                                                     {"0", "5", "2", "a3", "NULL"},
                                                                     {"40", "10", "3", "NULL", "b2"}}));
        // A table without a partition holds in every partition of the other.
        query(sql, "CREATE TEMP TABLE c (ts INT, dur INT, z TEXT); INSERT INTO c VALUES (3, 4, 'c1'); "
                   "CREATE VIRTUAL TABLE every USING SPAN_JOIN(a PARTITIONED part, c)");
        QCOMPARE(query(sql, "SELECT * FROM every").rows,
                 (Table{{"3", "4", "1", "a1", "c1"}, {"3", "2", "2", "a3", "c1"}}));
        QCOMPARE(query(sql, "DROP TABLE every; SELECT count(*) FROM sqlite_master WHERE name = 'every'").rows[0][0],
                 std::string("0"));
        // Over the recording: each run meets the running table's same run, CPU by CPU; a run
        // still going at the end (dur -1) lasts to the recording's end.
        query(sql, "CREATE TEMP VIEW runs AS SELECT ts, dur, cpu, utid FROM sched; "
                   "CREATE TEMP VIEW occupied AS SELECT ts, dur, cpu, utid AS running FROM cpu_occupancy_cpu_tasks; "
                   "CREATE VIRTUAL TABLE met USING SPAN_JOIN(runs PARTITIONED cpu, occupied PARTITIONED cpu)");
        QCOMPARE(query(sql, "SELECT count(*), sum(utid != running) FROM met").rows[0],
                 (std::vector<std::string>{query(sql, "SELECT count(*) FROM sched").rows[0][0], "0"}));
        QCOMPARE(query(sql, "SELECT sum(dur) FROM met").rows[0][0],
                 query(sql, "SELECT sum(last - first) FROM (SELECT min(ts) AS first FROM sched GROUP BY cpu), "
                            "(SELECT max(ts) AS last FROM ftrace_event)")
                     .rows[0][0]);
        // What it cannot join is said.
        for (const auto& [statement, why] : std::vector<std::pair<std::string, std::string>>{
                 {"CREATE VIRTUAL TABLE bad USING SPAN_JOIN(sched PARTITIONED cpu, thread_state PARTITIONED utid)",
                  "partitioned by different columns"},
                 {"CREATE VIRTUAL TABLE bad USING SPAN_JOIN(runs PARTITIONED cpu, occupied PARTITIONED cpu, a)",
                  "two tables"},
                 {"CREATE VIRTUAL TABLE bad USING SPAN_JOIN(runs PARTITIONED cpu, a PARTITIONED cpu)", "no column cpu"},
                 {"CREATE VIRTUAL TABLE bad USING SPAN_JOIN(runs PARTITIONED cpu, sched PARTITIONED cpu)",
                  "both tables have a column utid"},
                 {"CREATE VIRTUAL TABLE bad USING SPAN_JOIN(runs PARTITIONED cpu, thread)", "has no ts and dur"},
             }) {
            Rows rows;
            const RunOutcome outcome = sql.run(statement, rows);
            QVERIFY2(!outcome.ok && outcome.message.find(why) != std::string::npos,
                     (statement + ": " + outcome.message).c_str());
        }
    }

    void tasksAreJoinedByTheirIds()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        const std::string perTask = "SELECT t.name, t.tid, p.pid, count(*), sum(s.dur) FROM sched_slice s "
                                    "JOIN thread t ON %1 JOIN process p ON %2 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3";
        auto joined = [&](const char* onThread, const char* onProcess) {
            return QString::fromStdString(perTask).arg(onThread, onProcess).toStdString();
        };
        const std::string indexed = joined("t.utid = s.utid", "p.upid = t.upid");
        const Rows byIndex = query(sql, indexed);
        QVERIFY(byIndex.rows.size() > 10);
        QCOMPARE(byIndex.rows, query(sql, joined("+t.utid = s.utid", "+p.upid = t.upid")).rows);
        const Rows plan = query(sql, "EXPLAIN QUERY PLAN " + indexed);
        // One table scanned, the others looked up by their ids (whichever order SQLite takes).
        const auto scans = std::count_if(plan.rows.begin(), plan.rows.end(), [](const std::vector<std::string>& row) {
            return row.back().find("VIRTUAL TABLE INDEX 0:|") != std::string::npos;
        });
        QCOMPARE(scans, 1);
        QCOMPARE(std::count_if(plan.rows.begin(), plan.rows.end(),
                               [](const std::vector<std::string>& row) {
                                   return row.back().find("VIRTUAL TABLE INDEX 0:0:0,") != std::string::npos ||
                                          row.back().find("VIRTUAL TABLE INDEX 0:6:0,") != std::string::npos;
                               }),
                 2);
        // By tid and pid, and a utid past the last task or below 0: no row.
        const Rows first = query(sql, "SELECT utid, tid, upid FROM thread WHERE utid = 3");
        QCOMPARE(
            query(sql, "SELECT utid, tid, upid FROM thread WHERE tid = " + first.rows[0][1] + " AND utid = 3").rows,
            first.rows);
        QCOMPARE(query(sql, "SELECT count(*) FROM thread t JOIN process p USING (upid) WHERE p.pid = t.tid").rows,
                 query(sql, "SELECT count(*) FROM thread WHERE is_main_thread").rows);
        QCOMPARE(query(sql, "SELECT count(*) FROM thread WHERE utid IN (-1, 1000000)").rows[0][0], std::string("0"));
        QCOMPARE(query(sql, "SELECT count(*) FROM thread WHERE utid IN (0, 1, 2, 2)").rows[0][0], std::string("3"));
        // What a query reads, for its progress: every slice, and the task each one looked up.
        const uint64_t before = sql.rowsYielded();
        uint64_t heard = 0;
        Rows counted;
        QVERIFY(sql.run("SELECT count(*) FROM sched_slice s JOIN thread t USING (utid)", counted,
                        [&](uint64_t done, uint64_t) { heard = std::max(heard, done); })
                    .ok);
        const uint64_t slices = std::stoull(counted.rows[0][0]);
        QCOMPARE(sql.rowsYielded() - before, 2 * slices);
        // Table by table (the Query pane names the tables a query reads most).
        const auto byTable = [&] {
            std::map<std::string, uint64_t> m;
            for (const auto& [name, rows] : sql.rowsYieldedByTable()) m[std::string(name)] = rows;
            return m;
        };
        const auto tablesBefore = byTable();
        QVERIFY(sql.run("SELECT count(*) FROM sched_slice s JOIN thread t USING (utid)", counted).ok);
        const auto tablesAfter = byTable();
        QCOMPARE(tablesAfter.at("sched_slice") - tablesBefore.at("sched_slice"), slices);
        QCOMPARE(tablesAfter.at("thread") - tablesBefore.at("thread"), slices);
        QCOMPARE(tablesAfter.at("process"), tablesBefore.at("process"));
        QVERIFY2(heard <= 2 * slices, std::to_string(heard).c_str());
        // A task's states are its lane of thread_state: read alone, by utid (column 2).
        const std::string states = "SELECT t.tid, s.state, count(*), sum(s.dur) FROM thread t JOIN thread_state s "
                                   "ON %1 WHERE t.tid IN (SELECT tid FROM thread ORDER BY utid LIMIT 5 OFFSET 2) "
                                   "GROUP BY 1, 2 ORDER BY 1, 2";
        auto statesOn = [&](const char* on) { return QString::fromStdString(states).arg(on).toStdString(); };
        const Rows byLane = query(sql, statesOn("s.utid = t.utid"));
        QVERIFY(byLane.rows.size() >= 5);
        QCOMPARE(byLane.rows, query(sql, statesOn("+s.utid = t.utid")).rows);
        const Rows lanePlan = query(sql, "EXPLAIN QUERY PLAN " + statesOn("s.utid = t.utid"));
        QVERIFY(std::any_of(lanePlan.rows.begin(), lanePlan.rows.end(), [](const std::vector<std::string>& row) {
            return row.back().find("SCAN s VIRTUAL TABLE INDEX 0:2:0,|") == 0;
        }));
        QCOMPARE(query(sql, "SELECT count(*) FROM thread_state WHERE utid BETWEEN 2 AND 6").rows,
                 query(sql, "SELECT count(*) FROM thread_state WHERE +utid BETWEEN 2 AND 6").rows);
    }

    // A plugin's slice and instant tables give a task's rows by its utid without reading the
    // others' (a thread's system calls: its runs of events, not every CPU's rows), the same
    // rows as a scan, in chunks that end inside a task's rows too (7,432 calls of one task).
    void pluginTablesByOwner()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        RecordingSql& sql = *o.sql;
        const Rows busiest = query(sql, "SELECT utid FROM syscalls GROUP BY utid ORDER BY count(*) DESC LIMIT 8");
        QCOMPARE(busiest.rows.size(), size_t(8));
        const std::string calls = "SELECT count(*), sum(dur), sum(ret), min(ts), max(ts), sum(depth), sum(failed), "
                                  "group_concat(name) FROM syscalls WHERE ";
        for (const auto& row : busiest.rows)
            QCOMPARE(query(sql, calls + "utid = " + row[0]).rows, query(sql, calls + "+utid = " + row[0]).rows);
        // Several tasks: each one's rows (an IN list is looked up value by value), all columns.
        const std::string rowsOf = "SELECT * FROM syscalls WHERE %1 ORDER BY ts, utid, name, dur, ret";
        auto rows = [&](const std::string& where) {
            return query(sql, QString::fromStdString(rowsOf).arg(QString::fromStdString(where)).toStdString()).rows;
        };
        const std::string some = busiest.rows[0][0] + ", " + busiest.rows[3][0] + ", " + busiest.rows[7][0];
        for (const std::string& where :
             {"utid IN (" + some + ")", std::string("utid BETWEEN 3 AND 12"), std::string("utid > 40"),
              std::string("utid < 0"), std::string("utid BETWEEN 0 AND 300")}) {
            const auto narrowed = rows(where);
            QCOMPARE(narrowed, rows("+" + where));
            QVERIFY(where == "utid < 0" || !narrowed.empty());
        }
        // The busiest task's rows, read alone.
        const auto yielded = [&](const char* table) {
            for (const auto& [name, rows] : sql.rowsYieldedByTable())
                if (name == table) return rows;
            return uint64_t(0);
        };
        const uint64_t before = yielded("syscalls");
        const Rows one = query(sql, "SELECT count(*) FROM syscalls WHERE utid = " + busiest.rows[0][0]);
        QCOMPARE(one.rows.at(0).at(0), std::string("7432"));
        QCOMPARE(yielded("syscalls") - before, uint64_t(7432));
        const Rows plan = query(sql, "EXPLAIN QUERY PLAN SELECT count(*) FROM syscalls WHERE utid = 9");
        QVERIFY(std::any_of(plan.rows.begin(), plan.rows.end(), [](const std::vector<std::string>& row) {
            return row.back().find("SCAN syscalls VIRTUAL TABLE INDEX 0:2:0,|") == 0;
        }));
        // A join from a few threads looks each one's calls up.
        const std::string byThread =
            "SELECT t.tid, count(*), sum(s.dur) FROM thread t JOIN syscalls s ON %1 WHERE t.utid "
            "IN (" +
            some + ") GROUP BY 1 ORDER BY 1";
        auto joined = [&](const char* on) { return QString::fromStdString(byThread).arg(on).toStdString(); };
        QCOMPARE(query(sql, joined("s.utid = t.utid")).rows, query(sql, joined("+s.utid = t.utid")).rows);
        QCOMPARE(query(sql, joined("s.utid = t.utid")).rows.size(), size_t(3));
        // An instant table: the sched plugin's task events.
        const std::string events = "SELECT * FROM sched_task_events WHERE %1 ORDER BY ts, utid, name";
        for (const char* where : {"utid = 5", "utid IN (2, 9, 40)", "utid BETWEEN 10 AND 60", "utid > 100"}) {
            auto eventsOf = [&](const QString& w) {
                return query(sql, QString::fromStdString(events).arg(w).toStdString()).rows;
            };
            const auto narrowed = eventsOf(where);
            QCOMPARE(narrowed, eventsOf(QString("+") + where));
            QVERIFY(!narrowed.empty());
        }
        const uint64_t eventsBefore = yielded("sched_task_events");
        const Rows fives = query(sql, "SELECT count(*) FROM sched_task_events WHERE utid = 5");
        QCOMPARE(yielded("sched_task_events") - eventsBefore, uint64_t(std::stoull(fives.rows.at(0).at(0))));
        // A flow table, by the task at either end: who woke task 5, whom task 5 woke.
        const QString wakeups = "SELECT * FROM sched_wakeups WHERE %1 ORDER BY ts, utid, to_ts, to_utid";
        for (const char* where : {"to_utid = 5", "utid = 5", "to_utid IN (3, 9, 20)", "utid BETWEEN 2 AND 30",
                                  "to_utid > 50", "utid = 7 AND to_utid BETWEEN 1 AND 90"}) {
            auto wakeupsOf = [&](const QString& w) { return query(sql, wakeups.arg(w).toStdString()).rows; };
            const QString scanned = QString("+") + QString(where).replace(" AND ", " AND +");
            QCOMPARE(wakeupsOf(where), wakeupsOf(scanned));
        }
        const uint64_t wakeupsBefore = yielded("sched_wakeups");
        const Rows woken = query(sql, "SELECT count(*) FROM sched_wakeups WHERE to_utid = 5");
        QVERIFY(std::stoull(woken.rows.at(0).at(0)) > 10);
        QCOMPARE(yielded("sched_wakeups") - wakeupsBefore, uint64_t(std::stoull(woken.rows.at(0).at(0))));
    }

    // A process's parent_upid is the process of the task that created it, as the report's
    // task_newtask (a thread when CLONE_THREAD) and sched_process_fork lines say.
    void processesNameTheirParents()
    {
        Opened o = openWithPlugins("threads.dat");
        RecordingSql& sql = *o.sql;
        const QRegularExpression fork(R"(sched_process_fork:.* pid=(\d+) child_comm=.* child_pid=(\d+))");
        const QRegularExpression created(R"(-(\d+)\s+\[\d+\].*task_newtask:\s+pid=(\d+) .*clone_flags=([0-9a-f]+))");
        std::map<int64_t, int64_t> creator, threadOf; // child -> creator; a thread -> its creator
        for (const QByteArray& text : readXz(fixture("threads.report.txt.xz")).split('\n')) {
            const QString line = QString::fromUtf8(text);
            if (const auto m = fork.match(line); m.hasMatch())
                creator[m.captured(2).toLongLong()] = m.captured(1).toLongLong();
            if (const auto m = created.match(line); m.hasMatch() && (m.captured(3).toLongLong(nullptr, 16) & 0x10000))
                threadOf[m.captured(2).toLongLong()] = m.captured(1).toLongLong();
        }
        QVERIFY(creator.size() > 40);
        auto leader = [&](int64_t pid) {
            for (size_t steps = 0; threadOf.count(pid) && steps < threadOf.size(); ++steps) pid = threadOf[pid];
            return pid;
        };
        std::map<std::string, int64_t> expected;
        const Rows processes = query(sql, "SELECT pid FROM process");
        for (const auto& row : processes.rows) {
            const int64_t pid = std::stoll(row[0]);
            if (creator.count(pid) && leader(creator[pid]) != pid) expected[row[0]] = leader(creator[pid]);
        }
        QVERIFY(expected.size() > 40);
        QCOMPARE(query(sql, "SELECT p.pid, q.pid FROM process p JOIN process q ON q.upid = p.parent_upid").pairs(),
                 expected);
        // A recording with sched_process_fork alone: each child's process has its parent's.
        Opened forks = openWithPlugins("sched-mix.dat");
        QCOMPARE(query(*forks.sql, "SELECT count(*), sum(q.pid = f.parent_pid) FROM sched_process_fork f JOIN process "
                                   "p ON p.pid = f.child_pid JOIN process q ON q.upid = p.parent_upid")
                     .rows,
                 (std::vector<std::vector<std::string>>{{"106", "106"}}));
    }

    // Grouped by a process's or thread's name, a join from a plugin table sorts nothing: the
    // names come in order and each task's rows are read by its utid (SQLite charges no sort
    // after a virtual table's unordered scan, and sorted every system call).
    void groupedByNameJoinsSortNothing()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        RecordingSql& sql = *o.sql;
        const std::string perProcess = "SELECT p.name, count(*), sum(s.dur) FROM syscalls s JOIN thread t ON %1 "
                                       "JOIN process p ON %2 GROUP BY 1 ORDER BY 1";
        auto joined = [&](const char* onThread, const char* onProcess) {
            return QString::fromStdString(perProcess).arg(onThread, onProcess).toStdString();
        };
        const std::string indexed = joined("t.utid = s.utid", "p.upid = t.upid");
        const Rows byName = query(sql, indexed);
        QVERIFY(byName.rows.size() > 5);
        QCOMPARE(byName.rows, query(sql, joined("+t.utid = s.utid", "+p.upid = t.upid")).rows);
        for (const std::string& statement :
             {indexed, std::string("SELECT t.name, count(*) FROM syscalls s JOIN thread t USING (utid) GROUP BY "
                                   "t.name")}) {
            const Rows plan = query(sql, "EXPLAIN QUERY PLAN " + statement);
            std::string text;
            for (const auto& row : plan.rows) text += row.back() + "\n";
            QVERIFY2(text.find("TEMP B-TREE FOR GROUP BY") == std::string::npos &&
                         text.find("SCAN s VIRTUAL TABLE INDEX 0:2:0,") != std::string::npos,
                     text.c_str());
        }
        // In name order, ties by id.
        const Rows names = query(sql, "SELECT name FROM thread ORDER BY name");
        QCOMPARE(query(sql, "EXPLAIN QUERY PLAN SELECT name FROM thread ORDER BY name").rows.size(), size_t(1));
        for (size_t i = 1; i < names.rows.size(); ++i) QVERIFY(names.rows[i - 1][0] <= names.rows[i][0]);
        QCOMPARE(query(sql, "SELECT group_concat(utid) FROM (SELECT utid FROM thread ORDER BY name)").rows,
                 query(sql, "SELECT group_concat(utid) FROM (SELECT utid FROM thread ORDER BY name, utid)").rows);
    }

    // A slice table's rows of one owner are a track (Perfetto's thread_track or cpu_track):
    // its track_id joins to the track, which names the owner; a constraint on track_id reads
    // that owner's rows only; the track tables list the tracks with rows, counter tracks first.
    void sliceTracksAsPerfettoHasThem()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        RecordingSql& sql = *o.sql;
        // Through the track, the rows each task owns.
        QCOMPARE(query(sql, "SELECT t.utid, count(*), sum(s.dur) FROM syscalls s JOIN thread_track t ON s.track_id "
                            "= t.id GROUP BY t.utid ORDER BY 1")
                     .rows,
                 query(sql, "SELECT utid, count(*), sum(dur) FROM syscalls GROUP BY utid ORDER BY 1").rows);
        QCOMPARE(query(sql, "SELECT utid FROM thread_track WHERE type = 'syscalls' ORDER BY utid").rows,
                 query(sql, "SELECT DISTINCT utid FROM syscalls ORDER BY utid").rows);
        // The join looks one side up by the other (the track by its id, or a track's rows by
        // track_id), never rescanning a table per row; one track's rows are read alone.
        const Rows plan = query(sql, "EXPLAIN QUERY PLAN SELECT count(*) FROM syscalls s JOIN thread_track t ON "
                                     "s.track_id = t.id");
        QCOMPARE(plan.rows.size(), size_t(2));
        const std::string inner = plan.rows[1].back();
        QVERIFY2(inner.find("SCAN t VIRTUAL TABLE INDEX 0:0:0,") == 0 ||
                     inner.find("SCAN s VIRTUAL TABLE INDEX 0:8:0,") == 0,
                 inner.c_str());
        const Rows busiest = query(sql, "SELECT utid, track_id, count(*) FROM syscalls GROUP BY 1 ORDER BY 3 DESC");
        const std::string track = busiest.rows.at(0).at(1), other = busiest.rows.at(1).at(1);
        const std::string rowsOf = "SELECT * FROM syscalls WHERE %1 ORDER BY ts, name, dur, ret";
        auto rows = [&](const std::string& where) {
            return query(sql, QString::fromStdString(rowsOf).arg(QString::fromStdString(where)).toStdString()).rows;
        };
        QCOMPARE(rows("track_id = " + track), rows("utid = " + busiest.rows[0][0]));
        QCOMPARE(rows("track_id IN (" + track + ", " + other + ")"),
                 rows("utid IN (" + busiest.rows[0][0] + ", " + busiest.rows[1][0] + ")"));
        QCOMPARE(rows("track_id = " + track).size(), size_t(std::stoll(busiest.rows[0][2])));
        const uint64_t before = [&] {
            for (const auto& [name, n] : sql.rowsYieldedByTable())
                if (name == "syscalls") return n;
            return uint64_t(0);
        }();
        QCOMPARE(query(sql, "SELECT count(*) FROM syscalls WHERE track_id = " + track).rows[0][0], busiest.rows[0][2]);
        for (const auto& [name, n] : sql.rowsYieldedByTable())
            if (name == "syscalls") QCOMPARE(n - before, uint64_t(std::stoll(busiest.rows[0][2])));
        // The same owner's track of another slice table names none of these rows.
        QCOMPARE(query(sql, "SELECT count(*) FROM syscalls WHERE track_id = " + track + " + (1 << 32)").rows[0][0],
                 std::string("0"));
        // Every track once, in id order, the counter tracks first; the kinds' tables split them.
        const Rows ids = query(sql, "SELECT id FROM track");
        for (size_t i = 1; i < ids.rows.size(); ++i)
            QVERIFY(std::stoll(ids.rows[i - 1][0]) < std::stoll(ids.rows[i][0]));
        QCOMPARE(query(sql, "SELECT (SELECT count(*) FROM track) = (SELECT count(*) FROM counter_track) + (SELECT "
                            "count(*) FROM thread_track) + (SELECT count(*) FROM cpu_track)")
                     .rows[0][0],
                 std::string("1"));
        QCOMPARE(query(sql, "SELECT name, utid FROM thread_track WHERE id = " + track).rows,
                 (std::vector<std::vector<std::string>>{{"System calls", busiest.rows[0][0]}}));
        QVERIFY(query(sql, "SELECT * FROM thread_track WHERE id = " + track + " + 100000").rows.empty());

        // function_graph calls: Perfetto's documented query for a thread's slices.
        Opened calls = openWithPlugins("fgraph-e2big.dat");
        QCOMPARE(query(*calls.sql, "SELECT thread.tid, count(*), sum(slice.dur) FROM slice JOIN thread_track ON "
                                   "slice.track_id = thread_track.id JOIN thread USING (utid) GROUP BY 1 ORDER BY 1")
                     .rows,
                 query(*calls.sql, "SELECT t.tid, count(*), sum(s.dur) FROM slice s JOIN thread t USING (utid) "
                                   "GROUP BY 1 ORDER BY 1")
                     .rows);
        QCOMPARE(query(*calls.sql, "SELECT count(*) FROM thread_track WHERE type = 'slice'").rows[0][0],
                 query(*calls.sql, "SELECT count(DISTINCT utid) FROM slice").rows[0][0]);
    }

    // SQL reads a table a chunk of rows at a time: a chunk that ends inside an owner's rows
    // goes on from there (slices kept per owner and instants lost the rest of that owner's
    // rows: 11,648 system calls of 1,280,917 on a 2.9M-event recording).
    void everyRowOfEveryOwnerAcrossChunks()
    {
        // A slice and an instant per record, for a few owners each with thousands of rows:
        // the chunks (4096 rows) end inside owners' rows.
        class EveryRecord : public RecordConsumer {
        public:
            std::string name() const override { return "every"; }
            std::vector<EventRequest> requests() const override { return {{"sched", "sched_", {}, true}}; }
            void setTables(TableSink& tables) override
            {
                m_slices = &tables.slices({"records", "Records", RowOwner::Task, "", "", 0x808080, false});
                m_instants = &tables.instants({"moments", "Moments", RowOwner::Task, {"switch"}});
                m_label = m_slices->label("switch");
            }
            void consume(const ConsumedRecord& r) override
            {
                Slice s;
                s.start = s.end = r.timestamp;
                s.owner = uint32_t(m_count++ % 3); // explicit rows (no events named), three owners
                s.label = m_label;
                m_slices->add(s);
                m_instants->add(r.timestamp, s.owner, 0);
            }
            size_t m_count = 0;

        private:
            SliceSink* m_slices = nullptr;
            InstantSink* m_instants = nullptr;
            uint32_t m_label = 0;
        };
        std::vector<std::unique_ptr<RecordConsumer>> consumers;
        consumers.push_back(std::make_unique<EveryRecord>());
        const auto* every = static_cast<const EveryRecord*>(consumers.back().get());
        auto trace = Trace::open(fixturePath("sched-mix.dat"), LoadOptions(), std::move(consumers), {});
        QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
        auto sql = RecordingSql::open(**trace);
        QVERIFY(sql);
        QVERIFY2(every->m_count > 4096 + 100, std::to_string(every->m_count).c_str());
        const std::string rows = std::to_string(every->m_count);
        QCOMPARE(query(**sql, "SELECT count(*) FROM every_records").rows[0][0], rows);
        QCOMPARE(query(**sql, "SELECT count(*) FROM every_moments").rows[0][0], rows);
    }

    void callsAreSlicesWithTheirParents()
    {
        Opened o = openWithPlugins("fgraph-openat.dat");
        QVERIFY(o.sql);
        const CallSlices& calls = o.trace->callSlices();
        QVERIFY(calls.size() > 100);
        const Rows slice = query(*o.sql, "SELECT count(*), sum(parent_id IS NULL), max(depth) FROM slice");
        QCOMPARE(std::stoll(slice.rows[0][0]), int64_t(calls.size()));
        // A child begins inside its parent, one deeper (it may end after it: function_graph
        // measures each call's own time, and trace-cmd shows those durations too).
        QCOMPARE(query(*o.sql, "SELECT count(*) FROM slice c JOIN slice p ON c.parent_id = p.id "
                               "WHERE c.depth != p.depth + 1 OR c.ts < p.ts OR c.ts > p.ts + p.dur")
                     .rows[0][0],
                 std::string("0"));
        // The parent is read by its id (column 0, Eq), not by scanning the table for each child.
        const Rows plan = query(*o.sql, "EXPLAIN QUERY PLAN SELECT count(*) FROM slice c JOIN slice p "
                                        "ON c.parent_id = p.id WHERE c.depth != p.depth + 1");
        QVERIFY(std::any_of(plan.rows.begin(), plan.rows.end(), [](const std::vector<std::string>& row) {
            return row.back().find("VIRTUAL TABLE INDEX 0:0:0,") != std::string::npos;
        }));
        QCOMPARE(query(*o.sql, "SELECT count(*) FROM slice WHERE id BETWEEN 10 AND 19").rows[0][0], std::string("10"));
        QCOMPARE(query(*o.sql, "SELECT name FROM slice WHERE id = 5").rows[0][0],
                 query(*o.sql, "SELECT name FROM slice LIMIT 1 OFFSET 5").rows[0][0]);
        const Rows openat = query(*o.sql, "SELECT count(*) FROM slice WHERE name LIKE '%openat%'");
        QVERIFY(std::stoll(openat.rows[0][0]) > 0);
    }

    void errorsSayWhatAndWhere()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        Rows rows;
        RunOutcome bad = o.sql->run("SELECT count(*)\nFROM ftrace_event WHER ts > 0", rows);
        QVERIFY(!bad.ok && !bad.interrupted);
        QVERIFY2(bad.message.find("syntax error") != std::string::npos, bad.message.c_str());
        QCOMPARE(bad.offset, 39); // "ts", where SQLite stopped understanding
        RunOutcome table = o.sql->run("SELECT * FROM block_rq_issue", rows);
        QVERIFY(!table.ok);
        QVERIFY2(table.message.find("no such table: block_rq_issue") != std::string::npos, table.message.c_str());
        QVERIFY2(table.message.find("sched-mix.dat") != std::string::npos, table.message.c_str());
        RunOutcome column = o.sql->run("SELECT prev_pidd FROM sched_switch", rows);
        QVERIFY(!column.ok);
        QVERIFY2(column.message.find("no such column: prev_pidd") != std::string::npos, column.message.c_str());
        // A format the file has but no event of it: says so.
        const std::string noEvents = o.sql->run("SELECT * FROM sched_pi_setprio", rows).message;
        QVERIFY2(noEvents.find("recorded none") != std::string::npos, noEvents.c_str());
    }

    // event_pairs(): the pairs `ringside-cli latency` makes (latency-reference.txt, from
    // trace-cmd report), by preset or spelled out; its ids are ftrace_event's; bad arguments
    // say what is wrong.
    void eventPairsAsInLatency()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        // sched-mix.dat softirq 383 pairs, min 551, p50 11101, max 301234.
        const std::vector<std::string> softirq{"383", "551", "301234"};
        QCOMPARE(query(sql, "SELECT count(*), min(dur), max(dur) FROM event_pairs('softirq')").rows[0], softirq);
        QCOMPARE(query(sql, "SELECT count(*), min(dur), max(dur) FROM event_pairs('softirq_entry', "
                            "'irq/softirq_exit', 'vec', 'cpu')")
                     .rows[0],
                 softirq);
        // Nearest rank p50: the 192nd of 383.
        QCOMPARE(query(sql, "SELECT dur FROM event_pairs('softirq') ORDER BY dur LIMIT 1 OFFSET 191").rows[0][0],
                 std::string("11101"));
        // Ordered by start; each row's events are the pair's, on its CPU, of its task.
        QCOMPARE(query(sql, "SELECT count(*) FROM (SELECT ts, lag(ts) OVER () AS before FROM event_pairs('syscall')) "
                            "WHERE ts < before")
                     .rows[0][0],
                 std::string("0"));
        QCOMPARE(query(sql, "SELECT count(*) FROM event_pairs('syscall') p JOIN ftrace_event s ON s.id = p.start_id "
                            "JOIN ftrace_event e ON e.id = p.end_id WHERE s.name = 'sys_enter' AND e.name = 'sys_exit' "
                            "AND s.ts = p.ts AND e.ts = p.end_ts AND s.cpu = p.cpu AND s.utid = p.utid")
                     .rows[0][0],
                 std::string("28423"));
        QCOMPARE(query(sql, "SELECT count(DISTINCT key) > 10 FROM event_pairs('syscall')").rows[0][0],
                 std::string("1"));
        // A woken task's pid is the key.
        QCOMPARE(query(sql, "SELECT count(*) FROM event_pairs('sched_waking', 'sched_switch', 'pid=next_pid') p "
                            "JOIN sched_switch w ON w.id = p.end_id WHERE p.key = w.next_pid")
                     .rows[0][0],
                 std::string("1004"));
        // Each preset whose events the recording has is a view; the others are not there.
        QCOMPARE(query(sql, "SELECT count(*), min(dur), max(dur) FROM latency_softirq").rows[0], softirq);
        Rows tables;
        QVERIFY(!sql.run("SELECT * FROM latency_kmalloc", tables).ok); // sched-mix.dat has no kmem events
        // Filters on each side: the starts of high-priority wakings only.
        QCOMPARE(query(sql, "SELECT count(*) FROM event_pairs('waking', '', '', '', 'prio < 120')").rows[0][0],
                 std::string("40"));
        QCOMPARE(query(sql,
                       "SELECT count(*) FROM event_pairs('waking', '', '', '', 'prio < 120') p JOIN sched_waking w "
                       "ON w.id = p.start_id WHERE w.prio >= 120")
                     .rows[0][0],
                 std::string("0"));
        Rows rows;
        const std::pair<const char*, const char*> refused[] = {
            {"SELECT * FROM event_pairs", "needs a preset or a start and an end event"},
            {"SELECT * FROM event_pairs('irqs')", "no preset 'irqs'"},
            {"SELECT * FROM event_pairs('no_such_event', 'sys_exit')", "has no event no_such_event"},
            {"SELECT * FROM event_pairs('sys_enter', 'sys_exit', 'id', 'tasks')", "no option 'tasks'"},
            {"SELECT * FROM event_pairs('sys_enter', 'sys_exit', 'no_field')", "has no field no_field"},
            {"SELECT * FROM event_pairs('waking', '', '', '', 'prio <')", "the start filter: expected a value"},
        };
        for (const auto& [statement, why] : refused) {
            const RunOutcome outcome = sql.run(statement, rows);
            QVERIFY2(!outcome.ok && outcome.message.find(why) != std::string::npos,
                     (std::string(statement) + ": " + outcome.message).c_str());
        }
    }

    // The window's latency analyses are views latency_<name>, made, renamed and dropped as the
    // analyses change; a preset as it stands keeps its own view.
    void latencyViewsOfTheWindow()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        RecordingSql& sql = *o.sql;
        QCOMPARE(RecordingSql::latencyViewName("sys_enter → sys_exit (filtered)"),
                 std::string("latency_sys_enter_sys_exit_filtered"));
        PairSpec waking = *presetPair("waking");
        waking.name = "waking (filtered)";
        waking.filterFrom = "prio < 120";
        PairSpec custom{
            "sys_enter → sys_exit", "raw_syscalls/sys_enter", "raw_syscalls/sys_exit", {{"id", "id"}}, true};
        sql.setLatencyViews({*presetPair("softirq"), waking, custom});
        QCOMPARE(query(sql, "SELECT count(*) FROM latency_waking_filtered").rows[0][0], std::string("40"));
        QCOMPARE(query(sql, "SELECT count(*) FROM latency_sys_enter_sys_exit").rows[0][0], std::string("28423"));
        QCOMPARE(query(sql, "SELECT count(*) FROM latency_softirq").rows[0][0], std::string("383"));
        QVERIFY(sql.table("latency_waking_filtered"));
        // One analysis closed: its view goes, the preset's view stays.
        sql.setLatencyViews({custom});
        Rows rows;
        const RunOutcome gone = sql.run("SELECT count(*) FROM latency_waking_filtered", rows);
        QVERIFY2(!gone.ok && gone.message.find("no such table") != std::string::npos, gone.message.c_str());
        QVERIFY(!sql.table("latency_waking_filtered"));
        QCOMPARE(query(sql, "SELECT count(*) FROM latency_softirq").rows[0][0], std::string("383"));
        QCOMPARE(query(sql, "SELECT count(*), max(dur) = (SELECT max(dur) FROM event_pairs('syscall')) "
                            "FROM latency_sys_enter_sys_exit")
                     .rows[0],
                 (std::vector<std::string>{"28423", "1"}));
    }

    // A query reads the recording and writes its own temporary tables at most: every way to a
    // file or another database is refused with the reason, and no file appears.
    void queriesReachNothingButTheRecording()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string attached = dir.filePath("attached.db").toStdString();
        const std::string copy = dir.filePath("copy.db").toStdString();
        const std::vector<std::pair<std::string, std::string>> refused = {
            {"ATTACH DATABASE '" + attached + "' AS p; CREATE TABLE p.t(x); INSERT INTO p.t VALUES (1)", "ATTACH"},
            {"VACUUM INTO '" + copy + "'", "VACUUM INTO"},
            {"CREATE TABLE t(x)", "temporary tables"},
            {"DROP VIEW raw", "not dropped"},
            {"DROP TABLE sched_switch", "no virtual table"},
            {"INSERT INTO sched_switch (id) VALUES (1)", "temporary tables"},
            {"CREATE VIRTUAL TABLE again USING ringside", "no virtual table"},
            {"INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x(a)')", "may not be modified"},
            {"UPDATE sqlite_master SET sql = 'x'", "may not be modified"},
            {"DELETE FROM sqlite_master", "may not be modified"},
            {"CREATE VIRTUAL TABLE temp.again USING ringside", "no virtual table"},
            {"PRAGMA writable_schema = 1", "PRAGMA writable_schema"},
            {"PRAGMA journal_mode = WAL", "PRAGMA journal_mode"},
            {"SELECT load_extension('" + dir.filePath("x.so").toStdString() + "')", "load_extension"},
        };
        for (const auto& [statement, why] : refused) {
            Rows rows;
            const RunOutcome outcome = o.sql->run(statement, rows);
            QVERIFY2(!outcome.ok, statement.c_str());
            QVERIFY2(outcome.message.find(why) != std::string::npos, (statement + ": " + outcome.message).c_str());
        }
        QVERIFY(!QFile::exists(QString::fromStdString(attached)));
        QVERIFY(!QFile::exists(QString::fromStdString(copy)));
        // What stays the user's: temporary tables and views, the pragmas that read.
        QCOMPARE(query(*o.sql, "CREATE TEMP TABLE n AS SELECT count(*) AS c FROM sched_switch; "
                               "INSERT INTO n VALUES (7); CREATE TEMP VIEW m AS SELECT max(c) AS c FROM n; "
                               "SELECT c FROM m")
                     .rows[0][0],
                 query(*o.sql, "SELECT max(count(*), 7) FROM sched_switch").rows[0][0]);
        QVERIFY(!query(*o.sql, "PRAGMA table_info(sched_switch)").rows.empty());
        // Views in the (in-memory) main database, as Perfetto's documented queries make them.
        QCOMPARE(query(*o.sql, "CREATE VIEW v AS SELECT count(*) AS c FROM sched_switch; SELECT c FROM v").rows,
                 query(*o.sql, "SELECT count(*) FROM sched_switch").rows);
        QCOMPARE(query(*o.sql, "DROP VIEW v; SELECT count(*) FROM sqlite_master WHERE name = 'v'").rows[0][0],
                 std::string("0"));
        QCOMPARE(query(*o.sql, "DROP TABLE n; SELECT count(*) FROM temp.sqlite_master WHERE name = 'n'").rows[0][0],
                 std::string("0"));
    }

    void interruptedQueryStopsAndTheNextRuns()
    {
        Opened o = openWithPlugins("sched-mix.dat");
        QVERIFY(o.sql);
        Rows rows;
        bool heard = false;
        // A cross join of every event with every event: far too long to finish.
        const RunOutcome outcome =
            o.sql->run("SELECT count(*) FROM ftrace_event a, ftrace_event b WHERE a.ts + b.ts = 0", rows,
                       [&](uint64_t done, uint64_t) {
                           if (done > 200000 && !heard) heard = true, o.sql->interrupt();
                       });
        QVERIFY(heard);
        QVERIFY(!outcome.ok && outcome.interrupted);
        QCOMPARE(outcome.message, std::string("interrupted"));
        // From another thread, as Ctrl+C or the pane's Cancel does.
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            o.sql->interrupt();
        });
        const RunOutcome second =
            o.sql->run("SELECT count(*) FROM ftrace_event a, ftrace_event b WHERE a.ts + b.ts = 0", rows);
        stopper.join();
        QVERIFY(second.interrupted);
        QCOMPARE(query(*o.sql, "SELECT count(*) FROM sched_switch").rows[0][0], std::string("1992"));
    }
};

QTEST_GUILESS_MAIN(TestSql)
#include "tst_sql.moc"
