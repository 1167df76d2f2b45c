// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/fileinfo.h"
#include "util/mappedfile.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ringside {

// A stretch of consecutive pages read in one go: one compressed chunk, or a block of
// uncompressed pages.
struct PageRun {
    uint64_t firstPage = 0;
    uint32_t pages = 0;
    int64_t chunk = -1; // index into the CPU's chunks, -1 when stored uncompressed
};

// The ring-buffer pages of one CPU of one buffer, uncompressed or in compressed chunks.
// Pages are numbered from 0 in the CPU's data stream. Loading reads run by run (any run from
// any thread); decoding one event reads a single page and keeps the last decompressed chunk.
// Data is read with pread, not through the mapping, to keep it out of the resident size.
class PageSource {
public:
    PageSource(std::shared_ptr<MappedFile> file, CpuDataInfo data, Codec codec, uint32_t pageSize);

    uint32_t pageSize() const { return m_pageSize; }
    uint64_t pageCount() const { return m_data.streamSize / m_pageSize; }
    uint64_t streamBytes() const { return m_data.streamSize; }
    const CpuDataInfo& data() const { return m_data; }
    const std::vector<PageRun>& runs() const { return m_runs; }

    // Reads a run into `out` (its pages, then kPadding zero bytes, so that a parser overrunning
    // a corrupt page stays in the buffer). `scratch` holds compressed bytes between calls.
    bool readRun(const PageRun& run, std::vector<uint8_t>& out, std::vector<uint8_t>& scratch,
                 std::string* reason) const;

    // Copies page `index` into `out`, padded likewise. False with a reason if unreadable.
    bool readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const;

    static constexpr size_t kPadding = 4096;

private:
    std::shared_ptr<MappedFile> m_file;
    CpuDataInfo m_data;
    Codec m_codec;
    uint32_t m_pageSize;
    std::vector<PageRun> m_runs;

    mutable std::mutex m_cacheMutex;
    mutable int64_t m_cachedChunk = -1;
    mutable std::vector<uint8_t> m_cache;
    mutable std::vector<uint8_t> m_cacheScratch;
};

} // namespace ringside
