// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/spoolpagesource.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ringside {

namespace {

// An unnamed file in `folder`: O_TMPFILE where the file system has it, else a named one
// unlinked at once.
int unnamedFile(const std::string& folder)
{
    if (folder.empty()) return -1;
    int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    std::string name = folder + "/ringside-pages-XXXXXX";
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
    return fd;
}

} // namespace

SpoolPageSource::SpoolPageSource(uint32_t pageSize, const std::string& folder)
    : m_pageSize(pageSize), m_fd(unnamedFile(folder))
{}

SpoolPageSource::~SpoolPageSource()
{
    if (m_fd >= 0) ::close(m_fd);
}

void SpoolPageSource::append(const uint8_t* pages, uint32_t count)
{
    if (!count) return;
    const size_t bytes = size_t(count) * m_pageSize;
    Place place;
    bool written = false;
    if (spooling()) {
        size_t done = 0;
        while (done < bytes) {
            const ssize_t n = ::pwrite(m_fd, pages + done, bytes - done, off_t(m_fileBytes + done));
            if (n > 0) {
                done += size_t(n);
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else {
                break;
            }
        }
        written = done == bytes;
        // What a failed write left in the file is never read; later pages stay in memory.
        m_failed = !written;
    }
    if (written) {
        place.offset = m_fileBytes;
        m_fileBytes += bytes;
    } else {
        m_owned.emplace_back(new uint8_t[bytes]);
        std::memcpy(m_owned.back().get(), pages, bytes);
        place.memory = m_owned.back().get();
        m_memoryBytes += bytes;
    }
    m_places.push_back(place);
    m_runs.push_back({m_pages, count, -1}); // publishes the run (release) after its place
    m_pages += count;
}

uint64_t SpoolPageSource::streamBytes() const
{
    const size_t runs = m_runs.size();
    if (!runs) return 0;
    const PageRun last = m_runs[runs - 1];
    return (last.firstPage + last.pages) * m_pageSize;
}

bool SpoolPageSource::copy(const Place& place, uint64_t byteInRun, size_t bytes, uint8_t* out,
                           std::string* reason) const
{
    if (place.memory) {
        std::memcpy(out, place.memory + byteInRun, bytes);
        return true;
    }
    size_t done = 0;
    while (done < bytes) {
        const ssize_t n = ::pread(m_fd, out + done, bytes - done, off_t(place.offset + byteInRun + done));
        if (n > 0) {
            done += size_t(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (reason) *reason = n < 0 ? std::strerror(errno) : "the capture's page file ended early";
            return false;
        }
    }
    return true;
}

bool SpoolPageSource::readRun(const PageRun& run, std::vector<uint8_t>& out, std::vector<uint8_t>&,
                              std::string* reason) const
{
    const size_t index = runOfPage(run.firstPage);
    if (index >= runCount()) return *reason = "no such run", false;
    const size_t bytes = size_t(run.pages) * m_pageSize;
    out.resize(bytes + kPadding);
    if (!copy(m_places[index], 0, bytes, out.data(), reason)) return false;
    std::memset(out.data() + bytes, 0, kPadding);
    return true;
}

bool SpoolPageSource::readPage(uint64_t index, std::vector<uint8_t>& out, std::string* reason) const
{
    const size_t r = runOfPage(index);
    if (r >= runCount()) return *reason = "page index out of range", false;
    out.assign(m_pageSize + kPadding, 0);
    return copy(m_places[r], (index - m_runs[r].firstPage) * m_pageSize, m_pageSize, out.data(), reason);
}

} // namespace ringside
