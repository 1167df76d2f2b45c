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

// The ring-buffer pages of one CPU of one buffer, uncompressed or in compressed chunks.
// Pages are numbered from 0 in the CPU's data stream. Sequential reads (loading) go chunk by
// chunk; random reads (decoding one event) keep the last decompressed chunk. Thread-safe.
class PageSource {
public:
    PageSource(std::shared_ptr<MappedFile> file, CpuDataInfo data, Codec codec, uint32_t pageSize);

    uint32_t pageSize() const { return m_pageSize; }
    uint64_t pageCount() const { return m_data.streamSize / m_pageSize; }
    uint64_t streamBytes() const { return m_data.streamSize; }
    const CpuDataInfo& data() const { return m_data; }

    // Copies page `index` into `out` (resized to pageSize plus zero padding, so a parser that
    // overruns a corrupt page stays inside the buffer). False with a reason if unreadable.
    bool readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const;

    // Visits the pages of one compressed chunk (or, uncompressed, a run of pages) at a time:
    // fn(firstPageIndex, data, pageCount). A chunk that cannot be decompressed is reported
    // through onError(firstPageIndex, pageCount, reason) and skipped.
    template <typename Fn, typename OnError>
    void forEachRun(Fn fn, OnError onError) const;

    static constexpr size_t kPadding = 4096;

private:
    bool decompressChunk(size_t chunk, std::vector<uint8_t>& out, std::string* reason) const;

    std::shared_ptr<MappedFile> m_file;
    CpuDataInfo m_data;
    Codec m_codec;
    uint32_t m_pageSize;

    mutable std::mutex m_cacheMutex;
    mutable size_t m_cachedChunk = SIZE_MAX;
    mutable std::vector<uint8_t> m_cache;
};

template <typename Fn, typename OnError>
void PageSource::forEachRun(Fn fn, OnError onError) const
{
    if (!m_data.compressed) {
        const uint8_t* base = m_file->data() + m_data.fileOffset;
        fn(uint64_t(0), base, pageCount());
        return;
    }
    std::vector<uint8_t> buffer;
    for (size_t c = 0; c < m_data.chunks.size(); ++c) {
        const CompressedChunk& chunk = m_data.chunks[c];
        uint64_t first = chunk.streamOffset / m_pageSize;
        uint64_t pages = chunk.size / m_pageSize;
        std::string reason;
        if (!decompressChunk(c, buffer, &reason)) {
            onError(first, pages, reason);
            continue;
        }
        fn(first, buffer.data(), pages);
    }
}

} // namespace ringside
