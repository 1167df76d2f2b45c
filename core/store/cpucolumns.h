// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/chunkedcolumn.h"
#include "store/dictionarycolumn.h"
#include "store/timestampcolumn.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace ringside {

// Events lost before a given event (the ring buffer overwrote or dropped them).
struct LostEvents {
    uint32_t beforeEvent = 0;
    int64_t count = 0; // -1: the kernel did not say how many
};

// Whether a record that kbuffer found in a page is stored as an event: one too short to
// hold the common fields, or whose common fields are not inside the page, is skipped (and
// counted) by the loader.
inline bool recordIsStored(int size, const void* payload, const uint8_t* page, uint32_t pageSize, int minSize)
{
    const auto* p = static_cast<const uint8_t*>(payload);
    return size >= minSize && p >= page && p + minSize <= page + pageSize;
}

// The bytes of a stored record that are inside its page: a damaged length may claim more
// (kbuffer reads it from the record), and nothing may read past the page.
inline int recordBytesInPage(int size, const void* payload, const uint8_t* page, uint32_t pageSize)
{
    const auto left = page + pageSize - static_cast<const uint8_t*>(payload);
    return size < left ? size : static_cast<int>(left);
}

// The events of one CPU of one buffer, one column per property, in the CPU's time order.
// Fields beyond the common ones are decoded on demand from the raw record, which is found
// through the page table: pageFirstEvent[p] is the index of the first event of page p, so
// event i is stored record number i - pageFirstEvent[p] of its page.
//
// Threading: one writer fills the columns; size() is the number of events published to
// readers, set by publish() after every column of those events is written (release), so a
// reader that takes size() (acquire) may read any column below it. The page parser publishes
// each page; append() publishes what it appends.
//
// Memory: an event is 10 bytes here, its time 4 and its pid and shape (type, flags and preempt
// count) 2 each, as codes of the distinct values of their block (DictionaryColumn).
struct CpuColumns {
    // One part of the events' shapes, read as if it were a column of its own.
    template <typename Part, int Shift>
    class ShapePart {
    public:
        explicit ShapePart(const DictionaryColumn<uint32_t>& shapes) : m_shapes(&shapes) {}
        ShapePart(const ShapePart&) = delete;
        ShapePart& operator=(const ShapePart&) = delete;
        Part operator[](size_t i) const { return static_cast<Part>((*m_shapes)[i] >> Shift); }
        size_t size() const { return m_shapes->size(); }

    private:
        const DictionaryColumn<uint32_t>* m_shapes;
    };
    static uint32_t shapeOf(uint16_t type, uint8_t flags, uint8_t preemptCount)
    {
        return uint32_t(type) | uint32_t(flags) << 16 | uint32_t(preemptCount) << 24;
    }

    int cpu = 0;
    TimestampColumn timestamp;
    DictionaryColumn<uint32_t> shapes; // shapeOf() each event
    ShapePart<uint16_t, 0> eventType{shapes};
    ShapePart<uint8_t, 16> flags{shapes};        // common_flags: irqs-off, need-resched, hardirq...
    ShapePart<uint8_t, 24> preemptCount{shapes}; // common_preempt_count
    DictionaryColumn<int32_t> pid;
    ChunkedColumn<uint32_t, 14> pageFirstEvent;
    ChunkedColumn<LostEvents, 12> lost;
    uint64_t lostTotal = 0; // writer's bookkeeping, read once loading is done
    uint64_t unknownLostPages = 0;

    CpuColumns() = default;
    CpuColumns(CpuColumns&& o) noexcept { *this = std::move(o); }
    CpuColumns& operator=(CpuColumns&& o) noexcept
    {
        cpu = o.cpu;
        timestamp = std::move(o.timestamp);
        shapes = std::move(o.shapes);
        pid = std::move(o.pid);
        pageFirstEvent = std::move(o.pageFirstEvent);
        lost = std::move(o.lost);
        lostTotal = o.lostTotal;
        unknownLostPages = o.unknownLostPages;
        m_published.store(o.m_published.load(std::memory_order_relaxed), std::memory_order_relaxed);
        o.m_published.store(0, std::memory_order_relaxed);
        return *this;
    }

    size_t size() const { return m_published.load(std::memory_order_acquire); }
    // Writes one event's columns (publish() makes it visible).
    void push_back(uint64_t time, uint16_t type, int32_t eventPid, uint8_t eventFlags, uint8_t eventPreemptCount)
    {
        timestamp.push_back(time);
        shapes.push_back(shapeOf(type, eventFlags, eventPreemptCount));
        pid.push_back(eventPid);
    }
    // Makes every event written so far visible to readers.
    void publish() { m_published.store(timestamp.size(), std::memory_order_release); }

    uint64_t pageOf(uint32_t event) const
    {
        // The last page whose first event is not after `event`.
        size_t lo = 0, hi = pageFirstEvent.size();
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (pageFirstEvent[mid] <= event)
                lo = mid + 1;
            else
                hi = mid;
        }
        return static_cast<uint64_t>(lo) - 1;
    }

    // Lost events reported just before `event`, or 0.
    int64_t lostBefore(uint32_t event) const
    {
        size_t lo = 0, hi = lost.size();
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (lost[mid].beforeEvent < event)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < lost.size() && lost[lo].beforeEvent == event ? lost[lo].count : 0;
    }

    // Moves a later stretch of the same CPU (loaded separately) to the end of this one, and
    // publishes it.
    void append(CpuColumns&& next)
    {
        take(next, false);
        next = CpuColumns();
    }
    // The same for a batch that is filled again (a live capture's): `batch` is left empty,
    // with the first block of each column kept for the next one.
    void appendBatch(CpuColumns& batch)
    {
        take(batch, true);
        batch.pageFirstEvent.clearForReuse();
        batch.lost.clearForReuse();
        batch.lostTotal = batch.unknownLostPages = 0;
        batch.m_published.store(0, std::memory_order_relaxed);
    }

    size_t memoryBytes() const
    {
        return timestamp.memoryBytes() + shapes.memoryBytes() + pid.memoryBytes() + pageFirstEvent.memoryBytes() +
               lost.memoryBytes();
    }

private:
    void take(CpuColumns& next, bool keepBlocks)
    {
        const auto offset = static_cast<uint32_t>(timestamp.size());
        const size_t pages = next.pageFirstEvent.size(), losses = next.lost.size();
        for (size_t p = 0; p < pages; ++p) pageFirstEvent.push_back(next.pageFirstEvent[p] + offset);
        for (size_t l = 0; l < losses; ++l) lost.push_back({next.lost[l].beforeEvent + offset, next.lost[l].count});
        timestamp.append(std::move(next.timestamp), keepBlocks);
        shapes.append(std::move(next.shapes), keepBlocks);
        pid.append(std::move(next.pid), keepBlocks);
        lostTotal += next.lostTotal;
        unknownLostPages += next.unknownLostPages;
        publish();
    }

    std::atomic<size_t> m_published{0};
};

} // namespace ringside
