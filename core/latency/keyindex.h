// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringside {

// Short byte strings (a task id and a number or two) numbered 0, 1, 2... in the order they are
// added. An open-addressed table with the keys inline: pairing millions of records looks a key
// up for each, and a node-based map's pointer chasing and byte hash were most of that time.
// Keys longer than the inline room (text fields) are kept aside.
class KeyIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    uint32_t find(std::string_view key) const;
    // The key's number, and whether it was added now.
    std::pair<uint32_t, bool> findOrAdd(std::string_view key);
    size_t size() const { return m_count; }

private:
    static constexpr size_t kInline = 19;
    static constexpr uint8_t kLong = 0xff; // `length` of a key kept in m_long
    struct Entry {
        uint64_t hash = 0;
        uint32_t number = kNone;
        uint8_t length = 0;
        char bytes[kInline] = {}; // the key, or for a long one its index in m_long
    };
    static uint64_t hashOf(std::string_view key);
    bool holds(const Entry& e, uint64_t hash, std::string_view key) const;
    size_t slotOf(uint64_t hash, std::string_view key) const; // the entry holding it, or the empty one
    void grow();

    std::vector<Entry> m_table; // a power of two long, at most half full
    std::vector<std::string> m_long;
    size_t m_count = 0;
};

} // namespace ringside
