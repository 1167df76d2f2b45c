// SPDX-License-Identifier: GPL-2.0-or-later
// Consumers by name: the registry's binding and delivery, and the built-in analyses driven
// with plain values (no recording needed).
#include "testsupport.h"

#include "analysis/cpuoccupancy.h"
#include "analysis/runningtasks.h"
#include "analysis/tracktables.h"
#include "consume/consumerregistry.h"
#include "decode/eventformatter.h"

#include <traceevent/event-parse.h>

#include <QTest>
#include <atomic>
#include <stdexcept>
#include <tuple>

#include <map>

using namespace ringside;

namespace {

// Records every record it is given, for checking what the registry delivers.
class Recorder : public RecordConsumer {
public:
    Recorder(std::string name, std::vector<EventRequest> requests)
        : m_name(std::move(name)), m_requests(std::move(requests))
    {}
    std::string name() const override { return m_name; }
    std::vector<EventRequest> requests() const override { return m_requests; }
    void bind(const std::vector<bool>& b) override { bound = b; }
    void consume(const ConsumedRecord& r) override
    {
        Seen seen{r.request, r.timestamp, r.stream, r.index, r.pid, r.flags, {}, {}};
        for (size_t i = 0; i < r.valueCount; ++i) {
            seen.numbers.push_back(r.field(i).isText() ? 0 : r.field(i).asSigned());
            seen.texts.push_back(std::string(r.field(i).asText()));
        }
        records.push_back(std::move(seen));
    }
    void flush() override { ++flushes; }
    void eventsLost(StreamId stream, uint64_t ts) override { losses.push_back({stream, ts, records.size()}); }

    struct Seen {
        size_t request;
        uint64_t ts;
        StreamId stream;
        uint32_t index;
        int32_t pid;
        uint8_t flags;
        std::vector<int64_t> numbers;
        std::vector<std::string> texts;
    };
    struct Loss {
        StreamId stream;
        uint64_t ts;
        size_t afterRecords; // records delivered before it
    };
    std::vector<bool> bound;
    std::vector<Seen> records;
    std::vector<Loss> losses;
    int flushes = 0;

private:
    std::string m_name;
    std::vector<EventRequest> m_requests;
};

// The same, fed in pieces while the pages are parsed: each piece keeps its stretch's records,
// joined with their place in the stream. `throwAt`: the piece throws at that record.
class PieceRecorder : public Recorder {
public:
    PieceRecorder(std::string name, std::vector<EventRequest> requests, size_t throwAt = SIZE_MAX)
        : Recorder(std::move(name), std::move(requests)), m_throwAt(throwAt)
    {}
    bool fedInPieces() const override { return true; }
    std::unique_ptr<StreamPiece> newPiece(StreamId) override { return std::make_unique<Piece>(*this); }
    void join(std::vector<FedPiece> pieces) override
    {
        ++joins;
        for (FedPiece& f : pieces) {
            auto& piece = static_cast<Piece&>(*f.piece);
            for (Seen seen : piece.records) {
                QCOMPARE(seen.stream, f.stream);
                seen.index += f.firstIndex;
                records.push_back(std::move(seen));
            }
        }
    }
    int joins = 0;

private:
    class Piece : public StreamPiece {
    public:
        explicit Piece(PieceRecorder& owner) : m_owner(owner) {}
        void consume(const ConsumedRecord& r) override
        {
            if (++m_owner.m_fed == m_owner.m_throwAt) throw std::runtime_error("piece broke on purpose");
            records.push_back({r.request, r.timestamp, r.stream, r.index, r.pid, r.flags, {}, {}});
            for (size_t i = 0; i < r.valueCount; ++i) records.back().numbers.push_back(r.field(i).asSigned());
        }
        std::vector<Seen> records;

    private:
        PieceRecorder& m_owner;
    };
    std::atomic<size_t> m_fed = 0;
    size_t m_throwAt;
};

ConsumedRecord record(StreamId stream, uint64_t ts, int32_t pid, const std::vector<TypedValue>& values)
{
    ConsumedRecord r;
    r.stream = stream;
    r.timestamp = ts;
    r.pid = pid;
    r.values = values.data();
    r.valueCount = values.size();
    return r;
}

} // namespace

