// SPDX-License-Identifier: GPL-2.0-or-later
#include "util/mappedfile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ringside {

Result<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error{path + ": not a regular file"};
    }
    auto file = std::shared_ptr<MappedFile>(new MappedFile);
    file->m_path = path;
    file->m_size = static_cast<size_t>(st.st_size);
    if (file->m_size > 0) {
        void* p = mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int err = errno;
            ::close(fd);
            return Error{path + ": cannot map file: " + std::strerror(err)};
        }
        madvise(p, file->m_size, MADV_RANDOM);
        file->m_data = static_cast<const uint8_t*>(p);
    }
    file->m_fd = fd;
    return file;
}

MappedFile::~MappedFile()
{
    if (m_data) munmap(const_cast<uint8_t*>(m_data), m_size);
    if (m_fd >= 0) ::close(m_fd);
}

void MappedFile::releaseResidentPages() const
{
    if (m_data) madvise(const_cast<uint8_t*>(m_data), m_size, MADV_DONTNEED);
}

bool MappedFile::readAt(uint64_t offset, size_t size, uint8_t* out) const
{
    if (offset > m_size || size > m_size - offset) return false;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(m_fd, out + done, size - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

} // namespace ringside
