// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringside {

// The one order of several streams: by time, equal times in stream order (the merged order's,
// so every walk of the streams meets events as the store's rows have them).
//
// `advance(stream, ts)` makes the stream's next item current and sets its time (false: the
// stream has no more); `visit(stream, ts)` takes the current item and returns false to stop.
// A stream stays current while its next item comes before every other's head: runs of one
// CPU's events cost no heap operations.
template <typename Advance, typename Visit>
void mergeByTime(size_t streams, Advance&& advance, Visit&& visit)
{
    struct Head {
        uint64_t ts;
        uint32_t stream;
    };
    auto later = [](const Head& a, const Head& b) { return a.ts != b.ts ? a.ts > b.ts : a.stream > b.stream; };
    std::vector<Head> heap;
    heap.reserve(streams);
    for (uint32_t s = 0; s < streams; ++s) {
        uint64_t ts = 0;
        if (advance(s, ts)) heap.push_back({ts, s});
    }
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        Head head = heap.back();
        heap.pop_back();
        for (;;) {
            if (!visit(head.stream, head.ts)) return;
            if (!advance(head.stream, head.ts)) break;
            if (!heap.empty() && later(head, heap.front())) {
                heap.push_back(head);
                std::push_heap(heap.begin(), heap.end(), later);
                break;
            }
        }
    }
}

} // namespace ringside
