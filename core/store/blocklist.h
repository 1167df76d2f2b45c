// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ringside {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14; older kernels refuse it and fault on first write
#endif

inline constexpr size_t kHugePageBytes = size_t(2) << 20;

// Memory of 2 MiB and more, aligned and offered to transparent huge pages: in virtual
// machines the first write to each 4 KiB page costs more than the work done on the rows
// stored there, and one fault per 2 MiB is about ten times cheaper (and a tenth of the
// unmap). Pages are committed where they are first written. Header-only, so that plugins,
// which link nothing of the core, use it too.
inline void* mapHugeOnDemand(size_t bytes)
{
    // Over-map by a huge page to find an aligned start, then give back both ends.
    const size_t span = bytes + kHugePageBytes;
    void* mapped = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    auto* raw = static_cast<uint8_t*>(mapped);
    const uintptr_t aligned = (reinterpret_cast<uintptr_t>(raw) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    uint8_t* p = raw + (aligned - reinterpret_cast<uintptr_t>(raw));
    if (p > raw) munmap(raw, size_t(p - raw));
    if (raw + span > p + bytes) munmap(p + bytes, size_t(raw + span - (p + bytes)));
    madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

// Commits the whole pages of [p, p + bytes) at once: for a large std::vector reserved and about
// to be filled, whose pages would otherwise fault one by one as it grows into them.
inline void populateRange(const void* p, size_t bytes)
{
    constexpr uintptr_t kPage = 4096;
    const uintptr_t from = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
    const uintptr_t to = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
}
// v.reserve(count), its new memory committed (populateRange).
template <typename T>
void reservePopulated(std::vector<T>& v, size_t count)
{
    const T* before = v.data();
    v.reserve(count);
    if (v.data() != before) populateRange(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(T));
}

// Memory mapped and populated at once: from 2 MiB up as mapHugeOnDemand() has it, for
// memory that will be filled (a block of rows), where populating saves the faults.
inline void* mapPopulated(size_t bytes)
{
    if (bytes < kHugePageBytes) {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        return p;
    }
    void* p = mapHugeOnDemand(bytes);
    madvise(p, bytes, MADV_POPULATE_WRITE);
    return p;
}
// Unmaps what mapPopulated() or mapHugeOnDemand() returned.
inline void unmapPopulated(void* p, size_t bytes)
{
    if (p) munmap(p, bytes);
}

// Rows appended by the million (a plugin's calls, slices, intervals): blocks that never move,
// so growing copies nothing and references stay valid. The first block is small (a short
// list costs a few pages), the next ones fill a huge page each. Single-threaded.
template <typename T>
class BlockList {
public:
    static constexpr size_t kFirstBlock = std::max<size_t>(1, 65536 / sizeof(T));
    static constexpr size_t kBlockSize = std::max<size_t>(1, kHugePageBytes / sizeof(T));
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

    BlockList() = default;
    ~BlockList() { clear(); }
    BlockList(const BlockList&) = delete;
    BlockList& operator=(const BlockList&) = delete;
    BlockList(BlockList&& other) noexcept { *this = std::move(other); }
    BlockList& operator=(BlockList&& other) noexcept
    {
        if (this != &other) {
            clear();
            m_blocks = std::move(other.m_blocks);
            m_size = std::exchange(other.m_size, 0);
        }
        return *this;
    }

    T& push_back(const T& value)
    {
        if (m_size == 0) {
            m_blocks.push_back(static_cast<T*>(mapPopulated(kFirstBlock * sizeof(T))));
        } else if (m_size >= kFirstBlock && (m_size - kFirstBlock) % kBlockSize == 0) {
            m_blocks.push_back(static_cast<T*>(mapPopulated(kHugePageBytes)));
        }
        T& slot = (*this)[m_size];
        slot = value;
        ++m_size;
        return slot;
    }
    T& operator[](size_t i) { return *slot(i); }
    const T& operator[](size_t i) const { return *slot(i); }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    void clear()
    {
        for (size_t b = 0; b < m_blocks.size(); ++b)
            unmapPopulated(m_blocks[b], b == 0 ? kFirstBlock * sizeof(T) : kHugePageBytes);
        m_blocks.clear();
        m_size = 0;
    }

    class const_iterator {
    public:
        const_iterator(const BlockList* list, size_t i) : m_list(list), m_i(i) {}
        const T& operator*() const { return (*m_list)[m_i]; }
        const_iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        bool operator!=(const const_iterator& other) const { return m_i != other.m_i; }

    private:
        const BlockList* m_list;
        size_t m_i;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }

private:
    T* slot(size_t i) const
    {
        if (i < kFirstBlock) return m_blocks[0] + i;
        i -= kFirstBlock;
        return m_blocks[1 + i / kBlockSize] + i % kBlockSize;
    }

    std::vector<T*> m_blocks;
    size_t m_size = 0;
};

} // namespace ringside
