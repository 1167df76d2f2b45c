// SPDX-License-Identifier: GPL-2.0-or-later
#include "consume/consumerregistry.h"

#include "analysis/tracktables.h"
#include "consume/consumerfailure.h"
#include "consume/piecefeeder.h"
#include "consume/streamwalk.h"
#include "store/eventstore.h"
#include "store/timemerge.h"
#include "util/bytereader.h"
#include "util/memorypolicy.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>
#include <unordered_set>

namespace ringside {

namespace {

// A field's value from its bytes at `at`, of which `available` are there (a record's end may
// cut a field: the missing bytes of a number read as zeros).
inline void decodeField(const ConsumerRegistry::FieldFormat& format, const uint8_t* at, int available, bool bigEndian,
                        TypedValue& value)
{
    if (format.isText) {
        const auto* text = reinterpret_cast<const char*>(at);
        value.setText({text, strnlen(text, size_t(available))});
        return;
    }
    uint8_t padded[8] = {};
    if (available < format.size) {
        if (available > 0) std::memcpy(padded, at, size_t(available));
        at = padded;
    }
    value.setNumber(ByteReader::decode(at, format.size, bigEndian), format.isSigned, format.size);
}

} // namespace

void ConsumerRegistry::FieldFormat::decode(const uint8_t* at, int available, bool bigEndian, TypedValue& value) const
{
    decodeField(*this, at, available, bigEndian, value);
}

ConsumerRegistry::ConsumerRegistry() = default;
ConsumerRegistry::~ConsumerRegistry() = default;

RecordSink* ConsumerRegistry::sinkFor(StreamId stream)
{
    auto feeder = std::make_unique<Feeder>(*this, stream);
    const std::lock_guard lock(m_feedersLock);
    m_feeders.push_back(std::move(feeder));
    return m_feeders.back().get();
}

void ConsumerRegistry::placed(RecordSink* sink, uint32_t firstIndex, uint32_t events)
{
    auto* feeder = static_cast<Feeder*>(sink);
    const std::lock_guard lock(m_feedersLock);
    m_placed.push_back({feeder, firstIndex, events});
}

bool ConsumerRegistry::feedsPieces() const
{
    return std::any_of(m_bound.begin(), m_bound.end(), [](const BoundTap& t) { return !t.pieceSubscribers.empty(); });
}

std::vector<ConsumerRegistry::Placed> ConsumerRegistry::completeUpToATime(const EventStore& store,
                                                                          const std::vector<size_t>& ends)
{
    std::vector<Placed> placed;
    {
        const std::lock_guard lock(m_feedersLock);
        placed = m_placed;
    }
    // Each stream's stretches in order (a capture places them CPU after CPU as they fill).
    std::stable_sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
        return a.feeder->stream().value != b.feeder->stream().value
                   ? a.feeder->stream().value < b.feeder->stream().value
                   : a.firstIndex < b.firstIndex;
    });
    const size_t streams = store.streamCount();
    auto timeAt = [&](const Placed& p, uint32_t index) {
        return store.stream(p.feeder->stream()).columns.timestamp[index];
    };
    // Per stream, how many of its stretches (from its first) go now: at first those the batch
    // reaches the end of. A join takes what it is given as everything up to its latest time
    // (a call entered on one CPU returns on another), so the stretches handed over must hold
    // every event before some time T and none after it: T is the earliest event of a stretch
    // kept back, and a stretch reaching T or past it is kept back too, until nothing changes.
    std::vector<size_t> first(streams + 1, placed.size()), handed(streams, 0);
    for (size_t i = placed.size(); i-- > 0;) first[placed[i].feeder->stream().value] = i;
    for (size_t s = streams; s-- > 0;) first[s] = std::min(first[s], first[s + 1]);
    auto within = [&](const Placed& p) {
        const size_t s = p.feeder->stream().value;
        return s < ends.size() && p.firstIndex + size_t(p.events) <= ends[s];
    };
    for (size_t s = 0; s < streams; ++s)
        while (first[s] + handed[s] < first[s + 1] && within(placed[first[s] + handed[s]])) ++handed[s];
    auto lastTime = [&](const Placed& p) { return timeAt(p, p.firstIndex + p.events - 1); };
    for (bool changed = true; changed;) {
        changed = false;
        uint64_t cut = UINT64_MAX;
        for (size_t s = 0; s < streams; ++s)
            for (size_t i = first[s] + handed[s]; i < first[s + 1]; ++i)
                if (placed[i].events) {
                    cut = std::min(cut, timeAt(placed[i], placed[i].firstIndex));
                    break;
                }
        for (size_t s = 0; s < streams; ++s) {
            size_t keep = 0;
            while (keep < handed[s] && (!placed[first[s] + keep].events || lastTime(placed[first[s] + keep]) < cut))
                ++keep;
            if (keep < handed[s]) handed[s] = keep, changed = true;
        }
    }
    std::vector<Placed> now;
    for (size_t s = 0; s < streams; ++s)
        now.insert(now.end(), placed.begin() + long(first[s]), placed.begin() + long(first[s] + handed[s]));
    return now;
}

