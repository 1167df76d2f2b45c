// SPDX-License-Identifier: GPL-2.0-or-later
#include "trace.h"

#include "file/formatfields.h"
#include "file/metadatacheck.h"

#include <traceevent/event-parse.h>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>

namespace ringside {

namespace {

// Formats by "system/name" that wait for parseDeferredFormats, read by their field lines.
class DeferredFormats {
public:
    explicit DeferredFormats(const DatFile& file)
    {
        for (const DatFile::DeferredFormat& f : file.deferredFormats()) {
            if (f.id > 0xffff) continue;
            const std::string name(formatName(f.text));
            m_byName.try_emplace(f.system + "/" + name, &f);
            m_namesBySystem[f.system].push_back(name);
            m_namesByType->emplace(uint16_t(f.id), name);
        }
    }
    std::optional<ConsumerRegistry::EventFormat> find(const std::string& system, const std::string& name) const
    {
        auto it = m_byName.find(system + "/" + name);
        if (it == m_byName.end()) return std::nullopt;
        auto fields = std::make_shared<std::vector<FormatField>>(formatFields(it->second->text));
        ConsumerRegistry::EventFormat format;
        format.type = static_cast<uint16_t>(it->second->id);
        format.field = [fields](const std::string& fieldName) -> std::optional<ConsumerRegistry::FieldFormat> {
            for (const FormatField& f : *fields)
                if (f.name == fieldName)
                    return ConsumerRegistry::FieldFormat::usable(f.offset, f.size, f.isSigned,
                                                                 f.isArray && f.type.find("char") != std::string::npos,
                                                                 f.isDynamic);
            return std::nullopt;
        };
        return format;
    }
    // Their event names by type, for RecordingInfo::eventName.
    std::shared_ptr<const std::unordered_map<uint16_t, std::string>> namesByType() const { return m_namesByType; }
    const std::vector<std::string>& names(const std::string& system) const
    {
        static const std::vector<std::string> none;
        auto it = m_namesBySystem.find(system);
        return it == m_namesBySystem.end() ? none : it->second;
    }

private:
    std::unordered_map<std::string, const DatFile::DeferredFormat*> m_byName;
    std::unordered_map<std::string, std::vector<std::string>> m_namesBySystem;
    std::shared_ptr<std::unordered_map<uint16_t, std::string>> m_namesByType =
        std::make_shared<std::unordered_map<uint16_t, std::string>>();
};

RecordingInfo recordingInfoOf(const Trace& trace, const DatFile& file, const DeferredFormats& deferredFormats)
{
    RecordingInfo info;
    // uname is "Linux host release version machine": the machine is its last word.
    const std::string& uname = file.info().uname;
    const size_t space = uname.find_last_of(' ');
    info.machine = space == std::string::npos ? uname : uname.substr(space + 1);
    info.kernelLongSize = file.info().kernelLongSize;
    // Consumers in different lanes may ask at once, and the views use the handle meanwhile.
    // Formats parsed only once the load knows which events it has are named from the start:
    // consumers fed while the pages are parsed ask before that.
    const Trace* t = &trace;
    info.eventName = [t, deferred = deferredFormats.namesByType()](uint16_t type) {
        auto later = deferred->find(type);
        if (later != deferred->end()) return later->second;
        const TepAccess tep = t->tep();
        tep_event* event = tep.get() ? tep_find_event(tep, type) : nullptr;
        return event && event->name ? std::string(event->name) : std::string();
    };
    info.functionName = [t](uint64_t address) {
        const TepAccess tep = t->tep();
        const char* name = tep.get() ? tep_find_function(tep, address) : nullptr;
        return name ? std::string(name) : std::string();
    };
    return info;
}

} // namespace

Result<std::unique_ptr<Trace>> Trace::open(const std::string& path, const LoadOptions& options,
                                           std::vector<std::unique_ptr<RecordConsumer>> consumers,
                                           std::vector<std::unique_ptr<Plugin>> plugins)
{
    try {
        return openTrace(path, options, std::move(consumers), std::move(plugins));
    } catch (...) {
        // Memory that cannot be had (or a consumer that throws) fails the open with a message.
        return errorFromException(path, std::current_exception());
    }
}

Result<std::unique_ptr<Trace>> Trace::withFile(std::unique_ptr<Trace> trace, const std::string& path,
                                               DatFile::OpenOptions fileOptions)
{
    trace->m_funcGraph = std::make_unique<FuncGraphContext>();
    FuncGraphContext* context = trace->m_funcGraph.get();
    fileOptions.deferKallsyms = true;
    fileOptions.beforePlugins = [context](tep_handle* tep) { registerFuncGraphHandlers(tep, context); };
    auto file = DatFile::open(path, fileOptions);
    if (!file) return file.error();
    trace->m_file = std::move(file.value());
    trace->m_calls->setKernelLongSize(trace->m_file->info().kernelLongSize);
    return trace;
}

void Trace::addBuiltInConsumers()
{
    m_occupancy = &static_cast<CpuOccupancy&>(m_consumers.add(std::make_unique<CpuOccupancy>()));
    m_processes = &static_cast<ProcessGroups&>(m_consumers.add(std::make_unique<ProcessGroups>()));
    m_guestTime = &static_cast<GuestTime&>(m_consumers.add(std::make_unique<GuestTime>()));
    m_calls = &static_cast<CallSlices&>(m_consumers.add(std::make_unique<CallSlices>()));
    m_functionCalls = &static_cast<FunctionCalls&>(m_consumers.add(std::make_unique<FunctionCalls>()));
}

Result<std::unique_ptr<Trace>> Trace::growing(const std::string& path, EventStore** store, bool checkMetadata)
{
    std::unique_ptr<Trace> trace(new Trace);
    trace->addBuiltInConsumers();
    // Events of any type may arrive: every format is parsed now.
    DatFile::OpenOptions fileOptions;
    fileOptions.checkMetadata = checkMetadata;
    auto opened = withFile(std::move(trace), path, fileOptions);
    if (!opened) return opened.error();
    trace = std::move(opened.value());
    trace->m_file->registerDeferredKallsyms();
    trace->m_store = std::make_unique<EventStore>();
    *store = trace->m_store.get();
    return trace;
}

Result<std::unique_ptr<Trace>> Trace::openTrace(const std::string& path, const LoadOptions& options,
                                                std::vector<std::unique_ptr<RecordConsumer>> consumers,
                                                std::vector<std::unique_ptr<Plugin>> plugins)
{
    std::unique_ptr<Trace> trace(new Trace);
    // Context switches, task creations and whatever the consumers ask for by name are captured
    // while the pages are parsed, so their formats are parsed at open; the others once the load
    // knows which events the recording has. Requests by prefix (hundreds of syscalls:* formats)
    // bind to the deferred formats' field lines instead: most of them have no events.
    ConsumerRegistry& registry = trace->m_consumers;
    trace->addBuiltInConsumers();
    for (auto& consumer : consumers) registry.add(std::move(consumer));
    for (auto& plugin : plugins) {
        Plugin* raw = plugin.get();
        if (&registry.add(std::move(plugin)) == raw) trace->m_plugins.push_back(raw);
    }
    std::set<std::pair<std::string, std::string>, std::less<>> requested;
    for (const std::string& name : registry.names())
        for (const EventRequest& request : registry.find(name)->requests())
            if (!request.prefix) requested.emplace(request.system, request.event);
    DatFile::OpenOptions fileOptions;
    fileOptions.deferFormats = true;
    fileOptions.eagerFormat = [&requested](std::string_view system, std::string_view name) {
        return requested.count(std::pair<std::string, std::string>(system, name)) > 0;
    };
    auto opened = withFile(std::move(trace), path, fileOptions);
    if (!opened) return opened.error();
    trace = std::move(opened.value());

    LoadOptions load = options;
    DatFile* datFile = trace->m_file.get();
    load.alongside = [datFile, t = trace.get(), previous = options.alongside] {
        {
            const TepAccess tep = t->tep();
            datFile->registerDeferredKallsyms();
        }
        if (previous) previous();
    };
    load.typesKnown = [datFile, t = trace.get(), previous = options.typesKnown](const std::vector<uint64_t>& counts,
                                                                                 Diagnostics& diagnostics) {
        {
            const TepAccess tep = t->tep();
            datFile->parseDeferredFormats(counts, diagnostics);
        }
        if (previous) previous(counts, diagnostics);
    };
    const DeferredFormats deferred(*datFile);
    trace->m_recordingInfo = recordingInfoOf(*trace, *datFile, deferred);
    for (Plugin* plugin : trace->m_plugins) plugin->setRecording(trace->m_recordingInfo);
    const ConsumerRegistry::FormatLookup parsed = formatsOf(datFile->tep());
    const ConsumerRegistry::EventLister listed = eventsOf(datFile->tep());
    const std::vector<RecordTap>& taps = registry.bind(
        [&](const std::string& system, const std::string& name) {
            auto format = parsed(system, name);
            return format ? format : deferred.find(system, name);
        },
        [&](const std::string& system) {
            std::vector<std::string> names = listed(system);
            const std::vector<std::string>& later = deferred.names(system);
            names.insert(names.end(), later.begin(), later.end());
            return names;
        },
        datFile->info().bigEndian);
    const size_t ownTaps = load.taps.size();
    load.taps.insert(load.taps.end(), taps.begin(), taps.end());
    if (registry.feedsPieces()) {
        load.sinkFor = [&registry](size_t stream) { return registry.sinkFor(StreamId(uint16_t(stream))); };
        load.sinkPlaced = [&registry](RecordSink* sink, size_t, uint32_t firstIndex) {
            registry.placed(sink, firstIndex);
        };
    }
    auto store = loadEvents(*trace->m_file, load);
    if (!store) return store.error();
    trace->m_store = std::move(store.value());
    std::vector<std::vector<TapColumn>> collected;
    for (size_t t = 0; t < taps.size(); ++t) collected.push_back(trace->m_store->takeTap(ownTaps + t));
    const uint64_t events = trace->m_store->eventCount();
    auto report = [&options, events](LoadProgress::Stage stage, uint64_t done, uint64_t total) {
        if (!options.progress) return;
        LoadProgress p;
        p.stage = stage;
        p.bytesDone = p.bytesTotal = 1;
        p.events = events;
        p.recordsDone = done;
        p.recordsTotal = total;
        options.progress(p);
    };
    // The task index's scan of every event's pid needs no consumer: it runs beside them.
    const EventStore& loaded = *trace->m_store;
    std::future<TaskIndex::Scan> scanned =
        std::async(std::launch::async, [&loaded, &options] { return TaskIndex::scan(loaded, options.threads); });
    const auto delivering = std::chrono::steady_clock::now();
    report(LoadProgress::Stage::Consumers, 0, 1);
    auto cancelled = [&options] { return options.cancel && options.cancel->load(); };
    registry.deliver(*trace->m_store, collected, [&](uint64_t done, uint64_t total) {
        report(LoadProgress::Stage::Consumers, done, total);
        return !cancelled();
    });
    if (cancelled()) return Error{path + ": loading was cancelled"};
    trace->m_consumersSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - delivering).count();
    report(LoadProgress::Stage::Tasks, 0, 0);
    std::vector<TaskIndex::Creation> creations;
    for (const auto& [pid, time] : trace->m_processes->creations()) creations.push_back({pid, time});
    trace->m_taskIndex = TaskIndex::build(*trace->m_store, scanned.get(), creations, trace->m_occupancy);
    return trace;
}

} // namespace ringside
