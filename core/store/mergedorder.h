// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/chunkedcolumn.h"
#include "store/ids.h"

#include <cstdint>
#include <vector>

namespace ringside {

// The merged time order of all streams, kept apart from the per-CPU columns. Row r stores only
// the stream its event comes from (2 bytes); the event's index in that stream is the number
// of earlier rows of the same stream, found from a checkpoint of per-stream counts taken every
// kCheckpointRows rows plus a short scan. Rows never move, so appending (live capture) keeps
// every row valid, and the index costs half of a 32-bit id per event.
class MergedOrder {
public:
    static constexpr size_t kCheckpointRows = 1024;

    explicit MergedOrder(size_t streams = 0) : m_counts(streams, 0) {}

    void setStreamCount(size_t streams) { m_counts.assign(streams, 0); }
    size_t streamCount() const { return m_counts.size(); }
    size_t size() const { return m_streams.size(); }
    StreamId streamAt(size_t row) const { return StreamId(m_streams[row]); }
    EventRef eventAt(size_t row) const;

    void append(StreamId stream)
    {
        if (m_streams.size() % kCheckpointRows == 0) m_checkpoints.insert(m_checkpoints.end(), m_counts.begin(), m_counts.end());
        m_streams.push_back(stream.value);
        ++m_counts[stream.value];
    }

    // For writers that fill rows by index (the parallel merge): size the rows, write them
    // with set(), then rebuild the checkpoints once.
    void resize(size_t rows) { m_streams.resize(rows); }
    void set(size_t row, StreamId stream) { m_streams[row] = stream.value; }
    void rebuildCheckpoints();

    // Events of each stream already in the order.
    const std::vector<uint32_t>& countsPerStream() const { return m_counts; }

    // Walks rows in order with O(1) per step.
    class Cursor {
    public:
        Cursor(const MergedOrder& order, size_t row);
        size_t row() const { return m_row; }
        bool atEnd() const { return m_row >= m_order.size(); }
        EventRef event() const { return {m_order.streamAt(m_row), m_next[m_order.m_streams[m_row]]}; }
        void next() { ++m_next[m_order.m_streams[m_row++]]; }

    private:
        const MergedOrder& m_order;
        size_t m_row;
        std::vector<uint32_t> m_next;
    };

    size_t memoryBytes() const
    {
        return m_streams.memoryBytes() + m_checkpoints.capacity() * sizeof(uint32_t);
    }

private:
    ChunkedColumn<uint16_t> m_streams;
    std::vector<uint32_t> m_checkpoints; // streamCount() counts per kCheckpointRows rows
    std::vector<uint32_t> m_counts;
};

} // namespace ringside