void ConsumerRegistry::joinPieces(const EventStore& store, const std::vector<size_t>& ends)
{
    const std::vector<Placed> now = completeUpToATime(store, ends);
    if (now.empty()) return;
    for (const Placed& p : now) p.feeder->place(p.firstIndex, p.events);
    for (size_t c = 0; c < m_consumers.size(); ++c) {
        if (!m_consumers[c]->fedInPieces()) continue;
        std::vector<FedPiece> pieces;
        for (const Placed& p : now) {
            if (m_failures[c].empty() && !p.feeder->failure(c).empty()) m_failures[c] = p.feeder->failure(c);
            if (std::unique_ptr<StreamPiece> piece = p.feeder->take(c))
                pieces.push_back({p.feeder->stream(), p.firstIndex, std::move(piece)});
        }
        if (!pieces.empty()) guarded(c, [&](RecordConsumer& consumer) { consumer.join(std::move(pieces)); });
    }
    std::unordered_set<const Feeder*> joined;
    for (const Placed& p : now) joined.insert(p.feeder);
    const std::lock_guard lock(m_feedersLock);
    std::erase_if(m_placed, [&](const Placed& p) { return joined.count(p.feeder) > 0; });
    std::erase_if(m_feeders, [&](const std::unique_ptr<Feeder>& f) { return joined.count(f.get()) > 0; });
}

void ConsumerRegistry::decode(const BoundTap& tap, const Subscriber& subscriber, const uint8_t* bytes, bool bigEndian,
                              std::vector<TypedValue>& values)
{
    // Sized up only: records of different requests alternate, and growing back costs a call.
    if (values.size() < subscriber.fields.size()) values.resize(subscriber.fields.size());
    for (size_t i = 0; i < subscriber.fields.size(); ++i) {
        const FieldFormat& format = tap.fields[subscriber.fields[i]];
        decodeField(format, bytes + tap.byteOffset[subscriber.fields[i]], format.size, bigEndian, values[i]);
    }
}

void ConsumerRegistry::decodeRecord(const Subscriber& subscriber, const uint8_t* record, int recordBytes,
                                    bool bigEndian, std::vector<TypedValue>& values)
{
    if (values.size() < subscriber.formats.size()) values.resize(subscriber.formats.size());
    const bool whole = recordBytes >= subscriber.recordBytes; // most records: no field is cut
    if (whole && !bigEndian && std::endian::native == std::endian::little) {
        // Tens of millions of system calls: numbers read as they are, no bounds to work out.
        for (size_t i = 0; i < subscriber.formats.size(); ++i) {
            const FieldFormat& format = subscriber.formats[i];
            const uint8_t* at = record + format.offset;
            uint64_t raw = 0;
            switch (format.isText ? 0 : format.size) {
            case 8: std::memcpy(&raw, at, 8); break;
            case 4: raw = ByteReader::decode(at, 4, false); break;
            case 2: raw = ByteReader::decode(at, 2, false); break;
            case 1: raw = at[0]; break;
            default: decodeField(format, at, format.size, false, values[i]); continue;
            }
            values[i].setNumber(raw, format.isSigned, format.size);
        }
        return;
    }
    for (size_t i = 0; i < subscriber.formats.size(); ++i) {
        const FieldFormat& format = subscriber.formats[i];
        decodeField(format, record + format.offset,
                    whole ? format.size : std::clamp(recordBytes - format.offset, 0, format.size), bigEndian,
                    values[i]);
    }
}

