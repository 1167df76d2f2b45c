// SPDX-License-Identifier: GPL-2.0-or-later
#include "export/perfettotracks.h"

#include "calls/callcontext.h"
#include "analysis/tracktables.h"
#include "decode/reportworker.h"
#include "export/exporttext.h"
#include "trace.h"

#include <algorithm>
#include <traceevent/event-parse.h>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace ringside {

void appendMicros(std::string& out, uint64_t ns)
{
    appendNumber(out, ns / 1000);
    const unsigned rest = unsigned(ns % 1000);
    const char frac[4] = {'.', char('0' + rest / 100), char('0' + rest / 10 % 10), char('0' + rest % 10)};
    out.append(frac, 4);
}

void appendEventHead(std::string& out, const char* ph, std::string_view name, int32_t pid, int32_t tid)
{
    out += "{\"ph\":\"";
    out += ph;
    out += "\",\"name\":";
    appendJsonString(out, name);
    out += ",\"pid\":";
    appendNumber(out, pid);
    out += ",\"tid\":";
    appendNumber(out, tid);
}

int32_t processOf(const Trace& trace, int32_t pid)
{
    return pid == 0 ? 0 : trace.processes().leader(pid);
}

namespace {

// Appends trace events, separated by commas, and hands `out` over when it is large.
class EventWriter {
public:
    EventWriter(std::string& out, const std::function<bool(std::string&)>& flush) : m_out(out), m_flush(flush) {}
    size_t written() const { return m_written; }
    bool stopped() const { return m_stopped; }

    // Opens an event: `{"ph":PH,"name":NAME,"pid":P,"tid":T`; the caller appends the rest and
    // closes it with end().
    std::string& begin(const char* ph, std::string_view name, int32_t pid, int32_t tid)
    {
        if (m_written++) m_out += ",\n";
        appendEventHead(m_out, ph, name, pid, tid);
        return m_out;
    }
    void end()
    {
        m_out += '}';
        if (m_out.size() >= (1u << 20) && !m_stopped) m_stopped = !m_flush(m_out);
    }
    void name(const char* what, int32_t pid, int32_t tid, std::string_view name)
    {
        begin("M", what, pid, tid) += ",\"args\":{\"name\":";
        appendJsonString(m_out, name);
        m_out += '}';
        end();
    }
    // Opens a complete event (a slice); the caller adds its category and arguments.
    std::string& slice(std::string_view name, int32_t pid, int32_t tid, uint64_t start, uint64_t duration)
    {
        std::string& out = begin("X", name, pid, tid);
        out += ",\"ts\":";
        appendMicros(out, start);
        out += ",\"dur\":";
        appendMicros(out, duration);
        return out;
    }

private:
    std::string& m_out;
    const std::function<bool(std::string&)>& m_flush;
    size_t m_written = 0;
    bool m_stopped = false;
};

// Per thread, the ends of the slices still open at the last start: a slice reaching past its
// parent's end is cut there. Slices come in start order, parents before their children.
class Nesting {
public:
    uint64_t end(int32_t tid, uint64_t start, uint64_t end)
    {
        std::vector<uint64_t>& open = m_open[tid];
        while (!open.empty() && open.back() <= start) open.pop_back();
        if (!open.empty() && end > open.back()) end = open.back();
        open.push_back(end);
        return end;
    }

private:
    std::unordered_map<int32_t, std::vector<uint64_t>> m_open;
};

class TrackWriter {
public:
    TrackWriter(const Trace& trace, ReportWorker& worker, EventWriter& events)
        : m_trace(trace), m_store(trace.store()), m_worker(worker), m_events(events)
    {}

    void cpus()
    {
        const auto& buffers = m_store.buffers();
        for (size_t b = 0; b < buffers.size(); ++b) {
            const int32_t process = kCpuTrackBase + int32_t(b) * 4096;
            m_events.name("process_name", process, process,
                          buffers[b].name.empty() ? "CPUs" : "CPUs (buffer " + buffers[b].name + ")");
            for (StreamId stream : buffers[b].streams) {
                const int32_t tid = process + 1 + m_store.stream(stream).cpu;
                m_events.name("thread_name", process, tid, "CPU " + std::to_string(m_store.stream(stream).cpu));
                cpuRuns(stream, process, tid);
            }
        }
    }

