// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/memorypagesource.h"

#include <cstring>

namespace ringside {

void MemoryPageSource::append(const uint8_t* pages, uint32_t count)
{
    if (!count) return;
    const size_t bytes = size_t(count) * m_pageSize;
    m_owned.emplace_back(new uint8_t[bytes]);
    std::memcpy(m_owned.back().get(), pages, bytes);
    m_data.push_back(m_owned.back().get());
    m_runs.push_back({m_pages, count, -1}); // publishes the run (release) after its data
    m_pages += count;
}

uint64_t MemoryPageSource::streamBytes() const
{
    const size_t runs = m_runs.size();
    if (!runs) return 0;
    const PageRun last = m_runs[runs - 1];
    return (last.firstPage + last.pages) * m_pageSize;
}

bool MemoryPageSource::readRun(const PageRun& run, std::vector<uint8_t>& out, std::vector<uint8_t>&,
                               std::string* reason) const
{
    const size_t index = runOfPage(run.firstPage);
    if (index >= runCount()) return *reason = "no such run", false;
    const size_t bytes = size_t(run.pages) * m_pageSize;
    out.resize(bytes + kPadding);
    std::memcpy(out.data(), m_data[index], bytes);
    std::memset(out.data() + bytes, 0, kPadding);
    return true;
}

bool MemoryPageSource::readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const
{
    const size_t r = runOfPage(index);
    if (r >= runCount()) return *reason = "page index out of range", false;
    out.assign(m_pageSize + kPadding, 0);
    std::memcpy(out.data(), m_data[r] + (index - m_runs[r].firstPage) * m_pageSize, m_pageSize);
    return true;
}

} // namespace ringside