RecordConsumer& ConsumerRegistry::add(std::unique_ptr<RecordConsumer> consumer, Stage stage)
{
    if (RecordConsumer* existing = find(consumer->name())) return *existing;
    m_consumers.push_back(std::move(consumer));
    m_stages.push_back(stage);
    return *m_consumers.back();
}

RecordConsumer* ConsumerRegistry::find(std::string_view name) const
{
    for (const auto& c : m_consumers)
        if (c->name() == name) return c.get();
    return nullptr;
}

std::vector<std::string> ConsumerRegistry::names() const
{
    std::vector<std::string> out;
    for (const auto& c : m_consumers) out.push_back(c->name());
    return out;
}

const std::vector<RecordTap>& ConsumerRegistry::bind(const FormatLookup& lookup, const EventLister& list,
                                                     bool bigEndian)
{
    m_taps.clear();
    m_bound.clear();
    m_bigEndian = bigEndian;
    m_failures.resize(m_consumers.size()); // a consumer may have failed before (setRecording)
    std::map<uint16_t, size_t> tapOfType;
    for (size_t c = 0; c < m_consumers.size(); ++c) {
        std::vector<EventRequest> requests;
        guarded(c, [&](RecordConsumer& consumer) { requests = consumer.requests(); });
        // A request by prefix stands for every event it matches; each binds on its own.
        std::vector<std::pair<size_t, std::string>> events; // (request, event name)
        for (size_t r = 0; r < requests.size(); ++r) {
            if (!requests[r].prefix) {
                events.emplace_back(r, requests[r].event);
                continue;
            }
            if (!list) continue;
            for (const std::string& name : list(requests[r].system))
                if (name.compare(0, requests[r].event.size(), requests[r].event) == 0) events.emplace_back(r, name);
        }
        std::vector<bool> bound(requests.size(), false);
        bool pieces = false;
        guarded(c, [&](RecordConsumer& consumer) { pieces = consumer.fedInPieces(); });
        for (const auto& [r, event] : events) {
            const std::optional<EventFormat> format = lookup(requests[r].system, event);
            if (!format) continue;
            std::vector<FieldFormat> fields;
            for (size_t i = 0; i < requests[r].fields.size(); ++i) {
                std::optional<FieldFormat> f = format->field(requests[r].fields[i]);
                if (!f) break;
                const int narrow = i < requests[r].narrow.size() ? requests[r].narrow[i] : 0;
                if (!f->isText && narrow > 0 && narrow < f->size) {
                    if (bigEndian) f->offset += f->size - narrow; // the low bytes come last
                    f->size = narrow;
                }
                fields.push_back(*f);
            }
            if (fields.size() != requests[r].fields.size()) continue;
            auto [it, added] = tapOfType.try_emplace(format->type, m_taps.size());
            if (added) {
                m_taps.push_back(RecordTap{format->type, {}});
                m_bound.emplace_back();
            }
            RecordTap& tap = m_taps[it->second];
            BoundTap& boundTap = m_bound[it->second];
            // Two consumers asking for one field share its bytes.
            auto fieldIndex = [&](const FieldFormat& f) {
                size_t index = 0;
                while (index < boundTap.fields.size() &&
                       (boundTap.fields[index].offset != f.offset || boundTap.fields[index].size != f.size))
                    ++index;
                if (index == boundTap.fields.size()) {
                    boundTap.byteOffset.push_back(tap.bytesPerHit());
                    boundTap.fields.push_back(f);
                    tap.fields.push_back({f.offset, f.size});
                }
                return index;
            };
            Subscriber subscriber{c, r, {}, {}, 0};
            for (const FieldFormat& f : fields) {
                const size_t index = fieldIndex(f);
                subscriber.fields.push_back(index);
                subscriber.formats.push_back(f);
                subscriber.recordBytes = std::max(subscriber.recordBytes, f.offset + f.size);
            }
            (pieces ? boundTap.pieceSubscribers : boundTap.subscribers).push_back(std::move(subscriber));
            bound[r] = true;
        }
        guarded(c, [&](RecordConsumer& consumer) { consumer.bind(bound); });
    }
    for (size_t t = 0; t < m_taps.size(); ++t) {
        m_taps[t].keep = !m_bound[t].subscribers.empty();
        m_taps[t].feed = !m_bound[t].pieceSubscribers.empty();
    }
    m_columns.clear();
    m_columns.resize(m_taps.size());
    m_consumed.assign(m_taps.size(), {});
    return m_taps;
}

