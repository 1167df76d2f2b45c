// SPDX-License-Identifier: GPL-2.0-or-later
// The event-pair analysis: its pairing rules on plain values, its statistics, and each preset
// on real recordings against what latency-reference.py works out from `trace-cmd report`.
#include "testsupport.h"

#include "latency/eventpairs.h"
#include "latency/keyindex.h"
#include "latency/latencyreport.h"
#include "latency/latencystats.h"
#include "latency/loadedpairs.h"
#include "latency/steptimes.h"
#include "support/tracewriter.h"
#include "trace.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <tuple>

using namespace ringside;

namespace {

EventRef at(uint32_t index)
{
    return {StreamId(0), index};
}

} // namespace

class TestLatency : public QObject {
    Q_OBJECT
private slots:
    // A start replaces the open start of its key (counted unmatched); an end without an open
    // start is unmatched; starts open at the end are unmatched.
    void aNewerStartReplacesTheOpenOne()
    {
        PairMatcher m(false);
        m.end("a", 5, at(0)); // before any start
        m.start("a", 0, 10, at(1));
        m.start("a", 0, 20, at(2)); // replaces the start at 10
        m.start("b", 1, 25, at(3));
        m.end("a", 30, at(4));
        m.end("a", 31, at(5)); // its start was taken
        m.start("c", 2, 40, at(6));
        QCOMPARE(m.openStarts(), uint64_t(2));
        QCOMPARE(m.unmatchedStarts(), uint64_t(1)); // the open ones are not unmatched yet
        m.finish();
        const PairMatcher::Pairs& p = m.pairs();
        QCOMPARE(p.size(), size_t(1));
        QCOMPARE(p.start[0], uint64_t(20));
        QCOMPARE(p.duration[0], uint64_t(10));
        QVERIFY(p.startEvent[0] == at(2) && p.endEvent[0] == at(4));
        QCOMPARE(m.unmatchedStarts(), uint64_t(3)); // replaced, b, c
        QCOMPARE(m.unmatchedEnds(), uint64_t(2));
    }

    // An end is matched by its key whichever CPU it comes on: a task that returns on another
    // CPU than it entered on, and an end of another key than the CPU's last start.
    void endsAcrossCpusFindTheirStarts()
    {
        EventPairs pairs(PairSpec{"calls", "a/enter", "a/exit", {{"id", "id"}}, true, false, false});
        pairs.bind({true, true});
        pairs.setStreams({StreamInfo{0}, StreamInfo{1}});
        TypedValue value;
        uint32_t index = 0;
        auto feed = [&](size_t request, uint16_t stream, uint64_t time, int32_t pid, uint64_t id) {
            ConsumedRecord r;
            r.request = request;
            r.stream = StreamId(stream);
            r.index = index++;
            r.timestamp = time;
            r.pid = pid;
            r.task = TaskId(uint32_t(pid));
            value.setNumber(id, false, 8);
            r.values = &value;
            r.valueCount = 1;
            pairs.consume(r);
        };
        feed(0, 0, 100, 7, 1); // task 7 enters on CPU 0
        feed(0, 1, 110, 8, 2); // task 8 on CPU 1
        feed(1, 1, 150, 7, 1); // 7 returns on CPU 1, whose last start is 8's
        feed(1, 0, 160, 8, 2); // 8 on CPU 0
        feed(1, 0, 170, 8, 2); // again: its start is closed
        feed(0, 0, 200, 7, 3);
        feed(1, 0, 210, 7, 4); // the CPU's last start is 7's, of another id
        feed(1, 0, 220, 7, 3);
        pairs.finish();
        const PairMatcher::Pairs& p = pairs.matcher().pairs();
        QCOMPARE(p.start, (std::vector<uint64_t>{100, 110, 200}));
        QCOMPARE(p.duration, (std::vector<uint64_t>{50, 50, 20}));
        QCOMPARE(pairs.matcher().unmatchedEnds(), uint64_t(2));
        QCOMPARE(pairs.matcher().unmatchedStarts(), uint64_t(0));
    }

    // With nesting an end closes the innermost start of its key, then the next end the outer.
    void nestedStartsCloseInnermostFirst()
    {
        PairMatcher m(true);
        m.start("k", 0, 10, at(0));
        m.start("k", 0, 20, at(1));
        m.start("k", 0, 25, at(2));
        m.end("k", 30, at(3));
        m.end("k", 40, at(4));
        m.end("k", 50, at(5));
        m.end("k", 60, at(6));
        m.finish();
        const PairMatcher::Pairs& p = m.pairs();
        QCOMPARE(p.size(), size_t(3));
        QCOMPARE(p.duration, (std::vector<uint64_t>{5, 20, 40}));
        QVERIFY(p.startEvent[0] == at(2) && p.startEvent[1] == at(1) && p.startEvent[2] == at(0));
        QCOMPARE(m.unmatchedStarts(), uint64_t(0));
        QCOMPARE(m.unmatchedEnds(), uint64_t(1));
    }

