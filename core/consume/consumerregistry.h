// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"
#include "store/recordtap.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct tep_handle;

namespace ringside {

class EventStore;

// The consumers of a trace by name, and what connects them to the page parser: bind()
// resolves every consumer's requests against the recording's formats once and turns them
// into record taps (one per event type, the union of the fields every consumer asked for);
// deliver() decodes what the taps collected into typed values and feeds each consumer its
// records in merged time order, batch after batch as the store grows. Consumers never see raw
// bytes or tap positions, so a new one (the plugin interface, opened up) is a name and a
// request list. One thread delivers (the analysis thread); the parser's threads feed pieces.
//
// Each batch is fed in two stages: first the consumers that tell the task index about tasks
// (Stage::Tasks: task creations, pids records name); then, once the caller indexed the
// batch's tasks, every other consumer, which finds each record's task made.
class ConsumerRegistry {
public:
    enum class Stage { Tasks, Analyses };
    struct FieldFormat {
        int offset = 0;
        int size = 0;
        bool isSigned = false;
        bool isText = false; // a fixed char array, read up to its first NUL

        // A field consumers can read, or nullopt: fields whose bytes are elsewhere in the
        // record (dynamic), numbers wider than a long, text longer than 256 bytes.
        static std::optional<FieldFormat> usable(int offset, int size, bool isSigned, bool isText, bool isDynamic);
        // The field's value from its bytes at `at`, of which `available` are there (the missing
        // bytes of a number cut by the record's end read as zeros).
        void decode(const uint8_t* at, int available, bool bigEndian, TypedValue& value) const;
    };
    struct EventFormat {
        uint16_t type = 0;
        std::function<std::optional<FieldFormat>(const std::string& name)> field;
    };
    // Finds an event format by system and name; nullopt when the recording has none.
    using FormatLookup = std::function<std::optional<EventFormat>(const std::string& system, const std::string& event)>;
    // The names of a system's events, for requests by prefix.
    using EventLister = std::function<std::vector<std::string>(const std::string& system)>;

    ConsumerRegistry();
    ~ConsumerRegistry();
    ConsumerRegistry(const ConsumerRegistry&) = delete;
    ConsumerRegistry& operator=(const ConsumerRegistry&) = delete;

    // Names are unique: adding a second consumer of the same name replaces nothing and
    // returns the one already registered.
    RecordConsumer& add(std::unique_ptr<RecordConsumer> consumer, Stage stage = Stage::Analyses);
    RecordConsumer* find(std::string_view name) const;
    template <typename T>
    T* find(std::string_view name) const
    {
        return dynamic_cast<T*>(find(name));
    }
    std::vector<std::string> names() const;

    // Binds every consumer (call once, after the last add()); returns the taps to capture.
    // `bigEndian`: the recording's byte order, for fields a request narrows. The records of
    // consumers fed in pieces are fed by the parser (RecordTap::feed), never kept.
    const std::vector<RecordTap>& bind(const FormatLookup& lookup, const EventLister& list = {},
                                       bool bigEndian = false);
    // The task of a pid at a time, for ConsumedRecord::task (the trace's task index), and when
    // the pid's next life begins (`until`), so that it is asked once per run of records.
    using TaskOf = std::function<TaskId(int32_t pid, uint64_t time, uint64_t* until)>;
    void setTaskOf(TaskOf taskOf) { m_taskOf = std::move(taskOf); }
    // Why a consumer stopped being fed (it threw: the message), or empty. The others go on.
    std::string failure(std::string_view name) const;
    // Stops a consumer that failed outside the registry's calls (its statistics threw).
    void markFailed(std::string_view name, const std::string& why);
    const std::vector<RecordTap>& taps() const { return m_taps; }

    // For the page parser, a recording's or a capture's alike: the sink that feeds the
    // consumers fed in pieces one stretch of `stream` (any thread), and where the stretch
    // landed in its stream and how many events it holds (the appending thread, once the
    // stretch's events are in the store; each stream's stretches in order). deliver() joins
    // the pieces placed, while it runs too.
    RecordSink* sinkFor(StreamId stream);
    // Where this registry's taps start in the list the parser collects (other taps before them).
    void setTapOffset(size_t offset) { m_tapOffset = offset; }
    void placed(RecordSink* sink, uint32_t firstIndex, uint32_t events);
    // Whether any consumer is fed in pieces (a load then needs sinkFor and placed).
    bool feedsPieces() const;

