// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <vector>

namespace ringside {

// A map from 64-bit keys (never ~0) to 32-bit values in one array, open addressing with linear
// probing: millions of inserts cost no allocation each, unlike std::unordered_map's nodes
// (building a 10M-call tree spent most of its time there).
class FlatIndex {
public:
    // The value of `key`, inserting `value` first if the key is new; `added` says which.
    uint32_t findOrAdd(uint64_t key, uint32_t value, bool* added)
    {
        if ((m_count + 1) * 2 > m_slots.size()) grow();
        size_t at = slotOf(key);
        for (;;) {
            Slot& slot = m_slots[at];
            if (slot.key == kEmpty) {
                slot = {key, value};
                ++m_count;
                *added = true;
                return value;
            }
            if (slot.key == key) {
                *added = false;
                return slot.value;
            }
            at = (at + 1) & (m_slots.size() - 1);
        }
    }
    size_t size() const { return m_count; }
    size_t memoryBytes() const { return m_slots.capacity() * sizeof(Slot); }
    void clear()
    {
        std::vector<Slot>().swap(m_slots);
        m_count = 0;
    }

private:
    static constexpr uint64_t kEmpty = ~uint64_t(0);
    struct Slot {
        uint64_t key = kEmpty;
        uint32_t value = 0;
    };
    size_t slotOf(uint64_t key) const
    {
        key ^= key >> 33; // a 64-bit finalizer: keys differ in their high or low bits only
        key *= 0xff51afd7ed558ccdull;
        key ^= key >> 33;
        return size_t(key) & (m_slots.size() - 1);
    }
    void grow()
    {
        std::vector<Slot> old = std::move(m_slots);
        m_slots.assign(old.empty() ? 64 : old.size() * 2, Slot());
        m_count = 0;
        bool added = false;
        for (const Slot& s : old)
            if (s.key != kEmpty) findOrAdd(s.key, s.value, &added);
    }

    std::vector<Slot> m_slots;
    size_t m_count = 0;
};

} // namespace ringside
