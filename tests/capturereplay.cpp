// SPDX-License-Identifier: GPL-2.0-or-later
// ringside-capture-replay FILE.dat: stands in for ringside-capture (RINGSIDE_CAPTURE_HELPER)
// and sends a version 6 recording's pages as a capture would, a page of each CPU a round,
// until the recording ends or the caller says stop. With RINGSIDE_REPLAY_FILE set, that file
// is replayed and the arguments (a capture's settings) are ignored.
// Between rounds it waits a little (3 ms; longer if RINGSIDE_REPLAY_SPREAD_MS asks for the
// rounds to last at least that long), so that the reader publishes what it has, and it sends
// CPU 0 pages without events (the kernel hands out such pages), the first alone in a round of
// its own: what the store is given must still match the pages it keeps, page for page.
// With RINGSIDE_REPLAY_REFUSED set it also sends what a reader must refuse and count: a page of
// a CPU the capture does not have, a page longer than a page, and metadata that does not parse.
#include "capture/captureprotocol.h"
#include "file/datconvert.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <vector>

using namespace ringside;

namespace {

bool send(CaptureMessage type, int cpu, const std::string& body)
{
    return writeCaptureMessage(STDOUT_FILENO, type, cpu, body.data(), body.size());
}

// A page of the recording's layout that holds no record: its header only.
std::string pageWithoutEvents(const std::string& after)
{
    std::string page(after.size(), '\0'); // commit 0
    std::memcpy(page.data(), after.data(), 8); // the previous page's time
    return page;
}

} // namespace

int main(int argc, char** argv)
{
    const char* fromEnvironment = std::getenv("RINGSIDE_REPLAY_FILE");
    if (!fromEnvironment && argc != 2) {
        std::fprintf(stderr, "usage: ringside-capture-replay FILE.dat\n");
        return 2;
    }
    const std::string file = fromEnvironment ? fromEnvironment : argv[1];
    auto parts = readDatV6Parts(file);
    if (!parts) {
        send(CaptureMessage::Error, -1, file + ": " + parts.error().message);
        return 1;
    }
    CaptureMetadata start = parts->metadata;
    start.cmdlines.clear();
    start.cpuStats.clear();
    if (!send(CaptureMessage::Metadata, -1, start.serialize())) return 1;

    const uint32_t pageSize = parts->metadata.pageSize;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    std::vector<std::vector<std::string>> pages(parts->cpuData.size());
    size_t rounds = 0;
    for (size_t cpu = 0; cpu < pages.size(); ++cpu) {
        const auto& range = parts->cpuData[cpu];
        for (uint64_t at = 0; at + pageSize <= range.size; at += pageSize) {
            std::string page(pageSize, '\0');
            if (::pread(fd, page.data(), pageSize, off_t(range.offset + at)) != ssize_t(pageSize)) return 1;
            pages[cpu].push_back(std::move(page));
        }
        rounds = std::max(rounds, pages[cpu].size());
    }
    ::close(fd);

    // Between rounds, the caller's word to stop (or its end) ends the replay early.
    bool stopped = false;
    const char* spread = std::getenv("RINGSIDE_REPLAY_SPREAD_MS");
    const int pauseMs = std::max(3, spread ? std::atoi(spread) / int(std::max<size_t>(rounds, 1)) : 0);
    auto pause = [&stopped, pauseMs] {
        pollfd in{STDIN_FILENO, POLLIN, 0};
        stopped = stopped || ::poll(&in, 1, pauseMs) > 0;
    };
    // A round of a page without events alone first: nothing published yet, so the other CPUs,
    // empty in it, are not taken to be past any time (a later round where a CPU with pages
    // to come sent none would tell the reader it had drained it).
    if (!pages[0].empty()) {
        if (!send(CaptureMessage::Page, 0, pageWithoutEvents(pages[0][0]))) return 1;
        if (!send(CaptureMessage::Round, -1, {})) return 1;
        pause();
    }
    for (size_t round = 0; round < rounds && !stopped; ++round) {
        for (size_t cpu = 0; cpu < pages.size(); ++cpu) {
            if (round >= pages[cpu].size()) continue;
            if (!send(CaptureMessage::Page, int(cpu), pages[cpu][round])) return 1;
            if (cpu == 0 && !send(CaptureMessage::Page, 0, pageWithoutEvents(pages[0][round]))) return 1;
        }
        if (!send(CaptureMessage::Round, -1, {})) return 1;
        pause();
    }
    if (std::getenv("RINGSIDE_REPLAY_REFUSED")) {
        send(CaptureMessage::Page, int(pages.size()) + 7, std::string(pageSize, '\0'));
        send(CaptureMessage::Page, 0, std::string(pageSize + 1, '\0'));
        send(CaptureMessage::Metadata, -1, "not metadata");
    }
    for (size_t cpu = 0; cpu < parts->metadata.cpuStats.size(); ++cpu)
        send(CaptureMessage::Stats, int(cpu), parts->metadata.cpuStats[cpu]);
    send(CaptureMessage::Metadata, -1, parts->metadata.serialize());
    send(CaptureMessage::End, -1, {});
    return 0;
}