    // Nearest rank: always one of the durations, the smallest with p% at or below it.
    void percentilesByNearestRank()
    {
        std::vector<uint64_t> d(1000);
        std::iota(d.begin(), d.end(), uint64_t(1));
        std::reverse(d.begin(), d.end());
        const LatencySummary s = summarize(d);
        QCOMPARE(s.count, uint64_t(1000));
        QCOMPARE(s.min, uint64_t(1));
        QCOMPARE(s.p50, uint64_t(500));
        QCOMPARE(s.p90, uint64_t(900));
        QCOMPARE(s.p99, uint64_t(990));
        QCOMPARE(s.p999, uint64_t(999));
        QCOMPARE(s.max, uint64_t(1000));
        QCOMPARE(s.total, uint64_t(500500));
        QCOMPARE(s.mean, 500.5);
        std::vector<uint64_t> three{30, 10, 20};
        const LatencySummary t = summarize(three);
        QCOMPARE(t.p50, uint64_t(20)); // ceil(1.5) = 2nd
        QCOMPARE(t.p90, uint64_t(30));
        std::vector<uint64_t> none;
        QCOMPARE(summarize(none).count, uint64_t(0));
    }

    // Millions of durations are summarized by rank buckets, without a copy: the same nearest
    // ranks as a sort gives, for durations spread wide, all alike, short, and near 2^64.
    void percentilesOfManyDurationsAreExact()
    {
        std::mt19937_64 random(45);
        std::vector<std::vector<uint64_t>> sets;
        std::vector<uint64_t> wide(300000);
        for (uint64_t& d : wide) d = random() >> (random() % 64); // every octave
        sets.push_back(wide);
        sets.push_back(std::vector<uint64_t>(100000, 123456789)); // one bucket holds them all
        std::vector<uint64_t> shortOnes(100000);
        for (uint64_t& d : shortOnes) d = random() % 700; // exact buckets and the first wide ones
        sets.push_back(shortOnes);
        std::vector<uint64_t> huge(70000);
        for (uint64_t& d : huge) d = UINT64_MAX - random() % 1000;
        sets.push_back(huge);
        std::vector<uint64_t> ties(200000);
        for (uint64_t& d : ties) d = (random() % 5) * 1000003 + 1; // few values, many of each
        sets.push_back(ties);
        for (const std::vector<uint64_t>& d : sets) {
            std::vector<uint64_t> sorted = d;
            std::sort(sorted.begin(), sorted.end());
            const LatencySummary s = summarize(d);
            QCOMPARE(s.count, uint64_t(d.size()));
            QCOMPARE(s.min, sorted.front());
            QCOMPARE(s.max, sorted.back());
            QCOMPARE(s.p50, nearestRank(sorted, 50));
            QCOMPARE(s.p90, nearestRank(sorted, 90));
            QCOMPARE(s.p99, nearestRank(sorted, 99));
            QCOMPARE(s.p999, nearestRank(sorted, 99.9));
            for (size_t index : {size_t(0), d.size() / 3, d.size() - 2, d.size() - 1})
                QCOMPARE(durationAtRank(d.data(), d.size(), index), sorted[index]);
            // Ranks asked in any order; the histogram from the counts alone.
            const DurationRanks ranks(d.data(), d.size());
            const std::vector<size_t> asked{d.size() - 1, 7, d.size() / 2, 7, 0};
            const std::vector<uint64_t> found = ranks.at(asked);
            for (size_t k = 0; k < asked.size(); ++k) QCOMPARE(found[k], sorted[asked[k]]);
            const std::vector<HistogramBucket> fromCounts = ranks.histogram(), counted = log2Histogram(d);
            QCOMPARE(fromCounts.size(), counted.size());
            for (size_t k = 0; k < counted.size(); ++k)
                QVERIFY(fromCounts[k].from == counted[k].from && fromCounts[k].to == counted[k].to &&
                        fromCounts[k].count == counted[k].count);
        }
    }

    // Every pair longest first, equal durations by start, then as they came: as a sort of
    // all of them orders them, for durations in the same buckets and starts out of order.
    void longestFirstIsASort()
    {
        std::mt19937_64 random(11);
        const size_t n = 200000;
        std::vector<uint64_t> durations(n), starts(n);
        for (size_t i = 0; i < n; ++i) {
            durations[i] = i % 4 ? random() % 100000 : random() % 600; // wide buckets hold several
            starts[i] = random() % 5000;                               // ties, out of order
        }
        std::vector<uint32_t> expected(n);
        std::iota(expected.begin(), expected.end(), 0u);
        std::sort(expected.begin(), expected.end(), [&](uint32_t a, uint32_t b) {
            return std::tie(durations[b], starts[a], a) < std::tie(durations[a], starts[b], b);
        });
        QVERIFY(longestFirst(durations.data(), starts.data(), n) == expected);
    }

