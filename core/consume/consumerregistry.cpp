// SPDX-License-Identifier: GPL-2.0-or-later
#include "consume/consumerregistry.h"

#include "store/eventstore.h"
#include "util/bytereader.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <queue>

namespace ringside {

namespace {

// One stream's tapped records and lost-event markers in stream order, read lazily: the taps'
// pieces are in stream order each, so the next hit is the smallest head among a few sources
// (no sort, no list of every hit: the cost stays linear and the memory flat).
class HitCursor {
public:
    static constexpr uint32_t kLostMarker = ~uint32_t(0);
    struct Hit {
        uint32_t index = 0; // the event's index in its stream
        uint32_t tap = 0;   // or kLostMarker
        const uint8_t* bytes = nullptr;
    };

    void addMarkers(const std::vector<uint32_t>& beforeEvents)
    {
        // First among sources: a marker comes before the event it precedes.
        Source source{kLostMarker};
        source.markers = &beforeEvents;
        source.settle();
        if (source.valid) m_sources.insert(m_sources.begin(), source);
    }
    void addTap(uint32_t tap, const TapColumn& column)
    {
        Source source{tap};
        source.pieces = &column.pieces;
        source.settle();
        if (source.valid) m_sources.push_back(source); // hundreds of syscalls:* taps have no hits
    }
    bool next(Hit& hit)
    {
        Source* best = nullptr;
        for (Source& source : m_sources)
            if (source.valid && (!best || source.head < best->head)) best = &source;
        if (!best) return false;
        hit = {best->head, best->tap, best->bytes};
        best->advance();
        return true;
    }

private:
    struct Source {
        uint32_t tap;
        const std::vector<uint32_t>* markers = nullptr;
        size_t marker = 0;
        const std::vector<TapColumn::Piece>* pieces = nullptr;
        size_t piece = 0, block = 0, record = 0;
        // The current hit.
        bool valid = false;
        uint32_t head = 0;
        const uint8_t* bytes = nullptr;

