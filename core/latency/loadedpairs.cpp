// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/loadedpairs.h"

#include "latency/steptimes.h"

#include "consume/consumerfailure.h"
#include "consume/consumerregistry.h"
#include "decode/recordwalker.h"
#include "query/eventfilter.h"
#include "store/eventstore.h"
#include "store/taskindex.h"
#include "trace.h"
#include "util/bytereader.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <queue>
#include <thread>

namespace ringside {

namespace {

// A record's text field begins with a prefix (PairSpec::TextPrefix): read here, as
// libtraceevent's filters read a flexible array (print's `char buf[]`) as empty.
struct TextTest {
    bool active = false;
    int offset = 0, size = 0; // size 0: a flexible array, to the record's end
    bool dynamic = false;     // a __data_loc field: its offset and length in the record
    std::string prefix;

    bool meets(const uint8_t* record, int recordSize, bool bigEndian) const
    {
        if (!active) return true;
        int from = offset, length = size ? size : recordSize - offset;
        if (dynamic) {
            if (offset < 0 || offset + 4 > recordSize) return false;
            const uint32_t where = uint32_t(ByteReader::decode(record + offset, 4, bigEndian));
            from = int(where & 0xffff);
            length = int(where >> 16);
        }
        if (from < 0 || from > recordSize || length < 0) return false;
        length = std::min(length, recordSize - from);
        return size_t(length) >= prefix.size() && std::memcmp(record + from, prefix.data(), prefix.size()) == 0;
    }
};

// The text test of an event's field, or why the event has no such field.
Result<TextTest> textTestOf(tep_handle* tep, const std::string& event, const PairSpec::TextPrefix& text)
{
    TextTest test;
    if (text.empty()) return test;
    const size_t slash = event.find('/');
    tep_event* format =
        tep_find_event_by_name(tep, slash == std::string::npos ? nullptr : event.substr(0, slash).c_str(),
                               event.substr(slash == std::string::npos ? 0 : slash + 1).c_str());
    tep_format_field* field = format ? tep_find_field(format, text.field.c_str()) : nullptr;
    if (!field) return Error{"the event " + event + " has no field " + text.field};
    test.active = true;
    test.offset = field->offset;
    test.size = field->size;
    test.dynamic = field->flags & TEP_FIELD_IS_DYNAMIC;
    test.prefix = text.prefix;
    return test;
}

// One side of the pair as the recording has it: its event type and the fields it is matched by.
struct PairSide {
    uint16_t type = 0;
    std::vector<ConsumerRegistry::FieldFormat> fields;
    std::vector<size_t> at; // each field's offset in a hit's bytes
    size_t bytes = 0;
    std::shared_ptr<FilterExpression> filter;
    TextTest text;
};

// The records of both sides in one stream, in its order: their times, their index with the
// side in the top bit, their pid, and the matched values: read again from the pages, the
// fields' bytes (`stride` each, zeros where a record was short); kept by a RecordsKeeper, each
// value's 64 bits, in 4 bytes while every value of the stretch is a sign-extended 32-bit
// number (a system call's, an IRQ line's; millions of records make every byte count).
struct StreamHits {
    StepTimes time;
    std::vector<uint32_t> indexAndSide;
    std::vector<int32_t> pid; // kept: the store's pid column is a dictionary, slower to read
    std::vector<uint8_t> bytes;
    std::vector<uint32_t> narrow; // kept values, low halves
    std::vector<uint64_t> wide;   // kept values, once one is not narrow
    bool isWide = false;
    static constexpr uint32_t kEnd = 0x80000000u;
    // A pair of one event with conditions: the record is not an end, not a start.
    static constexpr uint32_t kNotEnd = 0x80000000u, kNotStart = 0x40000000u, kIndex = 0x3fffffffu;

