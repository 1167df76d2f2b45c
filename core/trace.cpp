// SPDX-License-Identifier: GPL-2.0-or-later
#include "trace.h"

namespace ringside {

Result<std::unique_ptr<Trace>> Trace::open(const std::string& path, const LoadOptions& options)
{
    std::unique_ptr<Trace> trace(new Trace);
    trace->m_funcGraph = std::make_unique<FuncGraphContext>();
    DatFile::OpenOptions fileOptions;
    FuncGraphContext* context = trace->m_funcGraph.get();
    fileOptions.deferKallsyms = true;
    fileOptions.beforePlugins = [context](tep_handle* tep) { registerFuncGraphHandlers(tep, context); };
    auto file = DatFile::open(path, fileOptions);
    if (!file) return file.error();
    trace->m_file = std::move(file.value());
    LoadOptions load = options;
    DatFile* datFile = trace->m_file.get();
    load.alongside = [datFile, previous = options.alongside] {
        datFile->registerDeferredKallsyms();
        if (previous) previous();
    };
    // Context switches and task creations are captured while the pages are parsed.
    const std::optional<RecordTap> switches = CpuOccupancy::tap(datFile->tep());
    const std::optional<RecordTap> creations = ProcessGroups::tap(datFile->tep());
    if (switches) load.taps.push_back(*switches);
    if (creations) load.taps.push_back(*creations);
    auto store = loadEvents(*trace->m_file, load);
    if (!store) return store.error();
    trace->m_store = std::move(store.value());
    size_t tap = 0;
    if (switches) trace->m_occupancy = CpuOccupancy::fromTap(*trace->m_store, *switches, trace->m_store->takeTap(tap++));
    if (creations) trace->m_processes = ProcessGroups::fromTap(*trace->m_store, *creations, trace->m_store->takeTap(tap++));
    return trace;
}

} // namespace ringside
