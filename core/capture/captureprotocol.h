// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ringside {

// The stream ringside-capture writes to its caller over a pipe: messages of a fixed header
// (type, CPU, size) and a body. First Metadata (CaptureMetadata, without the end's parts),
// then Page (one ring-buffer page of a CPU) and Stats (a CPU's stats text, about once a
// second) as they come, then Metadata again with the task names and the final counters, and
// End. Error carries the reason the capture cannot go on; Note something to tell the user.
// Round ends a round that read every CPU (after pages only): a CPU without pages in it had
// nothing, so a reader may stop waiting for it before the time the others reached.
enum class CaptureMessage : uint32_t { Metadata = 1, Page = 2, Stats = 3, Note = 4, Error = 5, End = 6, Round = 7 };

struct CaptureMessageHeader {
    uint32_t type = 0;
    int32_t cpu = -1;
    uint64_t size = 0;
};

// Writes one message whole (retrying short writes); false when the reader is gone.
bool writeCaptureMessage(int fd, CaptureMessage type, int cpu, const void* data, size_t size);

// Reads one message, blocking; nullopt at the end of the pipe or on a malformed header
// (`error` says which).
struct ReceivedMessage {
    CaptureMessage type;
    int cpu = -1;
    std::string body;
};
std::optional<ReceivedMessage> readCaptureMessage(int fd, std::string* error);

// Reads messages from a pipe in large chunks: at a million events a second the reader's
// system calls count.
class CaptureStreamReader {
public:
    // With `drainOnThread`, a thread of the reader's own empties the pipe as fast as the helper
    // fills it, whatever the caller is busy with, and what it read waits in memory: a full pipe
    // stops the helper, and behind it the kernel's buffers overflow (a 4 MB buffer holds some 40
    // ms at a million calls a second).
    explicit CaptureStreamReader(int fd, bool drainOnThread = false);
    ~CaptureStreamReader();
    CaptureStreamReader(const CaptureStreamReader&) = delete;
    CaptureStreamReader& operator=(const CaptureStreamReader&) = delete;
    // Whether a whole message is buffered (next() returns it without blocking); with a drain,
    // also whether it read anything not yet taken.
    bool hasMessage() const;
    // The next message, blocking until it is whole; nullopt at the end of the stream or on a
    // malformed one (`error` says which).
    std::optional<ReceivedMessage> next(std::string* error);

private:
    struct Drain;
    bool whole() const; // a whole message is in the buffer
    bool fill();        // false at the end of the stream
    // Reads into `into` as ::read() would, from the pipe or from what the drain read.
    long readSome(char* into, size_t size);
    int m_fd;
    // Read into, never cleared: [m_start, m_end) is unread.
    std::vector<char> m_buffer;
    size_t m_start = 0, m_end = 0;
    std::unique_ptr<Drain> m_drain;
};

} // namespace ringside
