// SPDX-License-Identifier: GPL-2.0-or-later
// Exports: every event with its fields as CSV and JSON Lines, checked against the report
// (`ringside-cli dump` equals `trace-cmd report`) and against the events' own fields.
#include "decode/eventformatter.h"
#include "export/eventexporter.h"
#include "export/exporttext.h"
#include "query/eventfilter.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

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
