// SPDX-License-Identifier: GPL-2.0-or-later
#include "workqueueplugin.h"

#include <algorithm>
#include <cstdio>

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

void WorkqueuePlugin::setTables(TableSink& tables)
{
    m_runs = &tables.slices({"work_items", "Work items", RowOwner::Task, "queued", ""});
    m_queuing = &tables.flows({"work_queued", "Work queued", RowOwner::Task, "latency"});
    m_neverRun = &tables.instants({"work_never_run", "Work never run", RowOwner::Task, {"queued, never run"}});
}

std::string WorkqueuePlugin::functionName(uint64_t address) const
{
    std::string name = m_info.functionName ? m_info.functionName(address) : std::string();
    return name.empty() ? hex(address) : name;
}

void WorkqueuePlugin::consume(const ConsumedRecord& record)
{
    const uint64_t work = record.field(0).asUnsigned();
    const EventRef at{record.stream, record.index};
    const uint32_t task = record.task.valid() ? record.task.value : kNoTask;
    switch (record.request) {
    case kQueue:
        queued(record.timestamp, work, record.field(1).asUnsigned(), task, int32_t(record.field(2).asSigned()), at);
        break;
    case kActivate: activated(record.timestamp, work); break;
    case kStart: started(record.timestamp, work, record.field(1).asUnsigned(), task, at); break;
    case kEnd: ended(record.timestamp, work, at); break;
    default: break;
    }
}

void WorkqueuePlugin::queued(uint64_t t, uint64_t work, uint64_t function, uint32_t queuer, int32_t cpu, EventRef at)
{
    m_any = true;
    // Queued again before it ran (records of two CPUs whose clocks differ a little): one run
    // serves both, and the item waits from its first queuing.
    if (m_pending.count(work)) return;
    Item item;
    item.work = work;
    item.function = function;
    item.queued = t;
    item.queuer = queuer;
    item.cpu = cpu;
    item.queuedEvent = at;
    m_pending.emplace(work, item);
}

void WorkqueuePlugin::activated(uint64_t t, uint64_t work)
{
    if (auto it = m_pending.find(work); it != m_pending.end()) it->second.activated = t;
}

void WorkqueuePlugin::started(uint64_t t, uint64_t work, uint64_t function, uint32_t worker, EventRef at)
{
    m_any = true;
    Item item;
    if (auto it = m_pending.find(work); it != m_pending.end()) {
        item = it->second;
        m_pending.erase(it);
    } else {
        // Queued before the recording began.
        item.work = work;
        item.function = function;
    }
    item.started = t;
    item.worker = worker;
    item.startEvent = at;
    if (function) item.function = function;
    Sums& s = m_sums[item.function];
    ++s.count;
    if (item.queued) {
        ++s.timedLatency;
        s.totalLatency += item.latency();
        if (item.latency() >= s.maxLatency) s.maxLatency = item.latency(), s.maxLatencyAt = at, s.maxLatencyWorker = worker;
        if (m_queuing && item.queuer != kNoTask && worker != kNoTask)
            m_queuing->add(item.queued, item.queuer, t, worker, int64_t(item.latency()));
    }
    // A work item may be queued again while it runs: the run is found by its address.
    m_running[work] = item;
}

void WorkqueuePlugin::ended(uint64_t t, uint64_t work, EventRef at)
{
    auto it = m_running.find(work);
    if (it == m_running.end()) {
        ++m_endsWithoutStart;
        return;
    }
    const Item& item = it->second;
    Sums& s = m_sums[item.function];
    const uint64_t run = t >= item.started ? t - item.started : 0;
    ++s.timedRuns;
    s.totalRun += run;
    if (run >= s.maxRun) s.maxRun = run, s.maxRunAt = item.startEvent, s.maxRunWorker = item.worker;
    if (m_runs && item.worker != kNoTask) {
        auto [label, added] = m_labels.try_emplace(item.function, 0);
        if (added) label->second = m_runs->label(functionName(item.function));
        Slice slice;
        slice.start = item.started;
        slice.end = t;
        slice.owner = item.worker;
        slice.label = label->second;
        slice.value = int64_t(item.latency());
        slice.startEvent = item.startEvent;
        slice.endEvent = at;
        m_runs->add(slice);
    }
    m_running.erase(it);
}

void WorkqueuePlugin::finish()
{
    // Still running when the recording ended: open slices.
    for (const auto& [work, item] : m_running) {
        if (!m_runs || item.worker == kNoTask) continue;
        auto [label, added] = m_labels.try_emplace(item.function, 0);
        if (added) label->second = m_runs->label(functionName(item.function));
        Slice slice;
        slice.start = slice.end = item.started;
        slice.owner = item.worker;
        slice.label = label->second;
        slice.value = int64_t(item.latency());
        slice.flags = Slice::kOpen;
        m_runs->add(slice);
    }
    // Queued and never run: marked on the queuer's row.
    for (const Item& item : waiting())
        if (m_neverRun && item.queuer != kNoTask) m_neverRun->add(item.queued, item.queuer, 0);
}