class TestConsumers : public QObject {
    Q_OBJECT
private slots:
    void typedValuesSignExtend()
    {
        QCOMPARE(TypedValue::number(0xfffffff9u, true, 4).asSigned(), int64_t(-7));
        QCOMPARE(TypedValue::number(0xfffffff9u, false, 4).asSigned(), int64_t(0xfffffff9u));
        QCOMPARE(TypedValue::number(0x80, true, 1).asSigned(), int64_t(-128));
        QCOMPARE(TypedValue::number(~0ull, true, 8).asSigned(), int64_t(-1));
        QCOMPARE(TypedValue::text("abc").asText(), std::string_view("abc"));
    }

    void occupancyFromPlainValues()
    {
        CpuOccupancy occupancy; // states are pids
        AnalysisTables tables;
        occupancy.setTables(tables);
        occupancy.bind({true});
        // Stream 0 and 1: CPUs 0 and 1 of the top buffer; stream 2: CPU 0 of an instance
        // without sched_switch, which shares CPU 0's runs.
        occupancy.setStreams({{0, 0, 100}, {1, 0, 150}, {0, 1, 120}});
        const std::vector<TypedValue> a{TypedValue::number(7, true, 4), TypedValue::number(42, true, 4),
                                        TypedValue::text("worker")};
        occupancy.consume(record(StreamId(0), 200, 7, a));
        const std::vector<TypedValue> b{TypedValue::number(42, true, 4), TypedValue::number(0, true, 4),
                                        TypedValue::text("swapper/0")};
        occupancy.consume(record(StreamId(0), 300, 42, b));
        occupancy.flush();
        tables.publish({});
        const auto& table = static_cast<const IntervalTable&>(*tables.tables().at(0));
        QVERIFY(isSchedSlice(table.spec()));
        const RunningTasks running(&table, nullptr);
        QVERIFY(running.available());
        QCOMPARE(table.byOwner().of(0)->size(), size_t(2)); // the runs each switch ended; the last is open
        QCOMPARE(table.openOf(0).start, uint64_t(300));
        QVERIFY(!running.taskAt(StreamId(0), 99).valid());
        QCOMPARE(running.taskAt(StreamId(0), 100), TaskId(7)); // before the first switch: its prev task, from the first event
        QCOMPARE(running.taskAt(StreamId(0), 250), TaskId(42));
        QCOMPARE(running.taskAt(StreamId(0), 300), TaskId(0));
        QCOMPARE(running.taskAt(StreamId(0), 1u << 30), TaskId(0)); // the last runs on
        QVERIFY(!running.taskAt(StreamId(1), 250).valid()); // CPU 1 has no switch
        QVERIFY(!running.taskAt(StreamId(9), 250).valid()); // unknown stream
    }

    // The first name an event gives a pid stays its name (trace-cmd keeps the first one it
    // registers); the idle task and impossible pids are not named.
    void taskNamesKeepTheFirstName()
    {
        TaskNames names;
        QCOMPARE(names.requests().size(), size_t(5));
        auto feed = [&](size_t request, std::vector<TypedValue> values) {
            ConsumedRecord r = record(StreamId(0), 100, 1, values);
            r.request = request;
            names.consume(r);
        };
        const auto pid = [](int64_t p) { return TypedValue::number(uint64_t(p), true, 4); };
        feed(3, {pid(40), TypedValue::text("bash")});                   // fork: the child
        feed(0, {pid(40), TypedValue::text("find"), pid(0), TypedValue::text("swapper/1")}); // after exec
        feed(0, {pid(0), TypedValue::text("swapper/0"), pid(41), TypedValue::text("xargs")});
        feed(1, {pid(41), TypedValue::text("sh")});
        feed(4, {pid(-1), TypedValue::text("nobody")});
        feed(2, {pid(42), TypedValue::text("")});
        QCOMPARE(names.name(40), std::string("bash"));
        QCOMPARE(names.name(41), std::string("xargs"));
        QVERIFY(names.name(0).empty());
        QVERIFY(names.name(42).empty());
        QCOMPARE(names.size(), size_t(2));
    }

    void processGroupsFromPlainValues()
    {
        ProcessGroups groups;
        groups.flush();
        QVERIFY(!groups.available());
        QCOMPARE(groups.members(10), std::vector<int32_t>{10});
        auto created = [&](uint64_t ts, int32_t creator, int32_t task, uint64_t flags) {
            const std::vector<TypedValue> v{TypedValue::number(uint64_t(task), true, 4),
                                            TypedValue::number(flags, false, 8)};
            groups.consume(record(StreamId(0), ts, creator, v));
        };
        created(10, 100, 101, ProcessGroups::kCloneThread); // 100 starts a thread 101
        created(20, 101, 102, ProcessGroups::kCloneThread); // 101 starts a thread 102: same process
        created(30, 100, 200, 0);                           // a child process
        created(40, 200, 201, ProcessGroups::kCloneThread | 0x100);
        groups.flush();
        QVERIFY(groups.available());
        QCOMPARE(groups.leader(102), 100);
        QCOMPARE(groups.members(102), (std::vector<int32_t>{100, 101, 102}));
        QCOMPARE(groups.members(200), (std::vector<int32_t>{200, 201}));
        QCOMPARE(groups.leader(200), 200);
        QCOMPARE(groups.members(7), std::vector<int32_t>{7});
    }

