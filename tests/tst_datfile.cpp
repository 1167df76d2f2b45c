// SPDX-License-Identifier: GPL-2.0-or-later
// What the reader takes from a file's header, options and sections.
#include "testsupport.h"

#include "file/datfile.h"
#include "file/fileoptions.h"
#include "file/formatfields.h"

#include <traceevent/event-parse.h>

#include <QTest>

using namespace ringside;

class TestDatFile : public QObject {
    Q_OBJECT
private slots:
    void v7Zstd()
    {
        auto file = DatFile::open(test::fixturePath("execve-e2big.dat"));
        QVERIFY2(file, file ? "" : file.error().message.c_str());
        const FileInfo& info = (*file)->info();
        QCOMPARE(info.version, 7);
        QCOMPARE(info.codec, Codec::Zstd);
        QCOMPARE(info.pageSize, 4096u);
        QCOMPARE(info.kernelLongSize, 8);
        QCOMPARE(info.traceClock, std::string("local"));
        QVERIFY(info.timesInUsecs);
        QCOMPARE(info.uname, std::string("Linux vm 6.18.44-fc-v669 x86_64"));
        QCOMPARE(info.cpuCount, 2);
        QCOMPARE((*file)->buffers().size(), size_t(1));
        const BufferInfo& top = (*file)->buffers()[0];
        QVERIFY(top.name.empty());
        QCOMPARE(top.cpus.size(), size_t(2));
        QVERIFY(top.cpus[0].compressed);
        QVERIFY(!top.cpus[0].chunks.empty());
        QVERIFY(top.cpus[0].streamSize % 4096 == 0);
    }

    void instancesAreBuffers()
    {
        auto file = DatFile::open(test::fixturePath("instances.dat"));
        QVERIFY(file);
        const auto& buffers = (*file)->buffers();
        QCOMPARE(buffers.size(), size_t(2));
        QCOMPARE(buffers[0].name, std::string());
        QCOMPARE(buffers[1].name, std::string("second"));
        // CPU stats follow "Buffer: second" in the options and belong to that buffer.
        QCOMPARE(buffers[0].stats.size(), size_t(2));
        QCOMPARE(buffers[1].stats.size(), size_t(2));
        QCOMPARE(buffers[0].stats[1].readEvents, uint64_t(910));
        QCOMPARE(buffers[1].stats[1].readEvents, uint64_t(4101));
    }

    void cpuStatsCarryOverruns()
    {
        auto file = DatFile::open(test::fixturePath("lost-events.dat"));
        QVERIFY(file);
        const auto& stats = (*file)->buffers()[0].stats;
        QCOMPARE(stats.size(), size_t(2));
        QCOMPARE(stats[0].overrun, uint64_t(135047));
        QCOMPARE(stats[1].overrun, uint64_t(35928));
    }

    void v6ThirtyTwoBit()
    {
        auto file = DatFile::open(test::fixturePath("v6-i686-funcgraph.dat"));
        QVERIFY(file);
        const FileInfo& info = (*file)->info();
        QCOMPARE(info.version, 6);
        QCOMPARE(info.codec, Codec::None);
        QCOMPARE(info.userLongSize, 4);
        QCOMPARE(info.kernelLongSize, 4);
        QVERIFY(!(*file)->buffers()[0].cpus.empty());
        QVERIFY(!(*file)->buffers()[0].cpus[0].compressed);
    }

    void zlibGuestWithTimeShift()
    {
        auto file = DatFile::open(test::fixturePath("zlib-guest.dat"));
        QVERIFY(file);
        const FileInfo& info = (*file)->info();
        QCOMPARE(info.codec, Codec::Zlib);
        QVERIFY(info.timeShift.has_value());
        QVERIFY(!info.timeShift->cpus.empty());
        QVERIFY(info.tsc2nsec.has_value());
        QVERIFY(info.formatParseFailures > 0); // Xenomai formats libtraceevent cannot parse
        bool reported = false;
        for (const auto& d : (*file)->diagnostics().items()) reported |= d.code == "unparsed-formats";
        QVERIFY(reported);
    }

