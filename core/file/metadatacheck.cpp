// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/metadatacheck.h"

#include "decode/parserstate.h"
#include "util/childprobe.h"

#include <traceevent/event-parse.h>

#include <sys/mman.h>
#include <unistd.h>

namespace ringside {

std::optional<size_t> formatId(std::string_view format)
{
    const size_t at = format.find("\nID: ");
    if (at == std::string_view::npos) return std::nullopt;
    size_t id = 0;
    for (size_t i = at + 5; i < format.size() && format[i] >= '0' && format[i] <= '9' && id < (1u << 20); ++i)
        id = id * 10 + size_t(format[i] - '0');
    return id;
}

std::string_view formatName(std::string_view format)
{
    if (format.substr(0, 6) != "name: ") return {};
    const size_t end = format.find('\n');
    return format.substr(6, end == std::string_view::npos ? std::string_view::npos : end - 6);
}

namespace {

// "system/name" of a format, read from its "name:" line, for messages.
std::string formatLabel(const MetadataStep& step)
{
    std::string name(formatName(step.text).substr(0, 64));
    if (name.empty()) name = "#" + std::to_string(step.ordinal);
    for (char& c : name)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    return step.system + "/" + name;
}

// The request in an unlinked in-memory file, for each probe child to read; -1 on failure.
int writeProbeRequest(const std::string& bytes)
{
    const int fd = memfd_create("ringside-metadata", MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += size_t(n);
    }
    return fd;
}

} // namespace

ProbeVerdict probeAndApplySteps(std::vector<size_t>& unsafe, Diagnostics& diagnostics,
                                const std::vector<MetadataStep>& steps, const MetadataLayout& layout, bool fork,
                                const std::function<void(const MetadataStep&)>& apply)
{
    ChildProbe probe;
    probe.count = steps.size();
    probe.maxUnsafe = kMaxUnsafeSteps;
    // A separate program shares no memory with us; a forked copy of a process with many
    // threads (the GUI) makes each page it writes meanwhile a copy and a TLB shootdown.
    int request = -1;
    const std::string& program = fork ? std::string() : metadataProbeProgram();
    if (!program.empty()) request = writeProbeRequest(encodeMetadataRequest(layout, steps));
    tep_handle* childTep = nullptr;
    if (request >= 0)
        probe.start = ChildProbe::spawning(program, request);
    else
        probe.start = ChildProbe::forking(
            [&] {
                clearTraceEventParserLeftovers(); // another thread's parse may have left them
                childTep = newMetadataTep(layout);
            },
            [&](size_t i) { applyStepAlone(childTep, steps[i], layout.longSize); }, steps.size());
    const ChildProbe::Outcome outcome = probe.run([&](size_t i) { apply(steps[i]); });
    if (request >= 0) close(request);
    if (!outcome.probed) {
        diagnostics.add(Diagnostic::Severity::Info, "metadata-unchecked",
                        "the event formats were parsed without a safety check (no process could be "
                        "started for it)");
        for (const MetadataStep& step : steps) apply(step);
        return ProbeVerdict::Unchecked;
    }
    auto report = [&](size_t index, const char* what) {
        const MetadataStep& step = steps[index];
        unsafe.push_back(step.ordinal);
        std::string part = step.kind == MetadataStep::Kind::Format          ? "event format " + formatLabel(step)
                           : step.kind == MetadataStep::Kind::HeaderPage    ? std::string("header_page")
                           : step.kind == MetadataStep::Kind::PrintkFormats ? std::string("printk formats")
                                                                            : std::string("saved comms");
        diagnostics.warn("unsafe-metadata",
                         part + " " + what + " libtraceevent; skipped" +
                             (step.kind == MetadataStep::Kind::Format ? ", its events show without fields" : ""));
    };
    for (size_t index : outcome.crashed) report(index, "crashes");
    for (size_t index : outcome.hung) report(index, "hangs");
    return outcome.gaveUp ? ProbeVerdict::GaveUp : ProbeVerdict::Checked;
}

uint64_t countUnparsedFormats(tep_handle* tep, const std::vector<size_t>* ids, Diagnostics& diagnostics)
{
    uint64_t failed = 0;
    if (ids) {
        for (size_t id : *ids)
            if (tep_event* event = tep_find_event(tep, int(id)); event && (event->flags & TEP_EVENT_FL_FAILED))
                ++failed;
    } else if (tep_event** events = tep_list_events(tep, TEP_EVENT_SORT_ID)) {
        for (; *events; ++events)
            if ((*events)->flags & TEP_EVENT_FL_FAILED) ++failed;
    }
    if (failed > 0)
        diagnostics.add(Diagnostic::Severity::Info, "unparsed-formats",
                        std::to_string(failed) + " event formats could not be parsed; their events show without fields",
                        failed);
    return failed;
}

} // namespace ringside
