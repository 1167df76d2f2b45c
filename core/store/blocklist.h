// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ringside {

// Memory mapped and populated in one system call. In virtual machines a page fault per 4 KiB
// cost more than the work done on the rows stored there. Header-only, so that plugins, which
// link nothing of the core, use it too.
inline void* mapPopulated(size_t bytes)
{
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
}
inline void unmapPopulated(void* p, size_t bytes)
{
    if (p) munmap(p, bytes);
}

// Rows appended by the million (a plugin's calls, slices, intervals): fixed blocks that never
// move, so growing copies nothing and references stay valid. Single-threaded.
template <typename T, int BlockBits = 12>
class BlockList {
public:
    static constexpr size_t kBlockSize = size_t(1) << BlockBits;
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
        if ((m_size & (kBlockSize - 1)) == 0) m_blocks.push_back(static_cast<T*>(mapPopulated(kBlockBytes)));
        T* slot = m_blocks.back() + (m_size & (kBlockSize - 1));
        *slot = value;
        ++m_size;
        return *slot;
    }
    T& operator[](size_t i) { return m_blocks[i >> BlockBits][i & (kBlockSize - 1)]; }
    const T& operator[](size_t i) const { return m_blocks[i >> BlockBits][i & (kBlockSize - 1)]; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    void clear()
    {
        for (T* b : m_blocks) unmapPopulated(b, kBlockBytes);
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
    static constexpr size_t kBlockBytes = kBlockSize * sizeof(T);
    std::vector<T*> m_blocks;
    size_t m_size = 0;
};

} // namespace ringside
