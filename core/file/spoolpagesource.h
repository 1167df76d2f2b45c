// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/pagesource.h"
#include "store/chunkedcolumn.h"

#include <memory>
#include <string>
#include <vector>

namespace ringside {

// A live capture's pages, appended as they arrive and kept in an unnamed file (gone when the
// source is) rather than in memory: they are most of a capture's bytes (a raw_syscalls event
// takes some 60 of them, its row in the store 17), and the page cache holds them as long as
// memory is to spare. Where no such file can be made, or a write fails (a full disk), the
// pages stay in memory instead: nothing captured is lost. Without a folder they all stay in
// memory (tests that grow a store). Readers as PageSource has them.
class SpoolPageSource : public PageSource {
public:
    explicit SpoolPageSource(uint32_t pageSize, const std::string& folder = {});
    ~SpoolPageSource() override;
    SpoolPageSource(const SpoolPageSource&) = delete;
    SpoolPageSource& operator=(const SpoolPageSource&) = delete;

    // Copies `count` pages and publishes them as the next run. Writer only.
    void append(const uint8_t* pages, uint32_t count);
    // Whether pages go to the file (false once it could not be made or written).
    bool spooling() const { return m_fd >= 0 && !m_failed; }
    // Bytes of pages held in memory (those the file could not take).
    uint64_t memoryBytes() const { return m_memoryBytes; }

    uint32_t pageSize() const override { return m_pageSize; }
    uint64_t streamBytes() const override;
    size_t runCount() const override { return m_runs.size(); }
    PageRun run(size_t index) const override { return m_runs[index]; }
    bool readRun(const PageRun& run, std::vector<uint8_t>& out, std::vector<uint8_t>& scratch,
                 std::string* reason) const override;
    bool readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const override;

private:
    // Where a run's pages are: in memory, or at an offset of the file.
    struct Place {
        const uint8_t* memory = nullptr;
        uint64_t offset = 0;
    };
    bool copy(const Place& place, uint64_t byteInRun, size_t bytes, uint8_t* out, std::string* reason) const;

    uint32_t m_pageSize;
    int m_fd = -1;
    bool m_failed = false;                           // writer only
    uint64_t m_fileBytes = 0, m_memoryBytes = 0;     // writer only
    uint64_t m_pages = 0;                            // writer only
    std::vector<std::unique_ptr<uint8_t[]>> m_owned; // writer only: pages kept in memory
    ChunkedColumn<Place, 10> m_places;               // each run's, as readers find them
    ChunkedColumn<PageRun, 10> m_runs;               // published after m_places
};

} // namespace ringside
