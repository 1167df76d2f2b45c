// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/captureprotocol.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/uio.h>
#include <unistd.h>

namespace ringside {

namespace {

bool writeAll(int fd, const char* data, size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

// false at the end of the pipe before `size` bytes.
bool readAll(int fd, char* data, size_t size)
{
    while (size > 0) {
        const ssize_t n = ::read(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

constexpr uint64_t kMaxBody = uint64_t(256) << 20;

} // namespace

bool writeCaptureMessage(int fd, CaptureMessage type, int cpu, const void* data, size_t size)
{
    CaptureMessageHeader header{uint32_t(type), cpu, size};
    // Header and body in one write where the pipe takes it: a page is one system call.
    iovec parts[2] = {{&header, sizeof header}, {const_cast<void*>(data), size}};
    ssize_t n;
    do n = ::writev(fd, parts, size ? 2 : 1);
    while (n < 0 && errno == EINTR);
    if (n < 0) return false;
    const size_t total = sizeof header + size;
    if (size_t(n) == total) return true;
    // A short write: the rest in order.
    if (size_t(n) < sizeof header)
        return writeAll(fd, reinterpret_cast<const char*>(&header) + n, sizeof header - size_t(n)) &&
               writeAll(fd, static_cast<const char*>(data), size);
    return writeAll(fd, static_cast<const char*>(data) + (size_t(n) - sizeof header), total - size_t(n));
}

std::optional<ReceivedMessage> readCaptureMessage(int fd, std::string* error)
{
    CaptureMessageHeader header;
    if (!readAll(fd, reinterpret_cast<char*>(&header), sizeof header)) return std::nullopt;
    if (header.type < uint32_t(CaptureMessage::Metadata) || header.type > uint32_t(CaptureMessage::Round) ||
        header.size > kMaxBody) {
        if (error) *error = "malformed message from the capture process";
        return std::nullopt;
    }
    ReceivedMessage message{CaptureMessage(header.type), header.cpu, std::string(header.size, '\0')};
    if (!readAll(fd, message.body.data(), message.body.size())) {
        if (error) *error = "the capture process's stream ended inside a message";
        return std::nullopt;
    }
    return message;
}

bool CaptureStreamReader::hasMessage() const
{
    const size_t available = m_end - m_start;
    if (available < sizeof(CaptureMessageHeader)) return false;
    CaptureMessageHeader header;
    std::memcpy(&header, m_buffer.data() + m_start, sizeof header);
    return available - sizeof header >= header.size;
}

bool CaptureStreamReader::fill()
{
    // The unread part goes to the front when the room behind it is short, and the buffer grows
    // only for a message longer than it: zeroing a megabyte before each read (a string's
    // resize) cost more than the read, a page at a time, at a million events a second.
    constexpr size_t kLeastRoom = 1 << 20;
    if (m_buffer.empty()) m_buffer.resize(4 * kLeastRoom);
    if (m_buffer.size() - m_end < kLeastRoom) {
        std::memmove(m_buffer.data(), m_buffer.data() + m_start, m_end - m_start);
        m_end -= m_start;
        m_start = 0;
        if (m_buffer.size() - m_end < kLeastRoom) m_buffer.resize(m_end + kLeastRoom);
    }
    ssize_t n;
    do n = ::read(m_fd, m_buffer.data() + m_end, m_buffer.size() - m_end);
    while (n < 0 && errno == EINTR);
    if (n > 0) m_end += size_t(n);
    return n > 0;
}

std::optional<ReceivedMessage> CaptureStreamReader::next(std::string* error)
{
    while (!hasMessage()) {
        if (m_end - m_start >= sizeof(CaptureMessageHeader)) {
            CaptureMessageHeader header;
            std::memcpy(&header, m_buffer.data() + m_start, sizeof header);
            if (header.type < uint32_t(CaptureMessage::Metadata) || header.type > uint32_t(CaptureMessage::Round) ||
                header.size > kMaxBody) {
                if (error) *error = "malformed message from the capture process";
                return std::nullopt;
            }
        }
        if (!fill()) {
            if (error && m_end > m_start) *error = "the capture process's stream ended inside a message";
            return std::nullopt;
        }
    }
    CaptureMessageHeader header;
    std::memcpy(&header, m_buffer.data() + m_start, sizeof header);
    if (header.type < uint32_t(CaptureMessage::Metadata) || header.type > uint32_t(CaptureMessage::Round) ||
        header.size > kMaxBody) {
        if (error) *error = "malformed message from the capture process";
        return std::nullopt;
    }
    ReceivedMessage message{CaptureMessage(header.type), header.cpu,
                            std::string(m_buffer.data() + m_start + sizeof header, header.size)};
    m_start += sizeof header + header.size;
    return message;
}

} // namespace ringside