    // The report's slowest pairs are the longest, equal ones in time order, whether a few are
    // kept or all; each group's distribution is its pairs'.
    void theReportOrdersTheSlowestAndSummarizesGroups()
    {
        EventPairs pairs(PairSpec{"calls", "a/enter", "a/exit", {{"id", "id"}}, true, false, false});
        pairs.bind({true, true});
        pairs.setStreams({StreamInfo{0}});
        std::mt19937_64 random(7);
        TypedValue value;
        uint32_t index = 0;
        uint64_t time = 0;
        for (int i = 0; i < 100000; ++i) {
            const uint64_t id = random() % 7;
            ConsumedRecord r;
            r.stream = StreamId(0);
            r.pid = 1;
            r.task = TaskId(1);
            value.setNumber(id, false, 8);
            r.values = &value;
            r.valueCount = 1;
            for (size_t request : {0, 1}) {
                r.request = request;
                r.index = index++;
                r.timestamp = time += request ? (random() % 50) * 100 : 10; // many equal durations
                pairs.consume(r);
            }
        }
        pairs.finish();
        const PairMatcher::Pairs& p = pairs.matcher().pairs();
        QCOMPARE(p.size(), size_t(100000));
        const LatencyReport all = makeLatencyReport(pairs, SIZE_MAX);
        QCOMPARE(all.slowest.size(), p.size());
        for (size_t i = 1; i < all.slowest.size(); ++i) {
            const uint32_t a = all.slowest[i - 1], b = all.slowest[i];
            QVERIFY(p.duration[a] > p.duration[b] || (p.duration[a] == p.duration[b] && p.start[a] < p.start[b]));
        }
        for (size_t kept : {size_t(0), size_t(1), size_t(10), size_t(2500)}) {
            const LatencyReport few = makeLatencyReport(pairs, kept);
            QCOMPARE(few.slowest, std::vector<uint32_t>(all.slowest.begin(), all.slowest.begin() + long(kept)));
        }
        QCOMPARE(all.groups.size(), size_t(7));
        for (const LatencyReport::Group& g : all.groups) {
            std::vector<uint64_t> own;
            for (size_t i = 0; i < p.size(); ++i)
                if (pairs.groups()[p.group[i]] == g.label) own.push_back(p.duration[i]);
            const LatencySummary s = summarize(own);
            QCOMPARE(g.summary.count, s.count);
            QCOMPARE(g.summary.total, s.total);
            QCOMPARE(g.summary.p50, s.p50);
            QCOMPARE(g.summary.p999, s.p999);
            QCOMPARE(g.summary.max, s.max);
        }
    }

    // Records given as numbers (the kept records' way) pair as the same records decoded: the
    // same pairs, groups and labels, a signed value's too.
    void numberRecordsPairAsDecodedOnes()
    {
        const PairSpec spec{"calls", "a/enter", "a/exit", {{"id", "id"}}, true, false, false};
        EventPairs decoded(spec), numbers(spec);
        for (EventPairs* p : {&decoded, &numbers}) {
            p->bind({true, true});
            p->setStreams({StreamInfo{0}, StreamInfo{1}});
        }
        std::mt19937_64 random(3);
        const bool isSigned[] = {true};
        uint32_t index = 0;
        for (int i = 0; i < 5000; ++i) {
            const int64_t id = int64_t(random() % 9) - 4;
            const auto pid = int32_t(random() % 3);
            const bool isEnd = random() % 2;
            const auto stream = uint16_t(random() % 2);
            ConsumedRecord r;
            r.request = isEnd;
            r.stream = StreamId(stream);
            r.index = index++;
            r.timestamp = uint64_t(i) * 10;
            r.pid = pid;
            r.task = TaskId(uint32_t(pid));
            TypedValue value = TypedValue::number(uint64_t(id), true, 8);
            r.values = &value;
            r.valueCount = 1;
            decoded.consume(r);
            EventPairs::NumberRecord n;
            n.isEnd = isEnd;
            n.timestamp = r.timestamp;
            n.event = {r.stream, r.index};
            n.pid = pid;
            n.task = r.task;
            uint8_t bytes[8];
            const uint64_t bits = value.asUnsigned();
            std::memcpy(bytes, &bits, 8);
            n.values = bytes;
            n.isSigned = isSigned;
            numbers.consumeNumbers(n);
        }
        decoded.finish();
        numbers.finish();
        QVERIFY(decoded.matcher().pairs().size() > 500);
        samePairs(numbers, decoded);
        QVERIFY(std::count(decoded.groups().begin(), decoded.groups().end(), "-4") == 1);
    }

