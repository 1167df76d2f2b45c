// SPDX-License-Identifier: GPL-2.0-or-later
#include "trace.h"
#include "util/memorypolicy.h"

#include "analysis/cpuoccupancy.h"
#include "calls/callcontext.h"
#include "consume/consumerfailure.h"
#include "file/formatfields.h"
#include "file/metadatacheck.h"

#include <traceevent/event-parse.h>

#include <algorithm>
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
    auto trace = unloaded(path, std::move(consumers), std::move(plugins));
    if (!trace) return trace.error();
    auto loaded = trace.value()->load(options);
    if (!loaded) return loaded.error();
    return std::move(trace.value());
}

Result<std::unique_ptr<Trace>> Trace::unloaded(const std::string& path,
                                               std::vector<std::unique_ptr<RecordConsumer>> consumers,
                                               std::vector<std::unique_ptr<Plugin>> plugins)
{
    try {
        return openUnloaded(path, std::move(consumers), std::move(plugins));
    } catch (...) {
        // Memory that cannot be had (or a consumer that throws) fails the open with a message.
        return errorFromException(path, std::current_exception());
    }
}

Result<LoadEnd> Trace::load(const LoadOptions& options)
{
    try {
        if (m_loadStarted.exchange(true)) return Error{m_file->path() + ": loaded already"};
        return loadPages(options);
    } catch (...) {
        return errorFromException(m_file->path(), std::current_exception());
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

void Trace::addAnalyses(std::vector<std::unique_ptr<RecordConsumer>> consumers,
                        std::vector<std::unique_ptr<Plugin>> plugins)
{
    // The built-in analyses own their rows by the tasks of the index.
    TaskIndex* index = m_taskIndex.get();
    auto taskOf = [index](int32_t pid, uint64_t time) { return index->taskAt(pid, time).value; };
    m_consumers.add(std::make_unique<CpuOccupancy>(taskOf));
    m_taskNames = &static_cast<TaskNames&>(m_consumers.add(std::make_unique<TaskNames>()));
    m_processes = &static_cast<ProcessGroups&>(m_consumers.add(std::make_unique<ProcessGroups>(taskOf)));
    m_guestTime = &static_cast<GuestTime&>(m_consumers.add(std::make_unique<GuestTime>()));
    m_calls = &static_cast<CallSlices&>(m_consumers.add(std::make_unique<CallSlices>()));
    m_functionCalls = &static_cast<FunctionCalls&>(m_consumers.add(std::make_unique<FunctionCalls>()));
    for (auto& consumer : consumers) m_consumers.add(std::move(consumer));
    for (auto& plugin : plugins) {
        Plugin* raw = plugin.get();
        if (&m_consumers.add(std::move(plugin)) == raw) m_plugins.push_back(raw);
    }
    // The pids records name, those the analyses read included: the index makes their tasks
    // before the analyses ask (a plugin that throws here declares nothing; the registry
    // stops it when it binds).
    std::vector<EventRequest> declared;
    for (const std::string& name : m_consumers.names()) {
        try {
            for (EventRequest& request : m_consumers.find(name)->requests()) declared.push_back(std::move(request));
        } catch (...) {
        }
    }
    m_references = &static_cast<TaskReferences&>(
        m_consumers.add(std::make_unique<TaskReferences>(declared), ConsumerRegistry::Stage::Tasks));
    m_consumers.setTaskOf([index](int32_t pid, uint64_t time, uint64_t* until) {
        *until = index->nextLifeAfter(pid, time);
        return index->taskAt(pid, time);
    });
}

const std::vector<RecordTap>& Trace::bindAnalyses(const ConsumerRegistry::FormatLookup& lookup,
                                                  const ConsumerRegistry::EventLister& list)
{
    const bool bigEndian = m_file->info().bigEndian;
    TaskIndex* index = m_taskIndex.get();
    m_recordingInfo.taskAt = [index](int32_t pid, uint64_t time) { return index->taskAt(pid, time).value; };
    m_recordingInfo.taskEnds = [index](int32_t pid, uint64_t time) { return index->lifeEnds(pid, time); };
    m_recordingInfo.timeRange = [this] {
        return m_store ? std::pair(m_store->firstTimestamp(), m_store->lastTimestamp()) : std::pair<uint64_t, uint64_t>();
    };
    for (Plugin* plugin : m_plugins) {
        try {
            plugin->setRecording(m_recordingInfo);
        } catch (...) {
            m_consumers.markFailed(plugin->name(), "taking the recording: " + failureOfCurrentException());
        }
    }
    // Each analysis declares its tables before it is bound (the task creations have none).
    for (const std::string& name : m_consumers.names()) {
        if (name == TaskReferences::kName) continue;
        m_tables.push_back(std::make_unique<AnalysisTables>());
        RecordConsumer* consumer = m_consumers.find(name);
        consumer->setTables(*m_tables.back());
        Analysis analysis{name, m_tables.back().get(), nullptr};
        for (const Plugin* plugin : m_plugins)
            if (plugin == consumer) analysis.plugin = plugin;
        m_analyses.push_back(analysis);
        // Which task ran where: the first table declared sched_slice (asked on every paint).
        for (const auto& table : m_tables.back()->tables())
            if (!m_runningTable && table->kind() == TrackTable::Kind::Intervals &&
                isSchedSlice(static_cast<const IntervalTable&>(*table).spec()))
                m_runningTable = static_cast<const IntervalTable*>(table.get());
    }
    m_stats.assign(m_plugins.size(), nullptr);
    return m_consumers.bind(lookup, list, bigEndian);
}

Result<std::unique_ptr<Trace>> Trace::growing(const std::string& path, EventStore** store, bool checkMetadata,
                                              std::vector<std::unique_ptr<Plugin>> plugins)
{
    std::unique_ptr<Trace> trace(new Trace);
    trace->addAnalyses({}, std::move(plugins));
    // Events of any type may arrive: every format is parsed now.
    DatFile::OpenOptions fileOptions;
    fileOptions.checkMetadata = checkMetadata;
    auto opened = withFile(std::move(trace), path, fileOptions);
    if (!opened) return opened.error();
    trace = std::move(opened.value());
    trace->m_file->registerDeferredKallsyms();
    const DeferredFormats none(*trace->m_file);
    trace->m_recordingInfo = recordingInfoOf(*trace, *trace->m_file, none);
    tep_handle* tep = trace->m_file->tep();
    trace->bindAnalyses(formatsOf(tep), eventsOf(tep));
    trace->m_store = std::make_unique<EventStore>();
    *store = trace->m_store.get();
    return trace;
}

Result<std::unique_ptr<Trace>> Trace::openUnloaded(const std::string& path,
                                                   std::vector<std::unique_ptr<RecordConsumer>> consumers,
                                                   std::vector<std::unique_ptr<Plugin>> plugins)
{
    std::unique_ptr<Trace> trace(new Trace);
    trace->addAnalyses(std::move(consumers), std::move(plugins));
    // Context switches, task creations and whatever the consumers ask for by name are captured
    // while the pages are parsed, so their formats are parsed at open; the others once the load
    // knows which events the recording has. Requests by prefix (hundreds of syscalls:* formats)
    // bind to the deferred formats' field lines instead: most of them have no events.
    std::set<std::pair<std::string, std::string>, std::less<>> requested;
    for (const std::string& name : trace->m_consumers.names())
        for (const EventRequest& request : trace->m_consumers.find(name)->requests())
            if (!request.prefix) requested.emplace(request.system, request.event);
    DatFile::OpenOptions fileOptions;
    fileOptions.deferFormats = true;
    fileOptions.eagerFormat = [&requested](std::string_view system, std::string_view name) {
        return requested.count(std::pair<std::string, std::string>(system, name)) > 0;
    };
    auto opened = withFile(std::move(trace), path, fileOptions);
    if (!opened) return opened.error();
    trace = std::move(opened.value());

    DatFile* datFile = trace->m_file.get();
    const DeferredFormats deferred(*datFile);
    trace->m_recordingInfo = recordingInfoOf(*trace, *datFile, deferred);
    const ConsumerRegistry::FormatLookup parsed = formatsOf(datFile->tep());
    const ConsumerRegistry::EventLister listed = eventsOf(datFile->tep());
    trace->bindAnalyses(
        [&](const std::string& system, const std::string& name) {
            auto format = parsed(system, name);
            return format ? format : deferred.find(system, name);
        },
        [&](const std::string& system) {
            std::vector<std::string> names = listed(system);
            const std::vector<std::string>& later = deferred.names(system);
            names.insert(names.end(), later.begin(), later.end());
            return names;
        });
    trace->m_store = std::make_unique<EventStore>();
    shapeStore(*datFile, datFile->tep(), *trace->m_store);
    return trace;
}

Result<LoadEnd> Trace::loadPages(const LoadOptions& options)
{
    const std::string& path = m_file->path();
    LoadOptions load = options;
    DatFile* datFile = m_file.get();
    load.alongside = [datFile, this, previous = options.alongside] {
        {
            const TepAccess tep = this->tep();
            datFile->registerDeferredKallsyms();
        }
        if (previous) previous();
    };
    load.typesKnown = [datFile, this, previous = options.typesKnown](const std::vector<uint64_t>& counts,
                                                                     Diagnostics& diagnostics) {
        {
            const TepAccess tep = this->tep();
            datFile->parseDeferredFormats(counts, diagnostics);
        }
        if (previous) previous(counts, diagnostics);
    };
    load.typesSeen = [datFile, this](const std::vector<uint64_t>& counts, Diagnostics& diagnostics) {
        const TepAccess tep = this->tep();
        datFile->parseDeferredFormats(counts, diagnostics, false);
    };
    // Readers of a growing store decode meanwhile, through the locked handle.
    load.savedComm = [this](int32_t pid) {
        const TepAccess tep = this->tep();
        const char* comm = tep_data_comm_from_pid(tep.get(), pid);
        return std::string(comm ? comm : "<...>");
    };
    const std::vector<RecordTap>& taps = m_consumers.taps();
    const size_t ownTaps = load.taps.size();
    load.taps.insert(load.taps.end(), taps.begin(), taps.end());
    ConsumerRegistry& registry = m_consumers;
    registry.setTapOffset(ownTaps);
    if (registry.feedsPieces()) {
        load.sinkFor = [&registry](size_t stream) { return registry.sinkFor(StreamId(uint16_t(stream))); };
        load.sinkPlaced = [&registry](RecordSink* sink, size_t, uint32_t firstIndex, uint32_t events) {
            registry.placed(sink, firstIndex, events);
        };
    }
    std::vector<std::vector<TapColumn>> collected;
    auto loaded = loadEvents(*m_file, m_file->tep(), load, *m_store, &collected);
    if (!loaded) return loaded.error();
    returnFreedMemory();
    collected.erase(collected.begin(), collected.begin() + long(ownTaps)); // the caller's own, if any
    addTapColumns(std::move(collected));
    if (options.analyse) {
        Trace* trace = this;
        const uint64_t events = m_store->eventCount();
        auto report = [&options, events](uint64_t done, uint64_t total) {
            if (!options.progress) return;
            LoadProgress p;
            p.stage = LoadProgress::Stage::Consumers;
            p.bytesDone = p.bytesTotal = 1;
            p.events = events;
            p.recordsDone = done;
            p.recordsTotal = total;
            options.progress(p);
        };
        report(0, 1);
        // Analyses that failed as a whole leave the recording readable: failures() says why.
        if (!trace->analyse(report, options.cancel) && trace->analysisFailure().empty())
            return Error{path + ": loading was cancelled"};
        report(1, 1);
        trace->finishAnalyses();
    }
    return loaded.value();
}

RecordSink* Trace::captureSink(StreamId stream)
{
    return m_consumers.feedsPieces() ? m_consumers.sinkFor(stream) : nullptr;
}

void Trace::capturePlaced(RecordSink* sink, uint32_t firstIndex, uint32_t events)
{
    sink->end();
    m_consumers.placed(sink, firstIndex, events);
}

void Trace::addTapColumns(std::vector<std::vector<TapColumn>> columns)
{
    const std::lock_guard lock(m_incomingLock);
    m_incoming.push_back(std::move(columns));
}

bool Trace::analyse(const Progress& progress, const std::atomic<bool>* cancel, uint64_t upToRows,
                    const std::function<void()>& tasksKnown)
{
    const std::lock_guard lock(m_analyseLock);
    if (!analysisFailure().empty()) return false;
    try {
        return analyseBatch(progress, cancel, upToRows, tasksKnown);
    } catch (...) {
        // Not any one analysis's (the registry stops those and goes on): the core's own work,
        // out of memory most likely. The store and what was published stay.
        analysesFailed(failureOfCurrentException());
        return false;
    }
}

bool Trace::analyseBatch(const Progress& progress, const std::atomic<bool>* cancel, uint64_t upToRows,
                         const std::function<void()>& tasksKnown)
{
    // The batch: what the merged order has published, so that every record comes in time order.
    // Counted before the records are taken: a capture hands a batch's records in before it
    // publishes its rows, so every row counted has its records here.
    const EventStore& store = *m_store;
    const size_t rows = size_t(std::min<uint64_t>(store.eventCount(), std::max(upToRows, m_analysedRows.load())));
    const std::vector<size_t> counts = store.order().countsAt(rows, store.streamCount());
    std::vector<std::vector<std::vector<TapColumn>>> incoming;
    {
        const std::lock_guard taken(m_incomingLock);
        incoming.swap(m_incoming);
    }
    for (auto& batch : incoming) m_consumers.addColumns(std::move(batch));
    auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    const auto delivering = std::chrono::steady_clock::now();
    m_consumers.deliver(
        store, counts,
        [&](uint64_t done, uint64_t total) {
            if (progress) progress(done, total);
            return !cancelled();
        },
        [&] {
            // The creations first (a pid created again is a new task from then on), then the
            // batch's tasks, before any analysis asks for one.
            std::vector<TaskIndex::Creation> creations;
            for (const auto& [pid, time] : m_references->takeCreations()) creations.push_back({pid, time});
            m_taskIndex->addCreations(creations);
            m_taskIndex->update(store, counts, 0, m_references->takeMentions());
        },
        tasksKnown); // the task names are fed in pieces while the pages are parsed
    if (cancelled()) return false;
    m_consumersSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - delivering).count();
    m_analysedCounts = counts;
    const auto now = std::chrono::steady_clock::now();
    if (!m_statisticsAt) m_statisticsAt = now;
    const bool statistics = now - *m_statisticsAt >= std::chrono::seconds(1);
    publishAnalyses(statistics ? Statistics::Remake : Statistics::Keep);
    m_statisticsStale = !statistics;
    m_analysedRows.store(rows, std::memory_order_release);
    m_version.fetch_add(1, std::memory_order_acq_rel);
    return true;
}

void Trace::finishAnalyses()
{
    finishTables();
    finishStatistics();
}

void Trace::finishTables()
{
    const std::lock_guard lock(m_analyseLock);
    if (analysisFailure().empty()) {
        try {
            m_consumers.finish();
            m_taskIndex->finish();
            m_analysedCounts.assign(m_store->streamCount(), SIZE_MAX); // every row's task is made
            publishAnalyses(Statistics::Keep, true);
        } catch (...) {
            analysesFailed(failureOfCurrentException());
        }
    }
    m_statisticsStale = true;
    // What the analyses let go of (their pieces' state, the joins' scratch) goes back before
    // the statistics are made: they need room for a moment, the load's peak.
    returnFreedMemory();
    m_finished.store(true, std::memory_order_release);
    m_version.fetch_add(1, std::memory_order_acq_rel);
}

void Trace::finishStatistics()
{
    const std::lock_guard lock(m_analyseLock);
    if (analysisFailure().empty()) {
        try {
            publishStatistics(true);
        } catch (...) {
            analysesFailed(failureOfCurrentException());
        }
    }
    m_statisticsStale = false;
    returnFreedMemory();
    m_statisticsFinished.store(true, std::memory_order_release);
    m_version.fetch_add(1, std::memory_order_acq_rel);
}

bool Trace::refreshStatistics()
{
    const std::lock_guard lock(m_analyseLock);
    if (!m_statisticsStale || m_statisticsFinished.load(std::memory_order_relaxed) || !analysisFailure().empty())
        return false;
    try {
        publishStatistics(false);
    } catch (...) {
        analysesFailed(failureOfCurrentException());
    }
    m_statisticsStale = false;
    m_version.fetch_add(1, std::memory_order_acq_rel);
    return true;
}

void Trace::publishAnalyses(Statistics statistics, bool ended)
{
    const EventStore& store = *m_store;
    const TaskIndex& index = *m_taskIndex;
    auto ownerOf = [&](EventRef e) -> std::optional<uint32_t> {
        if (e.stream.value >= m_analysedCounts.size() || e.index >= m_analysedCounts[e.stream.value]) return std::nullopt;
        const CpuColumns& c = store.stream(e.stream).columns;
        return index.taskAt(c.pid[e.index], c.timestamp[e.index]).value;
    };
    for (const auto& tables : m_tables) tables->publish(ownerOf);
    // The calls' functions named once, here, so that no reader needs the handle for them.
    if (m_calls) m_calls->nameFunctions([this](const std::vector<uint64_t>& addresses) { return functionNames(addresses); });
    // The tasks' running intervals, from the runs the batch closed (the last ones once ended).
    m_taskIndex->addRunning(store, runningTasks().table(), ended);
    noteFailures();
    if (statistics != Statistics::Keep) publishStatistics(statistics == Statistics::Final);
}

void Trace::noteFailures()
{
    std::vector<Failure> failures;
    for (const std::string& name : m_consumers.names())
        if (std::string why = m_consumers.failure(name); !why.empty()) failures.push_back({name, std::move(why)});
    const std::lock_guard lock(m_statsLock);
    m_failures = std::move(failures);
}

void Trace::analysesFailed(const std::string& why)
{
    noteFailures();
    const std::lock_guard lock(m_statsLock);
    m_analysisFailure = why.empty() ? "failed" : why;
}

std::vector<Trace::Failure> Trace::failures() const
{
    const std::lock_guard lock(m_statsLock);
    std::vector<Failure> out = m_failures;
    if (!m_analysisFailure.empty()) out.push_back({std::string(), m_analysisFailure});
    return out;
}

std::string Trace::analysisFailure() const
{
    const std::lock_guard lock(m_statsLock);
    return m_analysisFailure;
}

Result<std::unique_ptr<TepHandle>> Trace::newHandle(const std::function<void(tep_handle*)>& beforePlugins) const
{
    // Only the formats of events the recording holds: parsing all of them costs ~100 ms.
    std::vector<bool> types(65536, false);
    for (size_t t = 0; t < types.size(); ++t) types[t] = m_store && m_store->eventTypeCount(uint16_t(t)) > 0;
    return m_file->newTep(beforePlugins, &types);
}

Result<std::shared_ptr<Trace::SharedHandle>> Trace::filterHandle() const
{
    const std::lock_guard lock(m_filterHandleLock);
    // A store that grows (a capture, a recording shown while it loads) brings event types the
    // handle has no format for: one is made again then.
    size_t types = 0;
    for (size_t t = 0; t < 65536; ++t) types += m_store && m_store->eventTypeCount(uint16_t(t)) > 0;
    if (!m_filterHandle || types != m_filterHandleTypes) {
        auto made = newHandle();
        if (!made) return made.error();
        m_filterHandle = std::make_shared<SharedHandle>();
        m_filterHandle->handle = std::move(*made);
        m_filterHandleTypes = types;
    }
    return m_filterHandle;
}

std::vector<std::string> Trace::functionNames(const std::vector<uint64_t>& addresses) const
{
    constexpr size_t kAtOnce = 512;
    std::vector<std::string> names;
    names.reserve(addresses.size());
    for (size_t from = 0; from < addresses.size(); from += kAtOnce) {
        const std::vector<uint64_t> some(addresses.begin() + long(from),
                                         addresses.begin() + long(std::min(addresses.size(), from + kAtOnce)));
        std::vector<std::string> named;
        {
            const TepAccess handle = tep();
            named = ringside::functionNames(handle, some);
        }
        for (std::string& n : named) names.push_back(std::move(n));
    }
    return names;
}

std::vector<Trace::EventFormatNames> Trace::recordedFormats() const
{
    std::vector<EventFormatNames> out;
    const TepAccess handle = tep();
    for (size_t type = 0; type < 65536; ++type) {
        if (!m_store || !m_store->eventTypeCount(uint16_t(type))) continue;
        tep_event* e = tep_find_event(handle, int(type));
        if (!e) continue;
        EventFormatNames f{uint16_t(type), e->system ? e->system : "", e->name ? e->name : "", {}};
        for (tep_format_field* field = e->format.fields; field; field = field->next) f.fields.push_back(field->name);
        out.push_back(std::move(f));
    }
    return out;
}

std::string Trace::nothingToShow(const Plugin& plugin) const
{
    try {
        return plugin.nothingToShow();
    } catch (...) {
        return "it failed to say: " + failureOfCurrentException();
    }
}

std::string Trace::pluginFailure(const Plugin& plugin) const
{
    const std::lock_guard lock(m_statsLock);
    for (const Failure& f : m_failures)
        if (f.who == plugin.name()) return f.what;
    return {};
}

void Trace::publishStatistics(bool final)
{
    m_statisticsAt = std::chrono::steady_clock::now();
    // Every plugin's at once: a view that looked while they were being made (the window takes
    // the finished tables in meanwhile) showed some plugins' new tables and kept one chosen
    // in place of the headline.
    std::vector<std::shared_ptr<const std::vector<StatsTable>>> made(m_plugins.size());
    bool failed = false;
    for (size_t p = 0; p < m_plugins.size(); ++p) {
        if (!m_consumers.failure(m_plugins[p]->name()).empty()) continue;
        try {
            made[p] = std::make_shared<const std::vector<StatsTable>>(final ? m_plugins[p]->finalStatistics()
                                                                            : m_plugins[p]->statistics());
        } catch (...) {
            // Stopped like a plugin that throws on a record, and said so: its tables stay as
            // they were, its statistics are none.
            m_consumers.markFailed(m_plugins[p]->name(), "making its statistics: " + failureOfCurrentException());
            made[p] = std::make_shared<const std::vector<StatsTable>>();
            failed = true;
        }
    }
    if (failed) noteFailures();
    const std::lock_guard lock(m_statsLock);
    for (size_t p = 0; p < made.size(); ++p)
        if (made[p]) m_stats[p] = std::move(made[p]);
}

RunningTasks Trace::runningTasks() const
{
    return RunningTasks(m_runningTable, m_store.get());
}

const Trace::Analysis* Trace::analysis(const std::string& name) const
{
    for (const Analysis& a : m_analyses)
        if (a.name == name) return &a;
    return nullptr;
}

std::shared_ptr<const std::vector<StatsTable>> Trace::statistics(const Plugin& plugin) const
{
    const std::lock_guard lock(m_statsLock);
    for (size_t p = 0; p < m_plugins.size(); ++p)
        if (m_plugins[p] == &plugin && m_stats[p]) return m_stats[p];
    static const auto none = std::make_shared<const std::vector<StatsTable>>();
    return none;
}

std::string Trace::taskName(int32_t pid) const
{
    if (pid == 0) return "<idle>";
    if (std::string added = m_file->addedComm(pid); !added.empty()) return added;
    if (std::string saved = m_store ? m_store->tasks().comm(pid) : std::string(); !saved.empty() && saved != "<...>")
        return saved;
    if (std::string seen = m_taskNames->name(pid); !seen.empty()) return seen;
    return "<...>";
}

std::string Trace::taskName(TaskId task) const
{
    if (!task.valid() || task.value >= m_taskIndex->size()) return "<...>";
    return taskName(m_taskIndex->task(task).pid);
}

StatsContext Trace::statsContext() const
{
    StatsContext context;
    context.taskName = [this](uint32_t task) { return taskName(TaskId(task)); };
    context.taskPid = [this](uint32_t task) {
        return task < m_taskIndex->size() ? m_taskIndex->task(TaskId(task)).pid : -1;
    };
    context.eventTime = [this](EventRef e) -> uint64_t {
        if (!e.valid() || e.stream.value >= m_store->streamCount()) return 0;
        const CpuColumns& c = m_store->stream(e.stream).columns;
        return e.index < c.size() ? c.timestamp[e.index] : 0;
    };
    return context;
}

size_t Trace::analysisMemoryBytes() const
{
    size_t bytes = m_taskIndex->memoryBytes();
    for (const auto& tables : m_tables) bytes += tables->memoryBytes();
    return bytes;
}

} // namespace ringside
