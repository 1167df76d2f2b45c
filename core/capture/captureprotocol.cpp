// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/captureprotocol.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <sys/uio.h>
#include <thread>
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

// The thread that empties the pipe, and what it read that the reader has not taken.
struct CaptureStreamReader::Drain {
    static constexpr size_t kBlock = 1 << 20;
    std::mutex lock;
    std::condition_variable arrived;
    // What it read, in the order it came, in blocks: a backlog grows without moving what it
    // holds (a vector's growth copied hundreds of megabytes under the lock, while the pipe
    // filled). The reader takes from the front block.
    std::deque<std::vector<char>> blocks;
    size_t taken = 0;          // of the front block, already handed to the reader
    bool ended = false;        // the pipe ended (or failed): nothing more comes
    int stopFds[2] = {-1, -1}; // written to when the reader goes before the pipe ends
    std::thread thread;

    bool hasData() const { return blocks.size() > 1 || (!blocks.empty() && blocks.front().size() > taken); }

    void run(int fd)
    {
        std::vector<char> chunk(kBlock);
        for (;;) {
            pollfd fds[2] = {{fd, POLLIN, 0}, {stopFds[0], POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0 && errno == EINTR) continue;
            if (fds[1].revents) break;
            const ssize_t n = ::read(fd, chunk.data(), chunk.size());
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0) break;
            const std::lock_guard guard(lock);
            for (size_t at = 0; at < size_t(n);) {
                if (blocks.empty() || blocks.back().size() == kBlock) {
                    blocks.emplace_back();
                    blocks.back().reserve(kBlock);
                }
                std::vector<char>& last = blocks.back();
                const size_t part = std::min(size_t(n) - at, kBlock - last.size());
                last.insert(last.end(), chunk.data() + at, chunk.data() + at + part);
                at += part;
            }
            arrived.notify_one();
        }
        const std::lock_guard guard(lock);
        ended = true;
        arrived.notify_one();
    }

    // Up to `size` bytes of what was read, waiting for some unless the pipe ended.
    size_t take(char* into, size_t size)
    {
        std::unique_lock guard(lock);
        arrived.wait(guard, [this] { return ended || hasData(); });
        size_t n = 0;
        while (n < size && hasData()) {
            std::vector<char>& front = blocks.front();
            const size_t part = std::min(size - n, front.size() - taken);
            std::memcpy(into + n, front.data() + taken, part);
            n += part;
            taken += part;
            // A whole block taken goes; the one still being filled stays.
            if (taken == front.size() && (blocks.size() > 1 || front.size() == kBlock)) blocks.pop_front(), taken = 0;
        }
        return n;
    }
};

CaptureStreamReader::CaptureStreamReader(int fd, bool drainOnThread) : m_fd(fd)
{
    if (!drainOnThread) return;
    m_drain = std::make_unique<Drain>();
    if (::pipe2(m_drain->stopFds, O_CLOEXEC) != 0) {
        m_drain.reset(); // read on the caller's thread then
        return;
    }
    m_drain->thread = std::thread([drain = m_drain.get(), fd] { drain->run(fd); });
}

CaptureStreamReader::~CaptureStreamReader()
{
    if (!m_drain) return;
    const char stop = 'q';
    while (::write(m_drain->stopFds[1], &stop, 1) < 0 && errno == EINTR) {}
    m_drain->thread.join();
    ::close(m_drain->stopFds[0]);
    ::close(m_drain->stopFds[1]);
}

bool CaptureStreamReader::whole() const
{
    const size_t available = m_end - m_start;
    if (available < sizeof(CaptureMessageHeader)) return false;
    CaptureMessageHeader header;
    std::memcpy(&header, m_buffer.data() + m_start, sizeof header);
    return available - sizeof header >= header.size;
}

bool CaptureStreamReader::hasMessage() const
{
    if (whole()) return true;
    if (!m_drain) return false;
    const std::lock_guard guard(m_drain->lock);
    return m_drain->hasData();
}

long CaptureStreamReader::readSome(char* into, size_t size)
{
    if (!m_drain) {
        ssize_t n;
        do n = ::read(m_fd, into, size);
        while (n < 0 && errno == EINTR);
        return long(n);
    }
    return long(m_drain->take(into, size));
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
    const long n = readSome(m_buffer.data() + m_end, m_buffer.size() - m_end);
    if (n > 0) m_end += size_t(n);
    return n > 0;
}

std::optional<ReceivedMessage> CaptureStreamReader::next(std::string* error)
{
    while (!whole()) {
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
