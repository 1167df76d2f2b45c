// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "capture/capturemetadata.h"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ringside {

// Writes a trace-cmd recording, file format version 6 (uncompressed), that trace-cmd report
// and KernelShark open: the metadata, each CPU's pages as captured (`cpuDataFiles[cpu]`, whole
// pages, possibly none), and the options readers use: the clock, each CPU's counters, uname,
// the CPU count and the writer. Written to PATH.part and renamed when whole, so a failure
// never leaves half a file under the name asked for. False with the reason otherwise.
bool writeDatV6(const std::string& path, const CaptureMetadata& metadata, const std::vector<std::string>& cpuDataFiles,
                const std::string& writer, std::string* error);

// The same with each CPU's pages written by `writeCpu` (whole pages; false with the reason).
using CpuDataWriter = std::function<bool(size_t cpu, FILE* out, std::string* error)>;
bool writeDatV6(const std::string& path, const CaptureMetadata& metadata, const CpuDataWriter& writeCpu,
                const std::string& writer, std::string* error);

} // namespace ringside
