// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/runningtasks.h"
#include "analysis/guesttime.h"
#include "analysis/processgroups.h"
#include "analysis/taskreferences.h"
#include "analysis/tasknames.h"
#include "analysis/tracktables.h"
#include "calls/callslices.h"
#include "calls/functioncalls.h"
#include "consume/consumerregistry.h"
#include "decode/funcgraphhandlers.h"
#include "file/datfile.h"
#include "load/loader.h"
#include "plugin/plugin.h"
#include "plugin/statstext.h"
#include "store/eventstore.h"
#include "store/taskindex.h"
#include "util/result.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

struct tep_handle;

namespace ringside {

// The trace's libtraceevent handle, held for as long as this lives: libtraceevent caches its
// last answers in the handle, so one thread at a time uses it. Keep it short (one record, one
// lookup): the views on the GUI thread wait for it. Recursive, so that a function holding it
// may call another that takes it.
class TepAccess {
public:
    TepAccess(std::recursive_mutex& lock, tep_handle* tep) : m_lock(lock), m_tep(tep) {}
    tep_handle* get() const { return m_tep; }
    operator tep_handle*() const { return m_tep; }

private:
    std::unique_lock<std::recursive_mutex> m_lock;
    tep_handle* m_tep;
};

// An opened recording: the file's metadata and formats, the loaded events, and what its
// analyses made of them. The entry point for the CLI, the GUI and the tests.
//
// One pipeline for recordings and live captures: the store grows in batches (a recording's
// pages all at once, a capture's as they arrive), and analyse() hands each batch to every
// analysis, built-in and plugin alike, through the consumer registry: the tasks are indexed,
// the records fed in merged order, the tables published. A recording is a capture that ends
// at once. Views read the store, the task index and the tables while the next batch is
// analysed (they only grow); analyse() runs on one thread at a time (the analysis thread).
// Decoding event fields goes through the tep handle, which tep() hands to one thread at a time.
class Trace {
public:
    // `consumers` and `plugins` are fed with the recording's records, beside the built-in
    // consumers; find them afterwards in consumers() and plugins(). A plugin that throws is
    // stopped (pluginFailure says why) and the rest go on. With `options.analyse`, the
    // analyses run before open() returns; else the caller runs analyse() and
    // finishAnalyses() (the window does, on a worker, once the timeline shows).
    static Result<std::unique_ptr<Trace>> open(const std::string& path, const LoadOptions& options = LoadOptions(),
                                               std::vector<std::unique_ptr<RecordConsumer>> consumers = {},
                                               std::vector<std::unique_ptr<Plugin>> plugins = {});
    // open() in two steps, for a window that shows the store while it loads: unloaded() reads
    // the file's metadata and binds the analyses (the store is empty); then load(), on another
    // thread, parses the pages into the store (LoadOptions::growing: its readers see it grow).
    // load() runs once; a load that failed leaves the store with what it published.
    static Result<std::unique_ptr<Trace>> unloaded(const std::string& path,
                                                   std::vector<std::unique_ptr<RecordConsumer>> consumers = {},
                                                   std::vector<std::unique_ptr<Plugin>> plugins = {});
    Result<LoadEnd> load(const LoadOptions& options);

    // A trace over an empty store that another component grows (live capture appends to it;
    // tests grow it from the file): `path`'s metadata gives the formats. `store` is set to the
    // store to grow through StoreAppender, whose parser collects captureTaps() for the
    // analyses (addTapColumns). Metadata the caller wrote itself from the running kernel's
    // tracefs needs no `checkMetadata` (DatFile::OpenOptions).
    static Result<std::unique_ptr<Trace>> growing(const std::string& path, EventStore** store,
                                                  bool checkMetadata = true,
                                                  std::vector<std::unique_ptr<Plugin>> plugins = {});

