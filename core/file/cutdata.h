// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/fileinfo.h"
#include "util/bytereader.h"

#include <optional>
#include <string>
#include <vector>

namespace ringside {

// A format 7 file says where each CPU's pages are in its BUFFER option, which trace-cmd writes
// in an options section after the pages. A file cut there (copied in part, or its writer
// stopped) still holds them: they are found by walking the trace data section.
//
// What the walk relies on (trace-cmd's writer, and Ringside's): the section starts right after
// the last options section; each CPU's data starts at a page-aligned offset, CPUs in ascending
// order; a CPU without pages writes nothing. Compressed data is a chunk count then the chunks
// (the count is written last, so a writer that stopped mid-CPU left 0); uncompressed data is
// whole pages, and a CPU's pages go forward in time.
struct FoundCpuData {
    uint64_t sectionOffset = 0;
    bool compressed = false;
    std::vector<CpuDataInfo> cpus; // in file order, `cpu` not yet known
    std::string lastCut;           // how the last CPU's data ends early, if it does
};

// The trace data section starting at `from` (sections of strings before it are skipped), or
// nothing if none starts there. At most `maxCpus` CPUs' data; none if the cut left no whole
// chunk or page (`lastCut` says so).
std::optional<FoundCpuData> findCpuData(const ByteReader& file, uint64_t from, const FileInfo& info, size_t maxCpus);

// The CPU each of `found` data belongs to, in file order. With as many as the recording's
// CPUs, 0 to cpuCount - 1. With fewer, the first `found` of the CPUs whose statistics show
// events (the writer goes in order and writes nothing for an empty CPU). Without such
// statistics, 0 to found - 1, and `guessed` is set unless the data `endsAtCut` (then the CPUs
// after the cut are the ones missing).
std::vector<int> cpuIdsOfFound(size_t found, bool endsAtCut, int cpuCount, const std::vector<CpuStats>& stats,
                               bool* guessed);

} // namespace ringside
