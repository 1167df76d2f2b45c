// SPDX-License-Identifier: GPL-2.0-or-later
// Exports: every event with its fields as CSV and JSON Lines, checked against the report
// (`ringside-cli dump` equals `trace-cmd report`) and against the events' own fields.
#include "calls/callslices.h"
#include "decode/eventformatter.h"
#include "export/eventexporter.h"
#include "export/exporttext.h"
#include "export/perfettotracks.h"
#include "analysis/tracktables.h"
#include "query/eventfilter.h"
#include "schedplugin.h"
#include "syscallsplugin.h"
#include "testsupport.h"
#include "workqueueplugin.h"
#include "util/orderedpieces.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <thread>

using namespace ringside;

namespace {

// RFC 4180 records: quoted cells may hold commas, quotes and line breaks.
QList<QStringList> parseCsv(const QByteArray& bytes)
{
    QList<QStringList> records;
    QStringList record;
    QString cell;
    bool quoted = false;
    const QString text = QString::fromUtf8(bytes);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                cell += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                cell += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            record << cell, cell.clear();
        } else if (c == '\n') {
            record << cell, cell.clear();
            records << record, record.clear();
        } else {
            cell += c;
        }
    }
    return records;
}

// Whether one thread's slices (start, end in us) nest or follow each other, as the Trace
// Event Format draws them.
bool slicesNest(QList<QPair<double, double>> list)
{
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> open;
    for (const auto& [start, end] : list) {
        while (!open.empty() && open.back() <= start + 1e-4) open.pop_back();
        if (!open.empty() && end > open.back() + 1e-4) return false;
        open.push_back(end);
    }
    return true;
}

QByteArray exported(const Trace& trace, const ExportOptions& options, ExportSummary* summary = nullptr)
{
    char* data = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&data, &size);
    auto result = exportEvents(trace, out, "memory", options);
    std::fclose(out);
    QByteArray bytes(data, qsizetype(size));
    std::free(data);
    if (!result) qWarning("%s", result.error().message.c_str());
    if (summary && result) *summary = *result;
    return result ? bytes : QByteArray();
}

// A report line: "           bash-29482 [000] 1022.903150: sys_exit:             NR 1 = 2".
struct ReportLine {
    QString task, pid, cpu, time, event, info;
};