    // The deferred formats' field lines, read without libtraceevent, say what libtraceevent
    // says of every field of every event (name, offset, size, sign, array, dynamic).
    void formatFieldsAgreeWithLibtraceevent_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name :
             {"execve-e2big.dat", "v6-i686-funcgraph.dat", "zlib-guest.dat", "langraph-perfclock.dat"})
            QTest::newRow(name) << QString(name);
    }
    void formatFieldsAgreeWithLibtraceevent()
    {
        QFETCH(QString, name);
        auto file = DatFile::open(test::fixturePath(name));
        QVERIFY(file);
        auto parsed = (*file)->newTep({}); // every format parsed
        DatFile::OpenOptions options;
        options.deferFormats = true;
        auto deferred = DatFile::open(test::fixturePath(name), options);
        QVERIFY(deferred);
        size_t compared = 0;
        for (const DatFile::DeferredFormat& format : (*deferred)->deferredFormats()) {
            tep_event* event = tep_find_event((*parsed)->get(), int(format.id));
            if (!event || (event->flags & TEP_EVENT_FL_FAILED)) continue;
            const std::vector<FormatField> fields = formatFields(format.text);
            std::vector<tep_format_field*> expected;
            for (tep_format_field* f = event->format.common_fields; f; f = f->next) expected.push_back(f);
            for (tep_format_field* f = event->format.fields; f; f = f->next) expected.push_back(f);
            QCOMPARE(fields.size(), expected.size());
            for (size_t i = 0; i < fields.size(); ++i) {
                const FormatField& light = fields[i];
                const tep_format_field* f = expected[i];
                const QByteArray where =
                    QByteArray::fromStdString(format.system + "/" + event->name + " " + light.name);
                QVERIFY2(light.name == f->name, where.constData());
                QVERIFY2(light.offset == f->offset, where.constData());
                QVERIFY2(light.size == f->size, where.constData());
                QVERIFY2(light.isSigned == ((f->flags & TEP_FIELD_IS_SIGNED) != 0), where.constData());
                QVERIFY2(light.isArray == ((f->flags & TEP_FIELD_IS_ARRAY) != 0), where.constData());
                QVERIFY2(light.isDynamic == ((f->flags & TEP_FIELD_IS_DYNAMIC) != 0), where.constData());
                ++compared;
            }
        }
        QVERIFY(compared > 0);
    }

    void clockSelection_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("clock");
        QTest::addColumn<bool>("nanoseconds");
        QTest::newRow("local") << "[local] global counter"
                               << "local" << true;
        QTest::newRow("counter") << "local global [counter] uptime"
                                 << "counter" << false;
        QTest::newRow("x86-tsc") << "local [x86-tsc]"
                                 << "x86-tsc" << false;
        QTest::newRow("mono_raw") << "local [mono_raw]"
                                  << "mono_raw" << true;
        QTest::newRow("none marked") << "local global"
                                     << "" << false;
    }
    void clockSelection()
    {
        QFETCH(QString, file);
        QFETCH(QString, clock);
        QFETCH(bool, nanoseconds);
        const std::string selected = selectedClock(file.toStdString());
        QCOMPARE(QString::fromStdString(selected), clock);
        QCOMPARE(clockCountsNanoseconds(selected), nanoseconds);
    }

    void cpuStatText()
    {
        std::string buffer;
        CpuStats stats;
        QVERIFY(parseCpuStat("CPU: 3\nentries: 1\noverrun: 42\ncommit overrun: 0\nbytes: 9\n"
                             "dropped events: 7\nread events: 100\n",
                             &buffer, &stats));
        QCOMPARE(stats.cpu, 3);
        QCOMPARE(stats.overrun, uint64_t(42));
        QCOMPARE(stats.droppedEvents, uint64_t(7));
        QCOMPARE(stats.readEvents, uint64_t(100));
        CpuStats none;
        QVERIFY(!parseCpuStat("\nBuffer: second\n\n", &buffer, &none));
        QCOMPARE(buffer, std::string("second"));
    }
};

QTEST_GUILESS_MAIN(TestDatFile)
#include "tst_datfile.moc"
