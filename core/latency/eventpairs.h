// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"
#include "latency/keyindex.h"
#include "latency/pairspec.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringside {

// Pairs starts and ends by key, fed in time order (PairSpec says what is unmatched). Plain
// values, so that a test drives it without a recording.
class PairMatcher {
public:
    // One row per pair, in the order their ends came.
    struct Pairs {
        std::vector<uint64_t> start, duration;
        std::vector<uint32_t> group; // the start's (see EventPairs::groups)
        std::vector<EventRef> startEvent, endEvent;
        size_t size() const { return duration.size(); }
    };

    explicit PairMatcher(bool nesting) : m_nesting(nesting) {}
    // `key`: the bytes that pair a start with its end. `groupOf()`, asked once per key, says
    // what statistics the key's pairs count in.
    // Returns the key's number, for endOf().
    template <typename GroupOf>
    uint32_t start(std::string_view key, uint64_t time, EventRef event, GroupOf&& groupOf)
    {
        const auto [number, added] = m_keys.findOrAdd(key);
        if (added) {
            m_slots.emplace_back();
            m_slots.back().group = groupOf();
        }
        open(m_slots[number], time, event);
        return number;
    }
    void start(std::string_view key, uint32_t group, uint64_t time, EventRef event)
    {
        start(key, time, event, [group] { return group; });
    }
    void end(std::string_view key, uint64_t time, EventRef event)
    {
        const uint32_t number = m_keys.find(key);
        if (number == KeyIndex::kNone && m_continues) noteBoundaryEnd(key, time, event);
        endOf(number, time, event);
    }
    // end() of the key start() numbered (a key's number never changes), or of none (kNone).
    void endOf(uint32_t number, uint64_t time, EventRef event);
    // Room for `count` pairs, when their number is known beforehand: grown once, not doubled.
    void reserve(size_t count, bool populate = true);
    // Whether a start of the key is open.
    bool isOpen(std::string_view key) const;
    // The recording ended: the starts still open are unmatched.
    void finish();
    // This matcher is fed the records after another's (a part of the records matched on a
    // thread of its own, then append()ed): it notes the first end of each key it has not seen
    // start, which may close the other's open start. Not with nesting.
    void continuing() { m_continues = true; }
    // Takes the pairs and counts of `later`, fed the records after this one's (continuing()),
    // as if this one had been fed them: an open start here is closed by later's first end of
    // its key, or replaced by its first start. `laterGroup[g]`: this one's number of later's
    // group g. Nothing is fed after; finish() follows.
    void append(const PairMatcher& later, const std::vector<uint32_t>& laterGroup);

    const Pairs& pairs() const { return m_pairs; }
    uint64_t unmatchedStarts() const { return m_replaced + (m_finished ? m_openAtEnd : 0); }
    uint64_t unmatchedEnds() const { return m_unmatchedEnds; }
    // Starts open now (before finish: they may still end).
    uint64_t openStarts() const { return m_openKeys + m_nestedBelow; }

private:
    struct Start {
        uint64_t time = 0;
        EventRef event;
    };
    // A key's state; kept when its start closes, as most keys open again (a task's next system
    // call), so that pairing allocates nothing per pair.
    struct Slot {
        uint32_t group = 0;
        bool open = false;
        Start start;
        std::vector<Start> below; // with nesting: the outer starts of the same key
    };
    void open(Slot& slot, uint64_t time, EventRef event);
    void noteBoundaryEnd(std::string_view key, uint64_t time, EventRef event);
    // continuing(): the first end of a key not started here, and where its pair would go.
    struct BoundaryEnd {
        std::string key;
        size_t at = 0; // pairs made before it
        uint64_t time = 0;
        EventRef event;
    };

    bool m_nesting;
    bool m_continues = false;
    KeyIndex m_boundaryKeys;
    std::vector<BoundaryEnd> m_boundaryEnds;
    KeyIndex m_keys;
    std::vector<Slot> m_slots; // by key number
    Pairs m_pairs;
    uint64_t m_replaced = 0, m_unmatchedEnds = 0, m_nestedBelow = 0, m_openKeys = 0, m_openAtEnd = 0;
    bool m_finished = false;
};

