// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/streamreader.h"

#include "util/kbuffer.h"

#include <algorithm>

namespace ringside {

StreamReader::StreamReader(const EventStore& store, StreamId stream) : m_store(store), m_stream(store.stream(stream))
{
    const FileLayout& layout = store.layout();
    m_kbuf = kbuffer_alloc(layout.kernelLongSize == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
                           layout.bigEndian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
}

StreamReader::~StreamReader()
{
    kbuffer_free(m_kbuf);
}

uint32_t StreamReader::pageEnd(uint64_t page) const
{
    const CpuColumns& c = m_stream.columns;
    return page + 1 < c.pageFirstEvent.size() ? c.pageFirstEvent[page + 1] : static_cast<uint32_t>(c.size());
}

// Moves past records the loader did not store (too short, or outside the page).
bool StreamReader::skipUnstored()
{
    const uint32_t pageSize = m_stream.pages->pageSize();
    const int minSize = m_store.layout().minRecordSize;
    unsigned long long ts = 0;
    while (m_data && !recordIsStored(kbuffer_event_size(m_kbuf), m_data, m_pageStart, pageSize, minSize))
        m_data = kbuffer_next_event(m_kbuf, &ts);
    return m_data != nullptr;
}

bool StreamReader::loadPage(uint64_t page, std::string* reason)
{
    const PageSource& pages = *m_stream.pages;
    if (m_runIndex >= pages.runCount() || page < m_current.firstPage || page >= m_current.firstPage + m_current.pages) {
        const size_t found = pages.runOfPage(page);
        m_runIndex = SIZE_MAX;
        m_page = UINT64_MAX;
        if (found >= pages.runCount()) {
            if (reason) *reason = "page not in any run";
            return false;
        }
        std::string why;
        const PageRun run = pages.run(found);
        if (!pages.readRun(run, m_run, m_scratch, &why)) {
            if (reason) *reason = why;
            return false;
        }
        m_runIndex = found;
        m_current = run;
    }
    m_page = UINT64_MAX;
    const uint8_t* start = m_run.data() + (page - m_current.firstPage) * pages.pageSize();
    m_pageStart = start;
    if (kbuffer_load_subbuffer(m_kbuf, const_cast<uint8_t*>(start)) < 0) {
        if (reason) *reason = "page header cannot be read";
        return false;
    }
    unsigned long long ts = 0;
    m_data = kbuffer_read_event(m_kbuf, &ts);
    skipUnstored();
    m_page = page;
    m_index = m_stream.columns.pageFirstEvent[page];
    return true;
}

bool StreamReader::read(uint32_t index, const uint8_t** data, int* size, std::string* reason)
{
    const CpuColumns& c = m_stream.columns;
    if (index >= c.size()) {
        if (reason) *reason = "no such event";
        return false;
    }
    const bool onPage = m_page != UINT64_MAX && index >= c.pageFirstEvent[m_page] && index < pageEnd(m_page);
    if (!onPage || index < m_index) {
        uint64_t page = onPage ? m_page : UINT64_MAX;
        // Consecutive reads usually move to the next non-empty page: avoid the binary search.
        if (!onPage && m_page != UINT64_MAX && m_page + 1 < c.pageFirstEvent.size() &&
            index >= c.pageFirstEvent[m_page + 1] && index < pageEnd(m_page + 1))
            page = m_page + 1;
        if (page == UINT64_MAX) page = c.pageOf(index);
        if (!loadPage(page, reason)) return false;
    }
    unsigned long long ts = 0;
    while (m_data && m_index < index) {
        m_data = kbuffer_next_event(m_kbuf, &ts);
        skipUnstored();
        ++m_index;
    }
    if (!m_data) {
        m_page = UINT64_MAX;
        if (reason) *reason = "record not found in its page";
        return false;
    }
    *data = static_cast<const uint8_t*>(m_data);
    *size = recordBytesInPage(kbuffer_event_size(m_kbuf), m_data, m_pageStart, m_stream.pages->pageSize());
    return true;
}

} // namespace ringside
