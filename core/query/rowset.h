// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringside {

// A set of row numbers in [0, universe) as a bitmap with running counts every 512 rows:
// one bit per row, and both "how many members before row r" (rank) and "the k-th member"
// (select) are a binary search plus a few popcounts. Read-only once built.
class RowSet {
public:
    RowSet() = default;
    explicit RowSet(size_t universe, bool full = false);

    void set(size_t row) { m_bits[row >> 6] |= uint64_t(1) << (row & 63); }
    void reset(size_t row) { m_bits[row >> 6] &= ~(uint64_t(1) << (row & 63)); }
    bool contains(size_t row) const { return (m_bits[row >> 6] >> (row & 63)) & 1; }
    // Call once after the last set(); before it rank/select are invalid.
    void seal();

    size_t universe() const { return m_universe; }
    size_t size() const { return m_size; }
    // Members before `row`.
    size_t rank(size_t row) const;
    // The k-th member (0-based), k < size().
    size_t select(size_t k) const;

private:
    static constexpr size_t kWordsPerBlock = 8;
    size_t m_universe = 0;
    size_t m_size = 0;
    std::vector<uint64_t> m_bits;
    std::vector<uint64_t> m_blockRank; // members before each block of 512 rows
};

} // namespace ringside