        void advance()
        {
            ++(markers ? marker : record);
            settle();
        }
        // Reads the current position, or moves on to the next record there is.
        void settle()
        {
            valid = false;
            if (markers) {
                if ((valid = marker < markers->size())) head = (*markers)[marker];
                return;
            }
            for (; piece < pieces->size(); ++piece, block = 0, record = 0) {
                const TapColumn::Piece& p = (*pieces)[piece];
                const auto& blocks = p.records.blocks();
                for (; block < blocks.size(); ++block, record = 0) {
                    if (record >= blocks[block].count) continue;
                    const uint8_t* at = blocks[block].data + record * p.records.stride();
                    std::memcpy(&head, at, TapColumn::kIndexBytes);
                    head += p.firstIndex;
                    bytes = at + TapColumn::kIndexBytes;
                    valid = true;
                    return;
                }
            }
        }
    };
    std::vector<Source> m_sources;
};

} // namespace

RecordConsumer& ConsumerRegistry::add(std::unique_ptr<RecordConsumer> consumer)
{
    if (RecordConsumer* existing = find(consumer->name())) return *existing;
    m_consumers.push_back(std::move(consumer));
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

const std::vector<RecordTap>& ConsumerRegistry::bind(const FormatLookup& lookup, const EventLister& list)
{
    m_taps.clear();
    m_bound.clear();
    m_failures.assign(m_consumers.size(), std::string());
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
        for (const auto& [r, event] : events) {
            const std::optional<EventFormat> format = lookup(requests[r].system, event);
            if (!format) continue;
            std::vector<FieldFormat> fields;
            for (const std::string& name : requests[r].fields) {
                std::optional<FieldFormat> f = format->field(name);
                if (!f) break;
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
            Subscriber subscriber{c, r, {}};
            for (const FieldFormat& f : fields) {
                // Two consumers asking for one field share its bytes.
                size_t index = 0;
                while (index < boundTap.fields.size() &&
                       (boundTap.fields[index].offset != f.offset || boundTap.fields[index].size != f.size))
                    ++index;
                if (index == boundTap.fields.size()) {
                    boundTap.byteOffset.push_back(tap.bytesPerHit());
                    boundTap.fields.push_back(f);
                    tap.fields.push_back({f.offset, f.size});
                }
                subscriber.fields.push_back(index);
            }
            boundTap.subscribers.push_back(std::move(subscriber));
            bound[r] = true;
        }
        guarded(c, [&](RecordConsumer& consumer) { consumer.bind(bound); });
    }
    return m_taps;
}

template <typename Call>
void ConsumerRegistry::guarded(size_t c, Call what)
{
    if (m_failures.size() < m_consumers.size()) m_failures.resize(m_consumers.size());
    if (!m_failures[c].empty()) return;
    try {
        what(*m_consumers[c]);
    } catch (const std::exception& e) {
        m_failures[c] = e.what()[0] ? e.what() : "an exception without a message";
    } catch (...) {
        m_failures[c] = "an exception that is not a std::exception";
    }
}

std::string ConsumerRegistry::failure(std::string_view name) const
{
    for (size_t c = 0; c < m_consumers.size(); ++c)
        if (m_consumers[c]->name() == name) return c < m_failures.size() ? m_failures[c] : std::string();
    return {};
}

void ConsumerRegistry::deliver(const EventStore& store, const std::vector<std::vector<TapColumn>>& columns)
{
    std::vector<StreamInfo> streams(store.streamCount());
    for (size_t s = 0; s < streams.size(); ++s) {
        const Stream& stream = store.stream(StreamId(static_cast<uint16_t>(s)));
        streams[s] = {stream.cpu, stream.buffer, stream.columns.size() ? stream.columns.timestamp[0] : 0};
    }
    for (size_t c = 0; c < m_consumers.size(); ++c)
        guarded(c, [&](RecordConsumer& consumer) { consumer.setStreams(streams); });

    // Lost-event markers not yet delivered join the hits as tap kLostMarker, before the event
    // they precede.
    m_lostDelivered.resize(streams.size(), 0);
    std::vector<std::vector<uint32_t>> markers(streams.size());
    for (size_t s = 0; s < streams.size(); ++s) {
        const CpuColumns& c = store.stream(StreamId(static_cast<uint16_t>(s))).columns;
        const size_t events = c.size();
        for (size_t& l = m_lostDelivered[s]; l < c.lost.size() && c.lost[l].beforeEvent < events; ++l)
            markers[s].push_back(c.lost[l].beforeEvent);
    }
    std::vector<HitCursor> cursors(streams.size());
    for (size_t s = 0; s < streams.size(); ++s) {
        if (!markers[s].empty()) cursors[s].addMarkers(markers[s]);
        for (size_t t = 0; t < columns.size() && t < m_taps.size(); ++t)
            if (s < columns[t].size()) cursors[s].addTap(uint32_t(t), columns[t][s]);
    }

    // The streams merged by time, ties in stream order, as the merged order has them.
    struct Head {
        uint64_t ts;
        uint16_t stream;
        HitCursor::Hit hit;
    };
    auto later = [](const Head& a, const Head& b) { return a.ts != b.ts ? a.ts > b.ts : a.stream > b.stream; };
    std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
    auto timeOf = [&](size_t s, uint32_t index) {
        return store.stream(StreamId(static_cast<uint16_t>(s))).columns.timestamp[index];
    };
    for (size_t s = 0; s < cursors.size(); ++s) {
        HitCursor::Hit hit;
        if (cursors[s].next(hit)) heads.push({timeOf(s, hit.index), uint16_t(s), hit});
    }

    const bool bigEndian = store.layout().bigEndian;
    std::vector<TypedValue> values;
    while (!heads.empty()) {
        Head head = heads.top();
        heads.pop();
        const CpuColumns& c = store.stream(StreamId(head.stream)).columns;
        // The stream stays current while its next hit comes before every other stream's head:
        // runs of one CPU's records cost no heap operations.
        for (;;) {
            const HitCursor::Hit& hit = head.hit;
            if (hit.tap == HitCursor::kLostMarker) {
                for (size_t k = 0; k < m_consumers.size(); ++k)
                    guarded(k, [&](RecordConsumer& consumer) { consumer.eventsLost(StreamId(head.stream), head.ts); });
            } else {
                const BoundTap& tap = m_bound[hit.tap];
                for (const Subscriber& sub : tap.subscribers) {
                    values.clear();
                    for (size_t f : sub.fields) {
                        const FieldFormat& format = tap.fields[f];
                        const uint8_t* at = hit.bytes + tap.byteOffset[f];
                        if (format.isText) {
                            const auto* text = reinterpret_cast<const char*>(at);
                            values.push_back(TypedValue::text({text, strnlen(text, size_t(format.size))}));
                        } else {
                            values.push_back(TypedValue::number(ByteReader::decode(at, format.size, bigEndian),
                                                                format.isSigned, format.size));
                        }
                    }
                    ConsumedRecord record;
                    record.request = sub.request;
                    record.type = m_taps[hit.tap].eventType;
                    record.timestamp = head.ts;
                    record.stream = StreamId(head.stream);
                    record.index = hit.index;
                    record.pid = c.pid[hit.index];
                    record.flags = c.flags[hit.index];
                    record.values = values.data();
                    record.valueCount = values.size();
                    guarded(sub.consumer, [&](RecordConsumer& consumer) { consumer.consume(record); });
                }
            }
            if (!cursors[head.stream].next(head.hit)) break;
            head.ts = timeOf(head.stream, head.hit.index);
            if (!heads.empty() && later(head, heads.top())) {
                heads.push(head);
                break;
            }
        }
    }
    for (size_t c = 0; c < m_consumers.size(); ++c) guarded(c, [](RecordConsumer& consumer) { consumer.flush(); });
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
            if (!f || (f->flags & TEP_FIELD_IS_DYNAMIC) || f->size <= 0) return std::nullopt;
            const bool text = (f->flags & TEP_FIELD_IS_STRING) ||
                              ((f->flags & TEP_FIELD_IS_ARRAY) && f->type && std::strstr(f->type, "char"));
            // Numbers wider than a long are not numbers a consumer can use; text is capped.
            if (text ? f->size > 256 : f->size > 8) return std::nullopt;
            return ConsumerRegistry::FieldFormat{f->offset, f->size, (f->flags & TEP_FIELD_IS_SIGNED) != 0, text};
        };
        return format;
    };
}

} // namespace ringside