ReportLine parseReportLine(const QString& line)
{
    static const QRegularExpression re(R"(^\s*(.*)-(\d+)\s+\[(\d+)\]\s*(\d+\.\d+|\d+): ([^:]+):\s*(.*)$)");
    const auto m = re.match(line);
    if (!m.hasMatch()) return {};
    return {m.captured(1), m.captured(2), QString::number(m.captured(3).toInt()),
            m.captured(4), m.captured(5), m.captured(6)};
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private slots:
    // Every row's fixed columns say what the report says, in the same order.
    void csvRowsMatchTheReport()
    {
        auto trace = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(trace);
        ExportSummary summary;
        const auto records = parseCsv(exported(*trace, {}, &summary));
        const QList<QByteArray> report = test::dump(*trace).split('\n').mid(1); // after "cpus=2"
        QCOMPARE(records.size(), qsizetype(trace->store().eventCount()) + 1);
        QCOMPARE(records[0].first(), QString("time"));
        QCOMPARE(records[0].size(), qsizetype(summary.columns.size()));
        const qsizetype info = records[0].indexOf("info");
        for (qsizetype r = 1; r < records.size(); ++r) {
            const QStringList& row = records[r];
            QCOMPARE(row.size(), records[0].size());
            const ReportLine line = parseReportLine(QString::fromUtf8(report[r - 1]));
            QVERIFY2(!line.event.isEmpty(), report[r - 1].constData());
            // The report prints microseconds, rounded; the export nanoseconds.
            QCOMPARE(QString::number((row[1].toULongLong() + 500) / 1000), QString(line.time).remove('.'));
            QVERIFY(row[0].startsWith(line.time.section('.', 0, 0) + "."));
            QCOMPARE(row[2], line.cpu);
            QCOMPARE(row[4], line.pid);
            QCOMPARE(row[5], line.event.trimmed());
            QCOMPARE(row[info], line.info);
        }
    }

    // The fields columns hold each event's own values: sched_switch's pids and states are the
    // numbers its report text shows.
    void csvFieldsAreTheEventsFields()
    {
        auto trace = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(trace);
        const auto records = parseCsv(exported(*trace, {}));
        const QStringList header = records[0];
        const qsizetype event = header.indexOf("event"), info = header.indexOf("info");
        const qsizetype prevPid = header.indexOf("prev_pid"), nextPid = header.indexOf("next_pid");
        const qsizetype nextComm = header.indexOf("next_comm"), cpu = header.indexOf("field:cpu");
        QVERIFY(prevPid > 0 && nextPid > 0 && nextComm > 0);
        QVERIFY2(cpu > 0, "workqueue_queue_work's cpu field must not be taken for the CPU column");
        QVERIFY(!header.contains("common_type") && !header.contains("common_flags"));
        static const QRegularExpression switchText(R"(^(.*):(\d+) \[\d+\] \S+ ==> (.*):(\d+) \[\d+\]$)");
        int switches = 0;
        for (qsizetype r = 1; r < records.size(); ++r) {
            const QStringList& row = records[r];
            if (row[event] != "sched_switch") {
                QVERIFY2(row[event] == "workqueue_queue_work" || row[cpu].isEmpty(), qPrintable(row.join(',')));
                continue;
            }
            const auto m = switchText.match(row[info]);
            QVERIFY2(m.hasMatch(), qPrintable(row[info]));
            QCOMPARE(row[prevPid], m.captured(2));
            QCOMPARE(row[nextComm], m.captured(3));
            QCOMPARE(row[nextPid], m.captured(4));
            ++switches;
        }
        QVERIFY(switches > 1000);
    }

    void jsonLinesAreValidAndTyped()
    {
        auto trace = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(trace);
        ExportOptions options;
        options.format = ExportFormat::JsonLines;
        const QList<QByteArray> lines = exported(*trace, options).split('\n');
        QCOMPARE(lines.size(), qsizetype(trace->store().eventCount()) + 1);
        QVERIFY(lines.last().isEmpty());
        int enters = 0;
        for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
            QJsonParseError error;
            const QJsonObject o = QJsonDocument::fromJson(lines[i], &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, lines[i].constData());
            QVERIFY(o.value("timestamp").isDouble() && o.value("cpu").isDouble() && o.value("task").isString());
            const QJsonObject fields = o.value("fields").toObject();
            if (o.value("event").toString() == "sys_enter") {
                // "NR 217 (3, 555c0c2f9f80, ...)": the id, and the arguments as numbers.
                const QString info = o.value("info").toString();
                QVERIFY(info.startsWith("NR " + QString::number(fields.value("id").toInt()) + " ("));
                const QJsonArray args = fields.value("args").toArray();
                QCOMPARE(args.size(), 6);
                QCOMPARE(QString::number(qint64(args[0].toDouble()), 16),
                         info.section('(', 1).section(',', 0, 0).trimmed());
                ++enters;
            }
        }
        QVERIFY(enters > 1000);
    }

    // JSON readers hold integers up to 2^53 exactly (as doubles): a kernel pointer is written as
    // a string of its decimal digits, nothing is rounded. Every bare integer stays within 2^53.
    void jsonLinesKeepWideIntegers()
    {
        auto trace = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(trace);
        ExportOptions options;
        options.format = ExportFormat::JsonLines;
        const QList<QByteArray> lines = exported(*trace, options).split('\n');
        const QRegularExpression bare(R"((?<=[:,\[])-?\d+(?=[,\]}]))");
        const double exact = 9007199254740992.0; // 2^53
        int works = 0;
        for (const QByteArray& line : lines) {
            auto it = bare.globalMatch(QString::fromUtf8(line));
            while (it.hasNext()) {
                const QString number = it.next().captured();
                QVERIFY2(std::fabs(number.toDouble()) <= exact, qPrintable(number + " in " + line));
            }
            if (!line.contains("\"event\":\"workqueue_execute_start\"")) continue;
            // "work struct 0xffff888627d27de8: function ...": the same number, whole.
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            const QJsonValue work = o.value("fields").toObject().value("work");
            QVERIFY2(work.isString(), line.constData());
            bool ok = false;
            const quint64 value = work.toString().toULongLong(&ok);
            QVERIFY(ok && double(value) > exact);
            QCOMPARE("0x" + QString::number(value, 16),
                     o.value("info").toString().section("work struct ", 1).section(':', 0, 0));
            ++works;
        }
        QCOMPARE(works, 54); // as many as trace-cmd report shows
    }

    // A recording with instances says which buffer each event is from.
    void severalBuffersGetABufferColumn()
    {
        auto trace = test::openOrFail(test::fixturePath("instances.dat"));
        QVERIFY(trace);
        const auto records = parseCsv(exported(*trace, {}));
        QCOMPARE(records[0].first(), QString("buffer"));
        QSet<QString> buffers;
        for (qsizetype r = 1; r < records.size(); ++r) buffers.insert(records[r][0]);
        QVERIFY2(buffers.size() >= 2, qPrintable(QStringList(buffers.values()).join(',')));
    }

    // Only the rows asked for, and only the columns of their events.
    void someRows()
    {
        auto trace = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        const std::string exitName = "sys_exit";
        RowSet rows(store.eventCount());
        std::vector<size_t> wanted;
        EventFormatter names(*trace);
        for (size_t row = 0; row < store.eventCount() && wanted.size() < 30; ++row) {
            const EventRef e = store.eventAt(row);
            const CpuColumns& c = store.stream(e.stream).columns;
            if (c.pid[e.index] == 29482 && names.eventName(c.eventType[e.index]) == exitName)
                rows.set(row), wanted.push_back(row);
        }
        rows.seal();
        QCOMPARE(wanted.size(), size_t(24));
        ExportOptions options;
        options.rows = &rows;
        const auto records = parseCsv(exported(*trace, options));
        QCOMPARE(records.size(), qsizetype(wanted.size()) + 1);
        QStringList header;
        for (const std::string& c : exportFixedColumns()) header << QString::fromStdString(c);
        header << "id"
               << "ret";
        QCOMPARE(records[0], header);
        for (qsizetype r = 1; r < records.size(); ++r) {
            QCOMPARE(records[r][4], QString("29482"));
            QCOMPARE(records[r][1].toULongLong(), store.timestamp(store.eventAt(wanted[size_t(r - 1)])));
        }
    }

    // The Chrome/Perfetto JSON trace, checked against the Trace Event Format's rules: an
    // object with "traceEvents"; every event a phase, a name, integer pid and tid; complete
    // events (X) with a start and a duration that nest or follow each other on their thread;
    // instants (i) with a scope; metadata (M) naming every thread used. And against the
    // report: the tasks' running time is what its context switches say.
    void perfettoTrace()
    {
        auto trace = test::openOrFail(test::fixturePath("sched-mix.dat"));
        QVERIFY(trace);
        ExportOptions options;
        options.format = ExportFormat::Perfetto;
        ExportSummary summary;
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(exported(*trace, options, &summary), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QVERIFY(document.isObject());
        QCOMPARE(document.object().value("displayTimeUnit").toString(), QString("ns"));
        QCOMPARE(document.object().value("otherData").toObject().value("schema").toString(),
                 QString("ringside.perfetto/2"));
        const QJsonArray events = document.object().value("traceEvents").toArray();
        QCOMPARE(size_t(events.size()), summary.rows + summary.slices);

        auto isInteger = [](const QJsonValue& v) { return v.isDouble() && v.toDouble() == std::floor(v.toDouble()); };
        QSet<QPair<int, int>> namedThreads, usedThreads;
        QHash<QPair<int, int>, QList<QPair<double, double>>> slices; // per thread: (start, end) in us
        QHash<int, double> running;                                  // per pid: us
        int instants = 0;
        for (const QJsonValue& value : events) {
            const QJsonObject e = value.toObject();
            const QString ph = e.value("ph").toString(), name = e.value("name").toString();
            QVERIFY2(!name.isEmpty() && isInteger(e.value("pid")) && isInteger(e.value("tid")),
                     QJsonDocument(e).toJson().constData());
            const QPair<int, int> thread(e.value("pid").toInt(), e.value("tid").toInt());
            if (ph == "M") {
                QVERIFY(name == "process_name" || name == "thread_name");
                QVERIFY(e.value("args").toObject().value("name").isString());
                if (name == "thread_name") namedThreads.insert(thread);
                continue;
            }
            QVERIFY(e.value("ts").isDouble() && e.value("ts").toDouble() >= 0);
            usedThreads.insert(thread);
            if (e.value("cat").toString().contains('.')) continue; // an analysis's table: perfettoAnalysisTables
            if (ph == "X") {
                const double start = e.value("ts").toDouble(), duration = e.value("dur").toDouble();
                QVERIFY(e.value("dur").isDouble() && duration >= 0);
                slices[thread].append({start, start + duration});
                if (name == "Running") running[thread.second] += duration;
            } else {
                QCOMPARE(ph, QString("i"));
                QVERIFY(QStringList({"t", "p", "g"}).contains(e.value("s").toString()));
                QVERIFY(e.value("args").toObject().value("fields").isObject());
                ++instants;
            }
        }
        for (const auto& thread : usedThreads)
            QVERIFY2(namedThreads.contains(thread), qPrintable(QString::number(thread.second)));
        for (auto it = slices.begin(); it != slices.end(); ++it)
            QVERIFY2(slicesNest(it.value()), "a slice overlaps its parent's end");

        // Every event but the context switches (drawn as slices) is an instant.
        const QList<QByteArray> report = test::dump(*trace).split('\n').mid(1);
        int switches = 0;
        // Per CPU: its first and last event's time, and its switches (time, prev, next).
        struct Cpu {
            double first = -1, last = 0;
            QList<std::tuple<double, int, int>> switches;
        };
        QHash<QString, Cpu> cpus;
        static const QRegularExpression switchText(R"(^.*:(\d+) \[\d+\] \S+ ==> .*:(\d+) \[\d+\]$)");
        for (const QByteArray& bytes : report) {
            const ReportLine line = parseReportLine(QString::fromUtf8(bytes));
            if (line.event.isEmpty()) continue;
            Cpu& cpu = cpus[line.cpu];
            const double us = line.time.toDouble() * 1e6;
            if (cpu.first < 0) cpu.first = us;
            cpu.last = us;
            if (line.event.trimmed() != "sched_switch") continue;
            ++switches;
            const auto m = switchText.match(line.info);
            QVERIFY(m.hasMatch());
            cpu.switches.append({us, m.captured(1).toInt(), m.captured(2).toInt()});
        }
        QCOMPARE(instants, int(trace->store().eventCount()) - switches);
        // A task runs from a switch to it until the next switch on that CPU; before a CPU's
        // first switch, its prev task ran from the CPU's first event; after the last, until
        // its last event.
        QHash<int, double> expected;
        QHash<int, int> intervals;
        for (const Cpu& cpu : cpus) {
            if (cpu.switches.isEmpty()) continue;
            auto add = [&](int pid, double from, double to) {
                if (pid != 0 && to > from) expected[pid] += to - from, ++intervals[pid];
            };
            add(std::get<1>(cpu.switches.first()), cpu.first, std::get<0>(cpu.switches.first()));
            for (qsizetype i = 0; i < cpu.switches.size(); ++i)
                add(std::get<2>(cpu.switches[i]), std::get<0>(cpu.switches[i]),
                    i + 1 < cpu.switches.size() ? std::get<0>(cpu.switches[i + 1]) : cpu.last);
        }
        QVERIFY(expected.size() > 10);
        for (auto it = expected.begin(); it != expected.end(); ++it)
            // The report's times are rounded to microseconds: one each way per interval.
            QVERIFY2(std::abs(running.value(it.key()) - it.value()) <= 2.0 * intervals[it.key()] + 1e-3,
                     qPrintable(QString("pid %1: %2 us running, the report says %3")
                                    .arg(it.key())
                                    .arg(running.value(it.key()))
                                    .arg(it.value())));
    }

    // function_graph calls are a table like any other: slices on a "Function calls" thread
    // per task, named by their functions, each call once.
    void perfettoCalls()
    {
        auto trace = test::openOrFail(test::fixturePath("fgraph-e2big.dat"));
        QVERIFY(trace);
        ExportOptions options;
        options.format = ExportFormat::Perfetto;
        const QJsonArray events =
            QJsonDocument::fromJson(exported(*trace, options)).object().value("traceEvents").toArray();
        int calls = 0;
        bool execve = false;
        QSet<int> threads, named;
        for (const QJsonValue& value : events) {
            const QJsonObject e = value.toObject();
            if (e.value("name").toString() == "thread_name" &&
                e.value("args").toObject().value("name").toString().endsWith(" Function calls"))
                named.insert(e.value("tid").toInt());
            if (e.value("cat").toString() != QString("%1.%2").arg(CallSlices::kName, CallSlices::kTableKey)) continue;
            ++calls;
            QVERIFY(e.value("tid").toInt() >= kTableTrackBase);
            threads.insert(e.value("tid").toInt());
            execve |= e.value("name").toString() == "do_execveat_common.isra.0";
            // This recording's exits carry no return values: none is made up.
            QVERIFY(!e.value("args").toObject().contains("value"));
        }
        QCOMPARE(size_t(calls), trace->callSlices().size());
        QVERIFY(execve);
        QVERIFY(!threads.isEmpty());
        for (int tid : threads) QVERIFY2(named.contains(tid), qPrintable(QString::number(tid)));
    }

    // Every analysis's and plugin's table goes into the trace: each row once, on a thread named
    // for its owner and table, slices nested, a system call's return read from its exit event,
    // flows in pairs. Checked against the tables themselves.
    void perfettoAnalysisTables()
    {
        std::vector<std::unique_ptr<Plugin>> plugins;
        plugins.push_back(std::make_unique<sched::SchedPlugin>());
        plugins.push_back(std::make_unique<syscalls::SyscallsPlugin>());
        plugins.push_back(std::make_unique<workqueue::WorkqueuePlugin>());
        // Tables of the kinds no plugin here makes: a counter per task, slices per CPU.
        class Probe : public RecordConsumer {
        public:
            std::string name() const override { return "probe"; }
            std::vector<EventRequest> requests() const override { return {{"sched", "sched_switch", {}}}; }
            void setTables(TableSink& tables) override
            {
                m_counter = &tables.counters({"switches", "Switches", RowOwner::Task, ""});
                m_slices = &tables.slices({"cpu_marks", "Marks", RowOwner::Cpu, "", "", 0x808080, false});
                m_label = m_slices->label("switch");
            }
            void consume(const ConsumedRecord& r) override
            {
                m_counter->add(r.timestamp, r.task.value, int64_t(++m_count));
                Slice s;
                s.start = s.end = r.timestamp;
                s.owner = r.stream.value;
                s.label = m_label;
                m_slices->add(s);
            }

        private:
            CounterSink* m_counter = nullptr;
            SliceSink* m_slices = nullptr;
            uint32_t m_label = 0;
            int64_t m_count = 0;
        };
        std::vector<std::unique_ptr<RecordConsumer>> consumers;
        consumers.push_back(std::make_unique<Probe>());
        auto opened = Trace::open(test::fixture("execve-e2big.dat").toStdString(), {}, std::move(consumers),
                                  std::move(plugins));
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        const Trace& trace = **opened;
        ExportOptions options;
        options.format = ExportFormat::Perfetto;
        const QJsonArray events =
            QJsonDocument::fromJson(exported(trace, options)).object().value("traceEvents").toArray();

        // What each table holds, by the category its rows get.
        QHash<QString, qsizetype> expected;
        qsizetype failedCalls = 0;
        for (const Trace::Analysis& analysis : trace.analyses()) {
            if (!analysis.tables) continue;
            for (const auto& tt : analysis.tables->tables()) {
                const QString category = QString::fromStdString(analysis.name + "." + tt->key());
                qsizetype rows = qsizetype(tt->rows());
                if (tt->kind() == TrackTable::Kind::Intervals) {
                    const auto& table = static_cast<const IntervalTable&>(*tt);
                    if (isSchedSlice(table.spec())) continue; // the CPU threads
                    for (uint32_t owner = 0; owner < table.openOwners(); ++owner) rows += table.openOf(owner).end != 0;
                } else if (tt->kind() == TrackTable::Kind::Flows) {
                    rows *= 2;
                } else if (tt->kind() == TrackTable::Kind::Slices && analysis.name == "syscalls") {
                    static_cast<const SliceTable&>(*tt).forEach(
                        trace.store(), &trace.taskIndex(),
                        [&](const SliceTable::View& v) { failedCalls += (v.flags & Slice::kError) != 0; });
                }
                if (rows) expected[category] = rows;
            }
        }
        QVERIFY(expected.value("syscalls.syscalls") > 100);
        QVERIFY(expected.value("sched.task_states") > 100);
        QVERIFY(expected.value("probe.switches") > 10);
        QCOMPARE(expected.value("probe.cpu_marks"), expected.value("probe.switches"));
        QVERIFY(failedCalls > 0);

        QHash<QString, qsizetype> written;
        QSet<QPair<int, int>> namedThreads;
        QHash<QPair<int, int>, QList<QPair<double, double>>> slices;
        QHash<int, QString> flowPhases; // per flow id: its phases in order
        qsizetype failed = 0, openCalls = 0;
        bool e2big = false;
        for (const QJsonValue& value : events) {
            const QJsonObject e = value.toObject();
            const QString ph = e.value("ph").toString(), category = e.value("cat").toString();
            const QPair<int, int> thread(e.value("pid").toInt(), e.value("tid").toInt());
            if (ph == "M" && e.value("name").toString() == "thread_name") namedThreads.insert(thread);
            if (!expected.contains(category)) continue;
            ++written[category];
            QVERIFY2(namedThreads.contains(thread), qPrintable(QJsonDocument(e).toJson()));
            if (ph == "X") {
                QVERIFY(e.value("dur").toDouble() >= 0);
                slices[thread].append({e.value("ts").toDouble(), e.value("ts").toDouble() + e.value("dur").toDouble()});
                QVERIFY(thread.second >= kTableTrackBase);
            }
            if (ph == "s" || ph == "f") flowPhases[e.value("id").toInt()] += ph;
            if (ph == "C") QVERIFY(e.value("args").toObject().value("value").toDouble() > 0);
            if (category == "probe.cpu_marks") QVERIFY(e.value("pid").toInt() >= kCpuTrackBase);
            // A call not returned runs to the end of the recording, as on the timeline.
            if (category == "syscalls.syscalls" && e.value("args").toObject().value("no_end").toBool()) {
                ++openCalls;
                QVERIFY(std::abs(e.value("ts").toDouble() + e.value("dur").toDouble() -
                                 double(trace.store().lastTimestamp()) / 1000) < 2e-3);
            }
            if (category == "syscalls.syscalls" && e.value("args").toObject().value("failed").toBool()) {
                ++failed;
                const int ret = e.value("args").toObject().value("ret").toInt();
                QVERIFY2(ret < 0 && ret >= -4095, qPrintable(QJsonDocument(e).toJson()));
                e2big |= e.value("name").toString() == "execve" && ret == -7;
            }
        }
        for (auto it = expected.begin(); it != expected.end(); ++it)
            QVERIFY2(written.value(it.key()) == it.value(), qPrintable(QString("%1: %2 written, the table has %3")
                                                                           .arg(it.key())
                                                                           .arg(written.value(it.key()))
                                                                           .arg(it.value())));
        QCOMPARE(failed, failedCalls);
        QVERIFY(openCalls > 0);
        QVERIFY(e2big);
        for (const QString& phases : flowPhases) QCOMPARE(phases, QString("sf"));
        for (auto it = slices.begin(); it != slices.end(); ++it)
            QVERIFY2(slicesNest(it.value()), "a slice overlaps its parent's end");
    }

    void cancelStopsWithAnError()
    {
        auto trace = test::openOrFail(test::fixturePath("syscalls-8cpu.dat"));
        QVERIFY(trace);
        std::atomic<bool> cancel{true};
        ExportOptions options;
        options.cancel = &cancel;
        FILE* out = std::fopen("/dev/null", "w");
        auto result = exportEvents(*trace, out, "/dev/null", options);
        std::fclose(out);
        QVERIFY(!result);
        QVERIFY(QString::fromStdString(result.error().message).contains("cancelled"));
    }

    // Pieces made on several threads come out in order; the window bounds how far ahead the
    // makers run; a stop skips the rest; a maker's exception reaches the caller.
    void piecesInOrder()
    {
        std::atomic<size_t> madeAhead{0};
        std::atomic<size_t> takenUpTo{0};
        std::string all;
        const size_t items = makeInOrder(
            200, 3,
            [&](size_t, size_t piece, std::string& text) {
                if (piece % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
                size_t ahead = piece - std::min(piece, takenUpTo.load());
                size_t seen = madeAhead.load();
                while (ahead > seen && !madeAhead.compare_exchange_weak(seen, ahead)) {}
                text = std::to_string(piece);
                text += ',';
                return size_t(1);
            },
            [&](size_t piece, std::string& text, size_t) {
                all += text;
                takenUpTo = piece;
                return true;
            });
        QCOMPARE(items, size_t(200));
        std::string expected;
        for (int i = 0; i < 200; ++i) {
            expected += std::to_string(i);
            expected += ',';
        }
        QCOMPARE(all, expected);
        QVERIFY2(madeAhead.load() <= 3 * 4 + 1, qPrintable(QString::number(madeAhead.load())));

        size_t takenPieces = 0;
        makeInOrder(
            100, 2,
            [](size_t, size_t, std::string& text) {
                text.push_back('x');
                return size_t(1);
            },
            [&](size_t piece, std::string&, size_t) { return ++takenPieces, piece < 9; });
        QCOMPARE(takenPieces, size_t(10));

        bool thrown = false;
        try {
            makeInOrder(
                100, 2,
                [](size_t, size_t piece, std::string&) -> size_t {
                    if (piece == 30) throw std::runtime_error("piece 30");
                    return 1;
                },
                [](size_t, std::string&, size_t) { return true; });
        } catch (const std::runtime_error& e) {
            thrown = std::string(e.what()) == "piece 30";
        }
        QVERIFY(thrown);
    }

    void textEscaping()
    {
        std::string csv;
        appendCsvCell(csv, "plain");
        csv += ',';
        appendCsvCell(csv, "a,\"b\"\nc");
        QCOMPARE(QString::fromStdString(csv), QString("plain,\"a,\"\"b\"\"\nc\""));
        std::string json;
        appendJsonString(json, std::string_view("q\"\\\t\x01\xff\xc3\xa9", 8));
        QCOMPARE(QByteArray::fromStdString(json), QByteArray("\"q\\\"\\\\\\t\\u0001\xef\xbf\xbd\xc3\xa9\""));
        std::string seconds;
        appendSeconds(seconds, 1022903150905ull);
        QCOMPARE(QString::fromStdString(seconds), QString("1022.903150905"));
        seconds.clear();
        appendSeconds(seconds, 5);
        QCOMPARE(QString::fromStdString(seconds), QString("0.000000005"));
        QCOMPARE(QByteArray::fromStdString(validUtf8("\xed\xa0\x80x")),
                 QByteArray("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx"));
    }

    // The CLI: a filter, a file, and clear messages for what is wrong.
    void cli()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("failed.csv");
        auto r = test::runCli({"export", test::fixture("execve-e2big.dat"), "--format", "csv", "--filter",
                               "raw_syscalls/sys_exit: ret < 0", "-o", out});
        QCOMPARE(r.status, 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto records = parseCsv(file.readAll());
        QVERIFY(records.size() > 1);
        const qsizetype ret = records[0].indexOf("ret"), event = records[0].indexOf("event");
        for (qsizetype i = 1; i < records.size(); ++i) {
            QCOMPARE(records[i][event], QString("sys_exit"));
            QVERIFY(records[i][ret].toLongLong() < 0);
        }
        QVERIFY(r.err.contains(QByteArray::number(records.size() - 1) + " events written"));
        // -7 is E2BIG: the failed execve is among them.
        QVERIFY(
            std::any_of(records.begin() + 1, records.end(), [&](const QStringList& row) { return row[ret] == "-7"; }));

        auto json = test::runCli({"export", test::fixture("execve-e2big.dat"), "--format", "jsonl"});
        QCOMPARE(json.status, 0);
        QCOMPARE(json.out.count('\n'),
                 qsizetype(test::openOrFail(test::fixturePath("execve-e2big.dat"))->store().eventCount()));

        auto missing = test::runCli({"export", dir.filePath("none.dat"), "--format", "csv"});
        QCOMPARE(missing.status, 1);
        QVERIFY(missing.err.contains("none.dat"));
        auto format = test::runCli({"export", test::fixture("execve-e2big.dat"), "--format", "xml"});
        QCOMPARE(format.status, 2);
        QVERIFY(format.err.contains("unknown export format 'xml'"));
        auto filter = test::runCli(
            {"export", test::fixture("execve-e2big.dat"), "--format", "csv", "--filter", "nosuch/event: x > 1"});
        QCOMPARE(filter.status, 2);
        QVERIFY2(filter.err.contains("filter"), filter.err.constData());
        auto unwritable = test::runCli(
            {"export", test::fixture("execve-e2big.dat"), "--format", "csv", "-o", dir.filePath("no/such/dir.csv")});
        QCOMPARE(unwritable.status, 1);
        QVERIFY(unwritable.err.contains("cannot write"));
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
