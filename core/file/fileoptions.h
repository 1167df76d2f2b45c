// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/fileinfo.h"

#include <string>
#include <string_view>

namespace ringside {

// A format 7 section starts with its id, flags, description and size.
constexpr size_t kSectionHeaderSize = 16;

// Option ids of the trace-cmd file format (man 5 trace-cmd.dat.v7).
enum OptionId : uint16_t {
    OptDone = 0,
    OptDate = 1,
    OptCpuStat = 2,
    OptBuffer = 3,
    OptTraceClock = 4,
    OptUname = 5,
    OptHook = 6,
    OptOffset = 7,
    OptCpuCount = 8,
    OptVersion = 9,
    OptProcMaps = 10,
    OptTraceId = 11,
    OptTimeShift = 12,
    OptGuest = 13,
    OptTsc2Nsec = 14,
    OptStrings = 15,
    OptHeaderInfo = 16,
    OptFtraceEvents = 17,
    OptEventFormats = 18,
    OptKallsyms = 19,
    OptPrintk = 20,
    OptCmdlines = 21,
    OptBufferText = 22,
};

// Decoders for the self-contained options; each returns false if the payload is malformed.
std::string optionString(std::string_view payload);
// "[local] global counter" -> "local"; empty if no clock is marked current.
std::string selectedClock(std::string_view traceClockFile);
bool clockCountsNanoseconds(const std::string& clock);
// Splits CPUSTAT text into the stats of one CPU; a "Buffer: NAME" line switches *buffer.
bool parseCpuStat(std::string_view text, std::string* buffer, CpuStats* stats);
bool parseTimeShift(std::string_view payload, bool bigEndian, TimeShift* shift);
bool parseGuest(std::string_view payload, bool bigEndian, GuestInfo* guest);

} // namespace ringside
