// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/codec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringside {

// One block of compressed trace data and where its bytes land in the CPU's data stream.
struct CompressedChunk {
    uint64_t fileOffset = 0; // of the compressed bytes
    uint32_t compressedSize = 0;
    uint32_t size = 0;
    uint64_t streamOffset = 0;
};

// Where one CPU's ring-buffer pages are in the file.
struct CpuDataInfo {
    int cpu = 0;
    uint64_t fileOffset = 0;
    uint64_t fileSize = 0;
    bool compressed = false;
    std::vector<CompressedChunk> chunks; // when compressed
    uint64_t streamSize = 0;             // uncompressed bytes
    bool cut = false;                    // the file ends inside it: later pages were written, not kept
};

// The kernel's per_cpu/cpuN/stats as saved in the file (CPUSTAT options).
struct CpuStats {
    int cpu = -1;
    uint64_t entries = 0;
    uint64_t overrun = 0;
    uint64_t commitOverrun = 0;
    uint64_t droppedEvents = 0;
    uint64_t readEvents = 0;
    std::string text;
};

// A trace buffer: the top buffer (empty name) or an instance.
struct BufferInfo {
    std::string name;
    std::string clock;
    uint32_t pageSize = 0;
    bool latency = false;          // text-only latency data, which has no events to load
    std::vector<CpuDataInfo> cpus; // sorted by cpu id
    std::vector<CpuStats> stats;
};

// A guest traced together with this host (GUEST option), kept for host/guest views.
struct GuestInfo {
    std::string name;
    uint64_t traceId = 0;
    std::vector<std::pair<int, int>> vcpuPids; // (vcpu, host pid)
};

struct TimeShiftSample {
    int64_t time = 0;
    int64_t offset = 0;
    int64_t scaling = 1;
    int64_t fraction = 0;
};

// Guest-to-host clock correction (TIME_SHIFT option), per guest CPU.
struct TimeShift {
    uint64_t peerTraceId = 0;
    uint32_t flags = 0;
    std::vector<std::vector<TimeShiftSample>> cpus;
};

struct Tsc2Nsec {
    uint32_t mult = 0;
    uint32_t shift = 0;
    uint64_t offset = 0;
};

// Everything the file says about itself, apart from event formats (in the tep handle).
struct FileInfo {
    int version = 0;
    bool bigEndian = false;
    int userLongSize = 8;
    int kernelLongSize = 8;
    uint32_t pageSize = 4096;
    Codec codec = Codec::None;
    std::string codecVersion;
    std::string traceClock;
    bool timesInUsecs = true; // the clock counts nanoseconds, print as seconds.micros
    std::string uname;
    std::string tracerVersion;
    int cpuCount = 0;
    std::optional<uint64_t> traceId;
    int64_t tsOffset = 0;
    std::optional<Tsc2Nsec> tsc2nsec;
    std::optional<TimeShift> timeShift;
    std::vector<GuestInfo> guests;
    int formatParseFailures = 0;
};

} // namespace ringside