    // Times read back as they were kept: steps of every size, a gap of 4.3 s and more, a time
    // before the one it follows, the same time twice.
    void stepTimesReadBackInOrder()
    {
        const std::vector<uint64_t> times{5'000'000'000'000,
                                          5'000'000'000'001,
                                          5'000'000'000'001,
                                          5'004'294'967'294,
                                          5'008'589'934'589,
                                          5'008'589'934'590,
                                          4'999'000'000'000,
                                          4'999'000'000'007,
                                          0,
                                          UINT64_MAX,
                                          1,
                                          1 + 0xfffffffeull};
        StepTimes kept;
        for (uint64_t t : times) kept.push_back(t);
        QCOMPARE(kept.size(), times.size());
        StepTimes::Reader reader;
        for (size_t i = 0; i < times.size(); ++i) QCOMPARE(kept.next(i, reader), times[i]);
    }

    // Pairs from kept records equal pairs read from the pages where a CPU's kept records are
    // 4.3 s and more apart (their times kept whole), and where a stream's values stop fitting
    // 32 bits partway (kept narrow, then widened): a recording written to measure.
    void keptRecordsOverLongGapsAndWideValues()
    {
        using test::TraceWriter;
        TraceWriter writer;
        auto format = [](const char* name, int id) {
            return TraceWriter::Format{"a", std::string("name: ") + name + "\nID: " + std::to_string(id) +
                                                "\nformat:\n" + TraceWriter::commonFields() +
                                                "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n\n"
                                                "print fmt: \"id=%ld\", REC->id\n"};
        };
        writer.formats = {format("enter", 901), format("exit", 902), format("tick", 903)};
        auto record = [](uint16_t type, int32_t pid, int64_t id) {
            std::string fields;
            test::put(fields, id);
            return TraceWriter::payload(type, pid, fields);
        };
        const int64_t ids[] = {3, -7, 0x7fffffff, int64_t(0x123456789ll), -0x80000000ll, 5, -1};
        writer.cpus.resize(2);
        uint64_t expected = 0;
        for (uint16_t cpu = 0; cpu < 2; ++cpu) {
            auto& records = writer.cpus[cpu];
            for (int round = 0; round < 3; ++round)
                for (int64_t id : ids) {
                    const int32_t pid = 100 + cpu;
                    records.push_back({uint32_t(10 + round), record(901, pid, id)});
                    // On CPU 1, each call spans 35 ticks of 0.13 s: 4.7 s between its records.
                    for (int t = 0; cpu == 1 && t < 35; ++t) records.push_back({(1u << 27) - 1, record(903, pid, 0)});
                    records.push_back({uint32_t(20 + round), record(902, pid, id)});
                    ++expected;
                }
        }
        QTemporaryDir dir;
        const QString path = dir.filePath("gaps.dat");
        QVERIFY(test::writeFile(path, writer.write()));
        const PairSpec spec{"calls", "a/enter", "a/exit", {{"id", "id"}}, true, false, false};
        std::vector<std::unique_ptr<RecordConsumer>> keeper;
        keeper.push_back(LoadedPairs::recordsKeeper(spec));
        auto kept = Trace::open(path.toStdString(), LoadOptions(), std::move(keeper));
        QVERIFY2(kept, kept ? "" : kept.error().message.c_str());
        auto plain = Trace::open(path.toStdString(), LoadOptions());
        QVERIFY(plain);
        auto fromKept = LoadedPairs::run(**kept, spec);
        auto fromPages = LoadedPairs::run(**plain, spec);
        QVERIFY(fromKept && fromPages);
        QVERIFY((*fromKept)->usedKeptRecords());
        QVERIFY(!(*fromPages)->usedKeptRecords());
        samePairs((*fromKept)->pairs(), (*fromPages)->pairs());
        const PairMatcher::Pairs& p = (*fromKept)->pairs().matcher().pairs();
        QCOMPARE(p.size(), size_t(expected));
        QCOMPARE(*std::max_element(p.duration.begin(), p.duration.end()), uint64_t(35) * ((1u << 27) - 1) + 22);
        const std::vector<std::string>& groups = (*fromKept)->pairs().groups();
        for (const char* label : {"-7", "2147483647", "4886718345", "-2147483648", "-1"})
            QVERIFY2(std::count(groups.begin(), groups.end(), label) == 1, label);
        const EventStore& store = (*kept)->store();
        for (size_t i = 0; i < p.size(); ++i) QCOMPARE(store.timestamp(p.startEvent[i]), p.start[i]);
    }

