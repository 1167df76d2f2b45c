// SPDX-License-Identifier: GPL-2.0-or-later
// Several recordings printed as one report: a KVM host and its guest exactly as
// `trace-cmd report -i host.dat -i guest.dat` prints them (trace-cmd 3.1.7's output, kept in
// tests/data: Debian's trace-cmd cannot read these zlib files), and unrelated recordings
// merged by time with a warning when their clocks cannot be compared.
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace ringside;

namespace {

// The reference names the files as they were given to trace-cmd.
const QString kHost = "HIP24__Masterarbeit__documentation__trace-cmd__analysis__test__trace.dat";
const QString kGuest = "HIP24__Masterarbeit__documentation__trace-cmd__analysis__test__trace-Salamander4.dat";

test::ProgramRun runIn(const QString& dir, const QStringList& args)
{
    const QString cwd = QDir::currentPath();
    QDir::setCurrent(dir);
    auto run = test::runCli(args);
    QDir::setCurrent(cwd);
    return run;
}

} // namespace

class TestMergedReport : public QObject {
    Q_OBJECT
private slots:
    void hostAndGuestAsTraceCmdPrintsThem()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(test::fixture("zlib-host.dat"), dir.filePath(kHost)));
        QVERIFY(QFile::copy(test::fixture("zlib-guest.dat"), dir.filePath(kGuest)));
        const auto run = runIn(dir.path(), {"dump", kHost, kGuest});
        QCOMPARE(run.status, 0);
        const QByteArray expected = test::readXz(test::fixture("zlib-host-guest.report.txt.xz"));
        QVERIFY(!expected.isEmpty());
        QVERIFY2(run.out == expected, qPrintable(test::firstDifference(expected, run.out)));
        // The host's vCPU entries name guest functions: the guest's symbols were used.
        QVERIFY(run.out.contains("kvm_entry:             vcpu 0 rip 0xffffffffa13f2e30 default_idle+0x10"));
        QVERIFY2(run.err.contains("is a guest of " + kHost.toUtf8() + ": its times were converted"),
                 run.err.constData());

        // Read alone, the host has no guest symbols to name its addresses with, as in trace-cmd.
        const auto alone = runIn(dir.path(), {"dump", kHost});
        QCOMPARE(alone.status, 0);
        QVERIFY(alone.out.contains("kvm_entry:             vcpu 0 rip 0xffffffffa13f2e30\n"));
    }

    // The host's vCPU threads and their stays in the guest, from kvm_entry/kvm_exit; the
    // guest's events fall inside the stays of the vCPU that ran them (the clocks line up).
    void guestTimeOfAHost()
    {
        const auto run =
            test::runCli({"kvm", test::fixture("zlib-host.dat"), test::fixture("zlib-guest.dat"), "--json"});
        QCOMPARE(run.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        QJsonObject qemu;
        for (const QJsonValue& v : json.value("vcpus").toArray())
            if (v.toObject().value("task").toObject().value("pid").toInt() == 483882) qemu = v.toObject();
        QCOMPARE(qemu.value("vcpu").toInt(), 0);
        // Independently: the report's kvm_entry lines of that task.
        const QByteArray report = test::runCli({"dump", test::fixture("zlib-host.dat")}).out;
        int entries = 0;
        for (const QByteArray& line : report.split('\n'))
            entries += line.contains("-483882 ") && line.contains(" kvm_entry: ");
        QCOMPARE(qemu.value("entries").toInt(), entries);
        QCOMPARE(qemu.value("exits").toInt(), entries - 1); // in the guest when the recording ended
        QVERIFY(qemu.value("exit_reasons").toObject().value("APIC_WRITE").toInt() > 3000);
        const QJsonArray cpus = json.value("guest_cpus").toArray();
        QCOMPARE(cpus.size(), 1);
        QCOMPARE(cpus[0].toObject().value("host_task").toObject().value("pid").toInt(), 483882);
        QCOMPARE(cpus[0].toObject().value("events").toInt(), 90029);
        QVERIFY(cpus[0].toObject().value("inside_percent").toDouble() > 99.5);

        const auto none = test::runCli({"kvm", test::fixture("sched-mix.dat")});
        QCOMPARE(none.status, 1);
        QVERIFY(none.err.contains("no kvm_entry/kvm_exit events"));
    }

    // The stays on plain values: an exit closes the task's entry; an exit without one counts.
    void guestTimeLogic()
    {
        GuestTime stays;
        stays.bind({true, true});
        TypedValue value = TypedValue::number(2, false, 4);
        auto feed = [&](size_t request, int32_t pid, uint64_t t) {
            ConsumedRecord r;
            r.request = request;
            r.pid = pid;
            r.timestamp = t;
            r.values = &value;
            r.valueCount = 1;
            stays.consume(r);
        };
        feed(1, 7, 50);  // an exit before any entry
        feed(0, 7, 100); // entry, vCPU 2
        feed(1, 7, 150); // exit
        feed(0, 7, 200);
        feed(1, 7, 260);
        feed(0, 7, 300); // still in the guest at the end
        const GuestTime::VcpuTask& task = stays.tasks().at(7);
        QCOMPARE(task.vcpu, 2);
        QCOMPARE(task.stays.size(), size_t(2));
        QCOMPARE(task.entries, uint64_t(3));
        QCOMPARE(task.guestNs, uint64_t(110));
        QCOMPARE(task.exitsWithoutEntry, uint64_t(1));
        QVERIFY(task.openAtEnd);
        QVERIFY(stays.stayAt(7, 120) && stays.stayAt(7, 120)->entry == 100);
        QVERIFY(!stays.stayAt(7, 170));
        QVERIFY(stays.stayAt(7, 260));
        QVERIFY(!stays.stayAt(8, 120));
    }

    // Unrelated recordings: every event of each, in time order, each line naming its file.
    void unrelatedRecordingsMergeByTime()
    {
        const QString a = test::fixture("sched-mix.dat"), b = test::fixture("execve-e2big.dat");
        const auto run = test::runCli({"dump", a, b});
        QCOMPARE(run.status, 0);
        const QList<QByteArray> lines = run.out.split('\n');
        const int width = int(std::max(a.size(), b.size()));
        QVERIFY(lines[0].endsWith(a.toUtf8() + ": cpus=2") && lines[0].size() == width + 8);
        QVERIFY(lines[1].endsWith(b.toUtf8() + ": cpus=2"));
        auto count = [](const QByteArray& report) { return report.count('\n') - 1; };
        const qsizetype fromA = count(test::runCli({"dump", a}).out), fromB = count(test::runCli({"dump", b}).out);
        QCOMPARE(lines.size() - 3, fromA + fromB);
        static const QRegularExpression time(R"(\] +(\d+\.\d+):)");
        double last = 0;
        for (qsizetype i = 2; i + 1 < lines.size(); ++i) {
            QVERIFY(lines[i].startsWith(QByteArray(width - a.size(), ' ') + a.toUtf8() + ": ") ||
                    lines[i].startsWith(QByteArray(width - b.size(), ' ') + b.toUtf8() + ": "));
            const auto m = time.match(QString::fromUtf8(lines[i]));
            QVERIFY(m.hasMatch());
            QVERIFY(m.captured(1).toDouble() >= last);
            last = m.captured(1).toDouble();
        }
        // The same clock, other boots: only that they do not overlap.
        QVERIFY2(run.err.contains("do not overlap in time: " + b.toUtf8() + " starts 13.113 s after " + a.toUtf8() +
                                  " ends"),
                 run.err.constData());
        QCOMPARE(run.err.count('\n'), 1);

        const auto ticks = test::runCli({"dump", a, test::fixture("tsc-clock.dat")});
        QCOMPARE(ticks.status, 0);
        QVERIFY2(ticks.err.contains("cannot be compared"), ticks.err.constData());
        const auto missing = test::runCli({"dump", a, "/nonexistent.dat"});
        QCOMPARE(missing.status, 1);
        QVERIFY(missing.err.contains("/nonexistent.dat"));
    }
};

QTEST_GUILESS_MAIN(TestMergedReport)
#include "tst_mergedreport.moc"
