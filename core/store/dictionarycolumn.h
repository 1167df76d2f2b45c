// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/chunkedcolumn.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ringside {

// A column of values that repeat (pids, event shapes) in 2 bytes each: every block of 2^16
// values has its own dictionary, the distinct values the block holds, so a code always fits
// in 16 bits whatever the recording (a block cannot hold more distinct values than values).
// A value is its block's dictionary entry: values[base[block] + code]. The dictionaries are
// one append-only list, block after block; a block names each value it holds once.
//
// Threading as ChunkedColumn's: one writer, readers below a published size. The writer adds a
// value to the list and a block's base before the code that needs them, so a reader of a
// published code finds its value.
template <typename T>
class DictionaryColumn {
public:
    static_assert(std::is_integral_v<T> && sizeof(T) <= 4);
    static constexpr int kBlockBits = 16;
    static constexpr size_t kBlockSize = size_t(1) << kBlockBits;

    DictionaryColumn() = default;
    DictionaryColumn(DictionaryColumn&&) noexcept = default;
    DictionaryColumn& operator=(DictionaryColumn&&) noexcept = default;

    void push_back(T value)
    {
        const size_t n = m_codes.size();
        if ((n & (kBlockSize - 1)) == 0) startBlock(n >> kBlockBits);
        m_codes.push_back(codeOf(value));
    }
    T operator[](size_t i) const { return m_values[m_base[i >> kBlockBits] + m_codes[i]]; }
    size_t size() const { return m_codes.size(); }
    bool empty() const { return m_codes.empty(); }
    // For scans of millions: the codes from `i` to the end of its block, at most up to
    // `limit`, and the value of a code of block `block` (i >> kBlockBits).
    std::span<const uint16_t> codes(size_t i, size_t limit) const { return m_codes.run(i, limit); }
    T valueOf(size_t block, uint16_t code) const { return m_values[m_base[block] + code]; }
    // Each distinct value the column holds, once per block that holds it.
    template <typename F>
    void forEachDistinct(F&& f) const
    {
        for (size_t i = 0; i < m_values.size(); ++i) f(m_values[i]);
    }
    size_t memoryBytes() const { return m_codes.memoryBytes() + m_values.memoryBytes() + m_base.memoryBytes(); }

