// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/blocklist.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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
    bool keep = true;                        // kept in a TapColumn, for consumers fed in merged order after the load
    bool feed = false;                       // given to the parser's RecordSink as it is parsed

    size_t bytesPerHit() const
    {
        size_t n = 0;
        for (const auto& f : fields) n += static_cast<size_t>(f.second);
        return n;
    }
};

// One record of a `feed` tap as the parser found it, or a mark that the kernel lost events
// just before the stretch's next record (`lost`: then only `timestamp` is set).
struct SinkRecord {
    const uint8_t* record = nullptr; // the event's `recordBytes` bytes (fields past them read as zeros)
    int recordBytes = 0;
    uint32_t tap = 0;
    uint32_t index = 0; // the event's index in the stretch
    uint64_t timestamp = 0;
    int32_t pid = 0;
    uint8_t flags = 0;
    bool lost = false;
};

// Takes the records of `feed` taps while the pages are parsed, one stretch of one stream at a
// time, on the parser's thread: what consumers fed in pieces read (RecordConsumer::newPiece).
// A page's records come at once, after its parse: the consumers' work then runs in one loop
// with its own data in the caches, not between kbuffer's steps record by record.
class RecordSink {
public:
    virtual ~RecordSink() = default;
    // Records in stream order; the pointers hold until the call returns.
    virtual void records(const SinkRecord* records, size_t count) = 0;
    // The stretch's last record was given.
    virtual void end() {}
};

// Fixed-size records in blocks of a page, then 64 KiB, growing by four to 8 MiB (a tap with
// few hits costs a page, one with millions costs no small pages to speak of); the blocks below
// 2 MiB come zeroed from the heap, the larger ones are populated a huge page at a time as they
// fill. Nothing moves or is copied while it grows.
class RecordBlocks {
public:
    struct Block {
        uint8_t* data = nullptr;
        size_t bytes = 0;
        size_t count = 0;     // records written
        size_t populated = 0; // bytes committed so far
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
        if ((b.count + 1) * m_stride > b.populated) populateNext(b);
        ++m_size;
        return b.data + b.count++ * m_stride;
    }
    size_t stride() const { return m_stride; }
    size_t size() const { return m_size; }
    const std::vector<Block>& blocks() const { return m_blocks; }
    // Gives block `b`'s memory back (a reader done with it); its records are gone, though
    // still counted (a reader that comes later skips them).
    void release(size_t b)
    {
        freeBlock(m_blocks[b]);
        m_blocks[b].data = nullptr;
    }
    void clear()
    {
        for (const Block& b : m_blocks) freeBlock(b);
        m_blocks.clear();
        m_size = 0;
    }

private:
    void addBlock()
    {
        // Growing by four from 64 KiB: a live capture's batch fills a few hundred KiB of a
        // tap, and a huge block right after 64 KiB had 2 MiB populated for each batch.
        constexpr size_t kPage = 4096, kSecond = 65536, kMax = size_t(8) << 20;
        size_t bytes = kPage;
        if (m_blocks.size() == 1)
            bytes = kSecond;
        else if (m_blocks.size() > 1)
            bytes = std::min(m_blocks.back().bytes * 4, kMax);
        bytes = std::max(bytes, (m_stride + kPage - 1) / kPage * kPage);
        // A tap's last block is mostly unwritten (a few taps per stream and loader segment):
        // huge blocks are populated a huge page at a time as records reach them (faulting
        // them in on first write was a tenth slower on 29M events).
        // The small blocks come from the heap: a live capture makes taps of a few pages by
        // the thousand a second, and a mapping each cost two system calls and its faults.
        if (bytes < kHugePageBytes) {
            void* p = std::calloc(1, bytes);
            if (!p) throw std::bad_alloc();
            m_blocks.push_back({static_cast<uint8_t*>(p), bytes, 0, bytes});
        } else {
            m_blocks.push_back({static_cast<uint8_t*>(mapHugeOnDemand(bytes)), bytes, 0, 0});
        }
    }
    static void freeBlock(const Block& b)
    {
        if (b.bytes < kHugePageBytes)
            std::free(b.data);
        else
            unmapPopulated(b.data, b.bytes);
    }
    static void populateNext(Block& b)
    {
        const size_t bytes = std::min(kHugePageBytes, b.bytes - b.populated);
        madvise(b.data + b.populated, bytes, MADV_POPULATE_WRITE);
        b.populated += bytes;
    }

    size_t m_stride = 1;
    std::vector<Block> m_blocks;
    size_t m_size = 0;
};

// What a tap collected from one stream, in the stream's order: per event of the tap's type a
// record of its fields' bytes (zeros where a record was too short). The k-th record is the
// k-th event of that type in the stream, so no index is stored: a reader walks the stream's
// event types beside it. Kept as the pieces the loader's segments produced, never merged:
// copying them into one column cost more than the consumers' work.
struct TapColumn {
    std::vector<RecordBlocks> pieces;

    size_t size() const
    {
        size_t n = 0;
        for (const RecordBlocks& p : pieces) n += p.size();
        return n;
    }
    // Where the next record's `fieldBytes` go, in the last piece.
    uint8_t* append(size_t fieldBytes)
    {
        if (pieces.empty()) pieces.emplace_back(fieldBytes);
        return pieces.back().append();
    }
    // Appends `later`'s pieces: the records of the events that follow this column's.
    void append(TapColumn&& later)
    {
        for (RecordBlocks& p : later.pieces)
            if (p.size()) pieces.push_back(std::move(p));
        later = TapColumn();
    }
};

} // namespace ringside