    static uint64_t widened(uint32_t low) { return uint64_t(int64_t(int32_t(low))); }
    void keepValue(uint64_t bits)
    {
        if (!isWide && bits != widened(uint32_t(bits))) {
            wide.reserve(narrow.capacity());
            for (uint32_t low : narrow) wide.push_back(widened(low));
            narrow = {};
            isWide = true;
        }
        if (isWide)
            wide.push_back(bits);
        else
            narrow.push_back(uint32_t(bits));
    }
    // Kept record i's `values` values as 64-bit words, in `words` when they are narrow.
    const uint64_t* keptValues(size_t i, size_t values, uint64_t* words) const
    {
        if (isWide) return wide.data() + i * values;
        for (size_t v = 0; v < values; ++v) words[v] = widened(narrow[i * values + v]);
        return words;
    }
};

// The pair's records of one stream, in order: in stretches that never outgrow what they
// reserved. A full one is followed by one four times larger (up to 2^20 records), so that
// millions of records are never copied as they come. (Offered huge pages, they were slower: a
// fault then waits for a huge page to be made.)
struct KeptStretches {
    std::vector<StreamHits> stretches;
    bool usable = true;

    void keep(const ConsumedRecord& record, size_t values)
    {
        if (record.index > StreamHits::kIndex || record.valueCount != values) usable = false;
        if (stretches.empty() || stretches.back().time.size() == stretches.back().time.capacity()) {
            const size_t n = stretches.empty() ? 1024 : std::min<size_t>(stretches.back().time.capacity() * 4, 1 << 20);
            // A stream whose values were wide stays so.
            const bool wide = !stretches.empty() && stretches.back().isWide;
            StreamHits& next = stretches.emplace_back();
            next.time.reserve(n);
            next.indexAndSide.reserve(n);
            next.pid.reserve(n);
            next.isWide = wide;
            if (wide)
                next.wide.reserve(n * values);
            else
                next.narrow.reserve(n * values);
        }
        StreamHits& into = stretches.back();
        into.time.push_back(record.timestamp);
        into.indexAndSide.push_back(record.index | (record.request ? StreamHits::kEnd : 0));
        into.pid.push_back(record.pid);
        for (size_t v = 0; v < values; ++v) {
            uint64_t bits = 0;
            if (v < record.valueCount) {
                const TypedValue& value = record.field(v);
                if (value.isText()) usable = false; // kept as numbers only: read from the pages
                bits = value.asUnsigned();
            }
            into.keepValue(bits);
        }
    }
};

// The records of one stretch of a stream as the parser's threads find them (RecordsKeeper).
class KeptPiece final : public StreamPiece {
public:
    explicit KeptPiece(size_t values) : m_values(values) {}
    void consume(const ConsumedRecord& record) override { kept.keep(record, m_values); }

    KeptStretches kept;

private:
    size_t m_values;
};

// Keeps a pair's records while the pages are parsed, for LoadedPairs::run.
class RecordsKeeper final : public RecordConsumer {
public:
    explicit RecordsKeeper(const PairSpec& spec) : m_spec(spec), m_requests(EventPairs(spec).requests())
    {
        for (const EventRequest& r : m_requests) m_values = std::max(m_values, r.fields.size());
    }
    static std::string nameOf(const PairSpec& spec) { return "latency-records:" + spec.name; }
    std::string name() const override { return nameOf(m_spec); }
    std::vector<EventRequest> requests() const override { return m_requests; }
    void setStreams(const std::vector<StreamInfo>& streams) override
    {
        if (m_streams.size() < streams.size()) m_streams.resize(streams.size());
    }
    bool fedInPieces() const override { return true; }
    std::unique_ptr<StreamPiece> newPiece(StreamId) override { return std::make_unique<KeptPiece>(m_values); }
    void join(std::vector<FedPiece> pieces) override
    {
        // Each piece's stretches stay as they were kept, in order: copying them into one
        // column per stream cost more than the matching saved.
        for (FedPiece& fed : pieces) {
            KeptStretches& kept = static_cast<KeptPiece*>(fed.piece.get())->kept;
            if (fed.stream.value >= m_streams.size()) m_streams.resize(fed.stream.value + 1);
            m_usable = m_usable && kept.usable;
            for (StreamHits& stretch : kept.stretches) {
                for (uint32_t& v : stretch.indexAndSide) {
                    const uint64_t index = uint64_t(v & StreamHits::kIndex) + fed.firstIndex;
                    if (index > StreamHits::kIndex) m_usable = false;
                    v = uint32_t(index) | (v & StreamHits::kEnd);
                }
                if (!stretch.time.empty()) m_streams[fed.stream.value].stretches.push_back(std::move(stretch));
            }
        }
    }
    // Fed in merged order by a caller that feeds so: the same records, kept by stream.
    void consume(const ConsumedRecord& record) override
    {
        if (record.stream.value >= m_streams.size()) m_streams.resize(record.stream.value + 1);
        m_streams[record.stream.value].keep(record, m_values);
    }