    // Records matched in two parts (the second continuing(), then appended to the first) pair
    // as one matcher fed them all: wherever the parts meet, whatever is open there (a start the
    // second part ends, replaces or never sees again, ends of keys never started).
    void twoPartsPairAsOne()
    {
        const PairSpec spec{"calls", "a/enter", "a/exit", {{"id", "id"}}, true, false, false};
        for (unsigned seed = 1; seed <= 30; ++seed) {
            std::mt19937_64 random(seed);
            struct Record {
                bool isEnd;
                uint16_t stream;
                int32_t pid;
                int64_t id;
            };
            std::vector<Record> records(200 + random() % 800);
            for (Record& r : records)
                r = {random() % 2 == 0, uint16_t(random() % 2), int32_t(random() % 4), int64_t(random() % 5) - 2};
            auto feed = [&](EventPairs& into, size_t from, size_t to) {
                for (size_t i = from; i < to; ++i) {
                    const Record& r = records[i];
                    EventPairs::NumberRecord n;
                    n.isEnd = r.isEnd;
                    n.timestamp = 1000 + i * 10;
                    n.event = {StreamId(r.stream), uint32_t(i)};
                    n.pid = r.pid;
                    n.task = TaskId(uint32_t(r.pid));
                    uint8_t bytes[8];
                    std::memcpy(bytes, &r.id, 8);
                    const bool isSigned[] = {true};
                    n.values = bytes;
                    n.isSigned = isSigned;
                    into.consumeNumbers(n);
                }
            };
            EventPairs whole(spec);
            whole.bind({true, true});
            whole.setStreams({StreamInfo{0}, StreamInfo{1}});
            feed(whole, 0, records.size());
            whole.finish();
            for (size_t split : {size_t(0), size_t(1), size_t(random() % records.size()), records.size()}) {
                EventPairs first(spec), second(spec);
                for (EventPairs* p : {&first, &second}) {
                    p->bind({true, true});
                    p->setStreams({StreamInfo{0}, StreamInfo{1}});
                }
                second.continuing();
                feed(first, 0, split);
                feed(second, split, records.size());
                first.append(second);
                first.finish();
                samePairs(first, whole);
                if (QTest::currentTestFailed()) qWarning("seed %u, split at %zu", seed, split);
            }
        }
    }

    // Keys numbered in the order they came, whatever their length (inline, spilled, text) and
    // however many: found again after the table grew and the recent keys were replaced.
    void keysKeepTheirNumbers()
    {
        KeyIndex index;
        std::vector<std::string> keys;
        for (uint64_t i = 0; i < 50000; ++i) {
            KeyBytes key;
            key.appendWord(i % 3 ? i % 977 : i); // one word, or two
            if (i % 3) key.appendWord(i);
            if (i % 5 == 0) key.append("a text field longer than the inline bytes of a key");
            keys.emplace_back(key.view());
            const auto [number, added] = index.findOrAdd(key.view());
            QVERIFY(added);
            QCOMPARE(number, uint32_t(i));
            QCOMPARE(index.findOrAdd(key.view()).second, false);
        }
        for (uint64_t i = 0; i < keys.size(); ++i) QCOMPARE(index.find(keys[i]), uint32_t(i));
        QCOMPARE(index.find(std::string_view("absent")), KeyIndex::kNone);
        // The same words at two lengths are two keys (a recent key is told apart by its length).
        KeyIndex lengths;
        for (uint64_t k = 0; k < 20000; ++k) {
            KeyBytes one, two;
            one.appendWord(k);
            two.appendWord(k);
            two.appendWord(0);
            const uint32_t a = lengths.findOrAdd(one.view()).first, b = lengths.findOrAdd(two.view()).first;
            QCOMPARE(b, a + 1);
            QCOMPARE(lengths.find(one.view()), a);
            QCOMPARE(lengths.find(two.view()), b);
        }
        KeyBytes inlineKey, longKey;
        inlineKey.appendWord(1);
        inlineKey.appendWord(2);
        longKey.append(std::string(40, 'x'));
        KeyBytes copy = longKey;
        QVERIFY(copy == longKey && !(copy == inlineKey));
        copy = inlineKey;
        QVERIFY(copy == inlineKey && copy.view().size() == 16);
        copy.appendWord(3);
        QVERIFY(!(copy == inlineKey));
    }

