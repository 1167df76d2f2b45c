// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"

#include <cstdint>
#include <string>
#include <vector>

struct kbuffer;

namespace ringside {

// Reads the raw records of one stream mostly forward, as printers and searches visit them:
// each page run is decompressed once into the reader's own buffer and each page is walked
// once, where EventStore::readRecord re-reads and re-walks the page for every event. A
// record stays valid until the reader leaves its run. One reader per thread; the store is
// shared read-only.
class StreamReader {
public:
    StreamReader(const EventStore& store, StreamId stream);
    ~StreamReader();
    StreamReader(const StreamReader&) = delete;
    StreamReader& operator=(const StreamReader&) = delete;

    // The raw record of event `index`; false (with `reason`) when its page cannot be read.
    bool read(uint32_t index, const uint8_t** data, int* size, std::string* reason = nullptr);

private:
    bool loadPage(uint64_t page, std::string* reason);
    bool skipUnstored();
    uint32_t pageEnd(uint64_t page) const;

    const EventStore& m_store;
    const Stream& m_stream;
    kbuffer* m_kbuf = nullptr;
    std::vector<uint8_t> m_run, m_scratch;
    size_t m_runIndex = SIZE_MAX;
    PageRun m_current;            // the run in m_run
    uint64_t m_page = UINT64_MAX; // the page the kbuffer is on
    uint32_t m_index = 0;         // the event the kbuffer is at
    void* m_data = nullptr;
    const uint8_t* m_pageStart = nullptr;
};

} // namespace ringside