    const DatFile& file() const { return *m_file; }
    // The trace's libtraceevent handle, locked: the one way to it (the views' decoding, a
    // record's fields, a lookup). Held briefly: lanes of the analyses wait meanwhile.
    TepAccess tep() const { return TepAccess(m_tepLock, m_file->tep()); }
    // A handle of the caller's own, built from the file's metadata with the formats of the
    // events recorded (`beforePlugins` as DatFile::newTep): what filtering, searching, SQL and
    // a dump's workers decode with, taking no lock, on a thread of their own.
    Result<std::unique_ptr<TepHandle>> newHandle(const std::function<void(tep_handle*)>& beforePlugins = {}) const;
    // One such handle shared by the filters of this trace (made once), used under its own
    // lock: a filter's check in a child process and its matching wait for no view.
    struct SharedHandle {
        std::unique_ptr<TepHandle> handle;
        std::mutex lock;
    };
    Result<std::shared_ptr<SharedHandle>> filterHandle() const;
    // Kernel function names of addresses (functionNames), looked up a few hundred at a time
    // under the handle's lock, never a whole trace's worth at once.
    std::vector<std::string> functionNames(const std::vector<uint64_t>& addresses) const;
    // The formats of the event types recorded: system, name and field names.
    struct EventFormatNames {
        uint16_t type = 0;
        std::string system, name;
        std::vector<std::string> fields;
    };
    std::vector<EventFormatNames> recordedFormats() const;
    const EventStore& store() const { return *m_store; }
    FuncGraphContext& funcGraphContext() const { return *m_funcGraph; }

    // ---- The analyses

    // Analyses what the store published since the last call: indexes its tasks, feeds every
    // analysis its records, publishes their tables and statistics. `progress` hears (records
    // fed, records in all) now and then; `cancel` stops it (false is returned: the trace's
    // analyses are then incomplete for good), and so does an error outside any one analysis
    // (false, analysisFailure() says why). One thread at a time. `upToRows` ends the batch
    // earlier (the rows of the merged order), as a capture's smaller batches would.
    // `tasksKnown` is called once the batch's tasks are indexed and named (taskName), before
    // the other analyses read it: views showing the store can name its tasks from then on.
    using Progress = std::function<void(uint64_t done, uint64_t total)>;
    bool analyse(const Progress& progress = {}, const std::atomic<bool>* cancel = nullptr,
                 uint64_t upToRows = UINT64_MAX, const std::function<void()>& tasksKnown = {});
    // After the last batch: what is still open goes into the tables (a call not returned),
    // then the plugins' final statistics: finishTables(), then finishStatistics(). The window
    // calls the two apart, so that it takes the finished tables in while the statistics are
    // made.
    void finishAnalyses();
    void finishTables();
    void finishStatistics();
    // The plugins' statistics cost a pass over their sums: analyse() makes them at most once a
    // second (a recording's only at finishAnalyses()). A capture that paused has them made
    // for what was analysed: true when they were out of date.
    bool refreshStatistics();
    // The tables are complete (finishTables()).
    bool analysesFinished() const { return m_finished.load(std::memory_order_acquire); }
    // ... and the plugins' statistics too (finishStatistics()).
    bool statisticsFinished() const { return m_statisticsFinished.load(std::memory_order_acquire); }
    // Bumped after every batch analysed: views that show tables look again.
    uint64_t analysisVersion() const { return m_version.load(std::memory_order_acquire); }
    // Rows of the merged order analysed so far.
    uint64_t analysedRows() const { return m_analysedRows.load(std::memory_order_acquire); }
    // For a growing trace: the taps its parser collects (captureTaps) from a batch of pages,
    // handed over by the thread that appends (any thread); the next analyse() feeds them.
    const std::vector<RecordTap>& captureTaps() const { return m_consumers.taps(); }
    void addTapColumns(std::vector<std::vector<TapColumn>> columns);
    // ... and the sink its parser gives the records of the analyses fed in pieces, a stretch of
    // `stream` at a time (null when none is), as a recording's parser does: once the stretch's
    // events are appended, the appending thread says where they landed; the analyses join it
    // when their batch reaches it.
    RecordSink* captureSink(StreamId stream);
    void capturePlaced(RecordSink* sink, uint32_t firstIndex, uint32_t events);

