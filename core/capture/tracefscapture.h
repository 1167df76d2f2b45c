// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "capture/capturemetadata.h"
#include "util/result.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

struct tracefs_instance;
struct tracefs_cpu;

namespace ringside {

// What to record: events as "system:event", "system" or "system:*", each with an optional
// filter expression; pids (the events of those tasks only), the per-CPU buffer size and the
// clock.
struct CaptureConfig {
    struct Event {
        std::string system, name; // name empty or "*": the whole system
        std::string filter;
    };
    std::vector<Event> events;
    std::vector<int> pids;
    std::vector<int> notracePids;                             // never recorded: the capture's own processes
    bool followForks = false;                                 // the pids' children too (event-fork)
    size_t bufferKb = 0;                                      // 0: the kernel's default
    std::string clock;                                        // empty: the kernel's default
    std::string tracer;                                       // empty: nop (events only)
    // For a tracer: set_ftrace_filter, set_ftrace_notrace, set_graph_function, max_graph_depth
    // (-1: the kernel's). The pids then also go to set_ftrace_pid (function-fork with forks).
    std::vector<std::string> functionFilters, notraceFunctions, graphFunctions;
    int maxGraphDepth = -1;
};

// Records into a private tracefs instance (never the top-level buffer), named for the process
// that owns it, so a capture that died is recognised by the next (removeStaleInstances). The
// instance is removed when this object goes, whatever happened. Reads each CPU's raw
// ring-buffer pages (trace_pipe_raw) without blocking. Used by ringside-capture only: the
// process that may run as root.
class TracefsCapture {
public:
    // Checks everything against the kernel before tracing starts: an event it lacks, a filter
    // it rejects (with its reason), a clock it does not offer are errors naming them.
    static Result<std::unique_ptr<TracefsCapture>> start(const CaptureConfig& config);
    ~TracefsCapture();

    // The events asked for, as trace-cmd reads -e, found in `eventsDir` (tracefs's events/):
    // "all"; a system ("sched"); an event of any system ("sched_switch"); "system:event";
    // globs in either part ("sched:sched_wak*", "*:irq_*"). Each becomes whole systems or
    // single events, keeping its filter. One that matches nothing is an error naming it.
    static Result<std::vector<CaptureConfig::Event>> resolveEvents(const std::string& eventsDir,
                                                                   const std::vector<CaptureConfig::Event>& asked);

    const CaptureMetadata& metadata() const { return m_metadata; }
    const std::string& instanceName() const { return m_name; }

    // Hands every page the CPUs have now to `page` (partial pages too); returns how many.
    size_t readPages(const std::function<void(int cpu, const void* data, size_t size)>& page);
    // Tasks whose events are never recorded (set_event_notrace_pid), beside those given before.
    void ignoreTasks(std::vector<int> pids);
    // Stops tracing; what is still in the buffers is read by the next readPages().
    void stop();
    // The CPU's stats file (entries, overrun, dropped and read events).
    std::string cpuStats(int cpu) const;
    // The task names the kernel saved, and the final counters, into the metadata.
    void finishMetadata();

    // Instances of captures whose process is gone: removed, their names returned.
    static std::vector<std::string> removeStaleInstances();
    // Where tracefs is, or why it cannot be used (not mounted, not writable).
    static Result<std::string> tracingDir();
    static constexpr const char* kInstancePrefix = "ringside-capture-";

private:
    TracefsCapture() = default;
    std::string m_name;
    tracefs_instance* m_instance = nullptr;
    std::vector<tracefs_cpu*> m_cpus;
    std::vector<char> m_page;
    CaptureMetadata m_metadata;
    std::string m_restoreGraphDepth; // the kernel's max_graph_depth before, when changed
    std::string m_graphDepthWritten; // what this capture wrote there
    std::vector<int> m_ignored;       // sorted
};

} // namespace ringside
