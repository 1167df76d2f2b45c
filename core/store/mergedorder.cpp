// SPDX-License-Identifier: GPL-2.0-or-later
#include "store/mergedorder.h"

namespace ringside {

EventRef MergedOrder::eventAt(size_t row) const
{
    const size_t checkpoint = row / kCheckpointRows;
    const uint16_t stream = m_streams[row];
    uint32_t index = m_checkpoints[checkpoint * m_counts.size() + stream];
    for (size_t r = checkpoint * kCheckpointRows; r < row; ++r) index += m_streams[r] == stream;
    return {StreamId(stream), index};
}

void MergedOrder::rebuildCheckpoints()
{
    m_checkpoints.clear();
    std::fill(m_counts.begin(), m_counts.end(), 0);
    for (size_t row = 0; row < m_streams.size(); ++row) {
        if (row % kCheckpointRows == 0) m_checkpoints.insert(m_checkpoints.end(), m_counts.begin(), m_counts.end());
        ++m_counts[m_streams[row]];
    }
}

MergedOrder::Cursor::Cursor(const MergedOrder& order, size_t row) : m_order(order), m_row(row)
{
    m_next.assign(order.streamCount(), 0);
    if (row >= order.size()) {
        m_next = order.m_counts;
        return;
    }
    const size_t checkpoint = row / kCheckpointRows;
    for (size_t s = 0; s < m_next.size(); ++s) m_next[s] = order.m_checkpoints[checkpoint * m_next.size() + s];
    for (size_t r = checkpoint * kCheckpointRows; r < row; ++r) ++m_next[order.m_streams[r]];
}

} // namespace ringside