// An event-pair analysis on the one pipeline: fed the recording's (or a live capture's)
// records in time order, it pairs PairSpec's start and end events into durations. Statistics
// are kept per group: the values of the matched fields (a syscall's id, an IRQ line), or the
// task or CPU when no field is matched.
class EventPairs final : public RecordConsumer {
public:
    explicit EventPairs(PairSpec spec);

    std::string name() const override { return "latency:" + m_spec.name; }
    std::vector<EventRequest> requests() const override;
    void bind(const std::vector<bool>& bound) override;
    void setStreams(const std::vector<StreamInfo>& streams) override;
    void consume(const ConsumedRecord& record) override;
    void finish() override;
    // For a pair of one event whose records are ends or starts by conditions (PairSpec's
    // filters): the record as an end, then as a start, as it meets each side's.
    void consumeAs(const ConsumedRecord& record, bool asEnd, bool asStart);
    // A record whose matched values are numbers, each given as its 64 bits
    // (TypedValue::asUnsigned, host order): how LoadedPairs feeds the records it kept, without
    // decoding them into a ConsumedRecord. For pairs of two events.
    struct NumberRecord {
        bool isEnd = false;
        uint64_t timestamp = 0;
        EventRef event;
        int32_t pid = 0;
        TaskId task;
        const uint8_t* values = nullptr; // 8 bytes each, as many as the side matches
        const bool* isSigned = nullptr;  // each value's, for a new group's label
    };
    void consumeNumbers(const NumberRecord& record);
    // About as many pairs as will be made (the fewer of the starts and ends to come).
    void reservePairs(size_t count, bool populate = true) { m_matcher.reserve(count, populate); }
    // For matching on two threads: this one is fed the records after another's (see
    // PairMatcher::continuing); the other then append()s it. Pairs of two events, not nesting.
    void continuing() { m_matcher.continuing(); }
    void append(const EventPairs& later);

    const PairSpec& spec() const { return m_spec; }
    // Why nothing can be paired (an event or field the recording does not have), or empty.
    const std::string& unbound() const { return m_unbound; }
    // Why no pair was made, once fed: unbound(), or a side with no record ("the recording holds
    // no block/block_rq_issue events"); empty when pairs were made or both sides were seen.
    std::string nothingPaired() const;
    uint64_t startsSeen() const { return m_seen[0]; }
    uint64_t endsSeen() const { return m_seen[1]; }
    const PairMatcher& matcher() const { return m_matcher; }
    // Each group's label, by its number: the matched values ("19", "8:0, 123456"), or the task's
    // pid or CPU when no field is matched.
    const std::vector<std::string>& groups() const { return m_groupLabels; }
    // What the groups' labels are ("irq", "dev, sector", "pid", "cpu").
    std::string groupTitle() const;

private:
    // A pair of one event (sched_switch's prev_pid to a later one's next_pid; a record to the
    // next of its key): one request, each record an end, then a start.
    bool sameEvent() const;
    bool sameKeyFields() const;
    // The key of the record's values [firstValue, firstValue + values) in m_key, after the
    // task and CPU (keyFieldsAt() bytes) when they are matched.
    void makeKey(const ConsumedRecord& record, size_t firstValue, size_t values);
    // m_key with its task and CPU parts only.
    void startKey(int32_t pid, TaskId task, StreamId stream);
    size_t keyFieldsAt() const;
    // The pair's end or start of m_key's record; `valueOf(f)` gives the record's matched value f.
    void endPair(uint64_t time, EventRef event);
    template <typename ValueOf>
    void startPair(uint64_t time, EventRef event, int32_t pid, ValueOf&& valueOf);

    PairSpec m_spec;
    PairMatcher m_matcher;
    std::string m_unbound;
    std::vector<int> m_cpus;       // per stream
    uint64_t m_seen[2] = {0, 0};   // start and end records fed
    KeyBytes m_key;                // scratch, reused for every record
    // Per stream, the key of its last start and its number: the next end on the stream is
    // mostly of that key (a system call returns where it entered), found without a lookup.
    struct LastStart {
        KeyBytes key;
        uint32_t number = KeyIndex::kNone;
    };
    std::vector<LastStart> m_lastStart;
    KeyIndex m_groups; // a group's number is its key's
    std::vector<std::string> m_groupLabels;
};

} // namespace ringside