    // An analysis, built-in or plugin, and its track tables.
    struct Analysis {
        std::string name;
        const AnalysisTables* tables = nullptr;
        const Plugin* plugin = nullptr; // null for a built-in one
    };
    const std::vector<Analysis>& analyses() const { return m_analyses; }
    const Analysis* analysis(const std::string& name) const;
    // A plugin's statistics as last made (see refreshStatistics; empty before).
    std::shared_ptr<const std::vector<StatsTable>> statistics(const Plugin& plugin) const;

    // Which task ran on each CPU when: the table declared as sched_slice (not available when
    // the recording has no sched_switch).
    RunningTasks runningTasks() const;
    // Which tasks share a process (empty unless the recording has task_newtask).
    const ProcessGroups& processes() const { return *m_processes; }
    // When a KVM host's vCPU threads ran their guests (empty unless it has kvm_entry/exit).
    const GuestTime& guestTime() const { return *m_guestTime; }
    // The function_graph calls as nested slices (empty unless the recording has funcgraph records).
    const CallSlices& callSlices() const { return *m_calls; }
    // The function tracer's calls: counts per call site (empty unless it has function records).
    const FunctionCalls& functionCalls() const { return *m_functionCalls; }
    // Each task's events and running intervals, without scanning (see TaskIndex).
    const TaskIndex& taskIndex() const { return *m_taskIndex; }
    // A task's name: the recording's saved comm (a capture's: the kernel's at its end, else
    // /proc's when the task appeared), or else the first name its events gave it (TaskNames:
    // saved comms cover only the tasks the kernel still remembered), or "<...>"; pid 0 is
    // "<idle>". What trace-cmd report calls the task once it knows it. The one way tasks are
    // named, in the CLI and the app; it never takes the tep handle.
    std::string taskName(int32_t pid) const;
    std::string taskName(TaskId task) const;
    // How statistics cells name tasks and events: this trace's names and times.
    StatsContext statsContext() const;
    // Every analysis fed with records, by name (the built-in ones above too).
    const ConsumerRegistry& consumers() const { return m_consumers; }
    // The plugins fed, in the order given.
    const std::vector<Plugin*>& plugins() const { return m_plugins; }
    // Why a plugin stopped (it threw: in consume, join, finish, its statistics...), or empty.
    // Any thread.
    std::string pluginFailure(const Plugin& plugin) const;
    // What failed, in words, from any thread: each analysis or plugin that threw (it was
    // stopped and the others went on; `who` is its name), and the analyses as a whole when an
    // error outside any one of them stopped them (`who` empty: out of memory in the core's own
    // work). The store, the timeline and the tables published so far stay as they are.
    struct Failure {
        std::string who;
        std::string what;
    };
    std::vector<Failure> failures() const;
    // Why `plugin` has nothing to show (Plugin::nothingToShow), or empty; a plugin that throws
    // there says so instead.
    std::string nothingToShow(const Plugin& plugin) const;
    // Why the analyses as a whole stopped, or empty (see failures()).
    std::string analysisFailure() const;
    // What plugins were told about the recording.
    const RecordingInfo& recordingInfo() const { return m_recordingInfo; }
    // How long feeding the consumers their records took (seconds), for benchmarks.
    double consumersSeconds() const { return m_consumersSeconds; }
    // The memory the analyses hold: their tables and the task index.
    size_t analysisMemoryBytes() const;

private:
    friend class ReportWorker; // a worker that shares the trace's handle, under its lock
    tep_handle* sharedHandle() const { return m_file->tep(); }
    Trace() = default;
    // Opens the file for `trace`, whose built-in consumers are added.
    static Result<std::unique_ptr<Trace>> withFile(std::unique_ptr<Trace> trace, const std::string& path,
                                                   DatFile::OpenOptions fileOptions);
    void addAnalyses(std::vector<std::unique_ptr<RecordConsumer>> consumers,
                     std::vector<std::unique_ptr<Plugin>> plugins);
    // Binds the analyses to the formats; returns the taps the parser collects.
    const std::vector<RecordTap>& bindAnalyses(const ConsumerRegistry::FormatLookup& lookup,
                                               const ConsumerRegistry::EventLister& list);
    static Result<std::unique_ptr<Trace>> openUnloaded(const std::string& path,
                                                       std::vector<std::unique_ptr<RecordConsumer>> consumers,
                                                       std::vector<std::unique_ptr<Plugin>> plugins);
    Result<LoadEnd> loadPages(const LoadOptions& options);
    // The plugins' statistics as the tables are published: kept as they are, made again, or
    // made for the last time (after the analyses' finish()).
    enum class Statistics { Keep, Remake, Final };
    // `ended`: the last batch's tables (after the analyses' finish()).
    void publishAnalyses(Statistics statistics, bool ended = false);
    // `final`: after the analyses' finish(), their last statistics (Plugin::finalStatistics).
    void publishStatistics(bool final);
    // The registry's failures, copied for readers on other threads (after each batch).
    void noteFailures();
    // An error escaped the analyses' own work: they stop for good, saying why.
    void analysesFailed(const std::string& why);
    bool analyseBatch(const Progress& progress, const std::atomic<bool>* cancel, uint64_t upToRows,
                      const std::function<void()>& tasksKnown);

