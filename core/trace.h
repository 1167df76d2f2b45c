// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/cpuoccupancy.h"
#include "analysis/guesttime.h"
#include "analysis/processgroups.h"
#include "calls/callslices.h"
#include "calls/functioncalls.h"
#include "consume/consumerregistry.h"
#include "decode/funcgraphhandlers.h"
#include "file/datfile.h"
#include "load/loader.h"
#include "plugin/plugin.h"
#include "store/eventstore.h"
#include "store/taskindex.h"
#include "util/result.h"

#include <memory>
#include <mutex>
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

// An opened recording: the file's metadata and formats, and the loaded events. The entry
// point for the CLI, the GUI and the tests. Read-only after open(); decoding event fields
// goes through the tep handle, which tep() hands to one thread at a time.
class Trace {
public:
    // `consumers` and `plugins` are fed with the recording's records while it loads, beside
    // the built-in consumers; find them afterwards in consumers() and plugins(). A plugin that
    // throws is stopped (pluginFailure says why) and the load goes on.
    static Result<std::unique_ptr<Trace>> open(const std::string& path, const LoadOptions& options = LoadOptions(),
                                               std::vector<std::unique_ptr<RecordConsumer>> consumers = {},
                                               std::vector<std::unique_ptr<Plugin>> plugins = {});

    const DatFile& file() const { return *m_file; }
    // The libtraceevent handle, locked: every use after open() goes through this.
    TepAccess tep() const { return TepAccess(m_tepLock, m_file->tep()); }
    const EventStore& store() const { return *m_store; }
    FuncGraphContext& funcGraphContext() const { return *m_funcGraph; }
    // Which task ran on each CPU when (empty when the recording has no sched_switch).
    const CpuOccupancy& occupancy() const { return *m_occupancy; }
    // Which tasks share a process (empty unless the recording has task_newtask).
    const ProcessGroups& processes() const { return *m_processes; }
    // When a KVM host's vCPU threads ran their guests (empty unless it has kvm_entry/exit).
    const GuestTime& guestTime() const { return *m_guestTime; }
    // The function_graph calls as nested slices (empty unless the recording has funcgraph records).
    const CallSlices& callSlices() const { return *m_calls; }
    // The function tracer's calls: counts per call site (empty unless it has function records).
    const FunctionCalls& functionCalls() const { return *m_functionCalls; }
    // Each task's events and running intervals, without scanning (see TaskIndex).
    const TaskIndex& taskIndex() const { return m_taskIndex; }
    // Every analysis fed with records during the load, by name (the built-in ones above too).
    const ConsumerRegistry& consumers() const { return m_consumers; }
    // The plugins fed during the load, in the order given.
    const std::vector<Plugin*>& plugins() const { return m_plugins; }
    // Why a plugin stopped (it threw), or empty.
    std::string pluginFailure(const Plugin& plugin) const { return m_consumers.failure(plugin.name()); }
    // What plugins were told about the recording (task names not included: see RecordingInfo).
    const RecordingInfo& recordingInfo() const { return m_recordingInfo; }
    // How long feeding the consumers their records took in the load (seconds), for benchmarks.
    double consumersSeconds() const { return m_consumersSeconds; }

    // A trace over an empty store that another component grows (live capture appends to it;
    // tests grow it from the file): `path`'s metadata gives the formats. `store` is set to the
    // store to grow through StoreAppender; its consumers and task index are not fed. Metadata
    // the caller wrote itself from the running kernel's tracefs needs no `checkMetadata`
    // (DatFile::OpenOptions).
    static Result<std::unique_ptr<Trace>> growing(const std::string& path, EventStore** store,
                                                  bool checkMetadata = true);

private:
    Trace() = default;
    // Opens the file for `trace`, whose built-in consumers are added.
    static Result<std::unique_ptr<Trace>> withFile(std::unique_ptr<Trace> trace, const std::string& path,
                                                   DatFile::OpenOptions fileOptions);
    void addBuiltInConsumers();
    static Result<std::unique_ptr<Trace>> openTrace(const std::string& path, const LoadOptions& options,
                                                    std::vector<std::unique_ptr<RecordConsumer>> consumers,
                                                    std::vector<std::unique_ptr<Plugin>> plugins);
    mutable std::recursive_mutex m_tepLock;
    std::unique_ptr<FuncGraphContext> m_funcGraph;
    std::unique_ptr<DatFile> m_file;
    std::unique_ptr<EventStore> m_store;
    ConsumerRegistry m_consumers;
    TaskIndex m_taskIndex;
    const CpuOccupancy* m_occupancy = nullptr;
    const ProcessGroups* m_processes = nullptr;
    const GuestTime* m_guestTime = nullptr;
    CallSlices* m_calls = nullptr;
    const FunctionCalls* m_functionCalls = nullptr;
    std::vector<Plugin*> m_plugins;
    RecordingInfo m_recordingInfo;
    double m_consumersSeconds = 0;
};

} // namespace ringside
