// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "capture/capturemetadata.h"
#include "file/codec.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ringside {

// The file format written: trace-cmd's version 7 (sections, zstd-compressed by default) or
// version 6 (no sections, never compressed) for older readers.
struct DatFormat {
    int version = 7;
    Codec codec = Codec::Zstd;

    static DatFormat v6() { return {6, Codec::None}; }
    // "v7, zstd", "v6": what a message or a dialog calls it.
    std::string name() const;
};

// Where one CPU's pages go: straight into the file, or, for a compressed v7 file, through
// chunks of ten pages (trace-cmd's chunk) compressed as they fill. Whole pages only.
class CpuDataSink {
public:
    virtual ~CpuDataSink() = default;
    virtual bool write(const void* data, size_t size, std::string* error) = 0;
    // Bytes [offset, offset + size) of the file `fd`, copied by the kernel where it can.
    virtual bool copyFrom(int fd, uint64_t offset, uint64_t size, std::string* error);
};

// For a long write (a capture of gigabytes): a word to stop, and how far it is. The writers
// that take one fail with "cancelled" once `cancel` is set, and call `report` on their thread.
struct WriteProgress {
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(uint64_t bytesDone, uint64_t bytesTotal)> report;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    void reached(uint64_t done, uint64_t total) const
    {
        if (report) report(done, total);
    }
};

// Writes each CPU's pages into the sink; false with the reason.
using CpuDataWriter = std::function<bool(size_t cpu, CpuDataSink& out, std::string* error)>;

// Writes a trace-cmd recording that trace-cmd report and KernelShark open: the metadata, each
// CPU's pages (possibly none), and the options readers use: the clock, each CPU's counters,
// uname, the CPU count and the writer. Written to PATH.part and renamed when whole, so a
// failure never leaves half a file under the name asked for. False with the reason otherwise.
bool writeDat(const std::string& path, const CaptureMetadata& metadata, const CpuDataWriter& writeCpu,
              const std::string& writer, DatFormat format, std::string* error);

// The same with each CPU's pages read from a file of whole pages (`cpuDataFiles[cpu]`).
bool writeDat(const std::string& path, const CaptureMetadata& metadata, const std::vector<std::string>& cpuDataFiles,
              const std::string& writer, DatFormat format, std::string* error);

} // namespace ringside
