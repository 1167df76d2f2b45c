// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/recordwalker.h"

#include "util/kbuffer.h"

namespace ringside {

void walkRecords(const EventStore& store, StreamId id, const std::vector<bool>& types,
                 const std::function<void(uint32_t, const uint8_t*, int)>& visit)
{
    const Stream& stream = store.stream(id);
    const CpuColumns& columns = stream.columns;
    const PageSource& pages = *stream.pages;
    const FileLayout& layout = store.layout();
    kbuffer* kbuf = kbuffer_alloc(layout.kernelLongSize == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
                                  layout.bigEndian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
    std::vector<uint8_t> buffer, scratch;
    const uint32_t pageSize = pages.pageSize();
    for (size_t r = 0, runs = pages.runCount(); r < runs; ++r) {
        const PageRun run = pages.run(r);
        // Skip runs without a wanted event: the columns already say which types they hold.
        const uint64_t firstPage = run.firstPage;
        if (firstPage >= columns.pageFirstEvent.size()) break;
        const uint32_t begin = columns.pageFirstEvent[firstPage];
        const uint64_t endPage = firstPage + run.pages;
        const uint32_t end = endPage < columns.pageFirstEvent.size() ? columns.pageFirstEvent[endPage]
                                                                     : static_cast<uint32_t>(columns.size());
        bool wanted = false;
        for (uint32_t i = begin; i < end && !wanted; ++i) wanted = types[columns.eventType[i]];
        if (!wanted) continue;
        std::string reason;
        if (!pages.readRun(run, buffer, scratch, &reason)) continue;
        for (uint32_t p = 0; p < run.pages; ++p) {
            const uint64_t page = firstPage + p;
            if (page >= columns.pageFirstEvent.size()) break;
            uint32_t index = columns.pageFirstEvent[page];
            const uint32_t pageEnd = page + 1 < columns.pageFirstEvent.size() ? columns.pageFirstEvent[page + 1]
                                                                              : static_cast<uint32_t>(columns.size());
            if (index == pageEnd) continue;
            uint8_t* pageStart = buffer.data() + size_t(p) * pageSize;
            if (kbuffer_load_subbuffer(kbuf, pageStart) < 0) continue;
            unsigned long long ts = 0;
            for (void* data = kbuffer_read_event(kbuf, &ts); data && index < pageEnd;
                 data = kbuffer_next_event(kbuf, &ts)) {
                const int size = kbuffer_event_size(kbuf);
                if (!recordIsStored(size, data, pageStart, pageSize, layout.minRecordSize)) continue;
                if (types[columns.eventType[index]])
                    visit(index, static_cast<const uint8_t*>(data), recordBytesInPage(size, data, pageStart, pageSize));
                ++index;
            }
        }
    }
    kbuffer_free(kbuf);
}

} // namespace ringside