    void bindMergesRequestsOfOneEventIntoOneTap()
    {
        ConsumerRegistry registry;
        auto& first = static_cast<Recorder&>(registry.add(std::make_unique<Recorder>(
            "first", std::vector<EventRequest>{{"sched", "sched_switch", {"prev_pid", "next_pid"}},
                                               {"none", "missing", {"x"}}})));
        auto& second = static_cast<Recorder&>(registry.add(std::make_unique<Recorder>(
            "second", std::vector<EventRequest>{{"sched", "sched_switch", {"next_pid", "prev_state"}},
                                                {"sched", "sched_switch", {"nope"}}})));
        // A second consumer of an existing name is not added.
        QCOMPARE(&registry.add(std::make_unique<Recorder>("first", std::vector<EventRequest>{})),
                 static_cast<RecordConsumer*>(&first));
        QCOMPARE(registry.names(), (std::vector<std::string>{"first", "second"}));
        QCOMPARE(registry.find<Recorder>("second"), &second);
        QVERIFY(!registry.find("third"));

        const std::map<std::string, ConsumerRegistry::FieldFormat> fields{{"prev_pid", {24, 4, true, false}},
                                                                          {"next_pid", {56, 4, true, false}},
                                                                          {"prev_state", {32, 8, false, false}}};
        auto lookup = [&](const std::string& system,
                          const std::string& event) -> std::optional<ConsumerRegistry::EventFormat> {
            if (system != "sched" || event != "sched_switch") return std::nullopt;
            return ConsumerRegistry::EventFormat{
                316, [&](const std::string& name) -> std::optional<ConsumerRegistry::FieldFormat> {
                    auto it = fields.find(name);
                    if (it == fields.end()) return std::nullopt;
                    return it->second;
                }};
        };
        const auto& taps = registry.bind(lookup);
        QCOMPARE(taps.size(), size_t(1));
        QCOMPARE(taps[0].eventType, uint16_t(316));
        QCOMPARE(taps[0].fields, (std::vector<std::pair<int, int>>{{24, 4}, {56, 4}, {32, 8}}));
        QCOMPARE(first.bound, (std::vector<bool>{true, false}));
        QCOMPARE(second.bound, (std::vector<bool>{true, false}));

        // A narrowed number keeps its low bytes: first in little-endian records, last in
        // big-endian ones.
        for (const bool bigEndian : {false, true}) {
            ConsumerRegistry narrowed;
            narrowed.add(std::make_unique<Recorder>(
                "narrow",
                std::vector<EventRequest>{{"sched", "sched_switch", {"prev_state", "prev_pid"}, false, {2, 2}}}));
            const auto& narrowTaps = narrowed.bind(lookup, {}, bigEndian);
            QCOMPARE(narrowTaps.size(), size_t(1));
            QCOMPARE(narrowTaps[0].fields,
                     (std::vector<std::pair<int, int>>{{bigEndian ? 38 : 32, 2}, {bigEndian ? 26 : 24, 2}}));
        }
    }

    // Each lost-event gap reaches every consumer once, between the records before and after it,
    // as do the common flags of each record.
    void deliversLostEventsInOrder()
    {
        std::vector<std::unique_ptr<RecordConsumer>> extra;
        extra.push_back(
            std::make_unique<Recorder>("recorder", std::vector<EventRequest>{{"sched", "sched_switch", {"prev_pid"}},
                                                                             {"sched", "sched_wakeup", {"pid"}}}));
        auto opened = Trace::open(test::fixturePath("lost-events.dat"), LoadOptions(), std::move(extra));
        QVERIFY(opened);
        const EventStore& store = (*opened)->store();
        auto* recorder = (*opened)->consumers().find<Recorder>("recorder");
        size_t gaps = 0;
        for (size_t s = 0; s < store.streamCount(); ++s)
            gaps += store.stream(StreamId(uint16_t(s))).columns.lost.size();
        QVERIFY(gaps > 0);
        QCOMPARE(recorder->losses.size(), gaps);
        for (const Recorder::Loss& loss : recorder->losses) {
            const auto& columns = store.stream(loss.stream).columns;
            if (loss.afterRecords > 0) QVERIFY(recorder->records[loss.afterRecords - 1].ts <= loss.ts);
            if (loss.afterRecords < recorder->records.size())
                QVERIFY(recorder->records[loss.afterRecords].ts >= loss.ts);
            // The gap's time is that of the event it precedes.
            bool found = false;
            for (size_t l = 0; l < columns.lost.size(); ++l)
                found |= columns.timestamp[columns.lost[l].beforeEvent] == loss.ts;
            QVERIFY(found);
        }
        for (const auto& seen : recorder->records)
            QCOMPARE(seen.flags, store.stream(seen.stream).columns.flags[seen.index]);
    }

