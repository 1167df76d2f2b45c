// SPDX-License-Identifier: GPL-2.0-or-later
// Damaged recordings: metadata that crashes libtraceevent is found in a child process and
// left out, and a record that decodes to gigabytes is cut short in every view.
#include "testsupport.h"

#include "decode/eventformatter.h"
#include "decode/reportworker.h"
#include "file/datfile.h"
#include "file/metadatastep.h"
#include "file/pagesource.h"
#include "load/pageparser.h"
#include "load/timestampconverter.h"
#include "query/eventfilter.h"
#include "query/search.h"
#include "support/tracewriter.h"
#include "util/childprobe.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace ringside;

namespace {

bool hasDiagnostic(const Diagnostics& diagnostics, const std::string& code, const std::string& text = {})
{
    for (const auto& d : diagnostics.items())
        if (d.code == code && d.message.find(text) != std::string::npos) return true;
    return false;
}

bool hasDiagnostic(const Trace& trace, const std::string& code, const std::string& text = {})
{
    return hasDiagnostic(trace.store().diagnostics(), code, text);
}

struct CliResult {
    int exitCode = -1;
    bool crashed = true;
    QByteArray out, err;
};

// ftrace/print as the kernel describes it: an ip and a string to the record's end.
std::string printFormat()
{
    return std::string("name: print\nID: 5\nformat:\n") + test::TraceWriter::commonFields() +
           "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
           "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n\n"
           "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";
}

CliResult runCli(const QStringList& args)
{
    QProcess cli;
    cli.start(RINGSIDE_CLI, args);
    CliResult r;
    if (!cli.waitForFinished(120000)) return r;
    r.crashed = cli.exitStatus() != QProcess::NormalExit;
    r.exitCode = cli.exitCode();
    r.out = cli.readAllStandardOutput();
    r.err = cli.readAllStandardError();
    return r;
}

} // namespace

