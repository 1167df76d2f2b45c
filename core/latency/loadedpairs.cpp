// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/loadedpairs.h"

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
// side in the top bit, and the matched fields' bytes (`stride` each, zeros where a record was
// short).
struct StreamHits {
    std::vector<uint64_t> time;
    std::vector<uint32_t> indexAndSide;
    std::vector<uint8_t> bytes;
    static constexpr uint32_t kEnd = 0x80000000u;
    // A pair of one event with conditions: the record is not an end, not a start.
    static constexpr uint32_t kNotEnd = 0x80000000u, kNotStart = 0x40000000u, kIndex = 0x3fffffffu;
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

} // namespace

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
    const bool bigEndian = trace.file().info().bigEndian;
    size_t stride = 0, valueCount = 0;
    for (size_t s = 0; s < n; ++s) {
        stride = std::max(stride, sides[s]->bytes);
        valueCount = std::max(valueCount, sides[s]->fields.size());
    }

    // Each stream's hits, walked on as many threads as there are cores (the pages are read and
    // decompressed again: most of the time). A filter's handle is one: then on one thread.
    const EventStore& store = trace.store();
    const size_t streams = store.streamCount();
    std::vector<StreamHits> hits(streams);
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
    const bool filtered = sides[0]->filter || endFilter || (n > 1 && sides[1]->filter);
    const size_t threads = filtered ? 1 : std::min<size_t>(streams, std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> helpers;
    std::atomic<bool> failed{false};
    std::string failure;
    try {
        for (size_t t = 1; t < threads; ++t)
            helpers.emplace_back([&] {
                try {
                    walkStreams(false);
                } catch (...) {
                    stop = true; // the walk stopped short: said as a failure below
                    failed = true;
                }
            });
        walkStreams(true);
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
    for (size_t side = 0; side < n && whole; ++side)
        if (seen[side] != store.eventTypeCount(sides[side]->type))
            return Error{path + ": the latency analysis failed: some pages could not be read again (the file changed "
                                "or cannot be read since it was loaded)"};

    const Clock::time_point matchBegan = Clock::now();
    result->m_walkSeconds = std::chrono::duration<double>(matchBegan - walkBegan).count();
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
    std::vector<TypedValue> values(valueCount);
    using Head = std::pair<uint64_t, size_t>; // (time, stream)
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    std::vector<size_t> next(streams, 0);
    uint64_t hitCount = 1, starts = 0;
    for (size_t s = 0; s < streams; ++s) {
        if (!hits[s].time.empty()) heads.push({hits[s].time[0], s});
        hitCount += hits[s].time.size();
        for (uint32_t v : hits[s].indexAndSide) starts += !(v & StreamHits::kEnd);
    }
    // A pair a start, or a record for pairs of one event: its vectors are grown once.
    pairs.reservePairs(n == 1 ? size_t(hitCount) : size_t(std::min(starts, hitCount - 1 - starts)));
    struct TaskOfStream {
        int32_t pid = -1;
        uint64_t from = 0, until = 0;
        TaskId task;
    };
    std::vector<TaskOfStream> taskOf(streams);
    uint64_t fed = 0;
    try {
        pairs.setStreams(infos);
        // A stream's records are fed in runs, up to the next stream's head: one heap step a run.
        while (!heads.empty()) {
            const size_t s = heads.top().second;
            heads.pop();
            const Head bound = heads.empty() ? Head{UINT64_MAX, SIZE_MAX} : heads.top();
            const StreamHits& h = hits[s];
            const StreamId stream(static_cast<uint16_t>(s));
            const CpuColumns& columns = store.stream(stream).columns;
            TaskOfStream& known = taskOf[s];
            size_t i = next[s];
            for (; i < h.time.size() && Head{h.time[i], s} < bound; ++i) {
                const bool end = !roles && (h.indexAndSide[i] & StreamHits::kEnd);
                const PairSide& side = *sides[end ? 1 : 0];
                const uint8_t* bytes = h.bytes.data() + i * stride; // no bytes when nothing is matched
                for (size_t f = 0; f < side.fields.size(); ++f)
                    side.fields[f].decode(bytes + side.at[f], side.fields[f].size, bigEndian, values[f]);
                ConsumedRecord record;
                record.request = end ? 1 : 0;
                record.type = side.type;
                record.timestamp = h.time[i];
                record.stream = stream;
                record.index = h.indexAndSide[i] & (roles ? StreamHits::kIndex : ~StreamHits::kEnd);
                record.pid = columns.pid[record.index];
                // The task of a pid is asked once per run of its records on a stream (one life).
                if (record.pid != known.pid || record.timestamp >= known.until || record.timestamp < known.from) {
                    known = {record.pid, record.timestamp, tasks.nextLifeAfter(record.pid, record.timestamp),
                             tasks.taskAt(record.pid, record.timestamp)};
                }
                record.task = known.task;
                record.flags = columns.flags[record.index];
                record.values = values.data();
                record.valueCount = side.fields.size();
                if (roles)
                    pairs.consumeAs(record, !(h.indexAndSide[i] & StreamHits::kNotEnd),
                                    !(h.indexAndSide[i] & StreamHits::kNotStart));
                else
                    pairs.consume(record);
                if ((++fed & 0xffff) == 0 && progress && !progress(total + fed * total / hitCount, total * 2))
                    return Error{path + ": the latency analysis was stopped"};
            }
            next[s] = i;
            if (i < h.time.size()) heads.push({h.time[i], s});
        }
        pairs.flush();
        pairs.finish();
        result->m_matchSeconds = std::chrono::duration<double>(Clock::now() - matchBegan).count();
    } catch (...) {
        return Error{path + ": the latency analysis failed: " + failureOfCurrentException()};
    }
    return result;
}

} // namespace ringside