    // A thread per task (names from the task index and the context switches: a task may run
    // without an event of its own), with the times it ran.
    void tasks()
    {
        struct Ran {
            uint64_t start, end;
            int32_t pid;
            int cpu;
            bool operator<(const Ran& o) const { return std::tie(start, pid, end) < std::tie(o.start, o.pid, o.end); }
            bool operator==(const Ran& o) const { return start == o.start && pid == o.pid && end == o.end; }
        };
        std::vector<Ran> ran;
        for (size_t s = 0; s < m_store.streamCount(); ++s) {
            const StreamId stream(static_cast<uint16_t>(s));
            forEachRun(stream, [&](uint64_t start, uint64_t end, int32_t pid) {
                if (pid != 0) ran.push_back({start, end, pid, m_store.stream(stream).cpu});
            });
        }
        // Buffers without context switches of their own share another buffer's CPU runs.
        std::sort(ran.begin(), ran.end());
        ran.erase(std::unique(ran.begin(), ran.end()), ran.end());

        std::unordered_set<int32_t> named, processes;
        auto name = [&](int32_t pid) {
            if (!named.insert(pid).second) return;
            const int32_t process = leader(pid);
            m_events.name("thread_name", process, pid, taskName(pid));
            if (processes.insert(process).second) m_events.name("process_name", process, process, taskName(process));
        };
        const TaskIndex& index = m_trace.taskIndex();
        for (size_t id = 0; id < index.size(); ++id) name(index.task(TaskId(uint32_t(id))).pid);
        for (const Ran& r : ran) {
            name(r.pid);
            const uint64_t end = m_nesting.end(r.pid, r.start, r.end);
            std::string& out = m_events.slice("Running", leader(r.pid), r.pid, r.start, end - r.start);
            out += ",\"cat\":\"sched\",\"args\":{\"cpu\":";
            appendNumber(out, r.cpu);
            out += '}';
            m_events.end();
            if (m_events.stopped()) return;
        }
    }

    // Every analysis's and plugin's track tables, each owner's rows on a thread of their own
    // ("bash System calls", "CPU 2 Hard interrupts") in the owner's process. The CPUs' tasks
    // (sched_slice) are the CPU threads already.
    void analysisTables()
    {
        int32_t table = 0;
        for (const Trace::Analysis& analysis : m_trace.analyses()) {
            if (!analysis.tables) continue;
            for (const auto& tt : analysis.tables->tables()) {
                if (table >= kMostTableTracks) return;
                const int32_t base = kTableTrackBase + table++ * kTableTrackStride;
                m_category = analysis.name + "." + tt->key();
                switch (tt->kind()) {
                case TrackTable::Kind::Intervals: intervals(static_cast<const IntervalTable&>(*tt), base); break;
                case TrackTable::Kind::Slices: slices(static_cast<const SliceTable&>(*tt), base); break;
                case TrackTable::Kind::Instants: instants(static_cast<const InstantTable&>(*tt), base); break;
                case TrackTable::Kind::Counters: counters(static_cast<const CounterTable&>(*tt), base); break;
                case TrackTable::Kind::Flows: flows(static_cast<const FlowTable&>(*tt)); break;
                }
                if (m_events.stopped()) return;
            }
        }
    }

private:
    struct Thread {
        int32_t pid = 0, tid = 0;
        std::string owner; // "bash", "CPU 2"
        bool valid = false;
    };

    // The owner's thread for a table, named the first time it is used.
    Thread threadOf(const TrackTable& table, int32_t base, uint32_t owner)
    {
        Thread t;
        if (table.owner() == RowOwner::Recording) {
            t.pid = kCpuTrackBase - 1;
            t.tid = base;
            t.owner = "recording";
        } else if (table.owner() == RowOwner::Cpu) {
            if (owner >= m_store.streamCount()) return t;
            const Stream& stream = m_store.stream(StreamId(uint16_t(owner)));
            t.pid = kCpuTrackBase + int32_t(stream.buffer) * 4096;
            t.tid = base + int32_t(owner);
            t.owner = "CPU " + std::to_string(stream.cpu);
        } else {
            const TaskIndex& tasks = m_trace.taskIndex();
            if (owner >= tasks.size()) return t;
            const int32_t pid = tasks.task(TaskId(owner)).pid;
            if (pid < 0 || pid >= kTableTrackStride) return t; // above any pid the kernel gives
            t.pid = leader(pid);
            t.tid = base + pid;
            t.owner = taskName(pid);
        }
        t.valid = true;
        if (m_namedTables.insert(t.tid).second) m_events.name("thread_name", t.pid, t.tid, t.owner + " " + table.title());
        return t;
    }
    size_t ownersOf(const TrackTable& table, size_t withRows) const
    {
        return std::max(withRows, table.owner() == RowOwner::Cpu         ? m_store.streamCount()
                                  : table.owner() == RowOwner::Recording ? size_t(1)
                                                                         : m_trace.taskIndex().size());
    }

