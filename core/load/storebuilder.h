// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "load/pageparser.h"
#include "store/eventstore.h"

#include <vector>

struct tep_handle;

namespace ringside {

// The only writer of an EventStore: the loader fills the streams, then finalize() builds the
// merged order, the task table and the counts, after which the store is read-only.
class StoreBuilder {
public:
    explicit StoreBuilder(EventStore& store) : m_store(store) {}

    Stream& addStream(uint16_t buffer, int cpu, std::unique_ptr<PageSource> pages);
    void addBuffer(BufferSummary summary) { m_store.m_buffers.push_back(std::move(summary)); }
    void setLayout(const FileLayout& layout) { m_store.m_layout = layout; }
    void setTaps(std::vector<std::vector<TapColumn>> taps) { m_store.m_taps = std::move(taps); }
    Diagnostics& diagnostics() { return m_store.m_diagnostics; }
    std::vector<std::unique_ptr<Stream>>& streams() { return m_store.m_streams; }

    // Builds the merged order (on up to `threads` threads; `sorted`: no stream goes back in time), the task table and the counts.
    void finalize(std::vector<uint64_t> typeCounts, bool sorted, int threads, tep_handle* tep);

    // Merges time-ordered streams into one order of global ids: a binary heap keyed on
    // (timestamp, stream), so equal timestamps keep the stream order trace-cmd uses.
    // When every stream is sorted, the output is cut at timestamps taken from the largest
    // stream and the pieces are merged in parallel; the result is the same as one merge.
    static void mergeStreams(const std::vector<const TimestampColumn*>& streams, bool sorted, int threads,
                             MergedOrder& out);

private:
    EventStore& m_store;
};

} // namespace ringside
