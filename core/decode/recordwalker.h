// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"
#include "util/kbuffer.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ringside {

// Visits the raw records of one stream whose event type is in `types` (a 65536-entry mask),
// in order, reading each page once: for analyses that need fields of many events (task
// states from sched_switch, call trees), where readRecord per event would re-read pages.
// Safe on any thread: it touches only the stream's page source and columns. `visit` is called
// as visit(uint32_t index, const uint8_t* data, int size); a template, as an analysis that
// visits most records of a big recording pays for a call through std::function on each.
// Records from `endIndex` on are not read.
template <typename Visit>
void forEachRecord(const EventStore& store, StreamId id, const std::vector<bool>& types, Visit&& visit,
                   uint32_t endIndex = UINT32_MAX)
{
    const Stream& stream = store.stream(id);
    const CpuColumns& columns = stream.columns;
    const PageSource& pages = *stream.pages;
    const FileLayout& layout = store.layout();
    const std::unique_ptr<kbuffer, void (*)(kbuffer*)> kbuf(
        kbuffer_alloc(layout.kernelLongSize == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
                      layout.bigEndian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE),
        kbuffer_free);
    std::vector<uint8_t> buffer, scratch;
    const uint32_t pageSize = pages.pageSize();
    const size_t pageCount = columns.pageFirstEvent.size();
    auto firstEventOf = [&](uint64_t page) {
        return page < pageCount ? columns.pageFirstEvent[page] : static_cast<uint32_t>(columns.size());
    };
    for (size_t r = 0, runs = pages.runCount(); r < runs; ++r) {
        const PageRun run = pages.run(r);
        // Skip runs without a wanted event: the columns already say which types they hold.
        const uint64_t firstPage = run.firstPage;
        if (firstPage >= pageCount) break;
        const uint32_t begin = columns.pageFirstEvent[firstPage];
        if (begin >= endIndex) break;
        const uint32_t end = std::min(firstEventOf(firstPage + run.pages), endIndex);
        bool wanted = false;
        for (uint32_t i = begin; i < end && !wanted; ++i) wanted = types[columns.eventType[i]];
        if (!wanted) continue;
        std::string reason;
        if (!pages.readRun(run, buffer, scratch, &reason)) continue;
        for (uint32_t p = 0; p < run.pages; ++p) {
            const uint64_t page = firstPage + p;
            if (page >= pageCount) break;
            uint32_t index = columns.pageFirstEvent[page];
            if (index >= endIndex) break;
            const uint32_t pageEnd = std::min(firstEventOf(page + 1), endIndex);
            if (index == pageEnd) continue;
            uint8_t* pageStart = buffer.data() + size_t(p) * pageSize;
            if (kbuffer_load_subbuffer(kbuf.get(), pageStart) < 0) continue;
            unsigned long long ts = 0;
            for (void* data = kbuffer_read_event(kbuf.get(), &ts); data && index < pageEnd;
                 data = kbuffer_next_event(kbuf.get(), &ts)) {
                const int size = kbuffer_event_size(kbuf.get());
                if (!recordIsStored(size, data, pageStart, pageSize, layout.minRecordSize)) continue;
                if (types[columns.eventType[index]])
                    visit(index, static_cast<const uint8_t*>(data), recordBytesInPage(size, data, pageStart, pageSize));
                ++index;
            }
        }
    }
}

// forEachRecord through a std::function, for analyses that visit few records.
void walkRecords(const EventStore& store, StreamId stream, const std::vector<bool>& types,
                 const std::function<void(uint32_t index, const uint8_t* data, int size)>& visit);

} // namespace ringside
