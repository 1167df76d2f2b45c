// SPDX-License-Identifier: GPL-2.0-or-later
#include "trace.h"

namespace ringside {

Result<std::unique_ptr<Trace>> Trace::open(const std::string& path, const LoadOptions& options,
                                           std::vector<std::unique_ptr<RecordConsumer>> consumers)
{
    try {
        return openTrace(path, options, std::move(consumers));
    } catch (...) {
        // Memory that cannot be had (or a consumer that throws) fails the open with a message.
        return errorFromException(path, std::current_exception());
    }
}

Result<std::unique_ptr<Trace>> Trace::withFile(const std::string& path, bool checkMetadata)
{
    std::unique_ptr<Trace> trace(new Trace);
    trace->m_funcGraph = std::make_unique<FuncGraphContext>();
    DatFile::OpenOptions fileOptions;
    FuncGraphContext* context = trace->m_funcGraph.get();
    fileOptions.deferKallsyms = true;
    fileOptions.checkMetadata = checkMetadata;
    fileOptions.beforePlugins = [context](tep_handle* tep) { registerFuncGraphHandlers(tep, context); };
    auto file = DatFile::open(path, fileOptions);
    if (!file) return file.error();
    trace->m_file = std::move(file.value());
    return trace;
}

Result<std::unique_ptr<Trace>> Trace::growing(const std::string& path, EventStore** store, bool checkMetadata)
{
    auto opened = withFile(path, checkMetadata);
    if (!opened) return opened.error();
    std::unique_ptr<Trace> trace = std::move(opened.value());
    trace->m_file->registerDeferredKallsyms();
    ConsumerRegistry& registry = trace->m_consumers;
    trace->m_occupancy = &static_cast<CpuOccupancy&>(registry.add(std::make_unique<CpuOccupancy>()));
    trace->m_processes = &static_cast<ProcessGroups&>(registry.add(std::make_unique<ProcessGroups>()));
    trace->m_store = std::make_unique<EventStore>();
    *store = trace->m_store.get();
    return trace;
}

Result<std::unique_ptr<Trace>> Trace::openTrace(const std::string& path, const LoadOptions& options,
                                                std::vector<std::unique_ptr<RecordConsumer>> consumers)
{
    auto opened = withFile(path);
    if (!opened) return opened.error();
    std::unique_ptr<Trace> trace = std::move(opened.value());
    LoadOptions load = options;
    DatFile* datFile = trace->m_file.get();
    load.alongside = [datFile, previous = options.alongside] {
        datFile->registerDeferredKallsyms();
        if (previous) previous();
    };
    // Context switches, task creations and whatever the consumers ask for are captured while
    // the pages are parsed.
    ConsumerRegistry& registry = trace->m_consumers;
    trace->m_occupancy = &static_cast<CpuOccupancy&>(registry.add(std::make_unique<CpuOccupancy>()));
    trace->m_processes = &static_cast<ProcessGroups&>(registry.add(std::make_unique<ProcessGroups>()));
    for (auto& consumer : consumers) registry.add(std::move(consumer));
    const std::vector<RecordTap>& taps = registry.bind(formatsOf(datFile->tep()));
    const size_t ownTaps = load.taps.size();
    load.taps.insert(load.taps.end(), taps.begin(), taps.end());
    auto store = loadEvents(*trace->m_file, load);
    if (!store) return store.error();
    trace->m_store = std::move(store.value());
    std::vector<std::vector<TapColumn>> collected;
    for (size_t t = 0; t < taps.size(); ++t) collected.push_back(trace->m_store->takeTap(ownTaps + t));
    registry.deliver(*trace->m_store, collected);
    std::vector<TaskIndex::Creation> creations;
    for (const auto& [pid, time] : trace->m_processes->creations()) creations.push_back({pid, time});
    trace->m_taskIndex = TaskIndex::build(*trace->m_store, creations, trace->m_occupancy, options.threads);
    return trace;
}

} // namespace ringside
