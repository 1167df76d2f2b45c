// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace ringside {

// Memory for column blocks, mapped and populated in one call: a block costs one system call
// instead of a page fault per 4 KiB, which dominates loading in virtual machines.
void* allocateBlock(size_t bytes);
void freeBlock(void* block, size_t bytes);

// A column that grows by appending fixed-size blocks, so growing never moves or copies what
// is already stored (no reallocation peak, and a reader may keep indexes into sealed blocks
// while a live capture appends).
template <typename T, int BlockBits = 16>
class ChunkedColumn {
    struct BlockDeleter {
        void operator()(T* p) const { freeBlock(p, kBlockBytes); }
    };
    using Block = std::unique_ptr<T[], BlockDeleter>;

public:
    static constexpr size_t kBlockSize = size_t(1) << BlockBits;
    static constexpr size_t kBlockBytes = kBlockSize * sizeof(T);
    static_assert(std::is_trivially_copyable_v<T>);

    ChunkedColumn() = default;
    ChunkedColumn(ChunkedColumn&&) noexcept = default;
    ChunkedColumn& operator=(ChunkedColumn&&) noexcept = default;

    void push_back(T value)
    {
        if ((m_size & (kBlockSize - 1)) == 0) m_blocks.emplace_back(newBlock());
        m_blocks.back()[m_size & (kBlockSize - 1)] = value;
        ++m_size;
    }
    const T& operator[](size_t i) const { return m_blocks[i >> BlockBits][i & (kBlockSize - 1)]; }
    T& operator[](size_t i) { return m_blocks[i >> BlockBits][i & (kBlockSize - 1)]; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T& back() const { return (*this)[m_size - 1]; }
    size_t memoryBytes() const { return m_blocks.size() * kBlockSize * sizeof(T); }

    // Moves `other`'s values to the end of this column, freeing its blocks as they are copied.
    void append(ChunkedColumn&& other)
    {
        if (m_size == 0) {
            std::swap(m_blocks, other.m_blocks);
            std::swap(m_size, other.m_size);
            return;
        }
        size_t copied = 0;
        while (copied < other.m_size) {
            if ((m_size & (kBlockSize - 1)) == 0) m_blocks.emplace_back(newBlock());
            const size_t room = kBlockSize - (m_size & (kBlockSize - 1));
            const size_t srcOffset = copied & (kBlockSize - 1);
            const size_t n = std::min({room, kBlockSize - srcOffset, other.m_size - copied});
            const T* src = other.m_blocks[copied >> BlockBits].get() + srcOffset;
            std::copy(src, src + n, m_blocks.back().get() + (m_size & (kBlockSize - 1)));
            m_size += n;
            copied += n;
            if ((copied & (kBlockSize - 1)) == 0) other.m_blocks[(copied >> BlockBits) - 1].reset();
        }
        other.m_blocks.clear();
        other.m_size = 0;
    }

    // Makes the column hold n values (new ones unset), for writers that fill it by index.
    void resize(size_t n)
    {
        while (m_blocks.size() * kBlockSize < n) m_blocks.emplace_back(newBlock());
        m_size = n;
    }

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
    static Block newBlock() { return Block(static_cast<T*>(allocateBlock(kBlockBytes))); }

    std::vector<Block> m_blocks;
    size_t m_size = 0;
};

} // namespace ringside
