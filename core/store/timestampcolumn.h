// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/chunkedcolumn.h"
#include "util/indexsearch.h"

#include <atomic>
#include <cstdint>

namespace ringside {

// A CPU's event times in 4 bytes each instead of 8: the low 32 bits of every time, and the
// high 32 bits only where they change (once per 4.3 s of a steady trace). Each block of low
// words has one word of its own: the high word all its times share, or, in a block where it
// changes, where to start looking in the list of changes. Reading a time is two lookups in a
// block where the high word holds, a short binary search where it changes; times in any
// order are stored exactly (out-of-order times only make the list longer).
//
// Threading as ChunkedColumn's: one writer, readers below a published size. A block's word
// turns from "shared" to "changes" before the first time that needs it is written, so a
// reader of a published time sees the form that covers it.
class TimestampColumn {
public:
    static constexpr int kBlockBits = 16;
    static constexpr size_t kBlockSize = size_t(1) << kBlockBits;

    TimestampColumn() = default;
    TimestampColumn(TimestampColumn&&) noexcept = default;
    TimestampColumn& operator=(TimestampColumn&&) noexcept = default;

    void push_back(uint64_t ts)
    {
        noteHigh(m_low.size(), static_cast<uint32_t>(ts >> 32));
        m_low.push_back(static_cast<uint32_t>(ts)); // publishes, after the words noted
    }

    uint64_t operator[](size_t i) const
    {
        const uint64_t word =
            std::atomic_ref<uint64_t>(const_cast<uint64_t&>(m_blockWord[i >> kBlockBits])).load(std::memory_order_relaxed);
        const uint64_t high = (word & kChanges) ? highAt(i, word & ~kChanges) : word;
        return (high << 32) | m_low[i];
    }
    size_t size() const { return m_low.size(); }
    bool empty() const { return m_low.empty(); }
    uint64_t back() const { return (*this)[size() - 1]; }
    size_t memoryBytes() const { return m_low.memoryBytes() + m_blockWord.memoryBytes() + m_changes.memoryBytes(); }

    // Moves `other`'s times to the end of this column; `other` is left empty, with
    // `keepFirstBlock` still holding its first block (a live capture's batch, filled again).
    void append(TimestampColumn&& other, bool keepFirstBlock = false)
    {
        if (empty() && !keepFirstBlock) {
            *this = std::move(other);
            other = TimestampColumn();
            return;
        }
        // The high words first, run by run (a batch is mostly one), then the low words in bulk:
        // readers read none of them before the caller publishes.
        const size_t offset = size(), count = other.size(), changes = other.m_changes.size();
        for (size_t c = 0; c < changes; ++c) {
            const HighChange run = other.m_changes[c];
            const size_t end = c + 1 < changes ? other.m_changes[c + 1].first : count;
            for (size_t at = offset + run.first; at < offset + end; at = (at | (kBlockSize - 1)) + 1)
                noteHigh(at, run.high);
        }
        m_low.append(std::move(other.m_low), keepFirstBlock);
        if (keepFirstBlock)
            other.clearForReuse();
        else
            other = TimestampColumn();
    }

    void clearForReuse()
    {
        m_low.clearForReuse();
        m_blockWord.clearForReuse();
        m_changes.clearForReuse();
        m_high = 0;
    }

    // First index in [begin, end) whose time is not less than `value`; the times must be
    // sorted in that range.
    size_t lowerBound(uint64_t value, size_t begin, size_t end) const
    {
        return firstIndexNotBefore(begin, end, [&](size_t i) { return (*this)[i] < value; });
    }

private:
    struct HighChange {
        uint32_t first; // index of the first time with this high word
        uint32_t high;
    };
    static constexpr uint64_t kChanges = uint64_t(1) << 63;

    // Time n (the next one) has high word `high`: its block's word and the list of changes
    // say so.
    void noteHigh(size_t n, uint32_t high)
    {
        if ((n & (kBlockSize - 1)) == 0) {
            if (n == 0 || high != m_high) m_changes.push_back({static_cast<uint32_t>(n), high});
            m_blockWord.push_back(high);
        } else if (high != m_high) {
            m_changes.push_back({static_cast<uint32_t>(n), high});
            std::atomic_ref<uint64_t> word(m_blockWord[n >> kBlockBits]);
            // The change in effect at the block's start is the one before the one just added.
            if (!(word.load(std::memory_order_relaxed) & kChanges))
                word.store(kChanges | (m_changes.size() - 2), std::memory_order_relaxed);
        }
        m_high = high;
    }

    // The high word of time i, from change `from` (in effect at i's block start) on.
    uint64_t highAt(size_t i, size_t from) const
    {
        size_t lo = from + 1, hi = m_changes.size();
        while (lo < hi) { // the first change after i
            const size_t mid = lo + (hi - lo) / 2;
            if (m_changes[mid].first <= i)
                lo = mid + 1;
            else
                hi = mid;
        }
        return m_changes[lo - 1].high;
    }

    ChunkedColumn<uint32_t, kBlockBits> m_low;
    ChunkedColumn<uint64_t, 10> m_blockWord; // per block: its high word, or kChanges | change index
    ChunkedColumn<HighChange, 10> m_changes;
    uint32_t m_high = 0; // the writer's: the last time's high word
};

} // namespace ringside