    // Moves `other`'s values to the end of this column: its codes' blocks are adopted when this
    // column ends on a block boundary (their dictionaries come along), re-coded otherwise with
    // one dictionary lookup per distinct value of a block. `other` is left empty; with
    // `keepFirstBlock`, holding its first block of codes for the values to come.
    void append(DictionaryColumn&& other, bool keepFirstBlock = false)
    {
        const size_t count = other.size();
        if (count > 0 && (size() & (kBlockSize - 1)) == 0) {
            const auto offset = static_cast<uint32_t>(m_values.size());
            for (size_t v = 0; v < other.m_values.size(); ++v) m_values.push_back(other.m_values[v]);
            for (size_t b = 0; b < other.m_base.size(); ++b) m_base.push_back(other.m_base[b] + offset);
            m_codes.append(std::move(other.m_codes), keepFirstBlock);
            // Values to come go on in the adopted last block, with its dictionary.
            resetLookup();
            const size_t last = m_base.size() - 1;
            const uint32_t first = m_base[last];
            for (size_t v = first; v < m_values.size(); ++v) remember(m_values[v], static_cast<uint16_t>(v - first));
        } else {
            // Each code of `other` maps to one of this column's, per block of this column.
            std::vector<uint32_t> mapped; // code + 1, 0: not mapped yet
            size_t mappedFor = SIZE_MAX;  // the block of this column `mapped` is for
            size_t mappedFrom = SIZE_MAX; // and the block of `other`
            for (size_t i = 0; i < count;) {
                const size_t n = m_codes.size();
                if ((n & (kBlockSize - 1)) == 0) startBlock(n >> kBlockBits);
                if ((n >> kBlockBits) != mappedFor || (i >> kBlockBits) != mappedFrom) {
                    mappedFor = n >> kBlockBits;
                    mappedFrom = i >> kBlockBits;
                    const size_t end =
                        mappedFrom + 1 < other.m_base.size() ? other.m_base[mappedFrom + 1] : other.m_values.size();
                    mapped.assign(end - other.m_base[mappedFrom], 0);
                }
                // Up to the end of this block or of the other's, whichever comes first.
                const std::span<const uint16_t> from = other.m_codes.run(i, count);
                const size_t k = std::min(from.size(), kBlockSize - (n & (kBlockSize - 1)));
                const uint32_t base = other.m_base[mappedFrom];
                for (size_t j = 0; j < k; ++j) {
                    uint32_t& to = mapped[from[j]];
                    if (to == 0) to = uint32_t(codeOf(other.m_values[base + from[j]])) + 1;
                    m_codes.push_back(static_cast<uint16_t>(to - 1));
                }
                i += k;
            }
            if (keepFirstBlock)
                other.m_codes.clearForReuse();
            else
                other.m_codes = ChunkedColumn<uint16_t>();
        }
        if (keepFirstBlock) {
            other.m_values.clearForReuse();
            other.m_base.clearForReuse();
        } else {
            other.m_values = ChunkedColumn<T, kValueBlockBits>();
            other.m_base = ChunkedColumn<uint32_t, kBaseBlockBits>();
        }
        other.resetLookup();
    }
    // Empties the column, keeping its first block of codes for the values to come.
    void clearForReuse()
    {
        m_codes.clearForReuse();
        m_values.clearForReuse();
        m_base.clearForReuse();
        resetLookup();
    }

private:
    static constexpr int kValueBlockBits = 12;
    static constexpr int kBaseBlockBits = 10;
    struct Slot {
        T value;
        uint16_t code;
        uint32_t block; // the block this slot was filled for + 1; 0: never filled
    };

    void startBlock(size_t block)
    {
        m_base.push_back(static_cast<uint32_t>(m_values.size()));
        m_block = static_cast<uint32_t>(block) + 1; // every slot of earlier blocks is stale now
        m_inBlock = 0;
        m_last = {};
    }
    void resetLookup()
    {
        m_slots.clear();
        m_inBlock = 0;
        m_last = {};
        m_block = static_cast<uint32_t>(m_base.size()); // the current block + 1, or 0
    }
    static uint32_t hashOf(T value)
    {
        return static_cast<uint32_t>(
            (static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(value)) * 0x9E3779B97F4A7C15ull) >> 32);
    }
    Slot* find(T value)
    {
        if (m_slots.empty()) m_slots.assign(256, Slot{});
        const size_t mask = m_slots.size() - 1;
        for (size_t s = hashOf(value) & mask;; s = (s + 1) & mask) {
            Slot& slot = m_slots[s];
            if (slot.block != m_block || slot.value == value) return &slot;
        }
    }
    void remember(T value, uint16_t code)
    {
        if ((m_inBlock + 1) * 2 > m_slots.size()) grow();
        Slot* slot = find(value);
        if (slot->block != m_block) ++m_inBlock;
        *slot = {value, code, m_block};
        m_last = {value, code, m_block};
    }
    void grow()
    {
        std::vector<Slot> old = std::move(m_slots);
        m_slots.assign(std::max<size_t>(256, old.size() * 2), Slot{});
        for (const Slot& slot : old)
            if (slot.block == m_block) *find(slot.value) = slot;
    }
    uint16_t codeOf(T value)
    {
        if (m_last.block == m_block && m_last.value == value) return m_last.code; // runs of one value
        if ((m_inBlock + 1) * 2 > m_slots.size()) grow();
        Slot* slot = find(value);
        if (slot->block != m_block) {
            const auto code = static_cast<uint16_t>(m_values.size() - m_base[m_base.size() - 1]);
            m_values.push_back(value);
            *slot = {value, code, m_block};
            ++m_inBlock;
        }
        m_last = *slot;
        return slot->code;
    }

    ChunkedColumn<uint16_t> m_codes;
    ChunkedColumn<T, kValueBlockBits> m_values;     // each block's distinct values, block after block
    ChunkedColumn<uint32_t, kBaseBlockBits> m_base; // per block: where its values start
    // The writer's: the current block's values and their codes.
    std::vector<Slot> m_slots;
    size_t m_inBlock = 0;
    uint32_t m_block = 0;
    Slot m_last{};
};

