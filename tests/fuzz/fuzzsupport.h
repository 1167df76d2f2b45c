// SPDX-License-Identifier: GPL-2.0-or-later
// What the fuzz targets share: the input as a file (the reader opens paths), and a pass over
// the decoders a view would run on what loaded.
#pragma once

#include "decode/eventformatter.h"
#include "trace.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ringside::fuzz {

// The input in an anonymous in-memory file, opened by path like a recording.
class MemoryFile {
public:
    MemoryFile(const void* data, size_t size) : m_fd(memfd_create("fuzz-input", 0))
    {
        const char* p = static_cast<const char*>(data);
        for (size_t done = 0; m_fd >= 0 && done < size;) {
            const ssize_t n = ::write(m_fd, p + done, size - done);
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
    }
    ~MemoryFile()
    {
        if (m_fd >= 0) close(m_fd);
    }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;
    std::string path() const { return "/proc/self/fd/" + std::to_string(m_fd); }

private:
    int m_fd;
};

// Formats the first `rows` rows as the table, the details pane and a tooltip do.
inline void formatRows(const Trace& trace, size_t rows)
{
    EventFormatter formatter(trace);
    const EventStore& store = trace.store();
    rows = std::min(rows, store.eventCount());
    for (size_t row = 0; row < rows; ++row) {
        const EventRef e = store.order().eventAt(row);
        formatter.info(e);
        formatter.latency(e);
        formatter.reportLine(e);
        formatter.fields(e);
    }
}

// The real kernel formats in tests/fuzz/formats (RINGSIDE_FUZZ_FORMATS), as (system, text).
std::vector<std::pair<std::string, std::string>> sampleFormats();

// A small recording with those formats and a few records of each on two CPUs, written once
// per process; its path stays valid until the process ends.
const std::string& sampleRecording();

// The "ID: n" of a format text, or -1.
int formatId(const std::string& text);

} // namespace ringside::fuzz
