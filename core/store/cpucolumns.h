// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/chunkedcolumn.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ringside {

// Events lost before a given event (the ring buffer overwrote or dropped them).
struct LostEvents {
    uint32_t beforeEvent = 0;
    int64_t count = 0; // -1: the kernel did not say how many
};

// Whether a record that kbuffer found in a page is stored as an event: one too short to
// hold the common fields, or outside the page, is skipped (and counted) by the loader.
inline bool recordIsStored(int size, int offsetInPage, uint32_t pageSize, int minSize)
{
    return size >= minSize && offsetInPage >= 0 && offsetInPage < static_cast<int>(pageSize);
}

// The events of one CPU of one buffer, one column per property, in the CPU's time order.
// Fields beyond the common ones are decoded on demand from the raw record, which is found
// through the page table: pageFirstEvent[p] is the index of the first event of page p, so
// event i is stored record number i - pageFirstEvent[p] of its page.
struct CpuColumns {
    int cpu = 0;
    ChunkedColumn<uint64_t> timestamp;
    ChunkedColumn<uint16_t> eventType;
    ChunkedColumn<int32_t> pid;
    ChunkedColumn<uint8_t> flags;        // common_flags: irqs-off, need-resched, hardirq...
    ChunkedColumn<uint8_t> preemptCount; // common_preempt_count
    std::vector<uint32_t> pageFirstEvent;
    std::vector<LostEvents> lost;
    uint64_t lostTotal = 0;
    uint64_t unknownLostPages = 0;

    size_t size() const { return timestamp.size(); }

    uint64_t pageOf(uint32_t event) const
    {
        auto it = std::upper_bound(pageFirstEvent.begin(), pageFirstEvent.end(), event);
        return static_cast<uint64_t>(it - pageFirstEvent.begin()) - 1;
    }

    // Lost events reported just before `event`, or 0.
    int64_t lostBefore(uint32_t event) const
    {
        auto it = std::lower_bound(lost.begin(), lost.end(), event,
                                   [](const LostEvents& l, uint32_t e) { return l.beforeEvent < e; });
        return it != lost.end() && it->beforeEvent == event ? it->count : 0;
    }

    // Moves a later stretch of the same CPU (loaded separately) to the end of this one.
    void append(CpuColumns&& next)
    {
        const auto offset = static_cast<uint32_t>(size());
        timestamp.append(std::move(next.timestamp));
        eventType.append(std::move(next.eventType));
        pid.append(std::move(next.pid));
        flags.append(std::move(next.flags));
        preemptCount.append(std::move(next.preemptCount));
        for (uint32_t first : next.pageFirstEvent) pageFirstEvent.push_back(first + offset);
        for (LostEvents l : next.lost) lost.push_back({l.beforeEvent + offset, l.count});
        lostTotal += next.lostTotal;
        unknownLostPages += next.unknownLostPages;
        next = CpuColumns();
    }

    size_t memoryBytes() const
    {
        return timestamp.memoryBytes() + eventType.memoryBytes() + pid.memoryBytes() +
               flags.memoryBytes() + preemptCount.memoryBytes() +
               pageFirstEvent.capacity() * sizeof(uint32_t) + lost.capacity() * sizeof(LostEvents);
    }
};

} // namespace ringside
