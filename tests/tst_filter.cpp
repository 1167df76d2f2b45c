// SPDX-License-Identifier: GPL-2.0-or-later
// Filters: the row-set index under them, column filters, and libtraceevent expressions
// checked against `trace-cmd report -F` on the same file.
#include "testsupport.h"

#include "query/eventfilter.h"
#include "query/filtersyntax.h"

#include <traceevent/event-parse.h>

#include <QTest>

#include <future>

using namespace ringside;

class TestFilter : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<Trace> m_trace;

    std::shared_ptr<FilterResult> run(const FilterSpec& spec)
    {
        std::shared_ptr<FilterExpression> expression;
        if (!spec.expression.empty()) {
            auto compiled = FilterExpression::compile(*m_trace, spec.expression);
            if (!compiled) return nullptr;
            expression = compiled.value();
        }
        auto result = applyFilter(m_trace->store(), spec, expression.get());
        return result ? result.value() : nullptr;
    }

private slots:
    void initTestCase()
    {
        m_trace = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(m_trace);
    }

    void rowSetRankAndSelect_data()
    {
        QTest::addColumn<int>("universe");
        QTest::addColumn<int>("every");
        QTest::newRow("empty") << 0 << 1;
        QTest::newRow("all of 1000") << 1000 << 1;
        QTest::newRow("every 3rd of 5000") << 5000 << 3;
        QTest::newRow("every 700th of 100000") << 100000 << 700;
        QTest::newRow("exact words") << 1024 << 2;
    }
    void rowSetRankAndSelect()
    {
        QFETCH(int, universe);
        QFETCH(int, every);
        RowSet set{static_cast<size_t>(universe)};
        std::vector<size_t> members;
        for (int r = 0; r < universe; r += every) set.set(size_t(r)), members.push_back(size_t(r));
        set.seal();
        QCOMPARE(set.size(), members.size());
        for (size_t k = 0; k < members.size(); k += 1 + members.size() / 200) {
            QCOMPARE(set.select(k), members[k]);
            QCOMPARE(set.rank(members[k]), k);
            QVERIFY(set.contains(members[k]));
        }
        QCOMPARE(set.rank(size_t(universe)), members.size());
        RowSet full{static_cast<size_t>(universe), true};
        QCOMPARE(full.size(), size_t(universe));
        if (universe) QCOMPARE(full.select(size_t(universe - 1)), size_t(universe - 1));
    }

    void noFilterShowsEverything()
    {
        auto result = run(FilterSpec());
        QVERIFY(result);
        QCOMPARE(result->merged.size(), m_trace->store().eventCount());
    }

    void hideCpu()
    {
        FilterSpec spec;
        spec.hiddenStreams = {false, true};
        auto result = run(spec);
        QVERIFY(result);
        QCOMPARE(result->merged.size(), size_t(4231));
        QCOMPARE(result->perStream[1].size(), size_t(0));
        // The merged rows left are exactly CPU 0's.
        for (size_t k = 0; k < result->merged.size(); k += 97)
            QCOMPARE(m_trace->store().eventAt(result->merged.select(k)).stream, StreamId(0));
    }

    void hideEventTypeAndTask()
    {
        tep_event* enter = tep_find_event_by_name(m_trace->tep(), "raw_syscalls", "sys_enter");
        QVERIFY(enter);
        FilterSpec spec;
        spec.hiddenTypes.assign(65536, false);
        spec.hiddenTypes[size_t(enter->id)] = true;
        auto result = run(spec);
        QCOMPARE(result->merged.size(), size_t(4668 - 1723));
        spec.hiddenPids.insert(19702); // dpkg, 1133 events of which some are sys_enter
        auto both = run(spec);
        QVERIFY(both->merged.size() < result->merged.size());
        for (size_t k = 0; k < both->merged.size(); ++k) {
            const EventRef e = m_trace->store().eventAt(both->merged.select(k));
            QVERIFY(m_trace->store().stream(e.stream).columns.pid[e.index] != 19702);
        }
    }

    // Counts checked against the events of `trace-cmd report -i execve-e2big.dat`. Where a
    // signed field is compared, trace-cmd report -F (libtraceevent 1.7.1) compares unsigned
    // and finds e.g. no `ret < 0`; Ringside compares as the field is declared.
    void expressionsMatchTraceCmd_data()
    {
        QTest::addColumn<QString>("expression");
        QTest::addColumn<int>("count");
        QTest::newRow("blocked switches") << "sched/sched_switch: prev_state != 0" << 402;
        QTest::newRow("large returns") << "raw_syscalls/sys_exit: ret > 1000000" << 111;
        QTest::newRow("failed syscalls") << "raw_syscalls/sys_exit: ret < 0" << 100;
        QTest::newRow("E2BIG") << "raw_syscalls/sys_exit: ret == -7" << 1;
        QTest::newRow("errors beyond -2") << "raw_syscalls/sys_exit: ret <= -3" << 31;
        QTest::newRow("not an error") << "raw_syscalls/sys_exit: ret >= 0 && id == 59" << 3;
        QTest::newRow("two events") << "sched/sched_switch: prev_state != 0 || next_pid == 0" << 402;
        QTest::newRow("no condition") << "sched/sched_process_exec" << 3;
        QTest::newRow("regex on a string") << "sched/sched_switch: next_comm =~ \"dpkg.*\"" << -1;
    }
    void expressionsMatchTraceCmd()
    {
        QFETCH(QString, expression);
        QFETCH(int, count);
        FilterSpec spec;
        spec.expression = expression.toStdString();
        auto result = run(spec);
        QVERIFY(result);
        if (count < 0)
            QVERIFY(result->merged.size() > 0);
        else if (QTest::currentDataTag() != QByteArray("two events"))
            QCOMPARE(int(result->merged.size()), count);
        else
            QVERIFY(int(result->merged.size()) >= count);
    }

    void signedComparisonsAreRewritten()
    {
        const TepAccess tep = m_trace->tep();
        QCOMPARE(QString::fromStdString(withSignedComparisons(tep, "raw_syscalls/sys_exit: ret < 0")),
                 QString("raw_syscalls/sys_exit: (ret < 0x0 || ret >= 0x8000000000000000)"));
        QCOMPARE(QString::fromStdString(withSignedComparisons(tep, "raw_syscalls/sys_exit: ret == -7")),
                 QString("raw_syscalls/sys_exit: ret == 0xfffffffffffffff9"));
        // Unsigned fields and strings stay as written.
        QCOMPARE(QString::fromStdString(withSignedComparisons(tep, "sched/sched_switch: next_comm == \"sh\"")),
                 QString("sched/sched_switch: next_comm == \"sh\""));
    }

    // Each malformed expression says what is wrong and, for syntax errors, where (the column
    // the README promises), exactly.
    void invalidExpressionsSayWhy_data()
    {
        QTest::addColumn<QString>("expression");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown field") << "sched/sched_switch: prev_stat != 0"
                                       << "'sched/sched_switch' has no field 'prev_stat'";
        QTest::newRow("unknown event") << "sched/no_such_event: x == 1"
                                       << "no event named 'sched/no_such_event' in this recording";
        QTest::newRow("no right side") << "sched/sched_switch: prev_state !="
                                       << "expected a value after '!=' at column 34";
        QTest::newRow("no left side") << "sched/sched_switch: == 1"
                                      << "expected a field or a value at column 21";
        QTest::newRow("open paren") << "sched/sched_switch: (prev_state == 1"
                                    << "expected ')' at column 37";
        QTest::newRow("close paren") << "sched/sched_switch: prev_state == 1)"
                                     << "unexpected ')' at column 36";
        QTest::newRow("dangling and") << "sched/sched_switch: prev_state == 1 &&"
                                      << "the condition ends too early at column 39";
        QTest::newRow("leading and") << "sched/sched_switch: && prev_state == 1"
                                     << "expected a field or a value at column 21";
        QTest::newRow("lone not") << "sched/sched_switch: !"
                                  << "'!' negates a condition in parentheses: !(...) at column 22";
        QTest::newRow("regex without pattern") << "sched/sched_switch: next_comm =~"
                                               << "expected a value after '=~' at column 33";
        QTest::newRow("empty") << ""
                               << "the filter is empty";
        QTest::newRow("no events") << ": prev_state == 1"
                                   << "name the events before ':' (for example sched/sched_switch: ...)";
        QTest::newRow("unterminated string") << "sched/sched_switch: next_comm == \"bash"
                                             << "unterminated string at column 34";
        // Found by fuzz_filter: each crashed libtraceevent's filter parser before the checker
        // refused it.
        QTest::newRow("bit and chain") << "sched/sched_switch: prev_pid == 1 || prev_pid & 1 & 2"
                                       << "compare this with a value (e.g. 'prev_state & 2 != 0') at column 38";
        QTest::newRow("bare value") << "sched/sched_switch: prev_pid & 40 || 97"
                                    << "compare this with a value (e.g. 'prev_state & 2 != 0') at column 21";
        QTest::newRow("bare field") << "sched/sched_switch: prev_pid == 1 || prev_pid"
                                    << "compare this with a value (e.g. 'prev_state & 2 != 0') at column 38";
        QTest::newRow("negated constant") << "sched/sched_switch: prev_pid < 0 || !(1 < 1)"
                                          << "a condition starts with a field (e.g. 'prev_pid > 0', not '0 < "
                                             "prev_pid') at column 39";
        QTest::newRow("value first") << "sched/sched_switch: 0 < prev_pid"
                                     << "a condition starts with a field (e.g. 'prev_pid > 0', not '0 < "
                                        "prev_pid') at column 21";
        QTest::newRow("deep nesting") << "sched/sched_switch: " + QString(65, '(') + "prev_pid > 0" + QString(65, ')')
                                      << "nested more than 64 deep at column 85";
        QTest::newRow("deep negation") << "sched/sched_switch: " + QString("!(").repeated(65) + "prev_pid > 0" +
                                              QString(65, ')')
                                       << "nested more than 64 deep at column 85";
        QTest::newRow("bare negation") << "sched/sched_switch: prev_pid > 5 || !!prev_comm == \"x\""
                                       << "'!' negates a condition in parentheses: !(...) at column 38";
        QTest::newRow("field on the right") << "sched/sched_switch: prev_pid > 0 || prev_pid == next_pid"
                                            << "Syntax error (column 37)";
        QTest::newRow("string ordered") << "sched/sched_switch: prev_pid > 0 && prev_comm > \"x\""
                                        << "Illegal comparison for string (column 37)";
        QTest::newRow("long condition") << "sched/sched_switch: " + QString(" prev_pid > 0 ||").repeated(32) +
                                               " prev_pid > 1"
                                        << "the condition after ':' is longer than 500 characters";
        QTest::newRow("long once signed")
            << "raw_syscalls/sys_exit: " + QString(" ret < 0 ||").repeated(30) + " ret < 1"
            << "the condition is longer than 500 characters once its signed comparisons are spelled out for "
               "libtraceevent";
        QTest::newRow("non-ASCII string") << "sched/sched_switch: next_comm == \"f\xb8\""
                                          << "only printable ASCII is allowed (column 36)";
        // Refused by libtraceevent itself (fuzz_filter): the compile freed its filter under
        // the handle's lock, and its destructor took the lock again (it hung).
        QTest::newRow("no event named") << "common_pid == 1001"
                                        << "no event found";
        QTest::newRow("comma in condition") << "sched/sched_switch: (common_pid && ! \"sched_witch,s\")"
                                            << "no ',' after ':' (column 50)";
    }
    void invalidExpressionsSayWhy()
    {
        QFETCH(QString, expression);
        QFETCH(QString, message);
        auto compiled = FilterExpression::compile(*m_trace, expression.toStdString());
        QVERIFY(!compiled);
        QCOMPARE(QString::fromStdString(compiled.error().message), message);
    }

    // The backstop behind the checker: an expression the checker refuses (libtraceevent frees
    // twice on it) is compiled in a forked child, which dies, not this process.
    void parserCrashesAreContained()
    {
        const TepAccess tep = m_trace->tep();
        QCOMPARE(filterParserProblem(tep, "sched/sched_switch: prev_pid > 0 || prev_state == 1"), std::string());
#if defined(__SANITIZE_ADDRESS__)
        QCOMPARE(filterParserProblem(tep, "sched/sched_switch: prev_pid > 0 || prev_pid == next_pid"),
                 std::string("libtraceevent's filter parser crashes on this expression"));
#else
        QSKIP("only AddressSanitizer stops at every double free (glibc's allocator sees some)");
#endif
    }

    // A filter is checked (in a child process), compiled and matched on a handle of its own:
    // none of it waits for the trace's handle, which the views and the analyses hold meanwhile.
    void filteringTakesNotTheTracesHandle()
    {
        const TepAccess held = m_trace->tep(); // as a view decoding a record would, on this thread
        auto filtered = std::async(std::launch::async, [this] {
            FilterSpec spec;
            spec.expression = "raw_syscalls/sys_exit: ret < 0";
            auto compiled = FilterExpression::compile(*m_trace, spec.expression);
            if (!compiled) return size_t(0);
            auto result = applyFilter(*m_trace, spec, compiled.value().get());
            return result ? (*result)->merged.size() : size_t(0);
        });
        // A bound for a deadlock, not a measure of speed.
        QVERIFY2(filtered.wait_for(std::chrono::seconds(120)) == std::future_status::ready,
                 "the filter waited for the trace's handle");
        QVERIFY(filtered.get() > 0);
    }

    void cancelStopsFiltering()
    {
        std::atomic<bool> cancel{true};
        auto result = applyFilter(m_trace->store(), FilterSpec(), nullptr, &cancel);
        QVERIFY(!result);
    }
};

QTEST_GUILESS_MAIN(TestFilter)
#include "tst_filter.moc"
