// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/datwriter.h"
#include "util/result.h"

namespace ringside {

// A version 6 recording taken apart for writing again: its metadata, and where each CPU's
// pages lie in it. Only what writeDat carries is accepted (one buffer; the clock, CPU
// counters and uname among the options); anything else is refused by name, never dropped.
struct DatV6Parts {
    CaptureMetadata metadata;
    struct Range {
        uint64_t offset = 0, size = 0;
    };
    std::vector<Range> cpuData;
};
Result<DatV6Parts> readDatV6Parts(const std::string& path);

// Writes the version 6 recording `from` again as `to` in `format` (a saved capture is kept
// as v6 while it is shown, and saved as v7 from it). False with the reason otherwise.
bool convertDatV6(const std::string& from, const std::string& to, DatFormat format, const std::string& writer,
                  std::string* error, const WriteProgress& progress = {});

} // namespace ringside
