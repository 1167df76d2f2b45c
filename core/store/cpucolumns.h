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

// The events of one CPU of one buffer, one column per property, in the CPU's time order.
// Fields beyond the common ones are decoded on demand from the raw record, which is found
// through the page table: pageFirstEvent[p] is the index of the first event of page p, and
// pageOffset[i] is where event i starts inside its page.
struct CpuColumns {
    int cpu = 0;
    ChunkedColumn<uint64_t> timestamp;
    ChunkedColumn<uint16_t> eventType;
    ChunkedColumn<int32_t> pid;
    ChunkedColumn<uint8_t> flags;        // common_flags: irqs-off, need-resched, hardirq...
    ChunkedColumn<uint8_t> preemptCount; // common_preempt_count
    ChunkedColumn<uint16_t> pageOffset;
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

    size_t memoryBytes() const
    {
        return timestamp.memoryBytes() + eventType.memoryBytes() + pid.memoryBytes() +
               flags.memoryBytes() + preemptCount.memoryBytes() + pageOffset.memoryBytes() +
               pageFirstEvent.capacity() * sizeof(uint32_t) + lost.capacity() * sizeof(LostEvents);
    }
};

} // namespace ringside
