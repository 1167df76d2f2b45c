// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/rowset.h"

#include <algorithm>
#include <bit>

namespace ringside {

RowSet::RowSet(size_t universe, bool full) : m_universe(universe), m_bits((universe + 63) / 64, full ? ~uint64_t(0) : 0)
{
    if (full && (universe & 63)) m_bits.back() = (uint64_t(1) << (universe & 63)) - 1;
    if (full) seal();
}

void RowSet::seal()
{
    m_blockRank.clear();
    uint64_t count = 0;
    for (size_t w = 0; w < m_bits.size(); ++w) {
        if (w % kWordsPerBlock == 0) m_blockRank.push_back(count);
        count += static_cast<uint64_t>(std::popcount(m_bits[w]));
    }
    m_size = count;
}

size_t RowSet::rank(size_t row) const
{
    row = std::min(row, m_universe);
    const size_t word = row >> 6;
    const size_t block = word / kWordsPerBlock;
    size_t count = block < m_blockRank.size() ? m_blockRank[block] : m_size;
    for (size_t w = block * kWordsPerBlock; w < word && w < m_bits.size(); ++w) count += std::popcount(m_bits[w]);
    if ((row & 63) && word < m_bits.size()) count += std::popcount(m_bits[word] & ((uint64_t(1) << (row & 63)) - 1));
    return count;
}

size_t RowSet::select(size_t k) const
{
    // The last block whose running count is <= k holds the member.
    auto it = std::upper_bound(m_blockRank.begin(), m_blockRank.end(), uint64_t(k));
    const size_t block = static_cast<size_t>(it - m_blockRank.begin()) - 1;
    size_t remaining = k - m_blockRank[block];
    for (size_t w = block * kWordsPerBlock; w < m_bits.size(); ++w) {
        uint64_t bits = m_bits[w];
        const size_t n = static_cast<size_t>(std::popcount(bits));
        if (remaining < n) {
            for (; remaining > 0; --remaining) bits &= bits - 1; // drop the lowest members
            return w * 64 + static_cast<size_t>(std::countr_zero(bits));
        }
        remaining -= n;
    }
    return m_universe;
}

} // namespace ringside
