// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ringside {

// A request to copy some fields of every record of one event type while the pages are
// parsed, so that an analysis needing them (which task ran where, task names) does not read
// and decompress the pages a second time. The first step of plugins consuming records during
// the load.
struct RecordTap {
    uint16_t eventType = 0;
    std::vector<std::pair<int, int>> fields; // (offset, size) within the record

    size_t bytesPerHit() const
    {
        size_t n = 0;
        for (const auto& f : fields) n += static_cast<size_t>(f.second);
        return n;
    }
};

// What a tap collected from one stream, in the stream's order: the index of each matching
// event and its fields' bytes, bytesPerHit() per event (zeros where a record was too short).
struct TapColumn {
    std::vector<uint32_t> events;
    std::vector<uint8_t> bytes;

    void append(TapColumn&& later, uint32_t indexOffset)
    {
        if (events.empty() && bytes.empty()) {
            // The first piece: taken as it is, not copied.
            events = std::move(later.events);
            bytes = std::move(later.bytes);
            if (indexOffset)
                for (uint32_t& e : events) e += indexOffset;
        } else {
            const size_t at = events.size();
            events.insert(events.end(), later.events.begin(), later.events.end());
            for (size_t i = at; i < events.size(); ++i) events[i] += indexOffset;
            bytes.insert(bytes.end(), later.bytes.begin(), later.bytes.end());
        }
        later = TapColumn();
    }
};

} // namespace ringside