    void intervals(const IntervalTable& table, int32_t base)
    {
        const IntervalTableSpec& spec = table.spec();
        if (isSchedSlice(spec)) return; // the CPU threads
        auto stateName = [&](uint32_t state) {
            if (spec.statesAreTasks) {
                const TaskIndex& tasks = m_trace.taskIndex();
                return state < tasks.size() ? taskName(tasks.task(TaskId(state)).pid) : std::string("?");
            }
            return state < spec.states.size() ? spec.states[state].name : std::to_string(state);
        };
        const size_t owners = std::max(ownersOf(table, table.byOwner().owners()), table.openOwners());
        for (uint32_t owner = 0; owner < owners; ++owner) {
            const GrowingList<IntervalRow>* rows = table.byOwner().of(owner);
            const IntervalRow open = table.openOf(owner);
            if (!rows && open.end == 0) continue;
            const Thread thread = threadOf(table, base, owner);
            if (!thread.valid) continue;
            auto write = [&](const IntervalRow& r, bool isOpen) {
                const uint64_t end = std::max(r.start, isOpen ? m_store.lastTimestamp() : r.end);
                std::string& out = m_events.slice(stateName(r.state), thread.pid, thread.tid, r.start,
                                                  m_nesting.end(thread.tid, r.start, end) - r.start);
                out += ",\"cat\":";
                appendJsonString(out, m_category);
                if (isOpen) out += ",\"args\":{\"open\":true}";
                m_events.end();
            };
            for (size_t i = 0, n = rows ? rows->size() : 0; i < n && !m_events.stopped(); ++i) write((*rows)[i], false);
            if (open.end != 0 && !m_events.stopped()) write(open, true);
            if (m_events.stopped()) return;
        }
    }

    void slices(const SliceTable& table, int32_t base)
    {
        const size_t owners = ownersOf(table, table.explicitRows().owners());
        std::vector<SliceTable::View> views;
        for (uint32_t owner = 0; owner < owners; ++owner) {
            views.clear();
            table.forEachOf(owner, m_store, &m_trace.taskIndex(), [&](const SliceTable::View& v) { views.push_back(v); });
            if (views.empty()) continue;
            const Thread thread = threadOf(table, base, owner);
            if (!thread.valid) continue;
            // In start order, a slice before the ones it holds.
            std::sort(views.begin(), views.end(), [](const SliceTable::View& a, const SliceTable::View& b) {
                if (a.start != b.start) return a.start < b.start;
                if (a.end != b.end) return a.end > b.end;
                return a.depth < b.depth;
            });
            for (const SliceTable::View& v : views) {
                // One not returned runs to the end of the recording, as the timeline draws it.
                const uint64_t end = m_nesting.end(
                    thread.tid, v.start, std::max(v.start, v.flags & Slice::kOpen ? m_store.lastTimestamp() : v.end));
                std::string& out =
                    m_events.slice(table.labelText(v.label), thread.pid, thread.tid, v.start, end - v.start);
                out += ",\"cat\":";
                appendJsonString(out, m_category);
                out += ",\"args\":{\"depth\":";
                appendNumber(out, v.depth);
                if (std::optional<int64_t> value = sliceValue(table, v)) {
                    out += ',';
                    appendJsonString(out, table.spec().valueField.empty()
                                              ? (table.spec().valueLabel.empty() ? "value" : table.spec().valueLabel + "_ns")
                                              : table.spec().valueField);
                    out += ':';
                    appendNumber(out, *value);
                }
                if (v.flags & Slice::kError) out += ",\"failed\":true";
                if (v.flags & Slice::kOpen) out += ",\"no_end\":true";
                if (v.flags & Slice::kNoStart) out += ",\"no_start\":true";
                out += '}';
                m_events.end();
                if (m_events.stopped()) return;
            }
        }
    }