template <typename Call>
void ConsumerRegistry::guarded(size_t c, Call what)
{
    if (m_failures.size() < m_consumers.size()) m_failures.resize(m_consumers.size());
    if (!m_failures[c].empty()) return;
    try {
        what(*m_consumers[c]);
    } catch (...) {
        m_failures[c] = failureOfCurrentException();
    }
}

void ConsumerRegistry::markFailed(std::string_view name, const std::string& why)
{
    m_failures.resize(m_consumers.size());
    for (size_t c = 0; c < m_consumers.size(); ++c)
        if (m_consumers[c]->name() == name && m_failures[c].empty()) m_failures[c] = why.empty() ? "failed" : why;
}

std::string ConsumerRegistry::failure(std::string_view name) const
{
    for (size_t c = 0; c < m_consumers.size(); ++c)
        if (m_consumers[c]->name() == name) return c < m_failures.size() ? m_failures[c] : std::string();
    return {};
}

std::vector<ConsumerRegistry::Lane> ConsumerRegistry::planLanes(const std::vector<uint64_t>& recordsOfTap,
                                                                uint64_t events) const
{
    // Each consumer's share: the records of the taps it reads.
    std::vector<uint64_t> weight(m_consumers.size(), 0);
    uint64_t total = 0;
    for (size_t t = 0; t < m_bound.size() && t < recordsOfTap.size(); ++t) {
        for (const Subscriber& sub : m_bound[t].subscribers) weight[sub.consumer] += recordsOfTap[t];
        total += recordsOfTap[t];
    }
    // Lanes pay a thread each (tens of microseconds): worth it from a few thousand records.
    // Two lanes: the load's other thread (the task index's scan) shares the CPUs. Each lane
    // walks every event of the batch, so a second one pays only when the records are a fair
    // share of them: among 23M events with 0.5M records (system calls, fed in pieces, are most
    // of a recording) the second walk cost more than it saved, with the pieces' join running
    // beside the lanes.
    constexpr uint64_t kRecordsForTwoLanes = 4096;
    constexpr uint64_t kEventsPerRecordForTwoLanes = 16;
    std::vector<size_t> order; // the consumers fed in merged order
    for (size_t c = 0; c < m_consumers.size(); ++c)
        if (m_stages[c] == Stage::Analyses && !m_consumers[c]->fedInPieces()) order.push_back(c);
    const size_t laneCount = total >= kRecordsForTwoLanes && total * kEventsPerRecordForTwoLanes >= events &&
                                     order.size() > 1 && std::thread::hardware_concurrency() > 1
                                 ? 2
                                 : 1;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    std::vector<Lane> lanes(laneCount);
    std::vector<uint64_t> load(laneCount, 0);
    for (Lane& lane : lanes) lane.consumers.assign(m_consumers.size(), false);
    for (size_t c : order) {
        const size_t least = size_t(std::min_element(load.begin(), load.end()) - load.begin());
        lanes[least].consumers[c] = true;
        load[least] += weight[c];
    }
    std::vector<int> readers(m_bound.size(), 0);
    for (Lane& lane : lanes) {
        lane.subscribers.resize(m_bound.size());
        for (size_t t = 0; t < m_bound.size(); ++t) {
            for (const Subscriber& sub : m_bound[t].subscribers)
                if (lane.consumers[sub.consumer]) lane.subscribers[t].push_back(&sub);
            readers[t] += !lane.subscribers[t].empty();
        }
    }
    // A tap the tasks' stage reads too is read by it before these lanes, so they may give its
    // memory back.
    // A tap read by two lanes is given back by neither (the columns go when the load ends),
    // and its records count in the progress of the first.
    std::vector<bool> counted(m_bound.size(), false);
    for (Lane& lane : lanes) {
        lane.releases.resize(m_bound.size());
        lane.counts.resize(m_bound.size());
        for (size_t t = 0; t < m_bound.size(); ++t) {
            lane.releases[t] = readers[t] == 1;
            lane.counts[t] = !lane.subscribers[t].empty() && !counted[t];
            counted[t] = counted[t] || lane.counts[t];
        }
    }
    return lanes;
}

