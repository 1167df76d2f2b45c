// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/pagesource.h"
#include "store/chunkedcolumn.h"

#include <memory>
#include <vector>

namespace ringside {

// Pages that arrived from a live capture (trace_pipe_raw), kept in memory: there is no file
// behind them. One writer appends runs of whole pages; readers on any thread read the runs
// published so far (their number is published after the pages are copied).
class MemoryPageSource : public PageSource {
public:
    explicit MemoryPageSource(uint32_t pageSize) : m_pageSize(pageSize) {}

    // Copies `count` pages and publishes them as the next run. Writer only.
    void append(const uint8_t* pages, uint32_t count);

    uint32_t pageSize() const override { return m_pageSize; }
    uint64_t streamBytes() const override;
    size_t runCount() const override { return m_runs.size(); }
    PageRun run(size_t index) const override { return m_runs[index]; }
    bool readRun(const PageRun& run, std::vector<uint8_t>& out, std::vector<uint8_t>& scratch,
                 std::string* reason) const override;
    bool readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const override;

private:
    uint32_t m_pageSize;
    uint64_t m_pages = 0;                            // writer only
    std::vector<std::unique_ptr<uint8_t[]>> m_owned; // writer only: frees the copies
    ChunkedColumn<const uint8_t*, 10> m_data;        // each run's pages, as readers find them
    ChunkedColumn<PageRun, 10> m_runs;               // published after m_data
};

} // namespace ringside
