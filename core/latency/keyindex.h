// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringside {

// Short byte strings (a task id and a number or two) numbered 0, 1, 2... in the order they are
// added. An open-addressed table with the keys inline: pairing millions of records looks a key
// up for each, and a node-based map's pointer chasing and byte hash were most of that time.
// A key of up to 16 bytes is held as two words, hashed and compared a word at a time; longer
// ones (text fields) are kept aside.
class KeyIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    uint32_t find(std::string_view key) const;
    // The key's number, and whether it was added now.
    std::pair<uint32_t, bool> findOrAdd(std::string_view key);
    size_t size() const { return m_count; }
    // Calls f(key, number) for every key, in no order.
    template <typename F>
    void forEach(F&& f) const
    {
        for (const Entry& e : m_table) {
            if (e.number == kNone) continue;
            if (e.length == kLong) {
                f(std::string_view(m_long[e.words[1]]), e.number);
                continue;
            }
            char bytes[kShort];
            f(std::string_view(bytes, bytesOf(e, bytes)), e.number);
        }
    }

private:
    static constexpr size_t kShort = 16;
    struct Entry {
        uint64_t words[2] = {0, 0}; // a short key, zero-padded; a long one's hash and index in m_long
        uint32_t number = kNone;
        uint32_t length = 0; // kLong for a key kept in m_long
    };
    static constexpr uint32_t kLong = UINT32_MAX;
    // The key as an entry would hold it (number unset), and its hash.
    struct Probe {
        Entry entry;
        uint64_t hash = 0;
    };
    static Probe probeOf(std::string_view key);
    bool holds(const Entry& e, const Probe& probe, std::string_view key) const;
    size_t slotOf(const Probe& probe, std::string_view key) const; // the entry holding it, or the empty one
    static uint64_t shortHash(const Entry& e);
    // A short key's bytes, as probeOf() had them; returns how many.
    static size_t bytesOf(const Entry& e, char* bytes);
    void grow();

    // The last keys found, by their hash: a pairing's working set (the keys of the tasks
    // running now) is small, its keys many (every task's), so that the table's entries are
    // mostly out of the cache.
    static constexpr size_t kRecent = 4096;
    const Entry* recentOf(const Probe& probe) const;
    std::vector<Entry> m_recent = std::vector<Entry>(kRecent);
    std::vector<Entry> m_table; // a power of two long, at most half full
    std::vector<std::string> m_long;
    size_t m_count = 0;
};

// A key being made, a part at a time: a word for each number (KeyIndex reads a key a word at a
// time), a text's bytes and a zero for each text. Held inline up to kInline bytes, so that
// making one for each of millions of records allocates and copies nothing more.
class KeyBytes {
public:
    KeyBytes() = default;
    KeyBytes(const KeyBytes& other) { *this = other; }
    // The inline bytes in one copy (a member-wise copy went a byte at a time).
    KeyBytes& operator=(const KeyBytes& other)
    {
        std::memcpy(m_inline, other.m_inline, kInline);
        m_size = other.m_size;
        if (!m_long.empty() || !other.m_long.empty()) m_long = other.m_long;
        return *this;
    }
    void clear()
    {
        m_size = 0;
        m_long.clear();
    }
    void appendWord(uint64_t word)
    {
        if (m_long.empty() && m_size + sizeof word <= kInline) {
            std::memcpy(m_inline + m_size, &word, sizeof word);
            m_size += sizeof word;
            return;
        }
        append({reinterpret_cast<const char*>(&word), sizeof word});
    }
    void append(std::string_view bytes);
    std::string_view view() const { return m_long.empty() ? std::string_view(m_inline, m_size) : m_long; }
    bool operator==(const KeyBytes& other) const;

private:
    static constexpr size_t kInline = 32;
    alignas(8) char m_inline[kInline] = {};
    size_t m_size = 0;  // of m_inline
    std::string m_long; // the whole key, once longer than kInline
};

} // namespace ringside
