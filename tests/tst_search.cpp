// SPDX-License-Identifier: GPL-2.0-or-later
// The table search against the obvious way: format every cell of every row with the
// table's formatter and test it. Run on several workers in small pieces, with and without a
// filter, so that piece boundaries and the row mapping are exercised.
#include "testsupport.h"

#include "decode/eventformatter.h"
#include "query/search.h"

#include <QTest>

#include <mutex>

#include <map>

using namespace ringside;

namespace {

struct Case {
    SearchColumn column;
    std::string needle;
};

// What the table shows in each searchable column (EventTableModel::cellText).
std::vector<std::string> cells(const Trace& trace, EventFormatter& f, const std::map<int32_t, std::string>& names,
                               EventRef e, SearchColumn column)
{
    const EventStore& store = trace.store();
    const Stream& stream = store.stream(e.stream);
    const CpuColumns& c = stream.columns;
    std::vector<std::string> out;
    auto want = [&](SearchColumn col) { return column == SearchColumn::All || column == col; };
    if (want(SearchColumn::Cpu)) {
        const std::string& buffer = store.buffers()[stream.buffer].name;
        out.push_back(buffer.empty() ? std::to_string(stream.cpu) : buffer + ":" + std::to_string(stream.cpu));
    }
    if (want(SearchColumn::Time)) {
        const uint64_t ns = c.timestamp[e.index];
        char text[64];
        if (trace.file().info().timesInUsecs)
            std::snprintf(text, sizeof text, "%llu.%09llu", (unsigned long long)(ns / 1000000000ull),
                          (unsigned long long)(ns % 1000000000ull));
        else
            std::snprintf(text, sizeof text, "%llu", (unsigned long long)ns);
        out.push_back(text);
    }
    if (want(SearchColumn::Task)) out.push_back(names.at(c.pid[e.index]));
    if (want(SearchColumn::Pid)) out.push_back(std::to_string(c.pid[e.index]));
    if (want(SearchColumn::Latency)) out.push_back(f.latency(e));
    if (want(SearchColumn::Event)) out.push_back(f.eventName(c.eventType[e.index]));
    if (want(SearchColumn::Info)) out.push_back(f.info(e));
    return out;
}

} // namespace

