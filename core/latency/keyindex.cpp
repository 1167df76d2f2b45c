// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/keyindex.h"

#include <cstring>

namespace ringside {

uint64_t KeyIndex::hashOf(std::string_view key)
{
    // A word at a time, mixed as splitmix64 mixes: keys are a few words.
    uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
    size_t i = 0;
    for (; i + 8 <= key.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, key.data() + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    std::memcpy(&w, key.data() + i, key.size() - i);
    h = (h ^ w) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

bool KeyIndex::holds(const Entry& e, uint64_t hash, std::string_view key) const
{
    if (e.hash != hash) return false;
    if (e.length != kLong) return e.length == key.size() && std::memcmp(e.bytes, key.data(), key.size()) == 0;
    uint32_t index;
    std::memcpy(&index, e.bytes, sizeof index);
    return m_long[index] == key;
}

size_t KeyIndex::slotOf(uint64_t hash, std::string_view key) const
{
    const size_t mask = m_table.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const Entry& e = m_table[i];
        if (e.number == kNone || holds(e, hash, key)) return i;
    }
}

uint32_t KeyIndex::find(std::string_view key) const
{
    if (m_table.empty()) return kNone;
    return m_table[slotOf(hashOf(key), key)].number;
}

std::pair<uint32_t, bool> KeyIndex::findOrAdd(std::string_view key)
{
    if ((m_count + 1) * 2 > m_table.size()) grow();
    const uint64_t hash = hashOf(key);
    Entry& e = m_table[slotOf(hash, key)];
    if (e.number != kNone) return {e.number, false};
    e.hash = hash;
    e.number = uint32_t(m_count++);
    if (key.size() <= kInline) {
        e.length = uint8_t(key.size());
        std::memcpy(e.bytes, key.data(), key.size());
    } else {
        e.length = kLong;
        const auto index = uint32_t(m_long.size());
        std::memcpy(e.bytes, &index, sizeof index);
        m_long.emplace_back(key);
    }
    return {e.number, true};
}

void KeyIndex::grow()
{
    std::vector<Entry> old = std::move(m_table);
    m_table.assign(old.empty() ? 64 : old.size() * 2, Entry());
    const size_t mask = m_table.size() - 1;
    for (const Entry& e : old) {
        if (e.number == kNone) continue;
        size_t i = e.hash & mask;
        while (m_table[i].number != kNone) i = (i + 1) & mask;
        m_table[i] = e;
    }
}

} // namespace ringside
