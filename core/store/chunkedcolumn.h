// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/blocklist.h"
#include "util/indexsearch.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ringside {

// Memory for a block directory: reserved address space, zero-filled and committed by the
// kernel only where it is written (a column of a few blocks costs a page).
void* reserveDirectory(size_t bytes);
void releaseDirectory(void* directory, size_t bytes);

// A column that grows by appending fixed-size blocks, so growing never moves or copies what
// is already stored (no reallocation peak).
//
// Threading: one writer appends while any number of readers read. The directory of blocks
// is reserved once for the largest column (2^32 values) and never moves; the size is
// published with a release store after the value is written, so a reader that takes size()
// (acquire) may read every value below it. Values below the size never change, except
// through set()/resize(), which belong to the single-threaded bulk build.
template <typename T, int BlockBits = 16>
class ChunkedColumn {
public:
    static constexpr size_t kBlockSize = size_t(1) << BlockBits;
    static constexpr size_t kBlockBytes = kBlockSize * sizeof(T);
    static constexpr size_t kMaxBlocks = (size_t(1) << 32) >> BlockBits;
    static_assert(std::is_trivially_copyable_v<T>);

    ChunkedColumn() = default;
    ~ChunkedColumn() { clear(); }
    ChunkedColumn(const ChunkedColumn&) = delete;
    ChunkedColumn& operator=(const ChunkedColumn&) = delete;
    ChunkedColumn(ChunkedColumn&& other) noexcept { *this = std::move(other); }
    ChunkedColumn& operator=(ChunkedColumn&& other) noexcept
    {
        if (this == &other) return *this;
        clear();
        m_directory = other.m_directory;
        m_blocks = other.m_blocks;
        m_size.store(other.m_size.load(std::memory_order_relaxed), std::memory_order_relaxed);
        other.m_directory = nullptr;
        other.m_blocks = 0;
        other.m_size.store(0, std::memory_order_relaxed);
        return *this;
    }

    void push_back(T value)
    {
        const size_t n = m_size.load(std::memory_order_relaxed);
        // Past the blocks held (not at every block boundary: a column cleared for reuse holds one).
        if ((n >> BlockBits) >= m_blocks) addBlock();
        block(n >> BlockBits)[n & (kBlockSize - 1)] = value;
        m_size.store(n + 1, std::memory_order_release); // a plain store on x86
    }
    const T& operator[](size_t i) const { return block(i >> BlockBits)[i & (kBlockSize - 1)]; }
    T& operator[](size_t i) { return block(i >> BlockBits)[i & (kBlockSize - 1)]; }
    size_t size() const { return m_size.load(std::memory_order_acquire); }
    bool empty() const { return size() == 0; }
    // The values from `i` to the end of its block, at most up to `limit`: a scan of millions
    // reads them without a directory lookup each.
    std::span<const T> run(size_t i, size_t limit) const
    {
        const size_t end = std::min(limit, ((i >> BlockBits) + 1) << BlockBits);
        return i < end ? std::span<const T>(&(*this)[i], end - i) : std::span<const T>();
    }
    const T& back() const { return (*this)[size() - 1]; }
    size_t memoryBytes() const { return m_blocks * kBlockBytes; }

    // Moves `other`'s values to the end of this column (adopting its blocks when this column
    // ends on a block boundary, copying otherwise), then publishes them all at once. `other`
    // is left empty; with `keepFirstBlock`, still holding its first block (unless adopted),
    // so that a batch filled again and again is not mapped and populated each time.
    void append(ChunkedColumn&& other, bool keepFirstBlock = false)
    {
        const size_t count = other.size();
        size_t n = m_size.load(std::memory_order_relaxed);
        size_t copied = 0;
        while (copied < count) {
            const size_t srcBlock = copied >> BlockBits;
            if ((n >> BlockBits) >= m_blocks && (copied & (kBlockSize - 1)) == 0) {
                // Whole blocks change hands without a copy.
                if (m_blocks >= kMaxBlocks) throw std::length_error("column holds 2^32 values");
                ensureDirectory();
                m_directory[m_blocks++].store(other.block(srcBlock), std::memory_order_relaxed);
                other.m_directory[srcBlock].store(nullptr, std::memory_order_relaxed);
                const size_t taken = std::min(kBlockSize, count - copied);
                n += taken;
                copied += taken;
                continue;
            }
            if ((n >> BlockBits) >= m_blocks) addBlock();
            const size_t room = kBlockSize - (n & (kBlockSize - 1));
            const size_t srcOffset = copied & (kBlockSize - 1);
            const size_t k = std::min({room, kBlockSize - srcOffset, count - copied});
            const T* src = other.block(srcBlock) + srcOffset;
            std::copy(src, src + k, block(n >> BlockBits) + (n & (kBlockSize - 1)));
            n += k;
            copied += k;
        }
        m_size.store(n, std::memory_order_release);
        if (keepFirstBlock)
            other.clearForReuse();
        else
            other.clear();
    }

    // Empties the column but keeps its first block (if any) for the values to come.
    void clearForReuse()
    {
        for (size_t b = 1; b < m_blocks; ++b) unmapPopulated(block(b), kBlockBytes);
        m_blocks = m_blocks && block(0) ? 1 : 0;
        m_size.store(0, std::memory_order_relaxed);
    }

    // Makes the column hold n values (new ones unset), for the bulk build that fills it by
    // index before anyone reads it.
    void resize(size_t n)
    {
        while (m_blocks * kBlockSize < n) addBlock();
        m_size.store(n, std::memory_order_release);
    }

    // First index in [begin, end) whose value is not less than `value`; the column must be
    // sorted in that range.
    size_t lowerBound(const T& value, size_t begin, size_t end) const
    {
        return firstIndexNotBefore(begin, end, [&](size_t i) { return (*this)[i] < value; });
    }

private:
    // Readers take the block pointer relaxed: the size they acquired orders it.
    T* block(size_t b) const { return m_directory[b].load(std::memory_order_relaxed); }

    void ensureDirectory()
    {
        if (!m_directory)
            m_directory = static_cast<std::atomic<T*>*>(reserveDirectory(kMaxBlocks * sizeof(std::atomic<T*>)));
    }
    void addBlock()
    {
        if (m_blocks >= kMaxBlocks) throw std::length_error("column holds 2^32 values");
        ensureDirectory();
        m_directory[m_blocks].store(static_cast<T*>(mapPopulated(kBlockBytes)), std::memory_order_relaxed);
        ++m_blocks;
    }
    void clear()
    {
        if (!m_directory) return;
        for (size_t b = 0; b < m_blocks; ++b) unmapPopulated(block(b), kBlockBytes);
        releaseDirectory(m_directory, kMaxBlocks * sizeof(std::atomic<T*>));
        m_directory = nullptr;
        m_blocks = 0;
        m_size.store(0, std::memory_order_relaxed);
    }

    std::atomic<T*>* m_directory = nullptr;
    size_t m_blocks = 0; // writer only
    std::atomic<size_t> m_size{0};
};

} // namespace ringside
