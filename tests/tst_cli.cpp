// SPDX-License-Identifier: GPL-2.0-or-later
// ringside-cli as a script would use it: output, JSON and exit statuses.
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

class TestCli : public QObject {
    Q_OBJECT
private:
    using Run = ringside::test::ProgramRun;
    Run run(const QStringList& args) { return ringside::test::runCli(args); }

private slots:
    void infoText()
    {
        Run r = run({"info", ringside::test::fixture("lost-events.dat")});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains("version:      7"));
        QVERIFY(r.out.contains("compression:  zstd"));
        QVERIFY(r.out.contains("events:       2808"));
        QVERIFY(r.out.contains("CPU 1: 1411 events, 35928 lost in pages, 35928 overrun"));
        QVERIFY(r.out.contains("raw_syscalls/sys_enter"));
        QVERIFY(r.out.contains("lost-events"));
    }

    // A raw counter clock with no conversion to nanoseconds counts ticks: say so, never seconds.
    void infoSaysTicksForCounterClocks()
    {
        Run r = run({"info", ringside::test::fixture("tsc-clock.dat")});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains("clock:        x86-tsc\n"));
        QVERIFY2(r.out.contains("ticks of clock x86-tsc)"), r.out.constData());
        QVERIFY(!r.out.contains(" s)\n"));
        Run json = run({"info", ringside::test::fixture("tsc-clock.dat"), "--json"});
        QCOMPARE(QJsonDocument::fromJson(json.out).object().value("timeUnit").toString(), QString("ticks"));
        Run ns = run({"info", ringside::test::fixture("threads.dat"), "--json"});
        QCOMPARE(QJsonDocument::fromJson(ns.out).object().value("timeUnit").toString(), QString("ns"));
    }

    void infoJson()
    {
        Run r = run({"info", ringside::test::fixture("instances.dat"), "--json"});
        QCOMPARE(r.status, 0);
        QJsonParseError error;
        QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QJsonObject o = doc.object();
        QCOMPARE(o["version"].toInt(), 7);
        QCOMPARE(o["events"].toInt(), 7275);
        QJsonArray buffers = o["buffers"].toArray();
        QCOMPARE(buffers.size(), 2);
        QCOMPARE(buffers[1].toObject()["name"].toString(), QString("second"));
        int perCpu = 0;
        for (const auto& b : buffers)
            for (const auto& c : b.toObject()["cpus"].toArray()) perCpu += c.toObject()["events"].toInt();
        QCOMPARE(perCpu, 7275);
        QCOMPARE(o["eventTypes"].toObject()["sched/sched_switch"].toInt(), 1419);
    }

    void dumpFirstLines()
    {
        Run r = run({"dump", ringside::test::fixture("execve-e2big.dat")});
        QCOMPARE(r.status, 0);
        QCOMPARE(r.out.count('\n'), 4669);
        QVERIFY(r.out.startsWith("cpus=2\n"));
    }

    void errorsNameTheFile_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << QStringList{"info", "/nonexistent/x.dat"} << 1 << "/nonexistent/x.dat: cannot open";
        QTest::newRow("not a trace") << QStringList{"dump", RINGSIDE_CLI} << 1 << "not a trace-cmd data file";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << 2 << "unknown command";
        QTest::newRow("no file") << QStringList{"info"} << 2 << "usage";
    }
    void errorsNameTheFile()
    {
        QFETCH(QStringList, args);
        QFETCH(int, status);
        QFETCH(QString, message);
        Run r = run(args);
        QCOMPARE(r.status, status);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void benchPrintsFigures()
    {
        Run r = run({"bench", ringside::test::fixture("execve-e2big.dat")});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains("events=4668"));
        QVERIFY(r.out.contains("events_per_s="));
        QVERIFY(r.out.contains("peak_rss_kb="));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
