// SPDX-License-Identifier: GPL-2.0-or-later
#include "workqueueplugin.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ringside::workqueue {

namespace {

enum Request : size_t { kQueue, kActivate, kStart, kEnd };

std::string hex(uint64_t value)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

} // namespace

std::string WorkqueuePlugin::description() const
{
    return "Work items as slices on their worker's row, queue latency and run time per work function, work "
           "queued but never run";
}

std::vector<EventRequest> WorkqueuePlugin::requests() const
{
    // The workqueue name is a dynamic string the registry does not tap: the function names work.
    return {
        {"workqueue", "workqueue_queue_work", {"work", "function", "cpu"}, false},
        {"workqueue", "workqueue_activate_work", {"work"}, false},
        {"workqueue", "workqueue_execute_start", {"work", "function"}, false},
        {"workqueue", "workqueue_execute_end", {"work"}, false},
    };
}

void WorkqueuePlugin::consume(const ConsumedRecord& record)
{
    const uint64_t work = record.field(0).asUnsigned();
    switch (record.request) {
    case kQueue:
        queued(record.timestamp, work, record.field(1).asUnsigned(), record.pid, int32_t(record.field(2).asSigned()));
        break;
    case kActivate: activated(record.timestamp, work); break;
    case kStart: started(record.timestamp, work, record.field(1).asUnsigned(), record.pid); break;
    case kEnd: ended(record.timestamp, work); break;
    default: break;
    }
}

void WorkqueuePlugin::queued(uint64_t t, uint64_t work, uint64_t function, int32_t pid, int32_t cpu)
{
    // Queued again before it ran (records of two CPUs whose clocks differ a little): one run
    // serves both, and the item waits from its first queuing.
    if (m_pending.count(work)) return;
    Item item;
    item.work = work;
    item.function = function;
    item.queued = t;
    item.queuer = pid;
    item.cpu = cpu;
    m_pending[work] = m_items.size();
    m_items.push_back(item);
}

void WorkqueuePlugin::activated(uint64_t t, uint64_t work)
{
    if (auto it = m_pending.find(work); it != m_pending.end()) m_items[it->second].activated = t;
}

void WorkqueuePlugin::started(uint64_t t, uint64_t work, uint64_t function, int32_t worker)
{
    size_t index;
    if (auto it = m_pending.find(work); it != m_pending.end()) {
        index = it->second;
        m_pending.erase(it);
    } else {
        // Queued before the recording began.
        Item item;
        item.work = work;
        item.function = function;
        index = m_items.size();
        m_items.push_back(item);
    }
    Item& item = m_items[index];
    item.started = t;
    item.worker = worker;
    if (function) item.function = function;
    // A work item may be queued again while it runs: the run is found by its address.
    m_running[work] = index;
}

void WorkqueuePlugin::ended(uint64_t t, uint64_t work)
{
    auto it = m_running.find(work);
    if (it == m_running.end()) {
        ++m_endsWithoutStart;
        return;
    }
    m_items[it->second].ended = t;
    m_running.erase(it);
}

std::string WorkqueuePlugin::nothingToShow() const
{
    if (!m_items.empty()) return {};
    const bool anyBound = std::find(m_bound.begin(), m_bound.end(), true) != m_bound.end();
    return anyBound ? "the recording's workqueue events have no records"
                    : "the recording has no workqueue_queue_work or workqueue_execute_start events";
}

