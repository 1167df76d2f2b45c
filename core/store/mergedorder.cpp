// SPDX-License-Identifier: GPL-2.0-or-later
#include "store/mergedorder.h"

#include "store/timemerge.h"
#include "store/timestampcolumn.h"

#include <algorithm>
#include <thread>

namespace ringside {

void MergedOrder::takeCheckpoint()
{
    const uint64_t offset = m_checkpoints.size();
    for (uint32_t count : m_counts) m_checkpoints.push_back(count);
    m_checkpointAt.push_back({offset, static_cast<uint32_t>(m_counts.size())});
}

EventRef MergedOrder::eventAt(size_t row) const
{
    const size_t checkpoint = row / kCheckpointRows;
    const uint16_t stream = m_streams[row];
    uint32_t index = countAt(checkpoint, stream);
    for (size_t r = checkpoint * kCheckpointRows; r < row; ++r) index += m_streams[r] == stream;
    return {StreamId(stream), index};
}

size_t MergedOrder::rowOf(EventRef event) const
{
    const size_t rows = size();
    const size_t checkpoints = std::min(m_checkpointAt.size(), (rows + kCheckpointRows - 1) / kCheckpointRows);
    if (!checkpoints) return rows;
    const uint16_t stream = event.stream.value;
    // The last checkpoint that counts no more events of the stream than the event's index:
    // the event's row lies between it and the next one.
    size_t lo = 0, hi = checkpoints;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (countAt(mid, stream) <= event.index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return rows;
    const size_t k = lo - 1;
    uint32_t index = countAt(k, stream);
    const size_t end = std::min(rows, (k + 1) * kCheckpointRows);
    for (size_t r = k * kCheckpointRows; r < end; ++r) {
        if (m_streams[r] != stream) continue;
        if (index == event.index) return r;
        ++index;
    }
    return rows;
}

std::vector<size_t> MergedOrder::countsAt(size_t rows, size_t streams) const
{
    std::vector<size_t> counts(streams, 0);
    rows = std::min(rows, size());
    if (rows == 0) return counts;
    // The checkpoint at or before the row, then the rows after it.
    const size_t checkpoint = std::min(rows / kCheckpointRows, (rows - 1) / kCheckpointRows);
    for (size_t s = 0; s < streams; ++s) counts[s] = countAt(checkpoint, uint16_t(s));
    for (size_t r = checkpoint * kCheckpointRows; r < rows; ++r)
        if (m_streams[r] < streams) ++counts[m_streams[r]];
    return counts;
}

void MergedOrder::rebuildCheckpoints()
{
    m_checkpoints = ChunkedColumn<uint32_t>();
    m_checkpointAt = ChunkedColumn<Checkpoint, 12>();
    std::fill(m_counts.begin(), m_counts.end(), 0);
    const size_t rows = m_streams.size();
    for (size_t row = 0; row < rows; ++row) {
        if (row % kCheckpointRows == 0) takeCheckpoint();
        ++m_counts[m_streams[row]];
    }
}

MergedOrder::Cursor::Cursor(const MergedOrder& order, size_t row) : m_order(order), m_end(order.size())
{
    m_row = std::min(row, m_end);
    if (m_end == 0) return;
    // From the checkpoint at or before the row (the last one when the row is the end).
    const size_t checkpoint = std::min(m_row / kCheckpointRows, (m_end - 1) / kCheckpointRows);
    const Checkpoint c = order.m_checkpointAt[checkpoint];
    // Room for every stream the rows may name: those of the checkpoint, and any added later.
    size_t streams = c.streams;
    for (size_t r = checkpoint * kCheckpointRows; r < m_end && r < (checkpoint + 1) * kCheckpointRows; ++r)
        streams = std::max<size_t>(streams, size_t(order.m_streams[r]) + 1);
    m_next.assign(std::max<size_t>(streams, 1), 0);
    for (uint32_t s = 0; s < c.streams; ++s) m_next[s] = order.m_checkpoints[c.offset + s];
    for (size_t r = checkpoint * kCheckpointRows; r < m_row; ++r) ++m_next[order.m_streams[r]];
}

namespace {

// Merges [begin[s], end[s]) of every stream into out starting at `at`, smallest
// (timestamp, stream) first.
void mergeRange(const std::vector<const TimestampColumn*>& streams, const std::vector<size_t>& begin,
                const std::vector<size_t>& end, MergedOrder& out, size_t at)
{
    std::vector<size_t> next = begin;
    mergeByTime(
        streams.size(),
        [&](uint32_t s, uint64_t& ts) {
            if (next[s] >= end[s]) return false;
            ts = (*streams[s])[next[s]++];
            return true;
        },
        [&](uint32_t s, uint64_t) {
            out.set(at++, StreamId(static_cast<uint16_t>(s)));
            return true;
        });
}

} // namespace

void MergedOrder::mergeStreams(const std::vector<const TimestampColumn*>& streams, bool sorted, int threads,
                               MergedOrder& out)
{
    size_t total = 0, largest = 0;
    for (size_t s = 0; s < streams.size(); ++s) {
        total += streams[s]->size();
        if (streams[s]->size() > streams[largest]->size()) largest = s;
    }
    out.setStreamCount(streams.size());
    out.resize(total);
    const size_t zero = 0;
    std::vector<size_t> starts(streams.size(), zero), ends(streams.size());
    for (size_t s = 0; s < streams.size(); ++s) ends[s] = streams[s]->size();
    const int pieces = (sorted && total >= (1u << 20)) ? std::max(1, threads) : 1;
    if (pieces == 1) {
        mergeRange(streams, starts, ends, out, 0);
        out.rebuildCheckpoints();
        return;
    }
    // Cut points: every piece takes the events with cut[k-1] <= ts < cut[k].
    std::vector<std::vector<size_t>> bounds(static_cast<size_t>(pieces) + 1, starts);
    bounds.back() = ends;
    const auto& big = *streams[largest];
    for (int k = 1; k < pieces; ++k) {
        const uint64_t cut = big[big.size() * static_cast<size_t>(k) / static_cast<size_t>(pieces)];
        for (size_t s = 0; s < streams.size(); ++s)
            bounds[static_cast<size_t>(k)][s] = streams[s]->lowerBound(cut, 0, streams[s]->size());
    }
    std::vector<std::thread> workers;
    for (int k = 0; k < pieces; ++k) {
        size_t at = 0;
        for (size_t s = 0; s < streams.size(); ++s) at += bounds[static_cast<size_t>(k)][s];
        workers.emplace_back(mergeRange, std::cref(streams), std::cref(bounds[static_cast<size_t>(k)]),
                             std::cref(bounds[static_cast<size_t>(k) + 1]), std::ref(out), at);
    }
    for (auto& w : workers) w.join();
    out.rebuildCheckpoints();
}

} // namespace ringside