class TestDamaged : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_crashingFormat;     // a recording with one format that crashes libtraceevent, cut mid-data
    QString m_crashingWithEvents; // that format, with events of it
    static constexpr uint16_t kXfsBufItemFormat = 1841;

    // The crashing format's text, as the recording stores it (a 64-bit size, then the text).
    static std::string crashingFormatText(const QByteArray& recording)
    {
        const qsizetype at = recording.indexOf("name: xfs_buf_item_format\n");
        if (at < 8) return {};
        uint64_t size = 0;
        std::memcpy(&size, recording.constData() + at - 8, 8);
        return recording.mid(at, qsizetype(size)).toStdString();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QByteArray data = test::readXz(test::fixture("crashing-format.dat.xz"));
        QVERIFY(!data.isEmpty());
        m_crashingFormat = m_dir.filePath("crashing-format.dat");
        QVERIFY(test::writeFile(m_crashingFormat, data));

        using test::TraceWriter;
        TraceWriter writer;
        writer.ftraceFormats.push_back(printFormat());
        const std::string crashing = crashingFormatText(data);
        QVERIFY(crashing.find("\nID: 1841\n") != std::string::npos);
        writer.formats.push_back({"xfs", crashing});
        writer.cpus.resize(1);
        writer.cpus[0].push_back({1, TraceWriter::payload(kXfsBufItemFormat, 10, std::string(56, '\1'))});
        writer.cpus[0].push_back({1, TraceWriter::payload(5, 10, std::string(8, '\0') + "hello\n" + '\0')});
        writer.cpus[0].push_back({1, TraceWriter::payload(kXfsBufItemFormat, 10, std::string(56, '\2'))});
        m_crashingWithEvents = m_dir.filePath("crashing-format-with-events.dat");
        QVERIFY(test::writeFile(m_crashingWithEvents, writer.write()));
        // Its first MiB, cut inside the formats: the shape of a recording cut short while its
        // formats were written (one of the shared fuzz-crash files is that).
        QVERIFY(test::writeFile(m_dir.filePath("crash-format-1.dat"), data.left(1 << 20)));
    }

    // ---- ChildProbe ---------------------------------------------------------------------

    void probeFindsCrashesAndHangsAndKeepsOrder()
    {
        ChildProbe probe;
        probe.count = 10;
        probe.stepTimeout = std::chrono::milliseconds(300);
        probe.start = ChildProbe::forking(
            {},
            [](size_t i) {
                if (i == 2) std::raise(SIGSEGV);
                if (i == 5) std::abort();
                if (i == 7)
                    for (;;) pause();
            },
            probe.count);
        std::vector<size_t> safe;
        const ChildProbe::Outcome outcome = probe.run([&](size_t i) { safe.push_back(i); });
        QVERIFY(outcome.probed);
        QVERIFY(!outcome.gaveUp);
        QCOMPARE(outcome.crashed, (std::vector<size_t>{2, 5}));
        QCOMPARE(outcome.hung, (std::vector<size_t>{7}));
        QCOMPARE(safe, (std::vector<size_t>{0, 1, 3, 4, 6, 8, 9}));
    }

    void probeReplaysSafeStepsInTheNextChild()
    {
        // Step 4 crashes unless step 1 ran before it in the same process: a child that replaced
        // a crashed one must have replayed the safe steps.
        static bool stepOneRan = false;
        ChildProbe probe;
        probe.count = 6;
        probe.start = ChildProbe::forking([] { stepOneRan = false; },
                                          [](size_t i) {
                                              if (i == 1) stepOneRan = true;
                                              if (i == 2) std::raise(SIGSEGV);
                                              if (i == 4 && !stepOneRan) std::raise(SIGSEGV);
                                          },
                                          probe.count);
        std::vector<size_t> safe;
        const ChildProbe::Outcome outcome = probe.run([&](size_t i) { safe.push_back(i); });
        QCOMPARE(outcome.crashed, (std::vector<size_t>{2}));
        QCOMPARE(safe, (std::vector<size_t>{0, 1, 3, 4, 5}));
    }

    void probeGivesUpOnGarbage()
    {
        ChildProbe probe;
        probe.count = 100;
        probe.maxUnsafe = 3;
        probe.start = ChildProbe::forking(
            {},
            [](size_t i) {
                if (i % 2) std::raise(SIGSEGV);
            },
            probe.count);
        size_t safe = 0;
        const ChildProbe::Outcome outcome = probe.run([&](size_t) { ++safe; });
        QVERIFY(outcome.gaveUp);
        QCOMPARE(outcome.crashed.size(), size_t(4));
        QCOMPARE(safe, size_t(4)); // 0, 2, 4, 6
    }

    // ---- formats that crash libtraceevent ----------------------------------------------

    // The formats are checked by the probe program (no memory shared with the caller) where it
    // is installed, and in a forked copy otherwise: both find the same format.
    void probeProgramAndForkedProbeAgree()
    {
        QVERIFY2(!metadataProbeProgram().empty(), "ringside-format-probe is built beside the tests");
        for (bool fork : {false, true}) {
            DatFile::OpenOptions options;
            options.forkMetadataProbe = fork;
            auto file = DatFile::open(m_crashingFormat.toStdString(), options);
            QVERIFY(file);
            QVERIFY2(hasDiagnostic((*file)->diagnostics(), "unsafe-metadata",
                                   "event format xfs/xfs_buf_item_format crashes libtraceevent"),
                     fork ? "forked" : "program");
        }
    }

    void metadataRequestRoundTrips()
    {
        const std::string text = "name: a\nID: 7\n", comms = "1 bash\n";
        const std::vector<MetadataStep> steps{{MetadataStep::Kind::Format, text, "sched", 0},
                                              {MetadataStep::Kind::SavedCmdlines, comms, "", 1}};
        const std::string request = encodeMetadataRequest({true, 4, 8192}, steps);
        MetadataLayout layout;
        std::vector<MetadataStep> back;
        QVERIFY(decodeMetadataRequest(request, &layout, &back));
        QVERIFY(layout.bigEndian);
        QCOMPARE(layout.longSize, 4);
        QCOMPARE(layout.pageSize, 8192u);
        QCOMPARE(back.size(), size_t(2));
        QCOMPARE(back[0].system, std::string("sched"));
        QCOMPARE(std::string(back[0].text), text);
        QCOMPARE(back[1].kind, MetadataStep::Kind::SavedCmdlines);
        QCOMPARE(back[1].text.data()[back[1].text.size()], '\0'); // libtraceevent reads it as a C string
        QVERIFY(!decodeMetadataRequest(request.substr(0, request.size() - 3), &layout, &back));
    }

    // A format the recording has no events of is not even parsed by a Trace; the file alone
    // parses every format, and skips the one that crashes.
    void crashingFormatIsSkippedAndTheRestLoads()
    {
        auto file = DatFile::open(m_crashingFormat.toStdString());
        QVERIFY(file);
        QVERIFY(
            hasDiagnostic((*file)->diagnostics(), "unsafe-metadata", "xfs/xfs_buf_item_format crashes libtraceevent"));

        auto trace = test::openOrFail(m_crashingFormat.toStdString());
        QVERIFY(trace);
        QCOMPARE(trace->store().eventTypeCount(kXfsBufItemFormat), uint64_t(0));
        QVERIFY(!hasDiagnostic(*trace, "unsafe-metadata"));
        QVERIFY(hasDiagnostic(*trace, "truncated"));
        QVERIFY(trace->store().eventCount() > 1000);
        // Workers build their own handles from the same metadata: they must skip it too.
        const QByteArray text = test::dump(*trace);
        QVERIFY(text.count('\n') > 1000);
        SearchRequest request;
        request.match = containsText("sched_switch", true);
        QVERIFY(!searchRows(*trace, request).empty());
    }

    void formatsCutShortGiveAMessage_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("crash-format-0") << test::fixture("crash-format-0.dat");
        QTest::newRow("crash-format-1") << m_dir.filePath("crash-format-1.dat");
        QTest::newRow("crash-format-2") << test::fixture("crash-format-2.dat");
    }

    void formatsCutShortGiveAMessage()
    {
        QFETCH(QString, path);
        auto trace = Trace::open(path.toStdString());
        QVERIFY(!trace.ok());
        QVERIFY2(trace.error().message.find(path.toStdString() + ": ") == 0, trace.error().message.c_str());
        QVERIFY2(trace.error().message.find("truncated") != std::string::npos, trace.error().message.c_str());
        for (const char* command : {"info", "dump"}) {
            const CliResult r = runCli({command, path});
            QVERIFY2(!r.crashed, command);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(path.toUtf8() + ": "), r.err.constData());
        }
    }

    // With events of the crashing format, the check after the load finds it: those events
    // show without fields, in every handle (workers build their own).
    void crashingFormatWithEventsIsSkipped()
    {
        auto trace = test::openOrFail(m_crashingWithEvents.toStdString());
        QVERIFY(trace);
        QVERIFY(hasDiagnostic(*trace, "unsafe-metadata", "xfs/xfs_buf_item_format crashes libtraceevent"));
        QCOMPARE(trace->store().eventTypeCount(kXfsBufItemFormat), uint64_t(2));
        QCOMPARE(trace->store().eventCount(), size_t(3));
        const QByteArray text = test::dump(*trace);
        QCOMPARE(text.count('\n'), 4); // the "cpus=1" line and the three events
        QVERIFY2(text.contains("hello"), text.constData());
    }

    // libtraceevent keeps what `__print_flags(` and `__print_symbolic(` expect of the next
    // `REC->field` in process-wide flags. A format that never reaches a field leaves them set,
    // and the next format parsed in the process that names a field it lacks crashed in
    // libtraceevent, past the probe (a fresh process has the flags clear).
    void formatLeavingParserFlagsDoesNotCrashTheNextRecording()
    {
        using test::TraceWriter;
        auto recording = [&](const char* name, const std::string& print) {
            TraceWriter writer;
            writer.formats.push_back({"probe", std::string("name: ") + name + "\nID: 900\nformat:\n" +
                                                   TraceWriter::commonFields() +
                                                   "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
                                                   "print fmt: " +
                                                   print + "\n"});
            writer.cpus.resize(1);
            writer.cpus[0].push_back({1, TraceWriter::payload(900, 10, std::string(4, '\1'))});
            writer.cpus[0].push_back({2, TraceWriter::payload(900, 10, std::string(4, '\2'))});
            const QString path = m_dir.filePath(QString(name) + ".dat");
            return test::writeFile(path, writer.write()) ? path.toStdString() : std::string();
        };
        const std::string leaving = recording(
            "leaves_flags", R"("%s %s", __print_flags(1, "|", { 1, "one" }), __print_symbolic(2, { 2, "two" }))");
        const std::string missing = recording("names_missing_fields", R"("%d %d", REC->nosuch, REC->other)");
        QVERIFY(!leaving.empty() && !missing.empty());
        for (const std::string& path : {leaving, missing, leaving, missing}) {
            auto trace = test::openOrFail(path);
            QVERIFY(trace);
            QCOMPARE(trace->store().eventTypeCount(900), uint64_t(2));
            QCOMPARE(test::dump(*trace).count('\n'), 3); // "cpus=1" and the two events
        }
    }

    // libtraceevent works out parts of a print format as it prints, trusting them: a divisor
    // of 0 (SIGFPE), a hex dump or array counted past the record, a mask of a field the format
    // lacks. Such a record shows its fields instead; constant divisors (as `sizeof` becomes)
    // and counts inside the record print as the format says.
    void printFormatThatWouldCrashShowsTheFields()
    {
        using test::TraceWriter;
        TraceWriter writer;
        auto format = [](const char* name, int id, const std::string& print) {
            return std::string("name: ") + name + "\nID: " + std::to_string(id) + "\nformat:\n" +
                   TraceWriter::commonFields() +
                   "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
                   "\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n\n"
                   "print fmt: " +
                   print + "\n";
        };
        const std::vector<std::string> prints = {
            R"("q=%d r=%d", REC->a / REC->b, REC->a % (int)REC->b)", // 901
            R"("q=%d", REC->a / s)",
            R"("q=%d", REC->a / REC->nosuch)",
            R"("q=%d", REC->a / 8)",
            R"("q=%s", __print_hex(REC->a, REC->b))", // 905
            R"("q=%s", __print_array(REC->a, REC->b, 4))",
            R"("q=%s", __get_cpumask(nosuch))",
        };
        for (size_t i = 0; i < prints.size(); ++i)
            writer.formats.push_back({"probe", format(("e" + std::to_string(i)).c_str(), int(901 + i), prints[i])});
        auto fields = [](int32_t a, int32_t b) {
            std::string bytes(8, '\0');
            std::memcpy(bytes.data(), &a, 4);
            std::memcpy(bytes.data() + 4, &b, 4);
            return bytes;
        };
        struct Row {
            uint16_t type;
            int32_t a, b;
            const char* shows; // null: its fields instead
        };
        const std::vector<Row> rows = {
            {901, 17, 5, "q=3 r=2"},    {901, 17, 0, nullptr},
            {901, 17, 256, nullptr}, // (int) may keep only the low byte: 0
            {902, 17, 5, nullptr},      {903, 17, 5, nullptr},
            {904, 80, 5, "q=10"},       {905, 0x04030201, 4, "q=01 02 03 04"},
            {905, 17, 100000, nullptr}, {906, 7, 2, "q=7 2"},
            {906, 17, 100000, nullptr}, {907, 17, 5, nullptr},
        };
        writer.cpus.resize(1);
        for (size_t i = 0; i < rows.size(); ++i)
            writer.cpus[0].push_back(
                {uint32_t(1 + i), TraceWriter::payload(rows[i].type, 10, fields(rows[i].a, rows[i].b))});
        const QString path = m_dir.filePath("unprintable.dat");
        QVERIFY(test::writeFile(path, writer.write()));
        auto trace = test::openOrFail(path.toStdString());
        QVERIFY(trace);
        const QList<QByteArray> lines = test::dump(*trace).split('\n');
        QCOMPARE(lines.size(), qsizetype(rows.size() + 2)); // "cpus=1" first, an empty piece last
        for (size_t i = 0; i < rows.size(); ++i) {
            const QByteArray& line = lines[qsizetype(i + 1)];
            if (rows[i].shows) {
                QVERIFY2(line.contains(rows[i].shows) && !line.contains("would crash"), line.constData());
            } else {
                // The fields first, then why: a table's column shows the start.
                const QByteArray fields = "a=" + QByteArray::number(rows[i].a) + " b=" + QByteArray::number(rows[i].b);
                QVERIFY2(line.contains(fields + " [not printed by its format: it would crash libtraceevent]"),
                         line.constData());
                QVERIFY2(!line.contains("q="), line.constData());
            }
        }
    }

    void cliReportsSkippedFormats()
    {
        const CliResult info = runCli({"info", m_crashingWithEvents});
        QVERIFY(!info.crashed);
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.contains("unsafe-metadata: event format xfs/xfs_buf_item_format crashes libtraceevent"),
                 info.out.constData());
        for (const QString& path : {m_crashingWithEvents, m_crashingFormat}) {
            const CliResult dump = runCli({"dump", path});
            QVERIFY(!dump.crashed);
            QCOMPARE(dump.exitCode, 0);
            QVERIFY(dump.out.count('\n') > (path == m_crashingFormat ? 1000 : 3));
        }
    }

    // ---- a record that decodes to gigabytes --------------------------------------------

    void capViewTextCutsAtCharacterBoundaries()
    {
        std::string text = "prefix:";
        text += std::string(kMaxViewText - 1, 'x') + "\xc3\xa9" + std::string(100, 'y');
        capViewText(text, 7);
        QVERIFY(text.size() < 7 + kMaxViewText + 64);
        QVERIFY(text.find("\xc3") == std::string::npos); // the split character is dropped whole
        QVERIFY(text.find("102 more bytes not shown") != std::string::npos);
        std::string small = "short";
        capViewText(small);
        QCOMPARE(small, std::string("short"));
    }

    void hugeRecordIsCappedInViewsAndSearch()
    {
        auto trace = test::openOrFail(test::fixturePath("huge-line.dat"));
        QVERIFY(trace);
        EventFormatter formatter(*trace);
        const auto& order = trace->store().order();
        const size_t rows = trace->store().eventCount();
        QVERIFY(rows > 60000);
        size_t longest = 0, depthMarkers = 0;
        for (size_t row = 0; row < rows; ++row) {
            const EventRef e = order.eventAt(row);
            const std::string info = formatter.info(e);
            const std::string line = formatter.reportLine(e);
            longest = std::max({longest, info.size(), line.size()});
            if (line.find("[depth ") != std::string::npos) ++depthMarkers;
        }
        QVERIFY2(longest <= kMaxViewText + 64, std::to_string(longest).c_str());
        QVERIFY(depthMarkers >= 1); // the damaged funcgraph_exit says its depth instead
        for (size_t row = 0; row < rows; row += 97)
            for (const FieldValue& v : formatter.fields(order.eventAt(row)))
                QVERIFY(v.value.size() <= kMaxViewText + 64);
        SearchRequest request;
        request.match = containsText("no such text anywhere", true);
        QVERIFY(searchRows(*trace, request).empty());
        // The dump too: trace-cmd report indents this line by 2 GB of spaces.
        const QByteArray dumped = test::dump(*trace);
        QVERIFY(dumped.contains("[depth "));
        QVERIFY2(dumped.size() < 64 * 1024 * 1024, std::to_string(dumped.size()).c_str());
    }

    // A funcgraph_entry whose depth was damaged to ~2^30 had the dump write its indentation
    // for minutes (2 GB of spaces, then "Can't allocate trace_seq buffer memory"); an entry
    // and an exit deeper than any kernel's call stack say their depth instead, in the dump
    // and the views alike, while real depths keep trace-cmd's indentation.
    void damagedFuncgraphDepthIsBounded()
    {
        using test::TraceWriter;
        const std::string common = TraceWriter::commonFields();
        TraceWriter writer;
        writer.ftraceFormats = {
            "name: funcgraph_entry\nID: 11\nformat:\n" + common +
                "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
                "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n\n"
                "print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n",
            "name: funcgraph_exit\nID: 10\nformat:\n" + common +
                "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
                "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
                "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
                "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
                "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
                "print fmt: \"<-- %ps (%u)\", (void *)REC->func, REC->depth\n"};
        writer.kallsyms = "ffffffff81000000 T outer_fn\nffffffff81000100 T inner_fn\n";
        auto entry = [](uint64_t func, uint32_t depth) {
            std::string fields;
            test::put(fields, func);
            test::put(fields, depth);
            test::put(fields, uint32_t(0));
            return TraceWriter::payload(11, 42, fields);
        };
        auto exit = [](uint64_t func, uint32_t depth, uint64_t calltime, uint64_t rettime) {
            std::string fields;
            test::put(fields, func);
            test::put(fields, depth);
            test::put(fields, uint32_t(0));
            test::put(fields, calltime);
            test::put(fields, rettime);
            return TraceWriter::payload(10, 42, fields);
        };
        const uint64_t outer = 0xffffffff81000000ull, inner = 0xffffffff81000100ull;
        writer.cpus.resize(1);
        writer.cpus[0] = {{1, entry(outer, 3)},
                          {1, entry(inner, 0x40000000)}, // damaged: not folded, its exit is elsewhere
                          {1, exit(outer, 0x3fffffff, 1000, 2000)},
                          {1, exit(outer, 3, 1000, 3000)}};
        const QString path = m_dir.filePath("damaged-depth.dat");
        QVERIFY(test::writeFile(path, writer.write()));
        auto trace = test::openOrFail(path.toStdString());
        QVERIFY(trace);
        QCOMPARE(trace->store().eventCount(), size_t(4));
        const QByteArray dumped = test::dump(*trace);
        QVERIFY2(dumped.size() < 4096, dumped.left(300).constData());
        QVERIFY2(dumped.contains("[depth 1073741824] inner_fn() {"), dumped.constData());
        QVERIFY2(dumped.contains("[depth 1073741823] }"), dumped.constData());
        QVERIFY2(dumped.contains("|        outer_fn() {"), dumped.constData()); // depth 3: six spaces, as trace-cmd
        EventFormatter formatter(*trace);
        for (size_t row = 0; row < 4; ++row) QVERIFY(formatter.reportLine(trace->store().eventAt(row)).size() < 512);
        // The command line prints it too, and ends.
        const CliResult cli = runCli({"dump", path});
        QVERIFY(!cli.crashed);
        QCOMPARE(cli.exitCode, 0);
        QVERIFY(cli.out.contains("[depth 1073741824] inner_fn() {"));
    }

    // Found by fuzz_formats: libtraceevent printed a record shorter than its format's offsets
    // by reading past it (a 4 GB allocation for ftrace/print's `buf`), and follows a
    // __data_loc wherever it points. Such records say they are damaged instead, in the text,
    // the fields and the filter.
    void recordsShorterThanTheirFormatAreDamaged()
    {
        using test::TraceWriter;
        TraceWriter writer;
        writer.ftraceFormats.push_back(printFormat());
        writer.formats.push_back({"test", std::string("name: named\nID: 700\nformat:\n") + TraceWriter::commonFields() +
                                              "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
                                              "\tfield:int value;\toffset:12;\tsize:4;\tsigned:1;\n\n"
                                              "print fmt: \"name=%s value=%d\", __get_str(name), REC->value\n"});
        auto le32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
        writer.cpus.resize(1);
        auto& records = writer.cpus[0];
        records.push_back({1, TraceWriter::payload(5, 10, std::string(8, '\0') + "hello\n" + '\0')});
        records.push_back({1, TraceWriter::payload(5, 11, "\x01\x02")}); // ends before buf
        records.push_back({1, TraceWriter::payload(700, 12, le32(4u << 16 | 16) + le32(7) + "abc" + '\0')});
        records.push_back({1, TraceWriter::payload(700, 13, le32(100u << 16 | 4000) + le32(8))}); // name far outside
        const QString path = m_dir.filePath("short-records.dat");
        QVERIFY(test::writeFile(path, writer.write()));

        auto trace = test::openOrFail(path.toStdString());
        QVERIFY(trace);
        const auto& order = trace->store().order();
        QCOMPARE(trace->store().eventCount(), size_t(4));
        EventFormatter formatter(*trace);
        QVERIFY(formatter.info(order.eventAt(0)).find("hello") != std::string::npos);
        QCOMPARE(formatter.info(order.eventAt(1)), std::string("[damaged record: field 'buf' lies outside it]"));
        QCOMPARE(formatter.info(order.eventAt(2)), std::string("name=abc value=7"));
        QCOMPARE(formatter.info(order.eventAt(3)), std::string("[damaged record: field 'name' lies outside it]"));
        bool sawName = false;
        for (const FieldValue& v : formatter.fields(order.eventAt(3))) {
            if (v.name == "name") {
                QCOMPARE(v.value, std::string("[outside the record: damaged]"));
                sawName = true;
            }
            if (v.name == "value") QCOMPARE(v.value, std::string("8"));
        }
        QVERIFY(sawName);
        auto expression = FilterExpression::compile(*trace, "test/named: value > 0");
        QVERIFY(expression);
        FilterSpec spec;
        spec.expression = "test/named: value > 0";
        auto result = applyFilter(trace->store(), spec, expression.value().get());
        QVERIFY(result);
        QCOMPARE(result.value()->merged.size(), size_t(1)); // the damaged record matches nothing
        QCOMPARE(test::dump(*trace).count("damaged record"), qsizetype(2));
    }

    // Found by fuzz_pages: a damaged record length sends libtraceevent's kbuffer back to an
    // earlier record, and its iteration never ends. The parser stops the page there.
    // A damaged length word can claim more bytes than the page holds (fuzz_pages: 895 MB,
    // which libtraceevent then copied); readers get only what is inside the page.
    void recordsEndAtTheirPage()
    {
        const uint8_t page[64] = {};
        QVERIFY(recordIsStored(8, page + 16, page, 64, 8));
        QVERIFY(recordIsStored(8, page + 56, page, 64, 8));
        QVERIFY(!recordIsStored(8, page + 60, page, 64, 8)); // its common fields would cross the end
        QVERIFY(!recordIsStored(4, page + 16, page, 64, 8));
        QCOMPARE(recordBytesInPage(20, page + 16, page, 64), 20);
        QCOMPARE(recordBytesInPage(895549436, page + 16, page, 64), 48);
    }

    void pageWhoseRecordsLoopEnds()
    {
        QFile file(test::fixture("looping-page.bin"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        std::vector<uint8_t> page(4096 + PageSource::kPadding);
        const QByteArray bytes = file.readAll();
        QVERIFY(bytes.size() > 1000 && bytes.size() <= 4096);
        std::copy(bytes.begin(), bytes.end(), page.begin());
        QVERIFY(PageParser::headerIsSane(page.data(), 4096, 8, false));
        FileInfo info;
        TimestampConverter converter(info);
        PageParser parser(8, false, CommonLayout(), converter, 0);
        CpuColumns columns;
        CpuLoadStats stats;
        std::vector<uint64_t> perType(65536);
        parser.parse(page.data(), 4096, columns, stats, perType.data());
        QCOMPARE(stats.corruptPages, uint64_t(1));
        QCOMPARE(stats.firstProblem, std::string("a page's records loop back on themselves"));
        QVERIFY(columns.size() > 0 && columns.size() < 4096 / 4);
    }
};

QTEST_GUILESS_MAIN(TestDamaged)
#include "tst_damaged.moc"
