// SPDX-License-Identifier: GPL-2.0-or-later
#include "store/eventstore.h"

#include "util/kbuffer.h"

namespace ringside {

namespace {

// One kbuffer per thread and page layout: decoding an event must not allocate.
kbuffer* threadKbuffer(const FileLayout& layout)
{
    struct Cache {
        kbuffer* buffers[4] = {};
        ~Cache()
        {
            for (kbuffer* k : buffers)
                if (k) kbuffer_free(k);
        }
    };
    thread_local Cache cache;
    const int slot = (layout.kernelLongSize == 8 ? 2 : 0) + (layout.bigEndian ? 1 : 0);
    if (!cache.buffers[slot])
        cache.buffers[slot] = kbuffer_alloc(layout.kernelLongSize == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
                                            layout.bigEndian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
    return cache.buffers[slot];
}

} // namespace

const char* severityName(Diagnostic::Severity severity)
{
    switch (severity) {
    case Diagnostic::Severity::Info: return "info";
    case Diagnostic::Severity::Warning: return "warning";
    case Diagnostic::Severity::Error: return "error";
    }
    return "?";
}

size_t EventStore::memoryBytes() const
{
    size_t bytes = m_order.memoryBytes() + m_typeCounts.capacity() * sizeof(uint64_t);
    for (size_t s = 0; s < streamCount(); ++s) bytes += stream(StreamId(uint16_t(s))).columns.memoryBytes();
    return bytes;
}

std::optional<EventRef> EventStore::taskEventAt(int32_t pid, uint64_t ts, size_t within) const
{
    const size_t first = firstRowAtOrAfter(ts);
    for (size_t row = first; row < eventCount() && row < first + within; ++row) {
        const EventRef e = eventAt(row);
        if (stream(e.stream).columns.pid[e.index] == pid) return e;
    }
    return std::nullopt;
}

size_t EventStore::firstRowAtOrAfter(uint64_t ts) const
{
    size_t lo = 0, hi = eventCount();
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (timestamp(eventAt(mid)) < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t EventStore::rowOf(EventRef e) const
{
    return m_order.rowOf(e);
}

bool EventStore::readRecord(EventRef e, RawRecord& out, std::string* reason) const
{
    const Stream& s = stream(e.stream);
    if (e.index >= s.columns.size()) return *reason = "no such event", false;
    uint64_t page = s.columns.pageOf(e.index);
    if (!s.pages->readPage(page, out.page, reason)) return false;
    // Walk the page to the event's ordinal, skipping what the loader skipped.
    const FileLayout& layout = m_layout;
    kbuffer* kbuf = threadKbuffer(layout);
    uint32_t ordinal = e.index - s.columns.pageFirstEvent[page];
    void* data = nullptr;
    if (kbuffer_load_subbuffer(kbuf, out.page.data()) >= 0) {
        unsigned long long ts = 0;
        for (data = kbuffer_read_event(kbuf, &ts); data; data = kbuffer_next_event(kbuf, &ts)) {
            out.size = kbuffer_event_size(kbuf);
            if (!recordIsStored(out.size, data, out.page.data(), s.pages->pageSize(), layout.minRecordSize)) continue;
            out.size = recordBytesInPage(out.size, data, out.page.data(), s.pages->pageSize());
            if (ordinal-- == 0) break;
        }
    }
    out.data = static_cast<const uint8_t*>(data);
    if (!data) return *reason = "record not found in its page", false;
    return true;
}

} // namespace ringside
