// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/pagesource.h"

#include <algorithm>
#include <cstring>

namespace ringside {

namespace {
constexpr uint32_t kStoredRunPages = 256;
}

FilePageSource::FilePageSource(std::shared_ptr<MappedFile> file, CpuDataInfo data, Codec codec, uint32_t pageSize)
    : m_file(std::move(file)), m_data(std::move(data)), m_codec(codec), m_pageSize(pageSize)
{
    if (m_data.compressed) {
        // Pages are numbered consecutively even if a (corrupt) chunk is not a whole number
        // of pages; its tail is ignored.
        uint64_t page = 0;
        for (size_t c = 0; c < m_data.chunks.size(); ++c) {
            const auto pages = static_cast<uint32_t>(m_data.chunks[c].size / m_pageSize);
            m_runs.push_back({page, pages, static_cast<int64_t>(c)});
            page += pages;
        }
    } else {
        for (uint64_t p = 0; p < pageCount(); p += kStoredRunPages)
            m_runs.push_back({p, static_cast<uint32_t>(std::min<uint64_t>(kStoredRunPages, pageCount() - p)), -1});
    }
}

bool FilePageSource::readRun(const PageRun& run, std::vector<uint8_t>& out, std::vector<uint8_t>& scratch,
                             std::string* reason) const
{
    if (run.chunk < 0) {
        const size_t bytes = size_t(run.pages) * m_pageSize;
        out.resize(bytes + kPadding);
        std::memset(out.data() + bytes, 0, kPadding);
        if (!m_file->readAt(m_data.fileOffset + run.firstPage * m_pageSize, bytes, out.data()))
            return *reason = "cannot read pages from the file", false;
        return true;
    }
    const CompressedChunk& chunk = m_data.chunks[static_cast<size_t>(run.chunk)];
    scratch.resize(chunk.compressedSize);
    if (!m_file->readAt(chunk.fileOffset, chunk.compressedSize, scratch.data()))
        return *reason = "cannot read a compressed chunk from the file", false;
    out.resize(size_t(chunk.size) + kPadding);
    std::memset(out.data() + chunk.size, 0, kPadding);
    return decompressBlock(m_codec, scratch.data(), scratch.size(), out.data(), chunk.size, reason);
}

bool FilePageSource::readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const
{
    if (m_runs.empty() || index >= m_runs.back().firstPage + m_runs.back().pages)
        return *reason = "page index out of range", false;
    out.assign(m_pageSize + kPadding, 0);
    const uint64_t offset = index * m_pageSize;
    if (!m_data.compressed) {
        if (!m_file->readAt(m_data.fileOffset + offset, m_pageSize, out.data()))
            return *reason = "cannot read the page from the file", false;
        return true;
    }
    auto it = std::upper_bound(m_runs.begin(), m_runs.end(), index,
                               [](uint64_t page, const PageRun& r) { return page < r.firstPage; });
    if (it == m_runs.begin()) return *reason = "page not in any chunk", false;
    const PageRun& run = *(it - 1);
    if (index >= run.firstPage + run.pages) return *reason = "page not in any chunk", false;

    std::lock_guard<std::mutex> lock(m_cacheMutex);
    if (m_cachedChunk != run.chunk) {
        m_cachedChunk = -1;
        if (!readRun(run, m_cache, m_cacheScratch, reason)) return false;
        m_cachedChunk = run.chunk;
    }
    std::memcpy(out.data(), m_cache.data() + (index - run.firstPage) * m_pageSize, m_pageSize);
    return true;
}

size_t PageSource::runOfPage(uint64_t page) const
{
    size_t lo = 0, hi = runCount();
    while (lo < hi) { // the first run starting after the page
        const size_t mid = lo + (hi - lo) / 2;
        if (run(mid).firstPage <= page)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return runCount();
    const PageRun r = run(lo - 1);
    return page < r.firstPage + r.pages ? lo - 1 : runCount();
}

} // namespace ringside
