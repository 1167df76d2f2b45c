// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ringside {

class Trace;

// How several recordings' clocks relate, as `trace-cmd report -i A -i B` (and KernelShark's
// -a) place them: a guest recorded with the host (`trace-cmd record -A`) names the host's
// trace id in its TimeShift option, and its times are already converted to the host's clock
// when it loads; the host's GUEST option names the guest's trace id and which host tasks run
// its vCPUs. Anything else is placed by its own timestamps.
struct RecordingPairing {
    struct Guest {
        size_t host = 0, guest = 0; // indexes into the recordings
    };
    std::vector<Guest> guests;
    // What was done, and what could not be (unrelated clocks), one sentence each.
    std::vector<std::string> notes;
};
RecordingPairing pairRecordings(const std::vector<const Trace*>& traces, const std::vector<std::string>& names);

// Prints several recordings as one report, exactly as `trace-cmd report -i A -i B ...`: each
// file's "cpus=N" line, then every event in time order (on equal times the earlier file's
// first), each line prefixed by its file's name as given, right-aligned to the longest.
// A host's kvm_entry/kvm_exit addresses inside a paired guest are named with the guest's
// symbols (see guestsymbols.h). Returns the number of events printed.
size_t printMergedReport(const std::vector<const Trace*>& traces, const std::vector<std::string>& names, FILE* out);

} // namespace ringside
