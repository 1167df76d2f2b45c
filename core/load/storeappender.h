// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"

#include <functional>
#include <string>
#include <vector>

namespace ringside {

// The one writer of an EventStore, for a recording and a live capture alike (a recording is a
// capture that ends at once). Pages are parsed into CpuColumns segments (with PageParser, on
// any thread), then handed in with append() on the writer's thread, stream by stream in order;
// publish() then moves into the merged order every appended event that no later data can
// precede: those strictly before the time every stream has reached (its last event, or what
// advance() says it has delivered), or everything when final. Published rows never move. A
// segment older than what is already published (a stream that went back in time, or one that
// was not advanced) is never lost: its events are published after the rows already there and
// counted in lateEvents() and a "late-events" diagnostic.
//
// Only the writer's thread calls this class; see EventStore for what readers may do meanwhile.
class StoreAppender {
public:
    // The name a pid was saved under (the recording's saved comms, or /proc for a capture of
    // this machine), asked once per pid as its first events come.
    using CommLookup = std::function<std::string(int32_t pid)>;

    StoreAppender(EventStore& store, CommLookup comms);

    // The store's shape: its buffers (each names the streams added to it), how its raw
    // records are laid out.
    void addBuffer(BufferSummary summary) { m_store.m_buffers.push_back(std::move(summary)); }
    void setLayout(const FileLayout& layout) { m_store.m_layout = layout; }
    // Adds a CPU stream to buffer `buffer` (a recording's CPUs, or a CPU that came online);
    // returns its id. Copies nothing.
    StreamId addStream(uint16_t buffer, int cpu, std::unique_ptr<PageSource> pages);
    // The writer's access to a stream it added (its kernel counters).
    Stream& stream(StreamId id) { return *m_store.m_streams[id.value]; }

    // Appends a segment of a stream's events that follows what the stream already holds.
    void append(StreamId stream, CpuColumns&& segment);
    // The same for a batch the caller fills again: left empty, its first blocks kept.
    void appendBatch(StreamId stream, CpuColumns& batch);
    // The same for a segment whose event types the parser counted already (addTypeCounts
    // gives them): a recording's millions of events are not counted twice.
    void appendCounted(StreamId stream, CpuColumns&& segment);
    void addTypeCounts(const std::vector<uint64_t>& perType);

    // The stream has delivered everything up to `upTo` (an idle CPU with nothing new), so it
    // no longer holds back the publishing of other streams' events before that time.
    void advance(StreamId stream, uint64_t upTo);

    // Publishes what can be ordered now; returns the number of rows added to the merged order.
    // A first publish of everything at once (a recording, `final`) whose streams never went
    // back in time (`sorted`) merges in pieces on up to `threads` threads; the order is the same.
    size_t publish(bool final, int threads = 1, bool sorted = false);

    uint64_t lateEvents() const { return m_lateEvents; }
    // The store's diagnostics, for the writer to add to (readers see them once it stopped).
    Diagnostics& diagnostics() { return m_store.m_diagnostics; }

private:
    // Counts the events of a stream from `from` on for their tasks (and types, unless counted).
    void counted(const CpuColumns& columns, size_t from, bool types);

    EventStore& m_store;
    CommLookup m_comms;
    std::vector<uint64_t> m_advanced; // per stream, 0: never advanced
    uint64_t m_lateEvents = 0;
    bool m_lateReported = false;
};

} // namespace ringside