    // A slice's value: stored, or read from its end event (a system call's `ret`).
    std::optional<int64_t> sliceValue(const SliceTable& table, const SliceTable::View& v)
    {
        if (v.flags & Slice::kNoValue) return std::nullopt;
        if (!table.valueFromEvent(v)) return v.flags & Slice::kOpen ? std::nullopt : std::optional<int64_t>(v.value);
        const uint16_t type = m_store.stream(v.endEvent.stream).columns.eventType[v.endEvent.index];
        auto [at, added] = m_valueFields.try_emplace(std::make_pair(&table, type), nullptr);
        if (added)
            if (tep_event* event = m_worker.event(type)) at->second = tep_find_field(event, table.spec().valueField.c_str());
        const uint8_t* data = nullptr;
        int size = 0;
        unsigned long long value = 0;
        if (!at->second || !m_worker.record(v.endEvent, &data, &size) ||
            at->second->offset + at->second->size > size || tep_read_number_field(at->second, data, &value) != 0)
            return std::nullopt;
        // A kernel long read as the field's size says; 4 bytes sign-extended (a 32-bit kernel's).
        return at->second->size == 4 ? int64_t(int32_t(uint32_t(value))) : int64_t(value);
    }

    // Each owner's rows, with the owner's thread (instants, counters).
    template <typename Row, typename Visit>
    void forEachOwned(const TrackTable& table, const OwnerRows<Row>& byOwner, int32_t base, Visit visit)
    {
        const size_t owners = ownersOf(table, byOwner.owners());
        for (uint32_t owner = 0; owner < owners; ++owner) {
            const GrowingList<Row>* rows = byOwner.of(owner);
            if (!rows || rows->size() == 0) continue;
            const Thread thread = threadOf(table, base, owner);
            if (!thread.valid) continue;
            for (size_t i = 0, n = rows->size(); i < n; ++i) {
                visit(thread, (*rows)[i]);
                if (m_events.stopped()) return;
            }
        }
    }

    void instants(const InstantTable& table, int32_t base)
    {
        const std::vector<std::string>& labels = table.spec().labels;
        forEachOwned(table, table.byOwner(), base, [&](const Thread& thread, const InstantRow& r) {
            std::string& out =
                m_events.begin("i", r.label < labels.size() ? labels[r.label] : table.title(), thread.pid, thread.tid);
            out += ",\"s\":\"t\",\"cat\":";
            appendJsonString(out, m_category);
            out += ",\"ts\":";
            appendMicros(out, r.time);
            m_events.end();
        });
    }

    // A counter per owner, in the owner's process, named by the table and the owner.
    void counters(const CounterTable& table, int32_t base)
    {
        forEachOwned(table, table.byOwner(), base, [&](const Thread& thread, const CounterRow& r) {
            std::string& out = m_events.begin("C", table.title() + " (" + thread.owner + ")", thread.pid, thread.tid);
            out += ",\"cat\":";
            appendJsonString(out, m_category);
            out += ",\"ts\":";
            appendMicros(out, r.time);
            out += ",\"args\":{\"value\":";
            appendNumber(out, r.value);
            out += '}';
            m_events.end();
        });
    }

    // Arrows from one task's running slice to another's (a wakeup to the switch that ran the
    // woken task): flow events bound to the slices around their times on the tasks' threads.
    void flows(const FlowTable& table)
    {
        if (table.owner() != RowOwner::Task) return;
        const TaskIndex& tasks = m_trace.taskIndex();
        const GrowingList<FlowRow>& rows = table.flows();
        for (size_t i = 0, n = rows.size(); i < n; ++i) {
            const FlowRow& r = rows[i];
            if (r.fromOwner >= tasks.size() || r.toOwner >= tasks.size()) continue;
            const int32_t from = tasks.task(TaskId(r.fromOwner)).pid, to = tasks.task(TaskId(r.toOwner)).pid;
            const uint64_t id = ++m_flowIds;
            for (const auto& [ph, pid, time] : {std::tuple("s", from, r.fromTime), std::tuple("f", to, r.toTime)}) {
                std::string& out = m_events.begin(ph, table.title(), leader(pid), pid);
                out += ",\"cat\":";
                appendJsonString(out, m_category);
                out += ",\"id\":";
                appendNumber(out, id);
                if (*ph == 'f') out += ",\"bp\":\"e\"";
                out += ",\"ts\":";
                appendMicros(out, time);
                if (*ph == 's' && !table.spec().valueLabel.empty()) {
                    out += ",\"args\":{";
                    appendJsonString(out, table.spec().valueLabel + "_ns");
                    out += ':';
                    appendNumber(out, r.value);
                    out += '}';
                }
                m_events.end();
            }
            if (m_events.stopped()) return;
        }
    }

