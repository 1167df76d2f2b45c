// SPDX-License-Identifier: GPL-2.0-or-later
// The decoding path end to end: Ringside's dump of real recordings must equal, byte for byte,
// what `trace-cmd report` printed for them (zlib: trace-cmd 3.1.7 built with zlib).
#include "testsupport.h"

#include "decode/eventformatter.h"
#include "decode/reportprinter.h"
#include "decode/simpleprint.h"

#include "support/tracewriter.h"
#include "trace.h"
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ringside;

class TestReportDump : public QObject {
    Q_OBJECT
private slots:
    void matchesTraceCmdReport_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("v7 zstd, execve E2BIG, print event") << "execve-e2big";
        QTest::newRow("v7 zstd, two buffers") << "instances";
        QTest::newRow("v7 zstd, lost events") << "lost-events";
        QTest::newRow("v7 zstd, function_graph") << "fgraph-openat";
        QTest::newRow("v6 i686, 32-bit longs, function_graph") << "v6-i686-funcgraph";
        QTest::newRow("v7 zlib, KVM guest with time shift") << "zlib-guest";
        QTest::newRow("v7 zstd, task_newtask, threads") << "threads";
        QTest::newRow("v7 zstd, x86-tsc counter clock") << "tsc-clock";
    }
    void matchesTraceCmdReport()
    {
        QFETCH(QString, name);
        const QByteArray expected = test::readXz(test::fixture(name + ".report.txt.xz"));
        QVERIFY2(!expected.isEmpty(), "golden report missing or xz not installed");
        auto trace = test::openOrFail(test::fixturePath(name + ".dat"));
        QVERIFY(trace);
        const QByteArray actual = test::dump(*trace);
        QVERIFY2(actual == expected, qPrintable(test::firstDifference(expected, actual)));
    }

    void leafCallsAreFolded()
    {
        auto trace = test::openOrFail(test::fixturePath("fgraph-openat.dat"));
        QVERIFY(trace);
        const QByteArray text = test::dump(*trace);
        // A leaf is one line "func();" with its duration; its exit is not printed on its own.
        QVERIFY(text.contains("funcgraph_entry:      ! 729.800 us |  mutex_unlock();"));
        QVERIFY(text.contains("funcgraph_entry:        2.878 us   |          __cond_resched();"));
        QVERIFY(text.contains("do_sys_openat2() {"));
        const qsizetype entries = text.count("funcgraph_entry:");
        const qsizetype exits = text.count("funcgraph_exit:");
        QVERIFY(entries > 0 && exits > 0);
        QVERIFY(entries + exits < static_cast<qsizetype>(trace->store().eventCount()));
    }

    void singleLineMatchesDump()
    {
        auto trace = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(trace);
        const QList<QByteArray> lines = test::dump(*trace).split('\n');
        EventFormatter formatter(*trace);
        const EventStore& store = trace->store();
        for (size_t row : {size_t(0), size_t(17), store.eventCount() / 2, store.eventCount() - 1, size_t(3)}) {
            const QByteArray line = QByteArray::fromStdString(formatter.reportLine(store.eventAt(row)));
            QCOMPARE(line, lines[static_cast<qsizetype>(row) + 1]); // +1: "cpus=" first
        }
    }

    // Pieces formatted by several workers, each with its own tep handle, must join into the
    // same text as one pass, also when a function_graph leaf straddles a piece boundary.
    void parallelPiecesMatchOnePass_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("pieceRows");
        const std::pair<const char*, std::vector<int>> cases[] = {
            {"fgraph-openat", {1, 7}}, {"v6-i686-funcgraph", {1, 2, 3}}, {"instances", {3, 97}},
            {"lost-events", {1, 7}},   {"execve-e2big", {7, 97}},        {"zlib-guest", {997}},
            {"threads", {1, 5}}};
        for (const auto& [name, pieces] : cases)
            for (int piece : pieces)
                QTest::newRow(qPrintable(QStringLiteral("%1/%2").arg(name).arg(piece))) << name << 3 << piece;
    }
    void parallelPiecesMatchOnePass()
    {
        QFETCH(QString, name);
        QFETCH(int, threads);
        QFETCH(int, pieceRows);
        const QByteArray expected = test::readXz(test::fixture(name + ".report.txt.xz"));
        QVERIFY(!expected.isEmpty());
        auto trace = test::openOrFail(test::fixturePath(name + ".dat"));
        QVERIFY(trace);
        char* buffer = nullptr;
        size_t size = 0;
        FILE* out = open_memstream(&buffer, &size);
        QVERIFY(out);
        ReportPrinter(*trace).dump(out, threads, size_t(pieceRows));
        std::fclose(out);
        const QByteArray actual(buffer, qsizetype(size));
        std::free(buffer);
        QVERIFY2(actual == expected, qPrintable(test::firstDifference(expected, actual)));
    }

    // The table's single-event paths read pages forward, backwards and by jumps: every order
    // must give the same text, and a line must end with the event's info.
    void singleEventPathsInAnyOrder()
    {
        for (const char* name : {"fgraph-openat", "lost-events", "instances"}) {
            auto trace = test::openOrFail(test::fixturePath(QString::fromLatin1(name) + ".dat"));
            QVERIFY(trace);
            const EventStore& store = trace->store();
            const size_t rows = store.eventCount();
            EventFormatter forward(*trace);
            std::vector<std::string> lines(rows), infos(rows);
            for (size_t row = 0; row < rows; ++row) {
                lines[row] = forward.reportLine(store.eventAt(row));
                infos[row] = forward.info(store.eventAt(row));
                QVERIFY2(lines[row].size() >= infos[row].size() &&
                             lines[row].compare(lines[row].size() - infos[row].size(), std::string::npos, infos[row]) ==
                                 0,
                         lines[row].c_str());
            }
            EventFormatter backward(*trace);
            for (size_t row = rows; row-- > 0;) {
                QCOMPARE(backward.reportLine(store.eventAt(row)), lines[row]);
                QCOMPARE(backward.info(store.eventAt(row)), infos[row]);
            }
            EventFormatter jumping(*trace);
            for (size_t i = 0; i < rows; ++i) {
                const size_t row = (i * 7919) % rows;
                QCOMPARE(jumping.reportLine(store.eventAt(row)), lines[row]);
            }
        }
    }

    // The compiled print formats print what libtraceevent prints, on every event of every
    // fixture whose format they accept.
    void simplePrintMatchesLibtraceevent()
    {
        size_t compared = 0;
        for (const char* name :
             {"execve-e2big", "instances", "lost-events", "fgraph-openat", "zlib-guest", "threads"}) {
            auto trace = test::openOrFail(test::fixturePath(QString::fromLatin1(name) + ".dat"));
            QVERIFY(trace);
            const EventStore& store = trace->store();
            const TepAccess tep = trace->tep();
            std::map<int, std::unique_ptr<SimplePrint>> compiled;
            for (size_t row = 0; row < store.eventCount(); ++row) {
                const EventRef e = store.eventAt(row);
                const int type = store.stream(e.stream).columns.eventType[e.index];
                auto it = compiled.find(type);
                if (it == compiled.end())
                    it = compiled.emplace(type, SimplePrint::compile(tep_find_event(tep, type))).first;
                if (!it->second) continue;
                RawRecord raw;
                std::string reason;
                QVERIFY(store.readRecord(e, raw, &reason));
                std::string fast;
                QVERIFY(it->second->print(raw.data, raw.size, fast));
                tep_record record{};
                record.data = const_cast<uint8_t*>(raw.data);
                record.size = raw.size;
                trace_seq s;
                trace_seq_init(&s);
                tep_print_event(tep, &s, &record, "%s", TEP_PRINT_INFO);
                const std::string slow(s.buffer, s.len);
                trace_seq_destroy(&s);
                QCOMPARE(fast, slow);
                ++compared;
            }
        }
        QVERIFY(compared > 1000); // raw_syscalls and the like are common in the fixtures
    }

    // trace-cmd prints seconds.micros from the first nanosecond on; libtraceevent's own time
    // format prints bare micros below one second, which a dump must not.
    void timesInTheFirstSecondAreSeconds_data()
    {
        QTest::addColumn<qulonglong>("timestamp");
        QTest::addColumn<QString>("printed");
        QTest::newRow("zero") << 0ull << "    0.000000";
        QTest::newRow("rounded up") << 600ull << "    0.000001";
        QTest::newRow("one millisecond") << 1000000ull << "    0.001000";
        QTest::newRow("one second") << 1000000000ull << "    1.000000";
        QTest::newRow("later") << 5000001000ull << "    5.000001";
    }
    void timesInTheFirstSecondAreSeconds()
    {
        QFETCH(qulonglong, timestamp);
        QFETCH(QString, printed);
        test::TraceWriter writer;
        writer.formats.push_back({"test", std::string("name: tick\nID: 700\nformat:\n") +
                                              test::TraceWriter::commonFields() +
                                              "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
                                              "print fmt: \"value=%d\", REC->value\n"});
        writer.cpus.resize(1);
        writer.cpus[0].push_back({0, test::TraceWriter::payload(700, 1, std::string(4, '\0'))});
        writer.firstTimestamp = timestamp;
        QTemporaryDir dir;
        QFile out(dir.filePath("tick.dat"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        const std::string bytes = writer.write();
        out.write(bytes.data(), qint64(bytes.size()));
        out.close();
        auto trace = test::openOrFail(out.fileName().toStdString());
        QVERIFY(trace);
        const QByteArray dumped = test::dump(*trace);
        QVERIFY2(dumped.contains("] " + printed.toLatin1() + ": tick:"), dumped.constData());
    }
};

QTEST_GUILESS_MAIN(TestReportDump)
#include "tst_reportdump.moc"
