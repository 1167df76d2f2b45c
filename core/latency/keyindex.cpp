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

// wordOf's bytes back.
void bytesOfWord(uint64_t w, size_t n, char* p)
{
    if (n == 4) {
        const auto half = uint32_t(w);
        std::memcpy(p, &half, 4);
        return;
    }
    std::memcpy(p, &w, n);
}

} // namespace

size_t KeyIndex::bytesOf(const Entry& e, char* bytes)
{
    const size_t n = e.length;
    bytesOfWord(e.words[0], std::min<size_t>(n, 8), bytes);
    if (n > 8) bytesOfWord(e.words[1], n - 8, bytes + 8);
    return n;
}

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

const KeyIndex::Entry* KeyIndex::recentOf(const Probe& probe) const
{
    // The hash's high bits: its low ones place it in the table.
    const Entry& e = m_recent[(probe.hash >> 40) & (kRecent - 1)];
    return e.number != kNone && e.length != kLong && e.length == probe.entry.length &&
                   e.words[0] == probe.entry.words[0] && e.words[1] == probe.entry.words[1]
               ? &e
               : nullptr;
}

uint32_t KeyIndex::find(std::string_view key) const
{
    if (m_table.empty()) return kNone;
    const Probe probe = probeOf(key);
    if (const Entry* recent = recentOf(probe)) return recent->number;
    return m_table[slotOf(probe, key)].number;
}

std::pair<uint32_t, bool> KeyIndex::findOrAdd(std::string_view key)
{
    if ((m_count + 1) * 2 > m_table.size()) grow();
    const Probe probe = probeOf(key);
    if (const Entry* recent = recentOf(probe)) return {recent->number, false};
    Entry& e = m_table[slotOf(probe, key)];
    const bool added = e.number == kNone;
    if (added) {
        e = probe.entry;
        e.number = uint32_t(m_count++);
        if (e.length == kLong) {
            e.words[1] = m_long.size();
            m_long.emplace_back(key);
        }
    }
    if (e.length != kLong) m_recent[(probe.hash >> 40) & (kRecent - 1)] = e;
    return {e.number, added};
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

void KeyBytes::append(std::string_view bytes)
{
    if (m_long.empty() && m_size + bytes.size() <= kInline) {
        std::memcpy(m_inline + m_size, bytes.data(), bytes.size());
        m_size += bytes.size();
        return;
    }
    if (m_long.empty()) m_long.assign(m_inline, m_size);
    m_long.append(bytes);
}

bool KeyBytes::operator==(const KeyBytes& other) const
{
    if (m_long.empty() && other.m_long.empty() && m_size == other.m_size && m_size == 16) {
        // The usual key (a task and a number): two words, without a call.
        uint64_t a[2], b[2];
        std::memcpy(a, m_inline, 16);
        std::memcpy(b, other.m_inline, 16);
        return a[0] == b[0] && a[1] == b[1];
    }
    return view() == other.view();
}

} // namespace ringside