    void cpuRuns(StreamId stream, int32_t process, int32_t tid)
    {
        forEachRun(stream, [&](uint64_t start, uint64_t end, int32_t pid) {
            if (pid == 0 || m_events.stopped()) return;
            std::string& out = m_events.slice(taskName(pid), process, tid, start, end - start);
            out += ",\"cat\":\"sched\",\"args\":{\"pid\":";
            appendNumber(out, pid);
            out += '}';
            m_events.end();
        });
    }

    // The tasks that ran on a CPU, from the table an analysis declares as Perfetto's
    // sched_slice (states are tasks, owners CPUs), in time order; the current one until the
    // CPU's last event.
    template <typename Visit>
    void forEachRun(StreamId stream, Visit visit)
    {
        const IntervalTable* table = cpuTasks();
        const CpuColumns& columns = m_store.stream(stream).columns;
        if (!table || columns.size() == 0) return;
        const TaskIndex& tasks = m_trace.taskIndex();
        auto pidOf = [&](uint32_t state) { return state < tasks.size() ? tasks.task(TaskId(state)).pid : -1; };
        if (const GrowingList<IntervalRow>* rows = table->byOwner().of(stream.value))
            for (size_t i = 0, n = rows->size(); i < n; ++i)
                if ((*rows)[i].end > (*rows)[i].start) visit((*rows)[i].start, (*rows)[i].end, pidOf((*rows)[i].state));
        const IntervalRow open = table->openOf(stream.value);
        const uint64_t last = columns.timestamp[columns.size() - 1];
        if (open.end != 0 && last > open.start) visit(open.start, last, pidOf(open.state));
    }
    const IntervalTable* cpuTasks()
    {
        if (!m_cpuTasksLooked) {
            m_cpuTasksLooked = true;
            for (const Trace::Analysis& analysis : m_trace.analyses()) {
                if (!analysis.tables) continue;
                for (const auto& tt : analysis.tables->tables()) {
                    if (m_cpuTasks || tt->kind() != TrackTable::Kind::Intervals) continue;
                    const auto& table = static_cast<const IntervalTable&>(*tt);
                    if (isSchedSlice(table.spec())) m_cpuTasks = &table;
                }
            }
        }
        return m_cpuTasks;
    }

    int32_t leader(int32_t pid) const { return processOf(m_trace, pid); }

    std::string taskName(int32_t pid) { return m_trace.taskName(pid); }

    const Trace& m_trace;
    const EventStore& m_store;
    ReportWorker& m_worker;
    EventWriter& m_events;
    Nesting m_nesting;
    std::unordered_set<int32_t> m_namedTables; // table threads named so far
    std::string m_category;                    // the table's rows': "<analysis>.<table key>"
    std::map<std::pair<const SliceTable*, uint16_t>, tep_format_field*> m_valueFields;
    uint64_t m_flowIds = 0;
    const IntervalTable* m_cpuTasks = nullptr;
    bool m_cpuTasksLooked = false;
};

} // namespace

size_t writePerfettoTracks(const Trace& trace, ReportWorker& worker, std::string& out,
                           const std::function<bool(std::string&)>& flush)
{
    EventWriter events(out, flush);
    TrackWriter tracks(trace, worker, events);
    events.name("process_name", 0, 0, "idle"); // pid 0: every CPU's idle task; also, never no event
    tracks.cpus();
    if (!events.stopped()) tracks.tasks();
    if (!events.stopped()) tracks.analysisTables();
    return events.written();
}

} // namespace ringside
