// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/blocklist.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

// Fixed-size records in blocks that double from a page to 1 MiB (a tap with few hits costs a
// page), each mapped and populated at once; nothing moves or is copied while it grows.
class RecordBlocks {
public:
    struct Block {
        uint8_t* data = nullptr;
        size_t bytes = 0;
        size_t count = 0; // records written
    };

    explicit RecordBlocks(size_t stride = 1) : m_stride(stride ? stride : 1) {}
    ~RecordBlocks() { clear(); }
    RecordBlocks(const RecordBlocks&) = delete;
    RecordBlocks& operator=(const RecordBlocks&) = delete;
    RecordBlocks(RecordBlocks&& other) noexcept { *this = std::move(other); }
    RecordBlocks& operator=(RecordBlocks&& other) noexcept
    {
        if (this != &other) {
            clear();
            m_stride = other.m_stride;
            m_blocks = std::move(other.m_blocks);
            m_size = std::exchange(other.m_size, 0);
        }
        return *this;
    }

    // The next record's bytes, zeroed.
    uint8_t* append()
    {
        if (m_blocks.empty() || (m_blocks.back().count + 1) * m_stride > m_blocks.back().bytes) addBlock();
        Block& b = m_blocks.back();
        ++m_size;
        return b.data + b.count++ * m_stride;
    }
    size_t stride() const { return m_stride; }
    size_t size() const { return m_size; }
    const std::vector<Block>& blocks() const { return m_blocks; }
    void clear()
    {
        for (const Block& b : m_blocks) unmapPopulated(b.data, b.bytes);
        m_blocks.clear();
        m_size = 0;
    }

private:
    void addBlock()
    {
        constexpr size_t kPage = 4096, kMax = size_t(1) << 20;
        size_t bytes = m_blocks.empty() ? kPage : std::min(m_blocks.back().bytes * 2, kMax);
        bytes = std::max(bytes, (m_stride + kPage - 1) / kPage * kPage);
        m_blocks.push_back({static_cast<uint8_t*>(mapPopulated(bytes)), bytes, 0});
    }

    size_t m_stride = 1;
    std::vector<Block> m_blocks;
    size_t m_size = 0;
};

// What a tap collected from one stream, in the stream's order: per matching event a record of
// its index (uint32_t) then its fields' bytes (zeros where a record was too short). Kept as
// the pieces the loader's segments produced, never merged: copying them into one column cost
// more than the consumers' work.
struct TapColumn {
    static constexpr size_t kIndexBytes = sizeof(uint32_t);
    struct Piece {
        uint32_t firstIndex = 0; // added to every record's index
        RecordBlocks records;
    };
    std::vector<Piece> pieces;

    size_t size() const
    {
        size_t n = 0;
        for (const Piece& p : pieces) n += p.records.size();
        return n;
    }
    // Where a record of `fieldBytes` goes (its fields after the index), in the last piece.
    uint8_t* append(uint32_t index, size_t fieldBytes)
    {
        if (pieces.empty()) pieces.push_back({0, RecordBlocks(kIndexBytes + fieldBytes)});
        uint8_t* record = pieces.back().records.append();
        std::memcpy(record, &index, kIndexBytes);
        return record + kIndexBytes;
    }
    // Appends `later`'s pieces, whose indexes start at `indexOffset` in this stream.
    void append(TapColumn&& later, uint32_t indexOffset)
    {
        for (Piece& p : later.pieces) {
            if (!p.records.size()) continue;
            p.firstIndex += indexOffset;
            pieces.push_back(std::move(p));
        }
        later = TapColumn();
    }
};

} // namespace ringside