std::vector<WorkqueuePlugin::Item> WorkqueuePlugin::waiting() const
{
    std::vector<Item> items;
    for (const auto& [work, item] : m_pending) items.push_back(item);
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.queued < b.queued; });
    return items;
}

std::string WorkqueuePlugin::nothingToShow() const
{
    if (m_any) return {};
    const bool anyBound = std::find(m_bound.begin(), m_bound.end(), true) != m_bound.end();
    return anyBound ? "the recording's workqueue events have no records"
                    : "the recording has no workqueue_queue_work or workqueue_execute_start events";
}

std::vector<StatsTable> WorkqueuePlugin::statistics() const
{
    using Kind = StatsTable::Kind;
    auto cell = [](EventRef e) { return e.valid() ? StatsTable::eventCell(e) : StatsTable::kUnknown; };
    auto task = [](uint32_t t) { return t == kNoTask ? StatsTable::kUnknown : int64_t(t); };
    StatsTable functions{"functions", "Work functions", {}, false};
    auto& name = functions.column("function", "Function", Kind::Text);
    auto& count = functions.column("count", "Runs", Kind::Count);
    auto& totalLatency = functions.column("total_latency_ns", "Total latency", Kind::Duration);
    auto& avgLatency = functions.column("avg_latency_ns", "Avg latency", Kind::Duration);
    auto& maxLatency = functions.column("max_latency_ns", "Max latency", Kind::Duration);
    auto& maxLatencyAt = functions.column("max_latency_at", "Max latency at", Kind::Event);
    maxLatencyAt.spanKey = "max_latency_ns"; // the run's start ends the wait since queuing
    auto& maxLatencyWorker = functions.column("max_latency_worker", "Max latency worker", Kind::Task);
    auto& totalRun = functions.column("total_run_ns", "Total run", Kind::Duration);
    auto& avgRun = functions.column("avg_run_ns", "Avg run", Kind::Duration);
    auto& maxRun = functions.column("max_run_ns", "Max run", Kind::Duration);
    auto& maxRunAt = functions.column("max_run_at", "Max run at", Kind::Event);
    maxRunAt.spanKey = "max_run_ns", maxRunAt.spanStarts = true; // the run begins there
    auto& maxRunWorker = functions.column("max_run_worker", "Max run worker", Kind::Task);
    // By name (several addresses may print alike: they stay apart, each named).
    std::vector<std::pair<std::string, const Sums*>> byName;
    for (const auto& [function, s] : m_sums) byName.emplace_back(functionName(function), &s);
    std::stable_sort(byName.begin(), byName.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [text, sums] : byName) {
        const Sums& s = *sums;
        name.texts.push_back(text);
        count.numbers.push_back(int64_t(s.count));
        totalLatency.numbers.push_back(int64_t(s.totalLatency));
        avgLatency.numbers.push_back(s.timedLatency ? int64_t(s.totalLatency / s.timedLatency) : StatsTable::kUnknown);
        maxLatency.numbers.push_back(s.timedLatency ? int64_t(s.maxLatency) : StatsTable::kUnknown);
        maxLatencyAt.numbers.push_back(s.timedLatency ? cell(s.maxLatencyAt) : StatsTable::kUnknown);
        maxLatencyWorker.numbers.push_back(s.timedLatency ? task(s.maxLatencyWorker) : StatsTable::kUnknown);
        totalRun.numbers.push_back(int64_t(s.totalRun));
        avgRun.numbers.push_back(s.timedRuns ? int64_t(s.totalRun / s.timedRuns) : StatsTable::kUnknown);
        maxRun.numbers.push_back(s.timedRuns ? int64_t(s.maxRun) : StatsTable::kUnknown);
        maxRunAt.numbers.push_back(s.timedRuns ? cell(s.maxRunAt) : StatsTable::kUnknown);
        maxRunWorker.numbers.push_back(s.timedRuns ? task(s.maxRunWorker) : StatsTable::kUnknown);
    }
    StatsTable never{"never_run", "Work queued but never run", {}, false};
    auto& at = never.column("queued_at", "Queued at", Kind::Event);
    auto& cpu = never.column("cpu", "CPU", Kind::Number);
    auto& queuer = never.column("queued_by", "Queued by", Kind::Task);
    auto& function = never.column("function", "Function", Kind::Text);
    auto& work = never.column("work", "Work struct", Kind::Text);
    for (const Item& item : waiting()) {
        at.numbers.push_back(cell(item.queuedEvent));
        cpu.numbers.push_back(item.cpu);
        queuer.numbers.push_back(task(item.queuer));
        function.texts.push_back(functionName(item.function));
        work.texts.push_back(hex(item.work));
    }
    std::vector<StatsTable> all;
    all.push_back(std::move(functions));
    all.push_back(std::move(never));
    return all;
}

} // namespace ringside::workqueue
