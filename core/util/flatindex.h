// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringside {

// A map from 64-bit keys (never ~0) to small values in one array, open addressing with linear
// probing: millions of inserts cost no allocation each, unlike std::unordered_map's nodes
// (building a 10M-call tree spent most of its time there). Header-only: plugins use it too.
template <typename Value>
class FlatMap {
public:
    // The value of `key`, inserting `value` first if the key is new; `added` says which.
    Value findOrAdd(uint64_t key, Value value, bool* added) { return slotFor(key, value, added).value; }
    // Sets `key`'s value, whether or not it had one.
    void set(uint64_t key, Value value)
    {
        bool added = false;
        slotFor(key, value, &added).value = value;
    }
    // The value of `key`, or nullptr.
    const Value* find(uint64_t key) const
    {
        if (m_slots.empty()) return nullptr;
        for (size_t at = slotOf(key);; at = (at + 1) & (m_slots.size() - 1)) {
            if (m_slots[at].key == key) return &m_slots[at].value;
            if (m_slots[at].key == kEmpty) return nullptr;
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
        Value value{};
    };
    size_t slotOf(uint64_t key) const
    {
        key ^= key >> 33; // a 64-bit finalizer: keys differ in their high or low bits only
        key *= 0xff51afd7ed558ccdull;
        key ^= key >> 33;
        return size_t(key) & (m_slots.size() - 1);
    }
    // The slot of `key`, added with `value` if the key is new.
    Slot& slotFor(uint64_t key, Value value, bool* added)
    {
        if ((m_count + 1) * 2 > m_slots.size()) grow();
        for (size_t at = slotOf(key);; at = (at + 1) & (m_slots.size() - 1)) {
            Slot& slot = m_slots[at];
            if (slot.key == kEmpty) {
                slot = {key, value};
                ++m_count;
                *added = true;
                return slot;
            }
            if (slot.key == key) {
                *added = false;
                return slot;
            }
        }
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

using FlatIndex = FlatMap<uint32_t>;

} // namespace ringside
