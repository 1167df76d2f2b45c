// SPDX-License-Identifier: GPL-2.0-or-later
#include "export/perfettotracks.h"

#include "calls/callcontext.h"
#include "decode/reportworker.h"
#include "export/exporttext.h"
#include "trace.h"

#include <algorithm>
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
            const CpuColumns& columns = m_store.stream(StreamId(uint16_t(s))).columns;
            if (columns.size() == 0) continue;
            const uint64_t last = columns.timestamp[columns.size() - 1];
            const auto& runs = m_trace.occupancy().runs(StreamId(uint16_t(s)));
            for (size_t r = 0; r < runs.size(); ++r) {
                const uint64_t end = r + 1 < runs.size() ? runs[r + 1].start : last;
                if (runs[r].pid != 0 && end > runs[r].start)
                    ran.push_back({runs[r].start, end, runs[r].pid, columns.cpu});
            }
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

    void calls()
    {
        const CallSlices& calls = m_trace.callSlices();
        if (!calls.available()) return;
        const std::vector<std::string> names = functionNames(m_worker.tep(), calls.functionAddresses());
        // Per task in start order, a parent before the calls it holds (a call whose entry was
        // not recorded arrives at its exit, after its children).
        std::vector<uint32_t> order(calls.size());
        for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            if (calls.pid(a) != calls.pid(b)) return calls.pid(a) < calls.pid(b);
            if (calls.start(a) != calls.start(b)) return calls.start(a) < calls.start(b);
            return calls.duration(a) > calls.duration(b);
        });
        int32_t named = -1;
        for (uint32_t i : order) {
            const int32_t pid = calls.pid(i);
            const int32_t tid = kCallTrackBase + pid;
            if (pid != named) {
                m_events.name("thread_name", leader(pid), tid, taskName(pid) + " calls");
                named = pid;
            }
            const uint64_t end = m_nesting.end(tid, calls.start(i), calls.end(i));
            const uint32_t function = calls.function(i);
            std::string& out = m_events.slice(function < names.size() ? names[function] : "?", leader(pid), tid,
                                              calls.start(i), end - calls.start(i));
            out += ",\"cat\":\"function_graph\",\"args\":{\"cpu\":";
            appendNumber(out, calls.cpu(i));
            out += ",\"depth\":";
            appendNumber(out, calls.depth(i));
            if (calls.hasRetval(i)) out += ",\"retval\":", appendNumber(out, calls.retval(i));
            if (calls.flags(i) & kCallOpen) out += ",\"no_exit\":true";
            if (calls.flags(i) & kCallNoEntry) out += ",\"no_entry\":true";
            out += '}';
            m_events.end();
            if (m_events.stopped()) return;
        }
    }

private:
    void cpuRuns(StreamId stream, int32_t process, int32_t tid)
    {
        const CpuColumns& columns = m_store.stream(stream).columns;
        if (columns.size() == 0) return;
        const uint64_t last = columns.timestamp[columns.size() - 1];
        const auto& runs = m_trace.occupancy().runs(stream);
        for (size_t r = 0; r < runs.size(); ++r) {
            const uint64_t end = r + 1 < runs.size() ? runs[r + 1].start : last;
            if (runs[r].pid == 0 || end <= runs[r].start) continue;
            std::string& out = m_events.slice(taskName(runs[r].pid), process, tid, runs[r].start, end - runs[r].start);
            out += ",\"cat\":\"sched\",\"args\":{\"pid\":";
            appendNumber(out, runs[r].pid);
            out += '}';
            m_events.end();
            if (m_events.stopped()) return;
        }
    }

    int32_t leader(int32_t pid) const { return processOf(m_trace, pid); }

    std::string taskName(int32_t pid) { return m_trace.taskName(pid); }

    const Trace& m_trace;
    const EventStore& m_store;
    ReportWorker& m_worker;
    EventWriter& m_events;
    Nesting m_nesting;
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
    if (!events.stopped()) tracks.calls();
    return events.written();
}

} // namespace ringside