    mutable std::recursive_mutex m_tepLock;
    mutable std::mutex m_filterHandleLock;
    mutable std::shared_ptr<SharedHandle> m_filterHandle;
    mutable size_t m_filterHandleTypes = 0; // the event types it was made with
    std::unique_ptr<FuncGraphContext> m_funcGraph;
    std::unique_ptr<DatFile> m_file;
    std::unique_ptr<EventStore> m_store;
    std::unique_ptr<TaskIndex> m_taskIndex = std::make_unique<TaskIndex>();
    TaskReferences* m_references = nullptr; // fed first (ConsumerRegistry::Stage::Tasks)
    ConsumerRegistry m_consumers;
    std::vector<std::unique_ptr<AnalysisTables>> m_tables; // per consumer of m_consumers
    std::vector<Analysis> m_analyses;
    const IntervalTable* m_runningTable = nullptr; // see runningTasks()
    const TaskNames* m_taskNames = nullptr;
    const ProcessGroups* m_processes = nullptr;
    const GuestTime* m_guestTime = nullptr;
    CallSlices* m_calls = nullptr;
    const FunctionCalls* m_functionCalls = nullptr;
    std::vector<Plugin*> m_plugins;
    RecordingInfo m_recordingInfo;
    std::mutex m_incomingLock;
    std::vector<std::vector<std::vector<TapColumn>>> m_incoming; // tap columns not yet handed to the registries
    std::mutex m_analyseLock;                                    // one analyse() at a time
    mutable std::mutex m_statsLock; // and the failures
    std::vector<Failure> m_failures; // copied from the registry by noteFailures()
    std::string m_analysisFailure;
    std::vector<std::shared_ptr<const std::vector<StatsTable>>> m_stats; // per plugin
    std::atomic<uint64_t> m_version{0};
    std::atomic<uint64_t> m_analysedRows{0};
    std::vector<size_t> m_analysedCounts; // per stream: the events analysed (their tasks made)
    std::atomic<bool> m_finished{false};
    std::atomic<bool> m_loadStarted{false};
    std::atomic<bool> m_statisticsFinished{false};
    double m_consumersSeconds = 0;
    std::optional<std::chrono::steady_clock::time_point> m_statisticsAt; // made last (or analysis began)
    bool m_statisticsStale = false;
};

} // namespace ringside