    // Power-of-two buckets from the shortest to the longest, empty ones kept.
    void histogramBucketsArePowersOfTwo()
    {
        const std::vector<HistogramBucket> h = log2Histogram({0, 1, 2, 3, 4, 7, 8, 40});
        QCOMPARE(h.size(), size_t(7)); // [0,1) [1,2) [2,4) [4,8) [8,16) [16,32) [32,64)
        const std::vector<uint64_t> from{0, 1, 2, 4, 8, 16, 32}, counts{1, 1, 2, 2, 1, 0, 1};
        for (size_t i = 0; i < h.size(); ++i) {
            QCOMPARE(h[i].from, from[i]);
            QCOMPARE(h[i].to, i == 0 ? uint64_t(1) : from[i] * 2);
            QCOMPARE(h[i].count, counts[i]);
        }
        QVERIFY(log2Histogram({}).empty());
        QCOMPARE(log2Histogram({1000, 1023}).size(), size_t(1));
    }

    // Each preset on the recordings, equal to the reference worked out from trace-cmd report.
    static void samePairs(const EventPairs& a, const EventPairs& b)
    {
        const PairMatcher::Pairs& p = a.matcher().pairs();
        const PairMatcher::Pairs& q = b.matcher().pairs();
        QCOMPARE(p.start, q.start);
        QCOMPARE(p.duration, q.duration);
        QVERIFY(p.group == q.group);
        QCOMPARE(a.groups(), b.groups());
        QCOMPARE(a.matcher().unmatchedStarts(), b.matcher().unmatchedStarts());
        QCOMPARE(a.matcher().unmatchedEnds(), b.matcher().unmatchedEnds());
        QCOMPARE(a.startsSeen(), b.startsSeen());
        QCOMPARE(a.endsSeen(), b.endsSeen());
        for (size_t i = 0; i < q.size(); ++i)
            QVERIFY(p.startEvent[i] == q.startEvent[i] && p.endEvent[i] == q.endEvent[i]);
    }