PluginTables WorkqueuePlugin::tables(const RecordingInfo& info) const
{
    auto functionName = [&](uint64_t address) {
        std::string name = info.functionName ? info.functionName(address) : std::string();
        return name.empty() ? hex(address) : name;
    };
    auto comm = [&](int32_t pid) { return info.taskName && pid >= 0 ? info.taskName(pid) : std::string(); };

    PluginTables out;
    SliceTable runs;
    runs.name = "Work items";
    runs.valueLabel = "queued";
    FlowTable queuing;
    queuing.name = "Work queued";
    InstantTable neverRun;
    neverRun.name = "Work never run";
    neverRun.labels = {"queued, never run"};
    std::unordered_map<uint64_t, uint32_t> labelOf; // by function address
    struct Sums {
        uint64_t count = 0, timedLatency = 0, totalLatency = 0, maxLatency = 0, maxLatencyAt = 0;
        uint64_t timedRuns = 0, totalRun = 0, maxRun = 0, maxRunAt = 0;
        int32_t maxLatencyWorker = -1, maxRunWorker = -1;
    };
    std::map<std::string, Sums> perFunction;
    StatsTable never{"never_run", "Work queued but never run", {}, {}};
    never.columns = {{"time", "Queued at (ns)"}, {"cpu", "CPU"},           {"pid", "PID"},
                     {"comm", "Queued by"},      {"function", "Function"}, {"work", "Work struct"}};
    for (const Item& item : m_items) {
        if (!item.ran()) {
            never.rows.push_back({item.queued, int64_t(item.cpu), int64_t(item.queuer), comm(item.queuer),
                                  functionName(item.function), hex(item.work)});
            neverRun.time.push_back(item.queued);
            neverRun.ownerId.push_back(item.queuer);
            neverRun.label.push_back(0);
            continue;
        }
        auto [label, added] = labelOf.try_emplace(item.function, uint32_t(runs.labels.size()));
        if (added) runs.labels.push_back(functionName(item.function));
        runs.add(item.started, item.finished() ? item.ended : item.started, item.worker, 0, label->second,
                 int64_t(item.latency()), item.finished() ? 0 : SliceTable::kOpen);
        if (item.queued) {
            queuing.fromTime.push_back(item.queued);
            queuing.fromOwner.push_back(item.queuer);
            queuing.toTime.push_back(item.started);
            queuing.toOwner.push_back(item.worker);
            queuing.value.push_back(int64_t(item.latency()));
        }
        Sums& s = perFunction[runs.labels[label->second]];
        ++s.count;
        if (item.queued) {
            ++s.timedLatency;
            s.totalLatency += item.latency();
            if (item.latency() >= s.maxLatency)
                s.maxLatency = item.latency(), s.maxLatencyAt = item.started, s.maxLatencyWorker = item.worker;
        }
        if (item.finished()) {
            ++s.timedRuns;
            s.totalRun += item.runTime();
            if (item.runTime() >= s.maxRun)
                s.maxRun = item.runTime(), s.maxRunAt = item.started, s.maxRunWorker = item.worker;
        }
    }
    StatsTable functions{"functions", "Work functions", {}, {}};
    functions.columns = {{"function", "Function"},
                         {"count", "Runs"},
                         {"total_latency_ns", "Total latency (ns)"},
                         {"avg_latency_ns", "Avg latency (ns)"},
                         {"max_latency_ns", "Max latency (ns)"},
                         {"max_latency_at", "Max latency at"},
                         {"max_latency_pid", "Max latency worker"},
                         {"total_run_ns", "Total run (ns)"},
                         {"avg_run_ns", "Avg run (ns)"},
                         {"max_run_ns", "Max run (ns)"},
                         {"max_run_at", "Max run at"},
                         {"max_run_pid", "Max run worker"}};
    for (const auto& [name, s] : perFunction)
        functions.rows.push_back({name, s.count, s.totalLatency, s.timedLatency ? s.totalLatency / s.timedLatency : 0,
                                  s.maxLatency, s.maxLatencyAt, int64_t(s.maxLatencyWorker), s.totalRun,
                                  s.timedRuns ? s.totalRun / s.timedRuns : 0, s.maxRun, s.maxRunAt,
                                  int64_t(s.maxRunWorker)});
    out.slices.push_back(std::move(runs));
    out.flows.push_back(std::move(queuing));
    out.instants.push_back(std::move(neverRun));
    out.statistics.push_back(std::move(functions));
    out.statistics.push_back(std::move(never));
    return out;
}

} // namespace ringside::workqueue