    // What the taps of bind() collected from a batch of pages: columns[tap][stream], records in
    // stream order. Kept until delivered.
    void addColumns(std::vector<std::vector<TapColumn>> columns);
    // Feeds the records of each stream's events below `limits` (per stream; what the merged
    // order has published) not fed yet, in merged order, giving the taps' memory back as it
    // goes; tells every consumer where the streams lost events; then flush(). A recording is
    // one batch; a live capture calls it after each publish. `progress` hears (records
    // delivered, records in all) about every 50 ms; when it returns false the delivery stops
    // there (a cancelled load). `tasksFed` is called once the Stage::Tasks consumers have the
    // batch (the caller indexes the batch's tasks there), before anything else is fed;
    // `piecesJoined` once the consumers fed in pieces have it, before the others are fed.
    using Progress = std::function<bool(uint64_t done, uint64_t total)>;
    void deliver(const EventStore& store, const std::vector<size_t>& limits, const Progress& progress = {},
                 const std::function<void()>& tasksFed = {}, const std::function<void()>& piecesJoined = {});
    // The events of each stream fed so far.
    const std::vector<size_t>& delivered() const { return m_walked; }
    // After the last batch: every consumer's finish().
    void finish();
    // How many threads the last deliver() fed the consumers on.
    size_t lanesUsed() const { return m_lanesUsed; }

private:
    struct Subscriber {
        size_t consumer;
        size_t request;
        std::vector<size_t> fields; // index into the tap's fields, per requested field
        // The same fields' formats, and the record bytes they need (read from the record when
        // fed in pieces).
        std::vector<FieldFormat> formats;
        int recordBytes = 0;
    };
    struct BoundTap {
        std::vector<FieldFormat> fields;
        std::vector<size_t> byteOffset;           // of each field within a hit's bytes
        std::vector<Subscriber> subscribers;      // fed in merged order by deliver()
        std::vector<Subscriber> pieceSubscribers; // fed in pieces while the pages are parsed
    };
    class Feeder;

    // Consumers fed by one thread, and what they read.
    struct Lane {
        bool tasks = false; // Stage::Tasks: the records' tasks are not indexed yet
        std::vector<bool> consumers;                             // per consumer: in this lane
        std::vector<std::vector<const Subscriber*>> subscribers; // per tap: this lane's
        std::vector<bool> releases;                              // per tap: only this lane reads it
        std::vector<uint8_t> counts;                             // per tap: its records count here
        std::atomic<bool> finished = false;
    };
    // One deliver() call's walk, shared by its lanes.
    struct Walk {
        std::vector<std::pair<size_t, size_t>> ranges; // per stream: events [first, second)
        std::vector<std::vector<uint32_t>> markers;    // per stream: lost-event markers
        uint64_t total = 0;                            // records in all
        std::atomic<uint64_t> done = 0;
        std::atomic<bool> stop = false;
    };
    // `events`: how many events the lanes walk.
    std::vector<Lane> planLanes(const std::vector<uint64_t>& recordsOfTap, uint64_t events) const;
    // The lane of the Stage::Tasks consumers, or none.
    std::unique_ptr<Lane> planTasksLane() const;
    void deliverLane(Lane& lane, const EventStore& store, Walk& walk, const std::function<void()>& report = {});
    struct Placed {
        Feeder* feeder;
        uint32_t firstIndex, events; // where its stretch is in its stream
    };
    // Hands placed pieces to their consumers' join(): those the batch reaches the end of
    // (`ends`: per stream, the events it reaches) and that complete the streams up to a time
    // (completeUpToATime); the others wait for a later batch, whose tasks they may name.
    void joinPieces(const EventStore& store, const std::vector<size_t>& ends);
    // The placed pieces to join now, by stream and in order: every stretch holding an event
    // before a time T, and none holding one at or after it (a join pairs calls across pieces by
    // time, and takes what it was given to be everything up to its latest time). A recording's
    // pieces all go at once; a capture's as its streams pass each other.
    std::vector<Placed> completeUpToATime(const EventStore& store, const std::vector<size_t>& ends);
    // The tap records of the walked events, per tap and stream: read only (made beside the
    // lanes' walk, on the joiner's thread).
    std::vector<std::vector<size_t>> countTaps(const EventStore& store, const Walk& walk) const;
    // After a walk: those records are consumed; whole pieces go.
    void consumeTaps(const std::vector<std::vector<size_t>>& walked);
    // A subscriber's values from a record's tap bytes, or from the record itself.
    static void decode(const BoundTap& tap, const Subscriber& subscriber, const uint8_t* bytes, bool bigEndian,
                       std::vector<TypedValue>& values);
    static void decodeRecord(const Subscriber& subscriber, const uint8_t* record, int recordBytes, bool bigEndian,
                             std::vector<TypedValue>& values);

    // Calls `what` on consumer `c` unless it failed before; an exception marks it failed.
    template <typename Call>
    void guarded(size_t c, Call what);

    std::vector<std::unique_ptr<RecordConsumer>> m_consumers;
    std::vector<Stage> m_stages;         // per consumer
    std::vector<std::string> m_failures; // per consumer
    std::vector<RecordTap> m_taps;
    std::vector<BoundTap> m_bound;
    std::vector<std::vector<TapColumn>> m_columns; // [tap][stream]: collected, not all consumed
    std::vector<std::vector<size_t>> m_consumed;   // [tap][stream]: records already fed
    std::vector<size_t> m_lostDelivered;           // per stream: lost-event markers already delivered
    std::vector<size_t> m_walked;                  // per stream: events already delivered
    size_t m_lanesUsed = 0;
    bool m_bigEndian = false;
    size_t m_tapOffset = 0;
    TaskOf m_taskOf;
    // sinkFor() is called from the parser's threads, placed() from a capture's while deliver()
    // joins.
    std::mutex m_feedersLock;
    std::vector<std::unique_ptr<Feeder>> m_feeders;
    std::vector<Placed> m_placed; // each stream's stretches in order
};

// The formats of a libtraceevent handle, for bind().
ConsumerRegistry::FormatLookup formatsOf(tep_handle* tep);
ConsumerRegistry::EventLister eventsOf(tep_handle* tep);

} // namespace ringside