// What each code of a column's block stands for, worked out once per code: a scan of millions
// of codes maps a block's few distinct values, not every value. `Map` takes a value and gives
// an int32_t (a tap, -1 for none).
template <typename T, typename Map>
class BlockCodeMap {
public:
    BlockCodeMap(const DictionaryColumn<T>& column, Map map) : m_column(&column), m_map(std::move(map)) {}
    int32_t operator()(size_t block, uint16_t code)
    {
        enter(block);
        // A block's codes are given in the order their values first came: every code below
        // one met is in the column, and is mapped with it.
        while (m_mapped.size() <= code) {
            const auto next = static_cast<uint16_t>(m_mapped.size());
            const int32_t mapped = m_map(m_column->valueOf(block, next));
            m_mapped.push_back(mapped);
            if (mapped >= 0) m_wanted.push_back(next);
        }
        return m_mapped[code];
    }
    // The first of `codes` from `i` (all of block `block`) whose value maps to a value >= 0, or
    // codes.size(). A scan of a lane's few event types among a hundred million events: most
    // codes map to none, and are passed over eight at a time.
    size_t findMapped(size_t block, std::span<const uint16_t> codes, size_t i)
    {
        enter(block);
        for (; i < codes.size(); ++i) {
            i = passUnwanted(codes, i);
            if (i == codes.size() || (*this)(block, codes[i]) >= 0) break;
        }
        return i;
    }

private:
    void enter(size_t block)
    {
        if (block == m_block) return;
        m_mapped.clear();
        m_wanted.clear();
        m_block = block;
    }
    // Past the codes known to map to none from `i`: stops at a wanted code or one not mapped yet.
    size_t passUnwanted(std::span<const uint16_t> codes, size_t i) const
    {
        const size_t known = m_mapped.size();
#if defined(__SSE2__)
        constexpr size_t kLanes = 8, kMostWanted = 4;
        if (m_wanted.size() <= kMostWanted && known > 0) {
            // Codes compare unsigned: both sides moved by 0x8000 for the signed comparison.
            const __m128i bias = _mm_set1_epi16(int16_t(0x8000));
            const __m128i limit = _mm_set1_epi16(int16_t(uint16_t(std::min<size_t>(known, 0xFFFF)) ^ 0x8000));
            __m128i wanted[kMostWanted];
            for (size_t w = 0; w < kMostWanted; ++w)
                wanted[w] = _mm_set1_epi16(int16_t(w < m_wanted.size() ? m_wanted[w]
                                                   : m_wanted.empty()  ? 0xFFFF
                                                                       : m_wanted[0]));
            for (; i + kLanes <= codes.size(); i += kLanes) {
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes.data() + i));
                const __m128i below = _mm_cmplt_epi16(_mm_xor_si128(v, bias), limit);
                __m128i hit = _mm_cmpeq_epi16(v, wanted[0]);
                for (size_t w = 1; w < kMostWanted; ++w) hit = _mm_or_si128(hit, _mm_cmpeq_epi16(v, wanted[w]));
                if (_mm_movemask_epi8(_mm_andnot_si128(hit, below)) != 0xFFFF) break;
            }
        }
#endif
        while (i < codes.size() && codes[i] < known && m_mapped[codes[i]] < 0) ++i;
        return i;
    }

    const DictionaryColumn<T>* m_column;
    Map m_map;
    size_t m_block = SIZE_MAX;
    std::vector<int32_t> m_mapped;  // of m_block's codes, from 0 up
    std::vector<uint16_t> m_wanted; // its codes that map to a value >= 0
};

} // namespace ringside