std::unique_ptr<ConsumerRegistry::Lane> ConsumerRegistry::planTasksLane() const
{
    auto planned = std::make_unique<Lane>();
    Lane& lane = *planned;
    lane.tasks = true;
    lane.consumers.assign(m_consumers.size(), false);
    for (size_t c = 0; c < m_consumers.size(); ++c) lane.consumers[c] = m_stages[c] == Stage::Tasks;
    lane.subscribers.resize(m_bound.size());
    lane.releases.assign(m_bound.size(), false);
    lane.counts.assign(m_bound.size(), 0);
    bool any = false;
    for (size_t t = 0; t < m_bound.size(); ++t) {
        for (const Subscriber& sub : m_bound[t].subscribers)
            if (lane.consumers[sub.consumer]) lane.subscribers[t].push_back(&sub);
        any = any || !lane.subscribers[t].empty();
    }
    if (!any) return nullptr;
    return planned;
}

void ConsumerRegistry::addColumns(std::vector<std::vector<TapColumn>> columns)
{
    if (m_columns.size() < columns.size()) m_columns.resize(columns.size());
    for (size_t t = 0; t < columns.size(); ++t) {
        if (m_columns[t].size() < columns[t].size()) m_columns[t].resize(columns[t].size());
        for (size_t s = 0; s < columns[t].size(); ++s) m_columns[t][s].append(std::move(columns[t][s]));
    }
}

