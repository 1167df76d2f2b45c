// SPDX-License-Identifier: GPL-2.0-or-later
// ringside-cli as a script would use it: output, JSON and exit statuses.
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

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

    void queryFormats()
    {
        const QString file = ringside::test::fixture("execve-e2big.dat");
        Run csv = run({"query", file, "SELECT name, count(*) AS n FROM ftrace_event GROUP BY 1 ORDER BY 2 DESC LIMIT 2",
                       "--format", "csv"});
        QCOMPARE(csv.status, 0);
        QCOMPARE(csv.out, QByteArray("name,n\nsys_enter,1723\nsys_exit,1722\n"));
        Run json = run({"query", file, "SELECT prev_comm, count(*) AS n FROM sched_switch WHERE prev_pid = 31458",
                        "--format", "json"});
        QCOMPARE(json.status, 0);
        const QJsonArray rows = QJsonDocument::fromJson(json.out).array();
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows[0].toObject()["prev_comm"].toString(), QString("bash"));
        QVERIFY(rows[0].toObject()["n"].toInt() > 0);
        Run table = run({"query", file, ".tables"});
        QCOMPARE(table.status, 0);
        QVERIFY(table.out.contains("sched_switch ") && table.out.contains("syscalls_failures "));
        // From a file, two statements, the second's table after the first's.
        QTemporaryDir dir;
        const QString script = dir.filePath("q.sql");
        QVERIFY(ringside::test::writeFile(script,
                                          QByteArray("SELECT count(*) FROM sched_switch;\n"
                                                     "-- the calls that failed\n"
                                                     "SELECT name FROM syscalls_failures WHERE errno = 'E2BIG';\n")));
        Run two = run({"query", file, "--file", script});
        QCOMPARE(two.status, 0);
        QVERIFY2(two.out.contains("806") && two.out.contains("execve") && two.out.count("row") == 2,
                 two.out.constData());
    }

    void queryErrorsSayWhere()
    {
        const QString file = ringside::test::fixture("execve-e2big.dat");
        Run bad = run({"query", file, "SELECT count(*)\nFROM sched_switch WHER prev_pid = 1"});
        QCOMPARE(bad.status, 1);
        QVERIFY2(bad.err.contains("SQL error at line 2, column 24: near \"prev_pid\": syntax error"),
                 bad.err.constData());
        QVERIFY(bad.out.isEmpty());
        Run missing = run({"query", file, "SELECT * FROM block_rq_issue"});
        QCOMPARE(missing.status, 1);
        QVERIFY2(missing.err.contains("no such table: block_rq_issue") && missing.err.contains("execve-e2big.dat"),
                 missing.err.constData());
        Run usage = run({"query", file, "SELECT 1", "--format", "xml"});
        QCOMPARE(usage.status, 2);
    }

    void queryInterruptedByCtrlC()
    {
        // A query far too long to finish, then SIGINT once the recording is loaded (the load's
        // figures say so; a Ctrl+C before that ends the load): it stops, says so, exits 130.
        QProcess cli;
        cli.start(RINGSIDE_CLI, {"query", ringside::test::fixture("sched-mix.dat"),
                                 "SELECT count(*) FROM ftrace_event a, ftrace_event b WHERE a.ts + b.ts = 0", "--timing"});
        QVERIFY(cli.waitForStarted());
        cli.setReadChannel(QProcess::StandardError);
        QByteArray err;
        while (!err.contains("load_s=") && cli.waitForReadyRead(120000)) err += cli.readAllStandardError();
        QVERIFY2(err.contains("load_s="), err.constData());
        QCOMPARE(cli.state(), QProcess::Running);
        ::kill(pid_t(cli.processId()), SIGINT);
        QVERIFY(cli.waitForFinished(ringside::test::kWorkWaitMs));
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(cli.exitCode(), 130);
        QVERIFY2((err + cli.readAllStandardError()).contains("query interrupted"), "no message");
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
