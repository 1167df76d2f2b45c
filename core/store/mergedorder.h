// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/chunkedcolumn.h"
#include "store/ids.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace ringside {

// The stream of each row: one byte while no stream id needs more (up to 256 streams, every
// recording of a machine of up to 256 CPUs), two after. Widening copies the rows into the
// wide column and keeps the narrow one, so a reader that still reads it reads right.
class StreamColumn {
public:
    uint16_t operator[](size_t row) const { return isWide() ? m_wide[row] : m_narrow[row]; }
    size_t size() const { return isWide() ? m_wide.size() : m_narrow.size(); }
    void push_back(uint16_t stream)
    {
        if (stream > UINT8_MAX && !isWide()) widen();
        if (isWide())
            m_wide.push_back(stream);
        else
            m_narrow.push_back(static_cast<uint8_t>(stream));
    }
    // The bulk build's, before anyone reads: `streams` says how wide the ids are.
    void resize(size_t rows, size_t streams)
    {
        if (streams > size_t(UINT8_MAX) + 1 && !isWide()) widen();
        if (isWide())
            m_wide.resize(rows);
        else
            m_narrow.resize(rows);
    }
    void set(size_t row, uint16_t stream)
    {
        if (isWide())
            m_wide[row] = stream;
        else
            m_narrow[row] = static_cast<uint8_t>(stream);
    }
    size_t memoryBytes() const { return m_narrow.memoryBytes() + m_wide.memoryBytes(); }

private:
    bool isWide() const { return m_isWide.load(std::memory_order_acquire); }
    void widen()
    {
        for (size_t r = 0; r < m_narrow.size(); ++r) m_wide.push_back(m_narrow[r]);
        m_isWide.store(true, std::memory_order_release);
    }

    ChunkedColumn<uint8_t> m_narrow;
    ChunkedColumn<uint16_t> m_wide;
    std::atomic<bool> m_isWide = false;
};

// The merged time order of all streams, kept apart from the per-CPU columns. Row r stores only
// the stream its event comes from (StreamColumn: 1 byte); the event's index in that stream is the number
// of earlier rows of the same stream, found from a checkpoint of per-stream counts taken every
// kCheckpointRows rows plus a short scan. Rows never move, so appending (live capture) keeps
// every row valid, and the index costs a quarter of a 32-bit id per event.
//
// Threading: one writer appends while readers read the rows below size() (acquire). A
// checkpoint is written before the row that needs it is published. A checkpoint holds the
// counts of the streams that existed when it was taken (a stream added later has no earlier
// rows), so adding a stream copies nothing. countsPerStream() is the writer's.
class MergedOrder {
public:
    static constexpr size_t kCheckpointRows = 1024;

    explicit MergedOrder(size_t streams = 0) : m_counts(streams, 0) {}

    void setStreamCount(size_t streams) { m_counts.assign(streams, 0); }
    // A stream joins (live capture: a CPU came online); rows already there keep their meaning.
    void addStream() { m_counts.push_back(0); }
    size_t streamCount() const { return m_counts.size(); }
    size_t size() const { return m_streams.size(); }
    StreamId streamAt(size_t row) const { return StreamId(m_streams[row]); }
    EventRef eventAt(size_t row) const;
    // The row of the `index`-th event of `stream`, from the checkpoints (no scan beyond one
    // checkpoint's rows); size() when the order does not hold it.
    size_t rowOf(EventRef event) const;

    void append(StreamId stream)
    {
        if (m_streams.size() % kCheckpointRows == 0) takeCheckpoint();
        ++m_counts[stream.value];
        m_streams.push_back(stream.value);
    }

    // For writers that fill rows by index (the parallel merge): size the rows, write them
    // with set(), then rebuild the checkpoints once; before anyone reads.
    void resize(size_t rows) { m_streams.resize(rows, m_counts.size()); }
    void set(size_t row, StreamId stream) { m_streams.set(row, stream.value); }
    void rebuildCheckpoints();

    // Merges time-ordered streams into `out` (empty, no reader yet): a binary heap keyed on
    // (timestamp, stream), so equal timestamps keep the stream order trace-cmd uses. When
    // every stream is sorted, the output is cut at timestamps taken from the largest stream and
    // the pieces are merged on `threads` threads; the result is the same as one merge.
    static void mergeStreams(const std::vector<const class TimestampColumn*>& streams, bool sorted, int threads,
                             MergedOrder& out);

    // Events of each stream already in the order (the writer's).
    const std::vector<uint32_t>& countsPerStream() const { return m_counts; }
    // Events of each of `streams` in the first `rows` rows (rows <= size()), from the
    // checkpoints: any thread.
    std::vector<size_t> countsAt(size_t rows, size_t streams) const;

    // Walks rows in order with O(1) per step.
    class Cursor {
    public:
        Cursor(const MergedOrder& order, size_t row);
        size_t row() const { return m_row; }
        bool atEnd() const { return m_row >= m_end; }
        EventRef event() const
        {
            const uint16_t stream = m_order.m_streams[m_row];
            return {StreamId(stream), stream < m_next.size() ? m_next[stream] : 0};
        }
        void next()
        {
            const uint16_t stream = m_order.m_streams[m_row++];
            if (stream >= m_next.size()) m_next.resize(size_t(stream) + 1, 0); // a stream added later
            ++m_next[stream];
        }

    private:
        const MergedOrder& m_order;
        size_t m_row;
        size_t m_end; // the rows published when the cursor was made
        std::vector<uint32_t> m_next;
    };

    size_t memoryBytes() const
    {
        return m_streams.memoryBytes() + m_checkpoints.memoryBytes() + m_checkpointAt.memoryBytes();
    }

private:
    struct Checkpoint {
        uint64_t offset;  // of its counts in m_checkpoints
        uint32_t streams; // how many streams it counts
    };
    void takeCheckpoint();
    // The count of `stream` at checkpoint k.
    uint32_t countAt(size_t k, uint16_t stream) const
    {
        const Checkpoint c = m_checkpointAt[k];
        return stream < c.streams ? m_checkpoints[c.offset + stream] : 0;
    }

    StreamColumn m_streams;
    ChunkedColumn<uint32_t> m_checkpoints;        // the counts, checkpoint after checkpoint
    ChunkedColumn<Checkpoint, 12> m_checkpointAt; // one per kCheckpointRows rows
    std::vector<uint32_t> m_counts;
};

} // namespace ringside
