// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ringside {

// A column that grows by appending fixed-size blocks, so growing never moves or copies what
// is already stored (no reallocation peak, and a reader may keep indexes into sealed blocks
// while a live capture appends).
template <typename T, int BlockBits = 16>
class ChunkedColumn {
public:
    static constexpr size_t kBlockSize = size_t(1) << BlockBits;

    void push_back(T value)
    {
        if ((m_size & (kBlockSize - 1)) == 0) m_blocks.emplace_back(new T[kBlockSize]);
        m_blocks.back()[m_size & (kBlockSize - 1)] = value;
        ++m_size;
    }
    const T& operator[](size_t i) const { return m_blocks[i >> BlockBits][i & (kBlockSize - 1)]; }
    T& operator[](size_t i) { return m_blocks[i >> BlockBits][i & (kBlockSize - 1)]; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T& back() const { return (*this)[m_size - 1]; }
    size_t memoryBytes() const { return m_blocks.size() * kBlockSize * sizeof(T); }

    // First index in [begin, end) whose value is not less than `value`; the column must be
    // sorted in that range.
    size_t lowerBound(const T& value, size_t begin, size_t end) const
    {
        while (begin < end) {
            size_t mid = begin + (end - begin) / 2;
            if ((*this)[mid] < value) begin = mid + 1;
            else end = mid;
        }
        return begin;
    }

private:
    std::vector<std::unique_ptr<T[]>> m_blocks;
    size_t m_size = 0;
};

} // namespace ringside
