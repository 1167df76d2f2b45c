// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/datfile.h"

#include "capture/capturemetadata.h"
#include "file/datfileparser.h"
#include "file/kallsyms.h"
#include "file/metadatacheck.h"
#include "file/metadatastep.h"

#include <traceevent/event-parse.h>

#include <map>
#include <utility>

namespace ringside {

Result<std::unique_ptr<DatFile>> DatFile::open(const std::string& path, const OpenOptions& options)
{
    auto mapped = MappedFile::open(path);
    if (!mapped) return mapped.error();
    std::unique_ptr<DatFile> file(new DatFile);
    file->m_file = mapped.value();
    file->m_loadPlugins = options.loadPlugins;
    file->m_checkMetadata = options.checkMetadata;
    file->m_forkMetadataProbe = options.forkMetadataProbe;
    if (options.deferFormats) file->m_parsedTypes.assign(65536, false);
    std::string error;
    if (!parseDatFile(*file, options, &error)) return Error{error};
    file->m_file->releaseResidentPages();
    file->m_info.formatParseFailures += countUnparsedFormats(file->m_tep, nullptr, file->m_diagnostics);
    return file;
}

void DatFile::parseDeferredFormats(const std::vector<uint64_t>& typeCounts, Diagnostics& diagnostics, bool final)
{
    std::vector<MetadataStep> steps;
    std::vector<size_t> ids;
    for (const DeferredFormat& f : m_deferredFormats)
        if (f.id < typeCounts.size() && typeCounts[f.id] && !m_parsedTypes[f.id]) {
            steps.push_back({MetadataStep::Kind::Format, f.text, f.system, f.ordinal});
            ids.push_back(f.id);
        }
    Diagnostics found;
    auto apply = [&](const MetadataStep& step) { applyStep(m_tep, step, m_info.userLongSize); };
    if (!steps.empty()) {
        const MetadataLayout layout{m_info.bigEndian, m_info.userLongSize, m_info.pageSize};
        if (!m_checkMetadata) {
            for (const MetadataStep& step : steps) apply(step);
        } else if (probeAndApplySteps(m_unsafeMetadata, found, steps, layout, m_forkMetadataProbe, apply) ==
                   ProbeVerdict::GaveUp) {
            found.warn("unsafe-metadata", "more than " + std::to_string(kMaxUnsafeSteps) +
                                              " event formats crash libtraceevent; the rest were left out, "
                                              "their events show without fields");
        }
    }
    for (size_t id : ids) m_parsedTypes[id] = true;
    m_info.formatParseFailures += countUnparsedFormats(m_tep, &ids, found);
    m_diagnostics.append(found);
    diagnostics.append(found);
    if (!final) {
        // The rest wait for types that appear later.
        std::erase_if(m_deferredFormats, [&](const DeferredFormat& f) { return m_parsedTypes[f.id]; });
        return;
    }
    // The formats of events the recording does not have are never needed: their names are
    // kept, to say "recorded none" to someone asking for one.
    for (const DeferredFormat& f : m_deferredFormats) {
        if (f.id < typeCounts.size() && typeCounts[f.id]) continue;
        if (f.text.rfind("name: ", 0) != 0) continue; // a format's text begins "name: sched_switch"
        const size_t end = f.text.find_first_of("\r\n", 6);
        m_formatsWithoutEvents.push_back(f.text.substr(6, end == std::string::npos ? std::string::npos : end - 6));
    }
    std::vector<DeferredFormat>().swap(m_deferredFormats);
}

namespace {

// Names learned later replace those known. In pid order: the handle keeps its names in a
// sorted array, and each insertion moves what follows it.
void overrideComms(tep_handle* tep, const std::map<int32_t, std::string>& names)
{
    for (const auto& [pid, comm] : names) tep_override_comm(tep, comm.c_str(), pid);
}

} // namespace

Result<std::unique_ptr<TepHandle>> DatFile::newTep(const std::function<void(tep_handle*)>& beforePlugins,
                                                   const std::vector<bool>* types) const
{
    // Formats the open left unparsed were never checked: no other handle may parse them.
    std::vector<bool> parsed;
    if (!m_parsedTypes.empty()) {
        parsed = m_parsedTypes;
        if (types)
            for (size_t id = 0; id < parsed.size(); ++id)
                parsed[id] = parsed[id] && (id >= types->size() || (*types)[id]);
        types = &parsed;
    }
    DatFile copy;
    copy.m_file = m_file;
    OpenOptions options;
    options.beforePlugins = beforePlugins;
    options.loadPlugins = m_loadPlugins;
    std::string error;
    const bool ok = parseDatFile(copy, options, &error, true, types, &m_unsafeMetadata);
    std::unique_ptr<TepHandle> handle(new TepHandle);
    handle->m_tep = std::exchange(copy.m_tep, nullptr);
    handle->m_plugins = std::exchange(copy.m_plugins, nullptr);
    if (!ok) return Error{error};
    std::lock_guard<std::mutex> lock(m_addedCommsLock);
    overrideComms(handle->m_tep, m_addedComms);
    return handle;
}

void DatFile::addSavedComms(const std::string& cmdlines) const
{
    const std::map<int32_t, std::string> names = parseCmdlines(cmdlines);
    overrideComms(m_tep, names);
    std::lock_guard<std::mutex> lock(m_addedCommsLock);
    for (const auto& [pid, comm] : names) m_addedComms[pid] = comm;
}

std::string DatFile::addedComm(int32_t pid) const
{
    std::lock_guard<std::mutex> lock(m_addedCommsLock);
    auto it = m_addedComms.find(pid);
    return it == m_addedComms.end() ? std::string() : it->second;
}

TepHandle::~TepHandle()
{
    // The plugins stay loaded (their list, a few hundred bytes, is not freed): unloading runs
    // each plugin's unloader, and the function plugin's frees its global call stacks, which
    // the handles still in use (the trace's own, other workers') keep using.
    if (m_tep) tep_free(m_tep);
}

void DatFile::registerDeferredKallsyms()
{
    registerKallsyms(m_tep, m_deferredKallsyms);
    std::string().swap(m_deferredKallsyms);
}

DatFile::~DatFile()
{
    if (m_plugins) tep_unload_plugins(m_plugins, m_tep);
    if (m_tep) tep_free(m_tep);
}

} // namespace ringside