    const PairSpec& spec() const { return m_spec; }
    // Per stream, its records in stretches, in order.
    const std::vector<KeptStretches>& streams() const { return m_streams; }
    size_t values() const { return m_values; }
    bool usable() const
    {
        return m_usable &&
               std::all_of(m_streams.begin(), m_streams.end(), [](const KeptStretches& k) { return k.usable; });
    }

private:
    PairSpec m_spec;
    std::vector<EventRequest> m_requests;
    size_t m_values = 0;
    std::vector<KeptStretches> m_streams;
    bool m_usable = true;
};

std::optional<PairSide> sideOf(const ConsumerRegistry::FormatLookup& lookup, const EventRequest& request)
{
    const std::optional<ConsumerRegistry::EventFormat> format = lookup(request.system, request.event);
    if (!format) return std::nullopt;
    PairSide side;
    side.type = format->type;
    for (const std::string& name : request.fields) {
        const std::optional<ConsumerRegistry::FieldFormat> field = format->field(name);
        if (!field) return std::nullopt;
        side.at.push_back(side.bytes);
        side.bytes += size_t(field->size);
        side.fields.push_back(*field);
    }
    return side;
}

// Conditions and marks are tested on each record whole: such pairs are read from the pages.
bool testsWholeRecords(const PairSpec& spec)
{
    return !spec.filterFrom.empty() || !spec.filterTo.empty() || !spec.startText.empty() || !spec.endText.empty();
}

// The keeper of the trace that kept `spec`'s records whole, or null (also for a pair that
// tests its records whole).
const RecordsKeeper* keeperOf(const Trace& trace, const PairSpec& spec)
{
    if (testsWholeRecords(spec)) return nullptr;
    const ConsumerRegistry& consumers = trace.consumers();
    const auto* keeper = consumers.find<RecordsKeeper>(RecordsKeeper::nameOf(spec));
    if (!keeper || !keeper->usable() || !consumers.failure(keeper->name()).empty()) return nullptr;
    const PairSpec& kept = keeper->spec();
    if (kept.from != spec.from || kept.to != spec.to || kept.fields != spec.fields) return nullptr;
    return keeper;
}

} // namespace

std::unique_ptr<RecordConsumer> LoadedPairs::recordsKeeper(const PairSpec& spec)
{
    if (testsWholeRecords(spec)) return nullptr;
    return std::make_unique<RecordsKeeper>(spec);
}

Result<std::unique_ptr<LoadedPairs>> LoadedPairs::run(const Trace& trace, const PairSpec& spec,
                                                      const Progress& progress, uint64_t sampleRows)
{
    const std::string& path = trace.file().path();
    std::unique_ptr<LoadedPairs> result(new LoadedPairs);
    result->m_pairs = std::make_unique<EventPairs>(spec);
    EventPairs& pairs = *result->m_pairs;
    const std::vector<EventRequest> requests = pairs.requests();
    // Two requests, or one for a pair of one event (each record an end, then a start).
    const size_t n = std::min<size_t>(requests.size(), 2);
    std::optional<PairSide> sides[2];
    {
        const TepAccess tep = trace.tep();
        const ConsumerRegistry::FormatLookup lookup = formatsOf(tep);
        for (size_t s = 0; s < n; ++s) sides[s] = sideOf(lookup, requests[s]);
    }
    std::vector<bool> bound;
    for (size_t s = 0; s < n; ++s) bound.push_back(sides[s].has_value());
    pairs.bind(bound);
    if (std::count(bound.begin(), bound.end(), false)) return result; // unbound() says which
    TextTest endText; // a pair of one event's end test (its one side has the start's)
    {
        const TepAccess tep = trace.tep();
        for (size_t s = 0; s < 2; ++s) {
            auto test = textTestOf(tep, s ? spec.to : spec.from, s ? spec.endText : spec.startText);
            if (!test) return Error{path + ": the " + (s ? "end" : "start") + " marks: " + test.error().message};
            if (s == 1 && n == 1)
                endText = std::move(test.value());
            else
                sides[s]->text = std::move(test.value());
        }
    }
    // Each side's condition. A pair of one event has one side, whose records are ends where
    // they meet the end's condition and starts where they meet the start's (endFilter).
    std::shared_ptr<FilterExpression> endFilter;
    const std::string conditions[] = {spec.filterFrom, spec.filterTo};
    for (size_t s = 0; s < 2; ++s) {
        if (conditions[s].empty()) continue;
        if (s == 1 && n == 1 && conditions[1] == conditions[0]) {
            endFilter = sides[0]->filter;
            continue;
        }
        const std::string& event = s ? spec.to : spec.from;
        auto compiled = FilterExpression::compile(trace, event + ": " + conditions[s]);
        if (!compiled) return Error{path + ": the " + (s ? "end" : "start") + " filter: " + compiled.error().message};
        if (s == 1 && n == 1)
            endFilter = std::move(compiled.value());
        else
            sides[s]->filter = std::move(compiled.value());
    }
    // With conditions on one event's records, each hit says which it is not: an end, a start.
    const bool roles = n == 1 && (sides[0]->filter || endFilter || sides[0]->text.active || endText.active);
    bool bigEndian = trace.file().info().bigEndian;
    size_t stride = 0, valueCount = 0;
    for (size_t s = 0; s < n; ++s) {
        stride = std::max(stride, sides[s]->bytes);
        valueCount = std::max(valueCount, sides[s]->fields.size());
    }

    // Each stream's hits, walked on as many threads as there are cores (the pages are read and
    // decompressed again: most of the time), or kept by a recordsKeeper() during the load. A
    // filter's handle is one: then on one thread.
    const EventStore& store = trace.store();
    const size_t streams = store.streamCount();
    std::vector<StreamHits> hits(streams);
    const RecordsKeeper* keeper = keeperOf(trace, spec);
    std::vector<bool> wanted(65536, false);
    for (size_t s = 0; s < n; ++s) wanted[sides[s]->type] = true;
    uint64_t total = 0;
    // What the analyses have seen of a store that may still grow (a capture): the merged order's
    // rows whose tasks are made, so that every record is fed in time order with its task.
    const size_t rows = size_t(std::min({store.eventCount(), trace.analysedRows(), sampleRows}));
    const std::vector<size_t> limits = store.order().countsAt(rows, streams);
    bool whole = true;
    for (size_t s = 0; s < streams; ++s) {
        total += limits[s];
        whole = whole && limits[s] == store.stream(StreamId(uint16_t(s))).columns.size();
    }
    for (size_t s = 0; s < streams && roles; ++s)
        if (limits[s] > StreamHits::kIndex)
            return Error{path + ": the latency analysis failed: a CPU holds more events than a pair of one event "
                                "with conditions can index"};
    std::atomic<uint64_t> walked{0};
    std::atomic<bool> stop{false};
    std::atomic<size_t> nextStream{0};
    std::atomic<uint64_t> seen[2] = {0, 0}; // records of each type walked, filtered or not
    auto walkStreams = [&](bool reports) {
        for (size_t s; (s = nextStream.fetch_add(1)) < streams && !stop;) {
            const StreamId stream(static_cast<uint16_t>(s));
            const CpuColumns& columns = store.stream(stream).columns;
            const int cpu = store.stream(stream).cpu;
            StreamHits& out = hits[s];
            // About the stream's share of the two types' records: grown a few times at most.
            uint64_t typed = 0;
            for (size_t side = 0; side < n; ++side) typed += store.eventTypeCount(sides[side]->type);
            const size_t limit = limits[s];
            const size_t expected =
                size_t(double(limit) * double(typed) / double(std::max<uint64_t>(store.eventCount(), 1)) * 1.1);
            out.time.reserve(expected);
            out.indexAndSide.reserve(expected);
            out.pid.reserve(expected);
            out.bytes.resize(expected * stride);
            uint64_t sinceReport = 0, seenHere[2] = {0, 0};
            size_t used = 0; // of out.bytes, grown by doubling: zeros where a record was short
            forEachRecord(store, stream, wanted, [&](uint32_t index, const uint8_t* record, int size) {
                if (index >= limit) return;
                const uint16_t type = columns.eventType[index];
                const uint64_t time = columns.timestamp[index];
                ++seenHere[type == sides[0]->type ? 0 : 1];
                auto meets = [&](const std::shared_ptr<FilterExpression>& filter) {
                    if (!filter) return true;
                    tep_record r{};
                    r.data = const_cast<uint8_t*>(record);
                    r.size = size;
                    r.ts = time;
                    r.cpu = cpu;
                    return filter->matches(r, type);
                };
                for (size_t side = 0; side < n; ++side) {
                    const PairSide& it = *sides[side];
                    if (it.type != type) continue;
                    uint32_t flags = side ? StreamHits::kEnd : 0;
                    if (roles) {
                        const bool startMeets = meets(it.filter);
                        const bool asStart = startMeets && it.text.meets(record, size, bigEndian);
                        const bool asEnd = endText.meets(record, size, bigEndian) &&
                                           (endFilter == it.filter ? startMeets : meets(endFilter));
                        if (!asStart && !asEnd) continue;
                        flags = (asStart ? 0 : StreamHits::kNotStart) | (asEnd ? 0 : StreamHits::kNotEnd);
                    } else if (!it.text.meets(record, size, bigEndian) || !meets(it.filter)) {
                        continue;
                    }
                    out.time.push_back(time);
                    out.indexAndSide.push_back(index | flags);
                    out.pid.push_back(columns.pid[index]);
                    if (used + stride > out.bytes.size())
                        out.bytes.resize(std::max(out.bytes.size() * 2, used + stride));
                    uint8_t* into = out.bytes.data() + used;
                    used += stride;
                    for (size_t f = 0; f < it.fields.size(); ++f) {
                        const int offset = it.fields[f].offset, width = it.fields[f].size;
                        const int have = std::clamp(size - offset, 0, width);
                        if (have > 0) std::memcpy(into + it.at[f], record + offset, size_t(have));
                    }
                }
                if (++sinceReport == 65536) {
                    const uint64_t done = walked += sinceReport;
                    sinceReport = 0;
                    if (reports && progress && !progress(done, total * 2)) stop = true;
                }
            }, uint32_t(limit));
            out.bytes.resize(used);
            seen[0] += seenHere[0];
            seen[1] += seenHere[1];
            walked += sinceReport;
        }
    };
    using Clock = std::chrono::steady_clock;
    const Clock::time_point walkBegan = Clock::now();
    // Each stream's hits below its limit, per stretch: a prefix of those kept.
    std::vector<std::vector<size_t>> ends(streams);
    if (keeper) {
        const std::vector<KeptStretches>& kept = keeper->streams();
        uint64_t keptOf[2] = {0, 0};
        for (size_t s = 0; s < streams && s < kept.size(); ++s)
            for (const StreamHits& stretch : kept[s].stretches) {
                const std::vector<uint32_t>& v = stretch.indexAndSide;
                const auto end = std::partition_point(v.begin(), v.end(),
                                                      [&](uint32_t x) { return (x & StreamHits::kIndex) < limits[s]; });
                ends[s].push_back(size_t(end - v.begin()));
                for (auto i = v.begin(); i != end; ++i) ++keptOf[(*i & StreamHits::kEnd) && n > 1 ? 1 : 0];
            }
        // Each side's records all kept, as the columns count them; else they are read again.
        for (size_t side = 0; side < n && keeper; ++side)
            if (whole && keptOf[side] != store.eventTypeCount(sides[side]->type)) keeper = nullptr;
    }
    if (keeper) {
        // Each value kept as its 64 bits, in host order (StreamHits::keptValues).
        for (size_t s = 0; s < n; ++s)
            for (size_t f = 0; f < sides[s]->fields.size(); ++f) {
                ConsumerRegistry::FieldFormat& field = sides[s]->fields[f];
                field = {0, 8, field.isSigned, false};
                sides[s]->at[f] = f * 8;
            }
        bigEndian = std::endian::native == std::endian::big;
        result->m_usedKept = true;
    }
    const bool filtered = sides[0]->filter || endFilter || (n > 1 && sides[1]->filter);
    const size_t threads = filtered ? 1 : std::min<size_t>(streams, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> helpers;
    std::atomic<bool> failed{false};
    std::string failure;
    try {
        for (size_t t = 1; t < threads && !keeper; ++t)
            helpers.emplace_back([&] {
                try {
                    walkStreams(false);
                } catch (...) {
                    stop = true; // the walk stopped short: said as a failure below
                    failed = true;
                }
            });
        if (!keeper) walkStreams(true);
    } catch (...) {
        stop = true;
        failure = failureOfCurrentException();
    }
    for (std::thread& helper : helpers) helper.join();
    if (!failure.empty()) return Error{path + ": the latency analysis failed: " + failure};
    if (failed) return Error{path + ": the latency analysis failed: the pages could not be read again"};
    if (stop) return Error{path + ": the latency analysis was stopped"};
    // A run of pages that could not be read again (the file changed since the load) would
    // leave pairs out without a word.
    for (size_t side = 0; side < n && whole && !keeper; ++side)
        if (seen[side] != store.eventTypeCount(sides[side]->type))
            return Error{path + ": the latency analysis failed: some pages could not be read again (the file changed "
                                "or cannot be read since it was loaded)"};

    const Clock::time_point matchBegan = Clock::now();
    result->m_walkSeconds = std::chrono::duration<double>(matchBegan - walkBegan).count();
    // What was walked is one stretch a stream.
    std::vector<KeptStretches> walkedStretches;
    if (!keeper) {
        walkedStretches.resize(streams);
        for (size_t s = 0; s < streams; ++s) {
            ends[s] = {hits[s].time.size()};
            walkedStretches[s].stretches.push_back(std::move(hits[s]));
        }
    }
    const std::vector<KeptStretches>& kept = keeper ? keeper->streams() : walkedStretches;
    auto stretchOf = [&kept](size_t s, size_t k) -> const StreamHits& { return kept[s].stretches[k]; };
    // Fed in merged order (time, ties in stream order), each record with its task, as the
    // registry feeds a load: the same pairs.
    std::vector<StreamInfo> infos(streams);
    for (size_t s = 0; s < streams; ++s) {
        const Stream& stream = store.stream(StreamId(uint16_t(s)));
        const CpuColumns& c = stream.columns;
        infos[s] = {stream.cpu, stream.buffer, limits[s] ? c.timestamp[0] : 0,
                    limits[s] ? c.timestamp[limits[s] - 1] : 0, stream.endsEarly};
    }
    const TaskIndex& tasks = trace.taskIndex();
    using Head = std::pair<uint64_t, size_t>; // (time, stream)
    // Where a stream is: its stretch, and the record in it, whose time is read once begun.
    struct Cursor {
        size_t stretch = 0, at = 0;
        StepTimes::Reader times;
        bool begun = false;
    };
    // Moves past stretches read to their end (`streamEnds`: where the stream's stretches end
    // for this part) and reads the time of the record it comes to; false when the stream has
    // no record left.
    auto settle = [&](size_t s, Cursor& c, const std::vector<size_t>& streamEnds) {
        bool fresh = !c.begun;
        while (c.stretch < streamEnds.size() && c.at >= streamEnds[c.stretch]) {
            c = {c.stretch + 1, 0, {}, true};
            fresh = true;
        }
        if (c.stretch >= streamEnds.size()) return false;
        if (fresh) stretchOf(s, c.stretch).time.seek(c.at, c.times);
        c.begun = true;
        return true;
    };

    uint64_t hitCount = 1, starts = 0;
    for (size_t s = 0; s < streams; ++s)
        for (size_t k = 0; k < ends[s].size(); ++k) {
            hitCount += ends[s][k];
            const std::vector<uint32_t>& v = stretchOf(s, k).indexAndSide;
            for (size_t i = 0; i < ends[s][k]; ++i) starts += !(v[i] & StreamHits::kEnd);
        }
    // The records of two events are matched in two parts on two threads: those before the
    // middle row of the merged order, and those after, whose pairs, counts and groups the
    // first then takes (EventPairs::append): the same as one thread makes. Not for a few
    // thousand, where a thread costs more than it saves.
    const bool twoParts =
        n == 2 && !roles && !spec.nesting && std::thread::hardware_concurrency() > 1 && hitCount > 4096;
    // Each stream's stretches' ends in the first part; the second part's first record.
    std::vector<std::vector<size_t>> firstEnds = ends;
    std::vector<Cursor> secondFrom(streams);
    uint64_t secondStarts = 0, secondHits = 0;
    if (twoParts) {
        const std::vector<size_t> middle = store.order().countsAt(rows / 2, streams);
        for (size_t s = 0; s < streams; ++s) {
            secondFrom[s].stretch = ends[s].size();
            for (size_t k = 0; k < ends[s].size(); ++k) {
                const std::vector<uint32_t>& v = stretchOf(s, k).indexAndSide;
                const auto stretchEnd = v.begin() + ptrdiff_t(ends[s][k]);
                const auto split = std::partition_point(
                    v.begin(), stretchEnd, [&](uint32_t x) { return (x & StreamHits::kIndex) < middle[s]; });
                firstEnds[s][k] = size_t(split - v.begin());
                if (split != stretchEnd && secondFrom[s].stretch == ends[s].size())
                    secondFrom[s] = {k, firstEnds[s][k], {}, false};
                secondHits += size_t(stretchEnd - split);
                secondStarts +=
                    size_t(std::count_if(split, stretchEnd, [](uint32_t x) { return !(x & StreamHits::kEnd); }));
            }
        }
    }
    // A pair a start, or a record for pairs of one event: its vectors are grown once.
    const size_t expectedPairs = n == 1 ? size_t(hitCount) : size_t(std::min(starts, hitCount - 1 - starts));
    struct TaskOfStream {
        int32_t pid = -1;
        uint64_t from = 0, until = 0;
        TaskId task;
    };
    // The task of a pid is asked once per run of its records on a stream (one life).
    auto taskOf = [&tasks](TaskOfStream& known, int32_t pid, uint64_t time) {
        if (pid != known.pid || time >= known.until || time < known.from)
            known = {pid, time, tasks.nextLifeAfter(pid, time), tasks.taskAt(pid, time)};
        return known.task;
    };
    const bool numbers = keeper && n == 2 && !roles;
    const size_t keptValues = keeper ? keeper->values() : 0;
    std::unique_ptr<bool[]> isSigned[2];
    for (size_t side = 0; side < n; ++side) {
        isSigned[side] = std::make_unique<bool[]>(sides[side]->fields.size());
        for (size_t f = 0; f < sides[side]->fields.size(); ++f) isSigned[side][f] = sides[side]->fields[f].isSigned;
    }
    std::atomic<bool> stopMatching{false};
    std::atomic<uint64_t> matched{0};
    // Every 65,536 records: whether to go on (the part that reports asks `progress`).
    auto goOn = [&](bool reports) {
        const uint64_t done = matched += 0x10000;
        if (reports && progress && !progress(total + std::min(done, hitCount) * total / hitCount, total * 2))
            stopMatching = true;
        return !stopMatching;
    };
    // Feeds `into` the records from `cursors` up to `partEnds` in merged order (time, ties in
    // stream order), each with its task, as the registry feeds a load: the same pairs. False
    // when stopped.
    auto matchPart = [&](EventPairs& into, std::vector<Cursor> cursors,
                         const std::vector<std::vector<size_t>>& partEnds, bool reports) {
        std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
        for (size_t s = 0; s < streams; ++s)
            if (settle(s, cursors[s], partEnds[s])) heads.push({cursors[s].times.time, s});
        std::vector<TaskOfStream> knownTasks(streams);
        std::vector<TypedValue> values(valueCount);
        std::vector<uint64_t> words(keptValues); // a kept record's narrow values, widened
        uint64_t fed = 0;
        into.setStreams(infos);
        // A stream's records are fed in runs, up to the next stream's head: one heap step a run.
        while (!heads.empty()) {
            const size_t s = heads.top().second;
            heads.pop();
            const Head bound = heads.empty() ? Head{UINT64_MAX, SIZE_MAX} : heads.top();
            const StreamId stream(static_cast<uint16_t>(s));
            TaskOfStream& known = knownTasks[s];
            Cursor& cursor = cursors[s];
            for (bool more = true; more;) {
                const StreamHits& h = stretchOf(s, cursor.stretch);
                const size_t end = partEnds[s][cursor.stretch];
                size_t i = cursor.at;
                // Record i's time, read (settle() read the run's first); the next one's read as
                // i moves on.
                uint64_t time = cursor.times.time;
                auto advance = [&] {
                    if (++i < end) time = h.time.next(i, cursor.times);
                };
                if (numbers) {
                    // Kept records of two events: their values are the key's words as they are.
                    // A loop of its own: one loop testing `numbers` per record matched 6% slower.
                    EventPairs::NumberRecord record;
                    for (; i < end && Head{time, s} < bound; advance()) {
                        record.isEnd = h.indexAndSide[i] & StreamHits::kEnd;
                        record.timestamp = time;
                        record.event = {stream, h.indexAndSide[i] & ~StreamHits::kEnd};
                        record.pid = h.pid[i];
                        record.task = taskOf(known, record.pid, record.timestamp);
                        record.values = reinterpret_cast<const uint8_t*>(h.keptValues(i, keptValues, words.data()));
                        record.isSigned = isSigned[record.isEnd ? 1 : 0].get();
                        into.consumeNumbers(record);
                        if ((++fed & 0xffff) == 0 && !goOn(reports)) return false;
                    }
                }
                for (; !numbers && i < end && Head{time, s} < bound; advance()) {
                    const bool isEnd = !roles && (h.indexAndSide[i] & StreamHits::kEnd);
                    const PairSide& side = *sides[isEnd ? 1 : 0];
                    // No bytes when nothing is matched.
                    const uint8_t* bytes =
                        keeper ? reinterpret_cast<const uint8_t*>(h.keptValues(i, keptValues, words.data()))
                               : h.bytes.data() + i * stride;
                    for (size_t f = 0; f < side.fields.size(); ++f)
                        side.fields[f].decode(bytes + side.at[f], side.fields[f].size, bigEndian, values[f]);
                    ConsumedRecord record;
                    record.request = isEnd ? 1 : 0;
                    record.type = side.type;
                    record.timestamp = time;
                    record.stream = stream;
                    record.index = h.indexAndSide[i] & (roles ? StreamHits::kIndex : ~StreamHits::kEnd);
                    record.pid = h.pid[i];
                    record.task = taskOf(known, record.pid, record.timestamp);
                    // (flags are not fed: EventPairs does not read them)
                    record.values = values.data();
                    record.valueCount = side.fields.size();
                    if (roles)
                        into.consumeAs(record, !(h.indexAndSide[i] & StreamHits::kNotEnd),
                                       !(h.indexAndSide[i] & StreamHits::kNotStart));
                    else
                        into.consume(record);
                    if ((++fed & 0xffff) == 0 && !goOn(reports)) return false;
                }
                cursor.at = i;
                // The run goes on into the next stretch unless the bound stopped it.
                more = i == end && settle(s, cursor, partEnds[s]);
            }
            if (settle(s, cursor, partEnds[s])) heads.push({cursor.times.time, s});
        }
        return true;
    };
    try {
        bool complete = true;
        if (!twoParts) {
            pairs.reservePairs(expectedPairs);
            complete = matchPart(pairs, std::vector<Cursor>(streams), ends, true);
        } else {
            EventPairs second(spec);
            second.bind(bound);
            second.continuing();
            std::string secondFailure;
            bool secondWhole = true;
            // Each part's pairs are faulted in as they are made: committed up front on both
            // threads, matching took longer (0.70-0.90 s against 0.66-0.80 s on 11.5M pairs).
            std::thread helper([&] {
                try {
                    second.reservePairs(size_t(std::min(secondStarts, secondHits - secondStarts)), false);
                    secondWhole = matchPart(second, secondFrom, ends, false);
                } catch (...) {
                    secondFailure = failureOfCurrentException();
                    stopMatching = true;
                }
            });
            try {
                pairs.reservePairs(expectedPairs, false);
                complete = matchPart(pairs, std::vector<Cursor>(streams), firstEnds, true);
            } catch (...) {
                stopMatching = true;
                helper.join();
                throw;
            }
            helper.join();
            if (!secondFailure.empty()) return Error{path + ": the latency analysis failed: " + secondFailure};
            complete = complete && secondWhole;
            if (complete) pairs.append(second);
        }
        if (!complete) return Error{path + ": the latency analysis was stopped"};
        pairs.flush();
        pairs.finish();
        result->m_matchSeconds = std::chrono::duration<double>(Clock::now() - matchBegan).count();
    } catch (...) {
        return Error{path + ": the latency analysis failed: " + failureOfCurrentException()};
    }
    return result;
}

} // namespace ringside
