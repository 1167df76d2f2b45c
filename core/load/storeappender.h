// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"

#include <functional>
#include <string>
#include <vector>

namespace ringside {

// Grows a store while other threads read it: the path live capture takes. Pages are parsed
// into CpuColumns segments (with PageParser, on any thread), then handed in with append() on
// the one writer thread; publish() then moves into the merged order every appended event
// that no later data can precede: those strictly before the time every stream has reached
// (its last event, or what advance() says it has delivered), or everything when final.
// Published rows never move. A segment older than what is already published (a stream that
// went back in time, or one that was not advanced) is never lost: its events are published
// after the rows already there and counted in lateEvents() and a "late-events" diagnostic.
// Only the writer thread calls this class; see EventStore for what readers may do meanwhile.
class StoreAppender {
public:
    using CommLookup = std::function<std::string(int32_t pid)>;

    StoreAppender(EventStore& store, CommLookup comms);

    // Adds a CPU stream (e.g. a CPU that came online); returns its id. Copies nothing.
    StreamId addStream(uint16_t buffer, int cpu, std::unique_ptr<PageSource> pages);

    // Appends a segment of a stream's events that follows what the stream already holds.
    void append(StreamId stream, CpuColumns&& segment);
    // The same for a batch the caller fills again: left empty, its first blocks kept.
    void appendBatch(StreamId stream, CpuColumns& batch);

    // The stream has delivered everything up to `upTo` (an idle CPU with nothing new), so it
    // no longer holds back the publishing of other streams' events before that time.
    void advance(StreamId stream, uint64_t upTo);

    // Publishes what can be ordered now; returns the number of rows added to the merged order.
    size_t publish(bool final);

    uint64_t lateEvents() const { return m_lateEvents; }
    // The store's diagnostics, for the writer to add to (readers see them once it stopped).
    Diagnostics& diagnostics() { return m_store.m_diagnostics; }

private:
    // Counts the events of a stream from `from` on for their types and tasks.
    void counted(const CpuColumns& columns, size_t from);

    EventStore& m_store;
    CommLookup m_comms;
    std::vector<uint64_t> m_advanced; // per stream, 0: never advanced
    uint64_t m_lateEvents = 0;
    bool m_lateReported = false;
};

} // namespace ringside