void ConsumerRegistry::deliver(const EventStore& store, const std::vector<size_t>& limits, const Progress& progress,
                               const std::function<void()>& tasksFed, const std::function<void()>& piecesJoined)
{
    std::vector<StreamInfo> streams(store.streamCount());
    m_lostDelivered.resize(streams.size(), 0);
    m_walked.resize(streams.size(), 0);
    // What this call walks of each stream: the events since the last call up to its limit.
    std::vector<size_t> ends(streams.size());
    for (size_t s = 0; s < streams.size(); ++s) {
        const Stream& stream = store.stream(StreamId(static_cast<uint16_t>(s)));
        const CpuColumns& c = stream.columns;
        ends[s] = std::max(m_walked[s], std::min(s < limits.size() ? limits[s] : 0, c.size()));
        streams[s] = {stream.cpu, stream.buffer, c.size() ? c.timestamp[0] : 0, ends[s] ? c.timestamp[ends[s] - 1] : 0,
                      stream.endsEarly};
    }
    m_failures.resize(m_consumers.size()); // each lane then writes only its consumers' slots
    for (size_t c = 0; c < m_consumers.size(); ++c)
        guarded(c, [&](RecordConsumer& consumer) { consumer.setStreams(streams); });

    // What this call walks of each stream: the events since the last call up to its limit, and
    // the lost-event markers not yet delivered before them. A later call (a live capture's
    // next batch) walks on from where this one ends.
    Walk walk;
    for (size_t s = 0; s < streams.size(); ++s) {
        const CpuColumns& c = store.stream(StreamId(static_cast<uint16_t>(s))).columns;
        const size_t events = ends[s];
        std::vector<uint32_t> markers;
        for (size_t& l = m_lostDelivered[s]; l < c.lost.size() && c.lost[l].beforeEvent < events; ++l)
            markers.push_back(c.lost[l].beforeEvent);
        walk.ranges.emplace_back(m_walked[s], events);
        walk.markers.push_back(std::move(markers));
    }
    for (size_t t = 0; t < m_columns.size(); ++t) {
        m_consumed[t].resize(std::max(m_consumed[t].size(), m_columns[t].size()), 0);
        if (m_columns[t].size() < streams.size()) m_columns[t].resize(streams.size());
        m_consumed[t].resize(streams.size(), 0);
    }
    // The tasks first: the creations and the pids the records name, for the caller to index
    // the batch's tasks before any other consumer asks for one.
    if (std::unique_ptr<Lane> tasksLane = planTasksLane()) deliverLane(*tasksLane, store, walk);
    if (tasksFed) tasksFed();
    // The pieces are joined on a thread of their own while the lanes walk: the consumers fed
    // in pieces are none of the lanes' (join() pairs what the parser's threads left apart: on
    // 23M events a tenth of a second the lanes need not wait for).
    // The join lets go of what the pieces kept, made on the parser's threads: their arenas hold
    // it until trimmed, under the tables the lanes build meanwhile (a recording's load peaked
    // there, 15 MB over on 23M events). A capture's small batches are not worth the walk.
    constexpr size_t kTrimAfterEvents = size_t(1) << 20;
    size_t walkedEvents = 0;
    for (const auto& [first, end] : walk.ranges) walkedEvents += end - first;
    const bool trimAfterJoin = feedsPieces() && walkedEvents >= kTrimAfterEvents;
    std::exception_ptr joinError;
    std::vector<std::vector<size_t>> walkedTaps;
    std::thread joiner([&] {
        try {
            std::vector<size_t> ends;
            for (const auto& range : walk.ranges) ends.push_back(range.second);
            joinPieces(store, ends);
            if (trimAfterJoin) returnFreedMemory();
            if (piecesJoined) piecesJoined();
            // A scan of every walked event's type: here it costs the lanes nothing.
            walkedTaps = countTaps(store, walk);
        } catch (...) {
            joinError = std::current_exception();
        }
    });
    struct Joined {
        std::thread& thread;
        ~Joined()
        {
            if (thread.joinable()) thread.join();
        }
    } joined{joiner};

    std::vector<uint64_t> recordsOfTap(m_columns.size(), 0);
    for (size_t t = 0; t < m_columns.size(); ++t)
        for (size_t s = 0; s < m_columns[t].size(); ++s)
            recordsOfTap[t] += m_columns[t][s].size() - std::min(m_columns[t][s].size(), m_consumed[t][s]);
    for (uint64_t records : recordsOfTap) walk.total += records;

    // Consumers are independent: they are split into lanes of about equal records, each lane
    // walking the streams on its own thread. This thread walks the first lane and reports.
    uint64_t events = 0;
    for (const auto& [first, end] : walk.ranges) events += end - first;
    std::vector<Lane> lanes = planLanes(recordsOfTap, events);
    m_lanesUsed = lanes.size();
    std::vector<std::thread> others;
    std::vector<std::exception_ptr> errors(lanes.size());
    for (size_t l = 1; l < lanes.size(); ++l)
        others.emplace_back([&, l] {
            try {
                deliverLane(lanes[l], store, walk);
            } catch (...) {
                errors[l] = std::current_exception();
                walk.stop = true;
            }
        });
    auto lastReport = std::chrono::steady_clock::now();
    auto report = [&] {
        const auto now = std::chrono::steady_clock::now();
        if (!progress || now - lastReport < std::chrono::milliseconds(50)) return;
        lastReport = now;
        if (!progress(walk.done.load(std::memory_order_relaxed), walk.total)) walk.stop = true;
    };
    try {
        deliverLane(lanes[0], store, walk, report);
    } catch (...) {
        errors[0] = std::current_exception();
        walk.stop = true;
    }
    for (size_t l = 1; l < lanes.size(); ++l) {
        while (!lanes[l].finished.load()) {
            report();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        others[l - 1].join();
    }
    joiner.join();
    if (joinError) std::rethrow_exception(joinError);
    for (const std::exception_ptr& error : errors)
        if (error) std::rethrow_exception(error);
    consumeTaps(walkedTaps);
    for (size_t s = 0; s < streams.size(); ++s) m_walked[s] = walk.ranges[s].second;
    for (size_t c = 0; c < m_consumers.size(); ++c) guarded(c, [](RecordConsumer& consumer) { consumer.flush(); });
}

std::vector<std::vector<size_t>> ConsumerRegistry::countTaps(const EventStore& store, const Walk& walk) const
{
    // The records of the walked events, per tap and stream: those of events of its type.
    std::vector<std::vector<size_t>> walked(m_taps.size(), std::vector<size_t>(walk.ranges.size(), 0));
    std::vector<int32_t> tapOfType;
    for (size_t t = 0; t < m_taps.size(); ++t) {
        const uint16_t type = m_taps[t].eventType;
        if (tapOfType.size() <= type) tapOfType.resize(type + 1u, -1);
        tapOfType[type] = int32_t(t);
    }
    for (size_t s = 0; s < walk.ranges.size(); ++s) {
        const auto [from, to] = walk.ranges[s];
        const CpuColumns& c = store.stream(StreamId(static_cast<uint16_t>(s))).columns;
        // The codes of the events' shapes, each code's tap worked out once per block.
        BlockCodeMap tapOfCode(c.shapes, [&](uint32_t shape) {
            const auto type = static_cast<uint16_t>(shape);
            const int32_t tap = type < tapOfType.size() ? tapOfType[type] : -1;
            return tap >= 0 && m_taps[size_t(tap)].keep ? tap : -1;
        });
        for (size_t i = from; i < to;) {
            const std::span<const uint16_t> codes = c.shapes.codes(i, to);
            const size_t block = i >> DictionaryColumn<uint32_t>::kBlockBits;
            for (size_t k = 0; (k = tapOfCode.findMapped(block, codes, k)) < codes.size(); ++k)
                ++walked[size_t(tapOfCode(block, codes[k]))][s];
            i += codes.size();
        }
    }
    return walked;
}

void ConsumerRegistry::consumeTaps(const std::vector<std::vector<size_t>>& walked)
{
    for (size_t t = 0; t < walked.size() && t < m_consumed.size(); ++t)
        for (size_t s = 0; s < walked[t].size() && s < m_consumed[t].size(); ++s) m_consumed[t][s] += walked[t][s];
    for (size_t s = 0; s < m_walked.size(); ++s) {
        // Whole pieces read: gone.
        for (size_t t = 0; t < m_columns.size(); ++t) {
            if (s >= m_columns[t].size()) continue;
            std::vector<RecordBlocks>& pieces = m_columns[t][s].pieces;
            size_t drop = 0;
            while (drop < pieces.size() && pieces[drop].size() <= m_consumed[t][s])
                m_consumed[t][s] -= pieces[drop++].size();
            pieces.erase(pieces.begin(), pieces.begin() + long(drop));
        }
    }
}

void ConsumerRegistry::finish()
{
    for (size_t c = 0; c < m_consumers.size(); ++c) guarded(c, [](RecordConsumer& consumer) { consumer.finish(); });
}

void ConsumerRegistry::deliverLane(Lane& lane, const EventStore& store, Walk& walk, const std::function<void()>& report)
{
    struct Finished {
        std::atomic<bool>& flag;
        ~Finished() { flag = true; }
    } finished{lane.finished};
    if (std::find(lane.consumers.begin(), lane.consumers.end(), true) == lane.consumers.end()) return;
    auto reads = [&](size_t t) { return !lane.subscribers[t].empty(); };
    std::vector<int32_t> tapOfType;
    for (size_t t = 0; t < m_taps.size(); ++t) {
        if (!reads(t)) continue;
        const uint16_t type = m_taps[t].eventType;
        if (tapOfType.size() <= type) tapOfType.resize(type + 1u, -1);
        tapOfType[type] = int32_t(t);
    }
    std::vector<StreamWalk> cursors;
    for (size_t s = 0; s < walk.ranges.size(); ++s) {
        const CpuColumns& c = store.stream(StreamId(static_cast<uint16_t>(s))).columns;
        cursors.emplace_back(c, walk.ranges[s].first, walk.ranges[s].second, tapOfType, walk.markers[s]);
        for (size_t t = 0; t < m_columns.size() && t < m_taps.size(); ++t)
            if (s < m_columns[t].size() && reads(t))
                cursors[s].addTap(uint32_t(t), m_columns[t][s], lane.releases[t], m_consumed[t][s]);
    }

    auto timeOf = [&](size_t s, uint32_t index) {
        return store.stream(StreamId(static_cast<uint16_t>(s))).columns.timestamp[index];
    };
    std::vector<StreamWalk::Hit> hits(cursors.size());
    const bool bigEndian = store.layout().bigEndian;
    std::vector<TypedValue> values;
    // The task of each stream's last record: the same while its pid is and no new life began.
    struct Known {
        int32_t pid = -1;
        uint64_t from = 0, until = 0;
        TaskId task;
    };
    std::vector<Known> known(cursors.size());
    auto taskOf = [&](size_t stream, int32_t pid, uint64_t ts) {
        Known& k = known[stream];
        if (!m_taskOf || lane.tasks) return TaskId(); // the batch's tasks are not indexed yet
        if (k.pid != pid || ts < k.from || ts >= k.until) {
            k.task = m_taskOf(pid, ts, &k.until);
            k.pid = pid;
            k.from = ts;
        }
        return k.task;
    };
    constexpr uint64_t kReportEvery = 1 << 14;
    uint64_t pending = 0; // records delivered and not yet added to walk.done
    if (walk.stop.load(std::memory_order_relaxed)) return;
    // The streams merged by time, ties in stream order, as the merged order has them.
    mergeByTime(
        cursors.size(),
        [&](uint32_t s, uint64_t& ts) {
            if (!cursors[s].next(hits[s])) return false;
            ts = timeOf(s, hits[s].index);
            return true;
        },
        [&](uint32_t stream, uint64_t ts) {
            const StreamWalk::Hit& hit = hits[stream];
            const CpuColumns& c = store.stream(StreamId(static_cast<uint16_t>(stream))).columns;
            if (hit.tap == StreamWalk::kLostMarker) {
                for (size_t k = 0; k < m_consumers.size(); ++k)
                    if (lane.consumers[k])
                        guarded(k, [&](RecordConsumer& consumer) {
                            consumer.eventsLost(StreamId(static_cast<uint16_t>(stream)), ts);
                        });
            } else {
                const BoundTap& tap = m_bound[hit.tap];
                for (const Subscriber* sub : lane.subscribers[hit.tap]) {
                    decode(tap, *sub, hit.bytes, bigEndian, values);
                    ConsumedRecord record;
                    record.request = sub->request;
                    record.type = m_taps[hit.tap].eventType;
                    record.timestamp = ts;
                    record.stream = StreamId(static_cast<uint16_t>(stream));
                    record.index = hit.index;
                    record.pid = c.pid[hit.index];
                    record.task = taskOf(stream, record.pid, ts);
                    record.flags = c.flags[hit.index];
                    record.values = values.data();
                    record.valueCount = sub->fields.size();
                    guarded(sub->consumer, [&](RecordConsumer& consumer) { consumer.consume(record); });
                }
                pending += lane.counts[hit.tap];
            }
            if (pending >= kReportEvery) {
                walk.done.fetch_add(pending, std::memory_order_relaxed);
                pending = 0;
                if (report) report();
                if (walk.stop.load(std::memory_order_relaxed)) return false;
            }
            return true;
        });
    walk.done.fetch_add(pending, std::memory_order_relaxed);
}

std::optional<ConsumerRegistry::FieldFormat> ConsumerRegistry::FieldFormat::usable(int offset, int size, bool isSigned,
                                                                                   bool isText, bool isDynamic)
{
    if (isDynamic || size <= 0 || offset < 0) return std::nullopt;
    // Numbers wider than a long are not numbers a consumer can use; text is capped.
    if (isText ? size > 256 : size > 8) return std::nullopt;
    return FieldFormat{offset, size, isSigned, isText};
}

ConsumerRegistry::EventLister eventsOf(tep_handle* tep)
{
    return [tep](const std::string& system) {
        std::vector<std::string> names;
        tep_event** events = tep ? tep_list_events(tep, TEP_EVENT_SORT_ID) : nullptr;
        for (int i = 0; events && events[i]; ++i)
            if (events[i]->system && events[i]->name && system == events[i]->system) names.push_back(events[i]->name);
        return names;
    };
}

ConsumerRegistry::FormatLookup formatsOf(tep_handle* tep)
{
    return [tep](const std::string& system, const std::string& name) -> std::optional<ConsumerRegistry::EventFormat> {
        tep_event* event = tep ? tep_find_event_by_name(tep, system.c_str(), name.c_str()) : nullptr;
        if (!event || event->id < 0 || event->id > 0xffff) return std::nullopt;
        ConsumerRegistry::EventFormat format;
        format.type = static_cast<uint16_t>(event->id);
        format.field = [event](const std::string& fieldName) -> std::optional<ConsumerRegistry::FieldFormat> {
            tep_format_field* f = tep_find_field(event, fieldName.c_str());
            if (!f) return std::nullopt;
            const bool text = (f->flags & TEP_FIELD_IS_STRING) ||
                              ((f->flags & TEP_FIELD_IS_ARRAY) && f->type && std::strstr(f->type, "char"));
            return ConsumerRegistry::FieldFormat::usable(f->offset, f->size, (f->flags & TEP_FIELD_IS_SIGNED) != 0,
                                                         text, (f->flags & TEP_FIELD_IS_DYNAMIC) != 0);
        };
        return format;
    };
}

} // namespace ringside
