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

// The ring-buffer pages of one CPU of one buffer, numbered from 0 in the CPU's data stream and
// read in runs (stretches of consecutive pages read in one go). A recording's pages come from
// its file (FilePageSource); a live capture's arrive over a pipe and are kept in an unnamed
// file (SpoolPageSource). Readers may call every method from any thread, also while a live source
// grows: runs below runCount() never change.
class PageSource {
public:
    virtual ~PageSource() = default;

    virtual uint32_t pageSize() const = 0;
    // Bytes of pages (uncompressed) the source holds now.
    virtual uint64_t streamBytes() const = 0;
    virtual size_t runCount() const = 0;
    virtual PageRun run(size_t index) const = 0;

    // Reads a run into `out` (its pages, then kPadding zero bytes, so that a parser overrunning
    // a corrupt page stays in the buffer). `scratch` holds compressed bytes between calls.
    virtual bool readRun(const PageRun& run, std::vector<uint8_t>& out, std::vector<uint8_t>& scratch,
                         std::string* reason) const = 0;
    // Copies page `index` into `out`, padded likewise. False with a reason if unreadable.
    virtual bool readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const = 0;

    // The run holding page `page`, or runCount() when none does.
    size_t runOfPage(uint64_t page) const;

    static constexpr size_t kPadding = 4096;
};

// Pages in a trace-cmd file, uncompressed or in compressed chunks. Loading reads run by run
// (any run from any thread); decoding one event reads a single page and keeps the last
// decompressed chunk. Data is read with pread, not through the mapping, to keep it out of the
// resident size.
class FilePageSource : public PageSource {
public:
    FilePageSource(std::shared_ptr<MappedFile> file, CpuDataInfo data, Codec codec, uint32_t pageSize);

    uint32_t pageSize() const override { return m_pageSize; }
    uint64_t streamBytes() const override { return m_data.streamSize; }
    size_t runCount() const override { return m_runs.size(); }
    PageRun run(size_t index) const override { return m_runs[index]; }
    bool readRun(const PageRun& run, std::vector<uint8_t>& out, std::vector<uint8_t>& scratch,
                 std::string* reason) const override;
    bool readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const override;

    uint64_t pageCount() const { return m_data.streamSize / m_pageSize; }
    const CpuDataInfo& data() const { return m_data; }

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