    void presetsMatchTraceCmdReport_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QList<quint64>>("expected"); // pairs, unmatched starts, ends, min, p50, p99, max
        QFile reference(test::fixture("latency-reference.txt"));
        QVERIFY(reference.open(QIODevice::ReadOnly | QIODevice::Text));
        QTextStream in(&reference);
        int rows = 0;
        while (!in.atEnd()) {
            const QStringList f = in.readLine().split(' ', Qt::SkipEmptyParts);
            if (f.size() != 9) continue;
            QList<quint64> expected;
            for (int i = 2; i < 9; ++i) expected << f[i].toULongLong();
            QTest::newRow(qPrintable(f[0] + " " + f[1])) << f[0] << f[1] << expected;
            ++rows;
        }
        QVERIFY(rows >= 10);
    }
    void presetsMatchTraceCmdReport()
    {
        QFETCH(QString, file);
        QFETCH(QString, preset);
        QFETCH(QList<quint64>, expected);
        // PRESET:CONDITION: the preset's starts that meet the condition, which only a recording
        // already loaded is paired with (LoadedPairs), as are print's B| and E| marks.
        std::optional<PairSpec> spec = presetPair(preset.section(':', 0, 0).toStdString());
        QVERIFY(spec);
        spec->filterFrom = preset.section(':', 1).toStdString();
        if (!spec->filterFrom.empty() || !spec->startText.empty() || !spec->endText.empty()) {
            auto plain = Trace::open(test::fixturePath(file), LoadOptions());
            QVERIFY(plain);
            auto filtered = LoadedPairs::run(**plain, *spec);
            QVERIFY2(filtered, filtered ? "" : filtered.error().message.c_str());
            const PairMatcher& m = (*filtered)->pairs().matcher();
            std::vector<uint64_t> d = m.pairs().duration;
            const LatencySummary s = summarize(d);
            const QList<quint64> actual{s.count, m.unmatchedStarts(), m.unmatchedEnds(), s.min, s.p50, s.p99, s.max};
            QCOMPARE(actual, expected);
            // Records kept during the load cannot be filtered or told apart by their text: read
            // from the pages again, the same pairs.
            QVERIFY(!LoadedPairs::recordsKeeper(*spec));
            PairSpec plainSpec = *spec;
            plainSpec.filterFrom = plainSpec.filterTo = {};
            plainSpec.startText = plainSpec.endText = {};
            std::vector<std::unique_ptr<RecordConsumer>> keeper;
            keeper.push_back(LoadedPairs::recordsKeeper(plainSpec)); // kept, but not what is asked
            auto kept = Trace::open(test::fixturePath(file), LoadOptions(), std::move(keeper));
            QVERIFY(kept);
            auto fromPages = LoadedPairs::run(**kept, *spec);
            QVERIFY(fromPages);
            QVERIFY(!(*fromPages)->usedKeptRecords());
            samePairs((*fromPages)->pairs(), (*filtered)->pairs());
            return;
        }
        std::vector<std::unique_ptr<RecordConsumer>> consumers;
        consumers.push_back(std::make_unique<EventPairs>(*spec));
        auto trace = Trace::open(test::fixturePath(file), LoadOptions(), std::move(consumers));
        QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
        const auto* pairs = (*trace)->consumers().find<EventPairs>("latency:" + spec->name);
        QVERIFY(pairs);
        QVERIFY2(pairs->unbound().empty(), pairs->unbound().c_str());
        const PairMatcher& m = pairs->matcher();
        std::vector<uint64_t> d = m.pairs().duration;
        const LatencySummary s = summarize(d);
        const QList<quint64> actual{s.count, m.unmatchedStarts(), m.unmatchedEnds(), s.min, s.p50, s.p99, s.max};
        QCOMPARE(actual, expected);
        // Every pair's events are its preset's, the start's time its start.
        const EventStore& store = (*trace)->store();
        const PairMatcher::Pairs& p = m.pairs();
        for (size_t i = 0; i < p.size(); i += std::max<size_t>(1, p.size() / 50)) {
            QCOMPARE(store.timestamp(p.startEvent[i]), p.start[i]);
            QCOMPARE(store.timestamp(p.endEvent[i]) - store.timestamp(p.startEvent[i]), p.duration[i]);
            QVERIFY(p.group[i] < pairs->groups().size());
        }

        // Paired after a load that did not ask for it (the window's and SQL's way): the same
        // pairs, in the same order, in the same groups.
        auto plain = Trace::open(test::fixturePath(file), LoadOptions());
        QVERIFY(plain);
        auto again = LoadedPairs::run(**plain, *spec);
        QVERIFY2(again, again ? "" : again.error().message.c_str());
        const EventPairs& later = (*again)->pairs();
        const PairMatcher::Pairs& q = later.matcher().pairs();
        QCOMPARE(q.start, p.start);
        QCOMPARE(q.duration, p.duration);
        QCOMPARE(later.matcher().unmatchedStarts(), m.unmatchedStarts());
        QCOMPARE(later.matcher().unmatchedEnds(), m.unmatchedEnds());
        QCOMPARE(later.groups(), pairs->groups());
        QVERIFY(q.group == p.group);
        for (size_t i = 0; i < q.size(); ++i)
            QVERIFY(q.startEvent[i] == p.startEvent[i] && q.endEvent[i] == p.endEvent[i]);

        // Paired from the records kept while the pages were parsed (the CLI's way), in small
        // stretches: the same, whole and over the first rows only (the window's sample).
        std::vector<std::unique_ptr<RecordConsumer>> keeper;
        keeper.push_back(LoadedPairs::recordsKeeper(*spec));
        LoadOptions stretches;
        stretches.segmentBytes = 4096 * 3;
        auto kept = Trace::open(test::fixturePath(file), stretches, std::move(keeper));
        QVERIFY(kept);
        auto fromKept = LoadedPairs::run(**kept, *spec);
        QVERIFY2(fromKept, fromKept ? "" : fromKept.error().message.c_str());
        QVERIFY((*fromKept)->usedKeptRecords());
        QVERIFY(!(*again)->usedKeptRecords());
        samePairs((*fromKept)->pairs(), later);
        const uint64_t rows = (*plain)->store().eventCount() / 2;
        auto sampleKept = LoadedPairs::run(**kept, *spec, {}, rows);
        auto sampleRead = LoadedPairs::run(**plain, *spec, {}, rows);
        QVERIFY(sampleKept && sampleRead);
        QVERIFY((*sampleKept)->usedKeptRecords());
        samePairs((*sampleKept)->pairs(), (*sampleRead)->pairs());
    }

    // A pair the recording cannot make says why, naming the event.
    void anAbsentEventSaysWhy()
    {
        std::vector<std::unique_ptr<RecordConsumer>> consumers;
        consumers.push_back(std::make_unique<EventPairs>(*presetPair("block")));
        auto trace = Trace::open(test::fixturePath("sched-mix.dat"), LoadOptions(), std::move(consumers));
        QVERIFY(trace);
        const auto* pairs = (*trace)->consumers().find<EventPairs>("latency:block");
        QVERIFY(pairs);
        // sched-mix.dat keeps every format of the machine, block's too, with no record of them.
        QCOMPARE(pairs->nothingPaired(),
                 std::string("the recording holds no block/block_rq_issue nor block/block_rq_complete events"));
        QCOMPARE(pairs->matcher().pairs().size(), size_t(0));
        // A field the format does not have cannot be bound.
        PairSpec wrong = *presetPair("irq");
        wrong.fields = {{"irq", "no_such_field"}};
        consumers.clear();
        consumers.push_back(std::make_unique<EventPairs>(wrong));
        trace = Trace::open(test::fixturePath("langraph-perfclock.dat"), LoadOptions(), std::move(consumers));
        QVERIFY(trace);
        pairs = (*trace)->consumers().find<EventPairs>("latency:irq");
        QCOMPARE(
            pairs->unbound(),
            std::string("the end event irq/irq_handler_exit is not in the recording (or has no field no_such_field)"));
        QCOMPARE(pairs->nothingPaired(), pairs->unbound());
        QCOMPARE(pairs->matcher().pairs().size(), size_t(0));
    }

    // A pair of one event: each record closes the open start of its key, then opens its own.
    // Between consecutive context switches on each CPU: a pair for each switch but a CPU's
    // first (an end with nothing to close is not unmatched here), their durations adding up
    // to each CPU's first to last switch; the last switch of each CPU stays open.
    void consecutiveRecordsOfOneEvent()
    {
        const PairSpec spec{"gap", "sched/sched_switch", "sched/sched_switch", {}, false, true, false};
        auto trace = Trace::open(test::fixturePath("sched-mix.dat"), LoadOptions());
        QVERIFY(trace);
        uint16_t type = 0;
        for (const Trace::EventFormatNames& f : (*trace)->recordedFormats())
            if (f.name == "sched_switch") type = f.type;
        QVERIFY(type);
        const EventStore& store = (*trace)->store();
        uint64_t pairs = 0, cpus = 0, total = 0;
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const CpuColumns& c = store.stream(StreamId(uint16_t(s))).columns;
            std::vector<uint64_t> times;
            for (size_t i = 0; i < c.size(); ++i)
                if (c.eventType[i] == type) times.push_back(c.timestamp[i]);
            if (times.empty()) continue;
            ++cpus;
            pairs += times.size() - 1;
            total += times.back() - times.front();
        }
        QVERIFY(pairs > 1000);
        auto loaded = LoadedPairs::run(**trace, spec);
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
        const PairMatcher& m = (*loaded)->pairs().matcher();
        QCOMPARE(m.pairs().size(), size_t(pairs));
        QCOMPARE(m.unmatchedStarts(), cpus);
        QCOMPARE(m.unmatchedEnds(), uint64_t(0));
        QCOMPARE(std::accumulate(m.pairs().duration.begin(), m.pairs().duration.end(), uint64_t(0)), total);
        // The same on the pipeline.
        std::vector<std::unique_ptr<RecordConsumer>> consumers;
        consumers.push_back(std::make_unique<EventPairs>(spec));
        auto fed = Trace::open(test::fixturePath("sched-mix.dat"), LoadOptions(), std::move(consumers));
        QVERIFY(fed);
        const auto* onPipeline = (*fed)->consumers().find<EventPairs>("latency:gap");
        QVERIFY(onPipeline && onPipeline->unbound().empty());
        QCOMPARE(onPipeline->matcher().pairs().duration, m.pairs().duration);
        QCOMPARE(onPipeline->matcher().unmatchedStarts(), m.unmatchedStarts());
    }

    // Groups: per matched value; the task's pid or the CPU when no field is matched.
    void groupsAreTheMatchedValues()
    {
        PairSpec spec = *presetPair("irq");
        std::vector<std::unique_ptr<RecordConsumer>> consumers;
        consumers.push_back(std::make_unique<EventPairs>(spec));
        spec.name = "irq-by-cpu";
        spec.fields.clear();
        consumers.push_back(std::make_unique<EventPairs>(spec));
        auto trace = Trace::open(test::fixturePath("langraph-perfclock.dat"), LoadOptions(), std::move(consumers));
        QVERIFY(trace);
        const auto* byIrq = (*trace)->consumers().find<EventPairs>("latency:irq");
        const auto* byCpu = (*trace)->consumers().find<EventPairs>("latency:irq-by-cpu");
        QVERIFY(byIrq && byCpu);
        QCOMPARE(byIrq->groupTitle(), std::string("irq"));
        QStringList irqs;
        for (const std::string& g : byIrq->groups()) irqs << QString::fromStdString(g);
        irqs.sort();
        QCOMPARE(irqs, (QStringList{"15", "19", "20", "21"}));
        QCOMPARE(byCpu->groupTitle(), std::string("cpu"));
        QCOMPARE(byCpu->matcher().pairs().size(), byIrq->matcher().pairs().size()); // one line per CPU at a time
        const EventStore& store = (*trace)->store();
        const PairMatcher::Pairs& p = byCpu->matcher().pairs();
        for (size_t i = 0; i < p.size(); ++i)
            QCOMPARE(byCpu->groups()[p.group[i]], std::to_string(store.stream(p.startEvent[i].stream).cpu));
    }
};

QTEST_GUILESS_MAIN(TestLatency)
#include "tst_latency.moc"
