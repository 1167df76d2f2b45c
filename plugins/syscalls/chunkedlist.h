// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace ringside {

// A list of plain values in chunks of a megabyte that never move: appending never copies what
// is there (a vector grown to hundreds of thousands of values copied them all, twice on
// average, into fresh pages each time), and a reader done with the front can give its chunks
// back (releaseBefore) while it builds what replaces them. Chunks of a megabyte are mapped on
// their own (core/util/memorypolicy.h): a released one leaves the process at once, and the pages of a
// chunk not yet written cost nothing. Random access for sorting in place.
template <typename T>
class ChunkedList {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

public:
    static constexpr size_t kChunkBytes = size_t(1) << 20;
    static constexpr size_t kPerChunk = kChunkBytes / sizeof(T);

    ChunkedList() = default;
    ChunkedList(ChunkedList&&) noexcept = default;
    ChunkedList& operator=(ChunkedList&&) noexcept = default;

    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    T& operator[](size_t i) { return m_chunks[i / kPerChunk].get()[i % kPerChunk]; }
    const T& operator[](size_t i) const { return m_chunks[i / kPerChunk].get()[i % kPerChunk]; }
    T& push_back(const T& value)
    {
        if (m_size == m_chunks.size() * kPerChunk) m_chunks.emplace_back(static_cast<T*>(::operator new(kChunkBytes)));
        T* slot = m_chunks.back().get() + m_size++ % kPerChunk;
        return *new (slot) T(value);
    }
    // Gives back the chunks whose values are all below `i`: those values may not be read again.
    void releaseBefore(size_t i)
    {
        for (size_t c = 0; c < m_chunks.size() && (c + 1) * kPerChunk <= i; ++c) m_chunks[c].reset();
    }
    void clear()
    {
        m_chunks.clear();
        m_size = 0;
    }

    template <bool Const>
    class Iterator {
        using List = std::conditional_t<Const, const ChunkedList, ChunkedList>;

    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using reference = std::conditional_t<Const, const T&, T&>;
        using pointer = std::conditional_t<Const, const T*, T*>;
        Iterator() = default;
        Iterator(List* list, size_t i) : m_list(list), m_i(i) {}
        reference operator*() const { return (*m_list)[m_i]; }
        pointer operator->() const { return &(*m_list)[m_i]; }
        reference operator[](difference_type k) const { return (*m_list)[size_t(difference_type(m_i) + k)]; }
        Iterator& operator++() { return ++m_i, *this; }
        Iterator operator++(int) { return {m_list, m_i++}; }
        Iterator& operator--() { return --m_i, *this; }
        Iterator operator--(int) { return {m_list, m_i--}; }
        Iterator& operator+=(difference_type k) { return m_i = size_t(difference_type(m_i) + k), *this; }
        Iterator& operator-=(difference_type k) { return m_i = size_t(difference_type(m_i) - k), *this; }
        Iterator operator+(difference_type k) const { return {m_list, size_t(difference_type(m_i) + k)}; }
        friend Iterator operator+(difference_type k, const Iterator& it) { return it + k; }
        Iterator operator-(difference_type k) const { return {m_list, size_t(difference_type(m_i) - k)}; }
        difference_type operator-(const Iterator& o) const { return difference_type(m_i) - difference_type(o.m_i); }
        bool operator==(const Iterator& o) const { return m_i == o.m_i; }
        bool operator!=(const Iterator& o) const { return m_i != o.m_i; }
        bool operator<(const Iterator& o) const { return m_i < o.m_i; }
        bool operator>(const Iterator& o) const { return m_i > o.m_i; }
        bool operator<=(const Iterator& o) const { return m_i <= o.m_i; }
        bool operator>=(const Iterator& o) const { return m_i >= o.m_i; }

    private:
        List* m_list = nullptr;
        size_t m_i = 0;
    };
    Iterator<false> begin() { return {this, 0}; }
    Iterator<false> end() { return {this, m_size}; }
    Iterator<true> begin() const { return {this, 0}; }
    Iterator<true> end() const { return {this, m_size}; }

    // The chunks held (their pages count only once written).
    size_t chunks() const
    {
        size_t held = 0;
        for (const auto& chunk : m_chunks) held += chunk != nullptr;
        return held;
    }

private:
    struct Free {
        void operator()(T* chunk) const { ::operator delete(chunk); }
    };
    std::vector<std::unique_ptr<T, Free>> m_chunks;
    size_t m_size = 0;
};

} // namespace ringside
