// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/metadatastep.h"

#include "decode/parserstate.h"
#include "util/bytereader.h"
#include "util/childprobe.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ringside {

namespace {
constexpr std::string_view kRequestMagic = "RSMETA1\n";

template <typename T>
void put(std::string& out, T value)
{
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// The whole file behind `fd`, from its start (children share the descriptor's offset).
bool readAll(int fd, std::string* out)
{
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_size < 0) return false;
    out->resize(size_t(st.st_size));
    size_t done = 0;
    while (done < out->size()) {
        const ssize_t got = pread(fd, out->data() + done, out->size() - done, off_t(done));
        if (got <= 0) return false;
        done += size_t(got);
    }
    return true;
}

bool isExecutable(const std::string& path)
{
    return !path.empty() && access(path.c_str(), X_OK) == 0;
}

std::string findProbeProgram()
{
    if (const char* env = getenv("RINGSIDE_FORMAT_PROBE"); env && isExecutable(env)) return env;
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        std::string dir(self, size_t(n));
        dir.erase(dir.rfind('/'));
        const std::string installed = dir + "/" RINGSIDE_INSTALLED_FORMAT_PROBE;
        if (isExecutable(installed)) return installed;
    }
#ifdef RINGSIDE_BUILD_FORMAT_PROBE
    if (isExecutable(RINGSIDE_BUILD_FORMAT_PROBE)) return RINGSIDE_BUILD_FORMAT_PROBE;
#endif
    return {};
}
} // namespace

tep_handle* newMetadataTep(const MetadataLayout& layout)
{
    tep_handle* tep = tep_alloc();
    if (!tep) return nullptr;
    tep_set_file_bigendian(tep, layout.bigEndian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
    tep_set_long_size(tep, layout.longSize);
    tep_set_page_size(tep, static_cast<int>(layout.pageSize));
    return tep;
}

bool applyStepAlone(tep_handle* tep, const MetadataStep& step, int longSize)
{
    switch (step.kind) {
    case MetadataStep::Kind::HeaderPage:
        return tep_parse_header_page(tep, const_cast<char*>(step.text.data()),
                                     static_cast<unsigned long>(step.text.size()), longSize) == 0;
    case MetadataStep::Kind::Format: {
        const bool parsed = tep_parse_event(tep, step.text.data(), step.text.size(), step.system.c_str()) == 0;
        clearTraceEventParserLeftovers();
        return parsed;
    }
    case MetadataStep::Kind::PrintkFormats: return tep_parse_printk_formats(tep, step.text.data()) == 0;
    case MetadataStep::Kind::SavedCmdlines: return tep_parse_saved_cmdlines(tep, step.text.data()) == 0;
    }
    return false;
}

bool applyStep(tep_handle* tep, const MetadataStep& step, int longSize)
{
    const auto lock = lockTraceEventParser();
    return applyStepAlone(tep, step, longSize);
}

std::string encodeMetadataRequest(const MetadataLayout& layout, const std::vector<MetadataStep>& steps)
{
    std::string out(kRequestMagic);
    put<uint8_t>(out, layout.bigEndian);
    put<int32_t>(out, layout.longSize);
    put<uint32_t>(out, layout.pageSize);
    put<uint64_t>(out, steps.size());
    for (const MetadataStep& step : steps) {
        put<uint8_t>(out, uint8_t(step.kind));
        put<uint32_t>(out, uint32_t(step.system.size()));
        out += step.system;
        put<uint64_t>(out, step.text.size());
        out += step.text;
        out += '\0';
    }
    return out;
}

bool decodeMetadataRequest(std::string_view request, MetadataLayout* layout, std::vector<MetadataStep>* steps)
{
    if (request.substr(0, kRequestMagic.size()) != kRequestMagic) return false;
    ByteReader r(reinterpret_cast<const uint8_t*>(request.data()), request.size(), false);
    r.skip(kRequestMagic.size());
    layout->bigEndian = r.readUInt(1) != 0;
    layout->longSize = int32_t(r.u32());
    layout->pageSize = r.u32();
    const uint64_t count = r.u64();
    steps->clear();
    for (uint64_t i = 0; i < count && !r.failed(); ++i) {
        MetadataStep step{MetadataStep::Kind(r.readUInt(1)), {}, {}, size_t(i)};
        if (step.kind > MetadataStep::Kind::SavedCmdlines) return false;
        step.system = std::string(r.bytes(r.u32()));
        step.text = r.bytes(r.u64());
        r.skip(1); // the NUL after the text
        steps->push_back(std::move(step));
    }
    return !r.failed() && steps->size() == count;
}

int runMetadataProbe(int argc, char** argv)
{
    // A crashing step is the expected end of this process: no core file for it.
    const rlimit noCore{0, 0};
    setrlimit(RLIMIT_CORE, &noCore);
    if (argc < 2) return 2;
    const size_t from = strtoull(argv[1], nullptr, 10);
    std::vector<size_t> skip;
    for (int i = 2; i < argc; ++i) skip.push_back(strtoull(argv[i], nullptr, 10));
    std::string request;
    MetadataLayout layout;
    std::vector<MetadataStep> steps;
    if (!readAll(3, &request) || !decodeMetadataRequest(request, &layout, &steps)) return 2;
    tep_handle* tep = newMetadataTep(layout);
    if (!tep) return 2;
    ChildProbe::Reporter reporter;
    if (!reporter.attach(ChildProbe::Channel{STDOUT_FILENO, 4})) return 2;
    for (const MetadataStep& step : steps) {
        if (std::find(skip.begin(), skip.end(), step.ordinal) != skip.end()) continue;
        applyStepAlone(tep, step, layout.longSize);
        if (step.ordinal >= from && !reporter.stepDone()) return 3;
    }
    return 0; // the handle goes with the process
}

const std::string& metadataProbeProgram()
{
    static const std::string program = findProbeProgram();
    return program;
}

} // namespace ringside
