// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "util/indexsearch.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace ringside {

// A list that one writer appends to while any number of readers read what was published:
// values never move (block b holds 4 << b of them, so a short list costs a small block and a
// long one no reallocation), and size() is stored with release after the values below it
// are written. A reader that takes size() (acquire) may read every value below it; the writer
// may change a value in place only through its atomic fields. Empty, it costs four words, and
// up to 4 values one block of them, so a table may keep one per task: a recording's tens of
// thousands of short-lived tasks have a few rows each in most tables (with 16 values and the
// other blocks' directory at once, 740 bytes each went to lists of one or two rows).
template <typename T>
class GrowingList {
public:
    static constexpr size_t kFirstBlock = 4;
    static constexpr int kMaxBlocks = 30; // 4 * (2^30 - 1) values

    GrowingList() = default;
    ~GrowingList() { clear(); }
    GrowingList(const GrowingList&) = delete;
    GrowingList& operator=(const GrowingList&) = delete;
    GrowingList(GrowingList&& other) noexcept { *this = std::move(other); }
    GrowingList& operator=(GrowingList&& other) noexcept
    {
        if (this != &other) {
            clear();
            m_first.store(other.m_first.exchange(nullptr, std::memory_order_relaxed), std::memory_order_relaxed);
            m_blocks.store(other.m_blocks.exchange(nullptr, std::memory_order_relaxed), std::memory_order_relaxed);
            m_size.store(other.m_size.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
            m_staged = std::exchange(other.m_staged, 0);
        }
        return *this;
    }

    size_t size() const { return m_size.load(std::memory_order_acquire); }
    bool empty() const { return size() == 0; }
    const T& operator[](size_t i) const { return *slot(i); }
    T& operator[](size_t i) { return *slot(i); }
    const T& back() const { return (*this)[size() - 1]; }
    T& back() { return (*this)[size() - 1]; }

    // Writer only.
    void push_back(const T& value)
    {
        stage(value);
        publish();
    }
    // Writer only: appends without publishing; publish() makes them visible at once.
    T& stage(const T& value)
    {
        const size_t n = m_staged++;
        return *new (room(n)) T(value);
    }
    // The same with a value-initialized value (for values that cannot be copied: atomics).
    T& stage()
    {
        const size_t n = m_staged++;
        return *new (room(n)) T();
    }
    size_t staged() const { return m_staged; }
    void publish() { m_size.store(m_staged, std::memory_order_release); }

    // First index in [begin, end) whose key(value) is not less than `key`; sorted by key there.
    template <typename Key, typename KeyOf>
    size_t lowerBound(const Key& key, size_t begin, size_t end, KeyOf keyOf) const
    {
        return firstIndexNotBefore(begin, end, [&](size_t i) { return keyOf((*this)[i]) < key; });
    }

    // Reads the values published when begin() is taken (for range-for loops of readers).
    class Iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;
        Iterator(const GrowingList* list, size_t i) : m_list(list), m_i(i) {}
        const T& operator*() const { return (*m_list)[m_i]; }
        const T* operator->() const { return &(*m_list)[m_i]; }
        const T& operator[](difference_type k) const { return (*m_list)[size_t(difference_type(m_i) + k)]; }
        Iterator& operator++() { return ++m_i, *this; }
        Iterator operator++(int) { return {m_list, m_i++}; }
        Iterator& operator--() { return --m_i, *this; }
        Iterator& operator+=(difference_type k) { return m_i = size_t(difference_type(m_i) + k), *this; }
        Iterator& operator-=(difference_type k) { return m_i = size_t(difference_type(m_i) - k), *this; }
        Iterator operator+(difference_type k) const { return {m_list, size_t(difference_type(m_i) + k)}; }
        Iterator operator-(difference_type k) const { return {m_list, size_t(difference_type(m_i) - k)}; }
        difference_type operator-(const Iterator& o) const { return difference_type(m_i) - difference_type(o.m_i); }
        bool operator==(const Iterator& o) const { return m_i == o.m_i; }
        bool operator!=(const Iterator& o) const { return m_i != o.m_i; }
        bool operator<(const Iterator& o) const { return m_i < o.m_i; }

    private:
        const GrowingList* m_list;
        size_t m_i;
    };
    Iterator begin() const { return {this, 0}; }
    Iterator end() const { return {this, size()}; }

    size_t memoryBytes() const
    {
        size_t bytes = m_first.load(std::memory_order_acquire) ? kFirstBlock * sizeof(T) : 0;
        if (auto* blocks = m_blocks.load(std::memory_order_acquire)) {
            bytes += kMaxBlocks * sizeof(std::atomic<T*>);
            for (int b = 1; b < kMaxBlocks && blocks[b].load(std::memory_order_relaxed); ++b)
                bytes += blockSize(b) * sizeof(T);
        }
        return bytes;
    }

private:
    static size_t blockSize(int b) { return kFirstBlock << b; }
    // Value i is in block b = log2(i / 4 + 1), at i - 4 * (2^b - 1).
    static int blockOf(size_t i) { return 63 - __builtin_clzll(uint64_t(i / kFirstBlock + 1)); }
    static size_t firstOf(int b) { return kFirstBlock * ((size_t(1) << b) - 1); }

    T* slot(size_t i) const
    {
        if (i < kFirstBlock) return m_first.load(std::memory_order_relaxed) + i;
        const int b = blockOf(i);
        return m_blocks.load(std::memory_order_relaxed)[b].load(std::memory_order_relaxed) + (i - firstOf(b));
    }
    T* room(size_t n)
    {
        if (n < kFirstBlock) {
            T* first = m_first.load(std::memory_order_relaxed);
            if (!first) {
                first = static_cast<T*>(::operator new(kFirstBlock * sizeof(T)));
                m_first.store(first, std::memory_order_release);
            }
            return first + n;
        }
        // The directory of the other blocks (its slot 0 unused) only once a list outgrows the first.
        std::atomic<T*>* blocks = m_blocks.load(std::memory_order_relaxed);
        if (!blocks) {
            blocks = new std::atomic<T*>[kMaxBlocks];
            for (int b = 0; b < kMaxBlocks; ++b) blocks[b].store(nullptr, std::memory_order_relaxed);
            m_blocks.store(blocks, std::memory_order_release);
        }
        const int b = blockOf(n);
        if (b >= kMaxBlocks) throw std::length_error("a list of more than 4 billion values");
        T* block = blocks[b].load(std::memory_order_relaxed);
        if (!block) {
            block = static_cast<T*>(::operator new(blockSize(b) * sizeof(T)));
            blocks[b].store(block, std::memory_order_release);
        }
        return block + (n - firstOf(b));
    }
    void clear()
    {
        if constexpr (!std::is_trivially_destructible_v<T>)
            for (size_t i = 0; i < m_staged; ++i) slot(i)->~T();
        ::operator delete(m_first.exchange(nullptr, std::memory_order_relaxed));
        if (std::atomic<T*>* blocks = m_blocks.exchange(nullptr, std::memory_order_relaxed)) {
            for (int b = 1; b < kMaxBlocks; ++b) ::operator delete(blocks[b].load(std::memory_order_relaxed));
            delete[] blocks;
        }
        m_size.store(0, std::memory_order_relaxed);
        m_staged = 0;
    }

    std::atomic<T*> m_first{nullptr};                // block 0
    std::atomic<std::atomic<T*>*> m_blocks{nullptr}; // the others
    std::atomic<size_t> m_size{0};
    size_t m_staged = 0; // the writer's: appended so far, published or not
};

} // namespace ringside