    // Consumers are fed on two threads when there is enough to share; each still gets every
    // record of its requests once, in merged order, whichever lane it is in and whether or not
    // it shares a tap with a consumer of the other lane.
    // Consumers fed in pieces while the pages are parsed get the records the merged delivery
    // gives, each placed at its event however the streams are cut; a piece that throws stops
    // its consumer only.
    void piecesFeedWhileParsing()
    {
        const std::vector<EventRequest> syscalls{{"raw_syscalls", "sys_enter", {"id"}},
                                                 {"raw_syscalls", "sys_exit", {"id", "ret"}}};
        std::vector<std::unique_ptr<RecordConsumer>> extra;
        extra.push_back(std::make_unique<Recorder>("merged", syscalls));
        extra.push_back(std::make_unique<PieceRecorder>("pieces", syscalls));
        extra.push_back(std::make_unique<PieceRecorder>("broken", syscalls, 100));
        LoadOptions options;
        options.segmentBytes = 1; // a stretch per run of pages
        auto opened = Trace::open(test::fixturePath("execve-e2big.dat"), options, std::move(extra));
        QVERIFY(opened);
        const Trace& trace = **opened;
        auto* merged = trace.consumers().find<Recorder>("merged");
        auto* pieces = trace.consumers().find<PieceRecorder>("pieces");
        QVERIFY(merged->records.size() > 3000);
        QCOMPARE(pieces->joins, 1);
        QCOMPARE(pieces->records.size(), merged->records.size());
        auto key = [](const Recorder::Seen& s) { return std::make_tuple(s.stream.value, s.index); };
        std::vector<Recorder::Seen> want = merged->records, got = pieces->records;
        auto byPlace = [&](const Recorder::Seen& a, const Recorder::Seen& b) { return key(a) < key(b); };
        std::sort(want.begin(), want.end(), byPlace);
        std::sort(got.begin(), got.end(), byPlace);
        for (size_t i = 0; i < got.size(); ++i) {
            QCOMPARE(key(got[i]), key(want[i]));
            QCOMPARE(got[i].ts, want[i].ts);
            QCOMPARE(got[i].request, want[i].request);
            QCOMPARE(got[i].numbers, want[i].numbers);
        }
        QCOMPARE(trace.consumers().failure("broken"), std::string("piece broke on purpose"));
        QCOMPARE(trace.consumers().find<PieceRecorder>("broken")->joins, 0);
        QVERIFY(trace.consumers().failure("pieces").empty());
    }

