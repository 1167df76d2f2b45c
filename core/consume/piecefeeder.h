// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/tracktables.h"
#include "consume/consumerfailure.h"
#include "consume/consumerregistry.h"

#include <memory>
#include <string>
#include <vector>

// The registry's own: what feeds its consumers fed in pieces while the pages are parsed.
namespace ringside {

// Feeds the pieces of one stretch of one stream as the parser finds the records, on its thread.
// A piece that throws is fed no more; its consumer is marked failed when the pieces are joined.
class ConsumerRegistry::Feeder : public RecordSink {
public:
    Feeder(ConsumerRegistry& registry, StreamId stream) : m_registry(registry), m_stream(stream), m_rows(stream)
    {
        const StretchRows::Scope scope(&m_rows);
        const size_t consumers = registry.m_consumers.size();
        m_pieces.resize(consumers);
        m_failures.resize(consumers);
        for (size_t c = 0; c < consumers; ++c) {
            // Not asked whether it failed: a capture's stretches start while a batch is delivered
            // (which writes the failures). A failed consumer's pieces are never joined.
            if (!registry.m_consumers[c]->fedInPieces()) continue;
            guarded(c, [&] { m_pieces[c] = registry.m_consumers[c]->newPiece(stream); });
        }
        for (size_t t = 0; t < registry.m_bound.size(); ++t) {
            const std::vector<Subscriber>& subs = registry.m_bound[t].pieceSubscribers;
            m_routes.push_back({registry.m_taps[t].eventType, subs.data(), subs.data() + subs.size()});
        }
    }
    void records(const SinkRecord* records, size_t count) override
    {
        const StretchRows::Scope scope(&m_rows);
        const size_t tapOffset = m_registry.m_tapOffset;
        ConsumedRecord record;
        record.stream = m_stream;
        for (const SinkRecord* r = records; r != records + count; ++r) {
            if (r->lost) {
                eventsLost(r->timestamp);
                continue;
            }
            if (r->tap < tapOffset) continue;
            record.timestamp = r->timestamp;
            record.index = r->index;
            record.pid = r->pid;
            record.flags = r->flags;
            feed(m_routes[r->tap - tapOffset], record, [&](const Subscriber& sub) {
                decodeRecord(sub, r->record, r->recordBytes, m_registry.m_bigEndian, m_values);
                return sub.formats.size();
            });
        }
    }
    void end() override
    {
        const StretchRows::Scope scope(&m_rows);
        for (size_t c = 0; c < m_pieces.size(); ++c)
            if (m_pieces[c]) guarded(c, [&] { m_pieces[c]->end(); });
    }
    // The stretch landed at `firstIndex` of its stream: its rows are placed there.
    void place(uint32_t firstIndex, uint32_t events) { m_rows.place(firstIndex, events); }
    StreamId stream() const { return m_stream; }
    std::unique_ptr<StreamPiece> take(size_t consumer) { return std::move(m_pieces[consumer]); }
    const std::string& failure(size_t consumer) const { return m_failures[consumer]; }

private:
    // Per tap: its event type and subscribers fed in pieces, at hand (the registry's bound
    // taps are large and far apart: their loads stalled every record).
    struct Route {
        uint16_t type = 0;
        const Subscriber* first = nullptr;
        const Subscriber* last = nullptr;
    };

    // Gives `record` to the pieces of the route's subscribers, each with the values `decode`
    // wrote into m_values (it returns how many).
    template <typename Decode>
    void feed(const Route& route, ConsumedRecord& record, Decode decode)
    {
        record.type = route.type;
        for (const Subscriber* sub = route.first; sub != route.last; ++sub) {
            StreamPiece* piece = m_pieces[sub->consumer].get();
            if (!piece) continue;
            record.valueCount = decode(*sub);
            record.request = sub->request;
            record.values = m_values.data();
            guarded(sub->consumer, [&] { piece->consume(record); });
        }
    }
    void eventsLost(uint64_t timestamp)
    {
        for (size_t c = 0; c < m_pieces.size(); ++c)
            if (m_pieces[c]) guarded(c, [&] { m_pieces[c]->eventsLost(timestamp); });
    }
    template <typename Call>
    void guarded(size_t c, Call what)
    {
        try {
            what();
        } catch (...) {
            m_failures[c] = failureOfCurrentException();
            m_pieces[c].reset();
        }
    }

    ConsumerRegistry& m_registry;
    StreamId m_stream;
    StretchRows m_rows;
    std::vector<Route> m_routes;
    std::vector<std::unique_ptr<StreamPiece>> m_pieces; // per consumer, null for the others
    std::vector<std::string> m_failures;                // per consumer
    std::vector<TypedValue> m_values;
};

} // namespace ringside
