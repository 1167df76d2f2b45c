// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/keyindex.h"

#include <algorithm>
#include <cstring>

namespace ringside {

namespace {

uint64_t mixed(uint64_t h)
{
    // splitmix64's finalizer: the table's index is the hash's low bits.
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

// Up to 8 bytes as a zero-padded word, with fixed-size loads for the usual widths.
uint64_t wordOf(const char* p, size_t n)
{
    uint64_t w = 0;
    uint32_t half = 0;
    switch (n) {
    case 8: std::memcpy(&w, p, 8); return w;
    case 4: std::memcpy(&half, p, 4); return half;
    default: std::memcpy(&w, p, n); return w;
    }
}

} // namespace

uint64_t KeyIndex::shortHash(const Entry& e)
{
    return mixed(e.words[0] ^ mixed(e.words[1] ^ e.length));
}

KeyIndex::Probe KeyIndex::probeOf(std::string_view key)
{
    Probe probe;
    Entry& e = probe.entry;
    if (key.size() <= kShort) {
        // The words are made in registers, not by narrow copies into the entry read back
        // wide (a stalled load for every record).
        e.words[0] = wordOf(key.data(), std::min<size_t>(key.size(), 8));
        e.words[1] = key.size() > 8 ? wordOf(key.data() + 8, key.size() - 8) : 0;
        e.length = uint32_t(key.size());
        probe.hash = shortHash(e);
        return probe;
    }
    uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
    size_t i = 0;
    for (; i + 8 <= key.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, key.data() + i, 8);
        h = mixed(h ^ w);
    }
    uint64_t w = 0;
    std::memcpy(&w, key.data() + i, key.size() - i);
    probe.hash = mixed(h ^ w);
    e.words[0] = probe.hash;
    e.length = kLong;
    return probe;
}

bool KeyIndex::holds(const Entry& e, const Probe& probe, std::string_view key) const
{
    const Entry& p = probe.entry;
    if (e.length != p.length || e.words[0] != p.words[0]) return false;
    if (p.length != kLong) return e.words[1] == p.words[1];
    return m_long[e.words[1]] == key;
}

size_t KeyIndex::slotOf(const Probe& probe, std::string_view key) const
{
    const size_t mask = m_table.size() - 1;
    for (size_t i = probe.hash & mask;; i = (i + 1) & mask) {
        const Entry& e = m_table[i];
        if (e.number == kNone || holds(e, probe, key)) return i;
    }
}

uint32_t KeyIndex::find(std::string_view key) const
{
    if (m_table.empty()) return kNone;
    return m_table[slotOf(probeOf(key), key)].number;
}

std::pair<uint32_t, bool> KeyIndex::findOrAdd(std::string_view key)
{
    if ((m_count + 1) * 2 > m_table.size()) grow();
    const Probe probe = probeOf(key);
    Entry& e = m_table[slotOf(probe, key)];
    if (e.number != kNone) return {e.number, false};
    e = probe.entry;
    e.number = uint32_t(m_count++);
    if (e.length == kLong) {
        e.words[1] = m_long.size();
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
        // A long key's hash is its first word; a short one's is worked out again.
        const uint64_t hash = e.length == kLong ? e.words[0] : shortHash(e);
        size_t i = hash & mask;
        while (m_table[i].number != kNone) i = (i + 1) & mask;
        m_table[i] = e;
    }
}

} // namespace ringside
