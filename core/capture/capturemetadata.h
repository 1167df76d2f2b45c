// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "util/result.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ringside {

// What a recording needs besides its ring-buffer pages, as the running kernel's tracefs gives
// it: the page and event headers, the formats of the events recorded, the symbols, the clock,
// and at the end the task names and each CPU's counters. ringside-capture reads it and sends
// it ahead of the pages (serialize/parse); the .dat writer writes it out.
struct CaptureMetadata {
    uint32_t pageSize = 4096;
    int longSize = 8;
    bool bigEndian = false;
    int cpus = 0;
    std::string headerPage, headerEvent;
    std::vector<std::string> ftraceFormats;
    struct EventFormat {
        std::string system, text;
    };
    std::vector<EventFormat> eventFormats;
    std::string kallsyms, printkFormats;
    std::string traceClock; // the trace_clock file: "[local] global ..."
    std::string uname;      // "Linux host 6.1.0 x86_64"
    std::string traceId;    // a recording's TRACEID option as read (its 8 bytes), written back
    // Known at the end of a capture:
    std::string cmdlines;              // saved_cmdlines
    std::vector<std::string> cpuStats; // per CPU, the per_cpu/cpuN/stats text

    std::string serialize() const;
    static Result<CaptureMetadata> parse(std::string_view bytes);
    // The clock in use: the bracketed name of traceClock.
    std::string clockName() const;
    // This machine's kernel, as `uname` has it ("Linux host 6.1.0 x86_64"); empty if unknown.
    static std::string localUname();
};

// "PID COMM" lines, as saved_cmdlines has them: each pid with the last name given for it.
std::map<int32_t, std::string> parseCmdlines(const std::string& cmdlines);

} // namespace ringside
