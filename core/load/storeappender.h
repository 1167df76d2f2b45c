// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"

#include <functional>
#include <string>
#include <vector>

namespace ringside {

// Grows a finalized store while the GUI keeps reading it: the path live capture takes.
// Pages are parsed into CpuColumns segments off the owner thread (with PageParser), then
// handed in on the owner thread with append(); publish() then moves into the merged order
// every appended event that no later data can precede: all events before the oldest "latest
// timestamp" among the streams that have data, or everything when final. Rows already
// published never move. If a stream delivers data older than what was published, the order
// is rebuilt on the final publish. Not thread-safe: the owner thread reads and appends.
class StoreAppender {
public:
    using CommLookup = std::function<std::string(int32_t pid)>;

    StoreAppender(EventStore& store, CommLookup comms);

    // Adds a CPU stream (e.g. a CPU that came online); returns its id.
    StreamId addStream(uint16_t buffer, int cpu, std::unique_ptr<PageSource> pages);

    // Appends a segment of a stream's events that follows what the stream already holds.
    void append(StreamId stream, CpuColumns&& segment);

    // Publishes what can be ordered now; returns the number of rows added to the merged order.
    size_t publish(bool final);

    uint64_t lateEvents() const { return m_lateEvents; }

private:
    EventStore& m_store;
    CommLookup m_comms;
    bool m_needsRebuild = false;
    uint64_t m_lateEvents = 0;
};

} // namespace ringside
