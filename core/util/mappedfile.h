// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "util/result.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ringside {

// A read-only memory map of a whole file. Reads are bounds-checked by their users against
// size(), so a truncated file is never read past its end.
class MappedFile {
public:
    static Result<std::shared_ptr<MappedFile>> open(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return m_data; }
    size_t size() const { return m_size; }
    const std::string& path() const { return m_path; }

    // Copies bytes with pread, so bulk data reaches memory without mapping file pages into
    // the process (they would count in its resident size). False if the range is not there.
    bool readAt(uint64_t offset, size_t size, uint8_t* out) const;

    // Drops the mapped pages read so far from the resident set (they are read again from the
    // page cache if touched); called once the metadata is parsed.
    void releaseResidentPages() const;

private:
    MappedFile() = default;
    std::string m_path;
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
    int m_fd = -1;
};

} // namespace ringside
