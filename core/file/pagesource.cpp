// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/pagesource.h"

#include <algorithm>
#include <cstring>

namespace ringside {

PageSource::PageSource(std::shared_ptr<MappedFile> file, CpuDataInfo data, Codec codec,
                       uint32_t pageSize)
    : m_file(std::move(file)), m_data(std::move(data)), m_codec(codec), m_pageSize(pageSize)
{
}

bool PageSource::decompressChunk(size_t index, std::vector<uint8_t>& out, std::string* reason) const
{
    const CompressedChunk& chunk = m_data.chunks[index];
    out.resize(chunk.size + kPadding);
    std::fill(out.begin() + chunk.size, out.end(), 0);
    return decompressBlock(m_codec, m_file->data() + chunk.fileOffset, chunk.compressedSize,
                           out.data(), chunk.size, reason);
}

bool PageSource::readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const
{
    if (index >= pageCount()) return *reason = "page index out of range", false;
    out.assign(m_pageSize + kPadding, 0);
    uint64_t offset = index * m_pageSize;
    if (!m_data.compressed) {
        std::memcpy(out.data(), m_file->data() + m_data.fileOffset + offset, m_pageSize);
        return true;
    }
    auto it = std::upper_bound(m_data.chunks.begin(), m_data.chunks.end(), offset,
                               [](uint64_t off, const CompressedChunk& c) { return off < c.streamOffset; });
    if (it == m_data.chunks.begin()) return *reason = "page not in any chunk", false;
    size_t chunk = static_cast<size_t>(it - m_data.chunks.begin()) - 1;
    uint64_t within = offset - m_data.chunks[chunk].streamOffset;
    if (within + m_pageSize > m_data.chunks[chunk].size) return *reason = "page crosses a chunk", false;

    std::lock_guard<std::mutex> lock(m_cacheMutex);
    if (m_cachedChunk != chunk) {
        m_cachedChunk = SIZE_MAX;
        if (!decompressChunk(chunk, m_cache, reason)) return false;
        m_cachedChunk = chunk;
    }
    std::memcpy(out.data(), m_cache.data() + within, m_pageSize);
    return true;
}

} // namespace ringside