    void lanesFeedEveryConsumerInOrder()
    {
        const std::vector<EventRequest> syscalls{{"raw_syscalls", "sys_enter", {"id"}},
                                                 {"raw_syscalls", "sys_exit", {"id", "ret"}}};
        std::vector<std::unique_ptr<RecordConsumer>> extra;
        // The second asks for the numbers' low 4 bytes only: its values must equal the first's.
        std::vector<EventRequest> narrowed = syscalls;
        for (EventRequest& request : narrowed) request.narrow = {4};
        extra.push_back(std::make_unique<Recorder>("first", syscalls));
        extra.push_back(std::make_unique<Recorder>("second", narrowed));
        extra.push_back(
            std::make_unique<Recorder>("third", std::vector<EventRequest>{{"sched", "sched_switch", {"prev_pid"}}}));
        auto opened = Trace::open(test::fixturePath("execve-e2big.dat"), LoadOptions(), std::move(extra));
        QVERIFY(opened);
        const Trace& trace = **opened;
        const EventStore& store = trace.store();
        QCOMPARE(trace.consumers().lanesUsed(), size_t(2));
        const auto counts = store.eventTypeCounts();
        auto countOf = [&](const char* system, const char* name) {
            tep_event* event = tep_find_event_by_name(trace.tep(), system, name);
            return event ? counts[size_t(event->id)] : uint64_t(0);
        };
        const uint64_t calls = countOf("raw_syscalls", "sys_enter") + countOf("raw_syscalls", "sys_exit");
        const uint64_t switches = countOf("sched", "sched_switch");
        QVERIFY(calls > 3000 && switches > 100);
        for (const char* name : {"first", "second", "third"}) {
            auto* recorder = trace.consumers().find<Recorder>(name);
            QVERIFY(recorder);
            const bool third = std::string(name) == "third";
            QCOMPARE(uint64_t(recorder->records.size()), third ? switches : calls);
            QCOMPARE(recorder->flushes, 1);
            size_t lastRow = 0;
            for (size_t i = 0; i < recorder->records.size(); ++i) {
                const auto& seen = recorder->records[i];
                const size_t row = store.rowOf(EventRef{seen.stream, seen.index});
                if (i) QVERIFY2(row > lastRow, qPrintable(QString("%1: record %2 out of order").arg(name).arg(i)));
                lastRow = row;
                const auto& columns = store.stream(seen.stream).columns;
                QCOMPARE(seen.ts, columns.timestamp[seen.index]);
                // A switch's prev_pid is the task that ran before it: the event's own pid.
                if (third) QCOMPARE(int32_t(seen.numbers[0]), columns.pid[seen.index]);
            }
        }
        // The two lanes saw the same values of the tap they share (NR -1 sign-extended).
        const auto& first = trace.consumers().find<Recorder>("first")->records;
        const auto& second = trace.consumers().find<Recorder>("second")->records;
        for (size_t i = 0; i < first.size(); ++i) QCOMPARE(first[i].numbers, second[i].numbers);
    }

    // Every record of the requested events reaches the consumer once, in merged order, with
    // the values libtraceevent decodes for it.
    void deliversEveryRecordInMergedOrderWithItsValues()
    {
        std::vector<std::unique_ptr<RecordConsumer>> extra;
        extra.push_back(std::make_unique<Recorder>(
            "recorder", std::vector<EventRequest>{{"sched", "sched_wakeup", {"pid", "comm", "target_cpu"}},
                                                  {"sched", "sched_switch", {"prev_state", "next_comm"}}}));
        auto opened = Trace::open(test::fixturePath("threads.dat"), LoadOptions(), std::move(extra));
        QVERIFY(opened);
        const Trace& trace = **opened;
        const EventStore& store = trace.store();
        auto* recorder = trace.consumers().find<Recorder>("recorder");
        QVERIFY(recorder);
        QCOMPARE(recorder->bound, (std::vector<bool>{true, true}));
        QCOMPARE(recorder->flushes, 1);
        tep_event* wakeup = tep_find_event_by_name(trace.tep(), "sched", "sched_wakeup");
        tep_event* sw = tep_find_event_by_name(trace.tep(), "sched", "sched_switch");
        QVERIFY(wakeup && sw);
        const uint64_t expected = store.eventTypeCounts()[size_t(wakeup->id)] + store.eventTypeCounts()[size_t(sw->id)];
        QVERIFY(expected > 100);
        QCOMPARE(uint64_t(recorder->records.size()), expected);

        // Merged order: the rows of these records, in the order delivered, only increase.
        size_t lastRow = 0;
        EventFormatter formatter(trace);
        for (size_t i = 0; i < recorder->records.size(); ++i) {
            const auto& seen = recorder->records[i];
            const EventRef e{seen.stream, seen.index};
            const size_t row = store.rowOf(e);
            QVERIFY(row < store.eventCount());
            if (i) QVERIFY2(row > lastRow, qPrintable(QString("record %1 out of merged order").arg(i)));
            lastRow = row;
            QCOMPARE(seen.ts, store.timestamp(e));
            QCOMPARE(seen.pid, store.stream(e.stream).columns.pid[e.index]);
            if (i % 37) continue; // decode a sample with libtraceevent and compare
            std::map<std::string, std::string> decoded;
            for (const FieldValue& f : formatter.fields(e)) decoded[f.name] = f.value;
            const std::vector<std::string> names = seen.request == 0
                                                       ? std::vector<std::string>{"pid", "comm", "target_cpu"}
                                                       : std::vector<std::string>{"prev_state", "next_comm"};
            for (size_t f = 0; f < names.size(); ++f) {
                const std::string mine =
                    names[f] == "comm" || names[f] == "next_comm" ? seen.texts[f] : std::to_string(seen.numbers[f]);
                QCOMPARE(mine, decoded[names[f]]);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestConsumers)
#include "tst_consumers.moc"