class TestSearch : public QObject {
    Q_OBJECT
private slots:
    void matchesBruteForce_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("filtered");
        for (const char* name : {"execve-e2big", "instances", "fgraph-openat", "threads"})
            for (bool filtered : {false, true}) {
#ifdef __SANITIZE_THREAD__
                // Each search makes a tep handle per worker, 20x slower under TSan: two rows
                // run the same threaded code as the eight.
                if (filtered != (std::string(name) == "execve-e2big") || std::string(name) == "instances" ||
                    std::string(name) == "fgraph-openat")
                    continue;
#endif
                QTest::newRow(qPrintable(QStringLiteral("%1%2").arg(name, filtered ? " filtered" : "")))
                    << name << filtered;
            }
    }
    void matchesBruteForce()
    {
        QFETCH(QString, name);
        QFETCH(bool, filtered);
        auto trace = test::openOrFail(test::fixturePath(name + ".dat"));
        QVERIFY(trace);
        const EventStore& store = trace->store();
        EventFormatter formatter(*trace);
        // Task names are fixed first: the formatter's handle learns comms while printing.
        std::map<int32_t, std::string> names;
        for (const Task& task : store.tasks().all()) names[task.pid] = formatter.comm(task.pid);

        // A filter keeping every third row and every sched_switch.
        RowSet rows(store.eventCount());
        for (size_t r = 0; r < store.eventCount(); ++r) {
            const EventRef e = store.eventAt(r);
            if (r % 3 == 0 || formatter.eventName(store.stream(e.stream).columns.eventType[e.index]) == "sched_switch")
                rows.set(r);
        }
        rows.seal();

        const Case cases[] = {{SearchColumn::All, "sched_switch"},
                              {SearchColumn::Event, "SCHED"},
                              {SearchColumn::Event, "irq"},
                              {SearchColumn::Task, "bash"},
                              {SearchColumn::Pid, "1"},
                              {SearchColumn::Cpu, "1"},
                              {SearchColumn::Time, ".5"},
                              {SearchColumn::Info, "prev_state="},
                              {SearchColumn::Latency, "d"},
                              {SearchColumn::All, "0x"},
                              {SearchColumn::Info, "()"},
                              {SearchColumn::All, "no such text anywhere"}};
        // Every row's cells, formatted once for all cases (in cells()' order).
        const SearchColumn order[] = {SearchColumn::Cpu,     SearchColumn::Time,  SearchColumn::Task, SearchColumn::Pid,
                                      SearchColumn::Latency, SearchColumn::Event, SearchColumn::Info};
        const size_t tableRows = filtered ? rows.size() : store.eventCount();
        std::vector<std::vector<std::string>> table(tableRows);
        for (size_t k = 0; k < tableRows; ++k)
            table[k] = cells(*trace, formatter, names, store.eventAt(filtered ? rows.select(k) : k), SearchColumn::All);
        for (const Case& c : cases) {
            const TextPredicate match = containsText(c.needle, false);
            std::vector<size_t> expected;
            for (size_t k = 0; k < tableRows; ++k)
                for (size_t i = 0; i < table[k].size(); ++i)
                    if ((c.column == SearchColumn::All || c.column == order[i]) && match(table[k][i])) {
                        expected.push_back(k);
                        break;
                    }
            SearchRequest request;
            request.column = c.column;
            request.match = match;
            request.rows = filtered ? &rows : nullptr;
            request.taskName = [&](int32_t pid) { return names.at(pid); };
            request.threads = 3;
            request.pieceRows = 97;
            double last = 0;
            const std::vector<size_t> actual = searchRows(*trace, request, nullptr, [&](double done) {
                QVERIFY(done >= last);
                last = done;
            });
            QVERIFY2(actual == expected, qPrintable(QStringLiteral("%1: %2 matches, expected %3")
                                                        .arg(QString::fromStdString(c.needle))
                                                        .arg(actual.size())
                                                        .arg(expected.size())));
            QCOMPARE(last, expected.empty() && tableRows == 0 ? 0.0 : 1.0);
        }
    }

    void plainAndRegexPredicates()
    {
        QVERIFY(containsText("Sched", false)("prev sched_switch"));
        QVERIFY(!containsText("Sched", true)("prev sched_switch"));
        QVERIFY(containsText("", false)("anything"));
        QVERIFY(!containsText("abc", false)("ab"));
        std::string error;
        const TextPredicate re = matchesRegex("prev_pid=[0-9]+ ", false, &error);
        QVERIFY(re);
        QVERIFY(re("X prev_pid=12 Y"));
        QVERIFY(!re("prev_pid=x"));
        QVERIFY(!matchesRegex("(", false, &error));
        QVERIFY(!error.empty());
    }

    void findFromStartsAtTheRow()
    {
        const std::vector<size_t> matches{3, 10, 42};
        QCOMPARE(findFrom(matches, 0), 3LL);
        QCOMPARE(findFrom(matches, 10), 10LL);
        QCOMPARE(findFrom(matches, 11), 42LL);
        QCOMPARE(findFrom(matches, 43), 3LL); // wraps
        QCOMPARE(findFrom(matches, -1), 3LL);
        QCOMPARE(findFrom(matches, 9, true), 3LL);
        QCOMPARE(findFrom(matches, 2, true), 42LL);
        QCOMPARE(findFrom({}, 5), -1LL);
    }

    // The first match from a row on is handed over once, and is the one "next" would show
    // from there (wrapping), however the pieces are shared among the threads.
    void firstMatchFromARow()
    {
        auto trace = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(trace);
        SearchRequest all;
        all.column = SearchColumn::Event;
        all.match = containsText("sys_exit", false);
        const std::vector<size_t> matches = searchRows(*trace, all);
        QVERIFY(matches.size() > 3);
        const size_t rows = trace->store().eventCount();
        for (const size_t from : {size_t(0), matches[1], matches[1] + 1, matches.back() + 1, rows / 2}) {
            for (const int threads : {1, 3}) {
                SearchRequest request = all;
                request.threads = threads;
                request.pieceRows = 7;
                request.firstFrom = from;
                std::vector<size_t> said;
                std::mutex lock;
                request.firstMatch = [&](size_t row) {
                    const std::lock_guard hold(lock);
                    said.push_back(row);
                };
                QCOMPARE(searchRows(*trace, request), matches);
                const long long expected = findFrom(matches, (long long)from);
                // Past the last match the next is the first, unless it is in firstFrom's own piece.
                if (expected >= 0 && (size_t(expected) >= from || size_t(expected) / 7 != from / 7)) {
                    QCOMPARE(said.size(), size_t(1));
                    QCOMPARE((long long)said.front(), expected);
                } else {
                    QVERIFY(said.empty());
                }
            }
        }
    }

    void cancelReturnsNothing()
    {
        auto trace = test::openOrFail(test::fixturePath("execve-e2big.dat"));
        QVERIFY(trace);
        std::atomic<bool> cancel{true};
        SearchRequest request;
        request.column = SearchColumn::Info;
        request.match = containsText("a", false);
        QVERIFY(searchRows(*trace, request, &cancel).empty());
    }
};

QTEST_GUILESS_MAIN(TestSearch)
#include "tst_search.moc"
