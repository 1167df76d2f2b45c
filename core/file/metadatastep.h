// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct tep_handle;

namespace ringside {

// One call that hands part of a recording's metadata to libtraceevent. libtraceevent crashes
// on some malformed formats, so the steps run in a child process first (ChildProbe) and only
// the ones that survive it run in ours.
struct MetadataStep {
    enum class Kind : uint8_t { HeaderPage, Format, PrintkFormats, SavedCmdlines };
    Kind kind;
    std::string_view text; // NUL-terminated for printk formats and saved comms
    std::string system;
    size_t ordinal; // counts every step the file holds, so that newTep's subsets agree
};

// What libtraceevent must know of the recording before the steps.
struct MetadataLayout {
    bool bigEndian = false;
    int longSize = 8;
    uint32_t pageSize = 4096;
};

tep_handle* newMetadataTep(const MetadataLayout& layout);
// False where libtraceevent refused the step (without crashing). Holds the parser lock
// (lockTraceEventParser); applyStepAlone is for a probe, a process of one thread that must not
// wait for a lock another thread held when it was forked.
bool applyStep(tep_handle* tep, const MetadataStep& step, int longSize);
bool applyStepAlone(tep_handle* tep, const MetadataStep& step, int longSize);

// The steps as the probe program reads them (see runMetadataProbe), and back. `decode` keeps
// views into `request`; false if it is not a whole request.
std::string encodeMetadataRequest(const MetadataLayout& layout, const std::vector<MetadataStep>& steps);
bool decodeMetadataRequest(std::string_view request, MetadataLayout* layout, std::vector<MetadataStep>* steps);

// The probe program (ringside-format-probe FROM [SKIP...]): reads a request from fd 3 and
// applies its steps to a fresh handle, as ChildProbe::spawning expects. Returns its exit code.
int runMetadataProbe(int argc, char** argv);
// Where the probe program is: $RINGSIDE_FORMAT_PROBE, beside the installed binaries
// (../libexec/ringside/), or in the build tree. Empty when none is there.
const std::string& metadataProbeProgram();

} // namespace ringside
