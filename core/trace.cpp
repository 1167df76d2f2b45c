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
    // Context switches are captured while the pages are parsed, for the occupancy.
    const std::optional<RecordTap> switches = CpuOccupancy::tap(datFile->tep());
    if (switches) load.taps.push_back(*switches);
    auto store = loadEvents(*trace->m_file, load);
    if (!store) return store.error();
    trace->m_store = std::move(store.value());
    if (switches) {
        const size_t index = load.taps.size() - 1;
        trace->m_occupancy = CpuOccupancy::fromTap(*trace->m_store, *switches, trace->m_store->takeTap(index));
    }
    return trace;
}

} // namespace ringside
