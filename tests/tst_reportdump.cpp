// SPDX-License-Identifier: GPL-2.0-or-later
// The decoding path end to end: Ringside's dump of real recordings must equal, byte for byte,
// what `trace-cmd report` printed for them (zlib: trace-cmd 3.1.7 built with zlib).
#include "testsupport.h"

#include "decode/reportprinter.h"

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
        ReportPrinter printer(*trace);
        const EventStore& store = trace->store();
        for (size_t row : {size_t(0), size_t(17), store.eventCount() / 2, store.eventCount() - 1}) {
            const QByteArray line = QByteArray::fromStdString(printer.line(store.eventAt(row)));
            QCOMPARE(line, lines[static_cast<qsizetype>(row) + 1]); // +1: "cpus=" first
        }
    }
};

QTEST_GUILESS_MAIN(TestReportDump)
#include "tst_reportdump.moc"
