// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/tracefscapture.h"

// libtracefs's header does not compile as C++ (an inline function converts an int to an
// enum), so the functions used here are declared as it declares them.
extern "C" {
const char* tracefs_tracing_dir(void);
struct tracefs_instance* tracefs_instance_create(const char* name);
struct tracefs_instance* tracefs_instance_alloc(const char* tracing_dir, const char* name);
int tracefs_instance_destroy(struct tracefs_instance* instance);
void tracefs_instance_free(struct tracefs_instance* instance);
bool tracefs_instance_exists(const char* name);
bool tracefs_file_exists(struct tracefs_instance* instance, const char* name);
int tracefs_instance_file_write(struct tracefs_instance* instance, const char* file, const char* str);
int tracefs_instance_file_append(struct tracefs_instance* instance, const char* file, const char* str);
char* tracefs_instance_file_read(struct tracefs_instance* instance, const char* file, int* psize);
int tracefs_instance_set_buffer_size(struct tracefs_instance* instance, size_t size, int cpu);
int tracefs_event_enable(struct tracefs_instance* instance, const char* system, const char* event);
int tracefs_trace_on(struct tracefs_instance* instance);
int tracefs_trace_off(struct tracefs_instance* instance);
struct tracefs_cpu* tracefs_cpu_open(struct tracefs_instance* instance, int cpu, bool nonblock);
void tracefs_cpu_close(struct tracefs_cpu* tcpu);
int tracefs_cpu_read_size(struct tracefs_cpu* tcpu);
int tracefs_cpu_read(struct tracefs_cpu* tcpu, void* buffer, bool nonblock);
}

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fnmatch.h>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ringside {

namespace {

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool isDirectory(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The entries of a directory that are directories themselves, sorted.
std::vector<std::string> subdirectories(const std::string& path)
{
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(path.c_str())) {
        while (const dirent* entry = ::readdir(dir)) {
            const std::string name = entry->d_name;
            if (name != "." && name != ".." && isDirectory(path + "/" + name)) names.push_back(name);
        }
        ::closedir(dir);
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool processAlive(pid_t pid)
{
    return ::kill(pid, 0) == 0 || errno == EPERM;
}

std::string instanceText(tracefs_instance* instance, const char* file)
{
    int size = 0;
    char* text = tracefs_instance_file_read(instance, file, &size);
    std::string value = text ? std::string(text, size_t(std::max(0, size))) : std::string();
    std::free(text);
    return value;
}

// errno's text, with what EPERM means for the function tracers (writes to their files are
// refused when function tracing is off: ftrace_enabled, lockdown, or a kernel that forbids it).
std::string functionTracingError(int error)
{
    std::string text = std::strerror(error);
    if (error == EPERM) text += " (function tracing is not allowed in this kernel: see /proc/sys/kernel/ftrace_enabled)";
    return text;
}

// "12 34 " as the pid files take a list.
std::string pidList(const std::vector<int>& pids)
{
    std::string list;
    for (int pid : pids) list += std::to_string(pid) + " ";
    return list;
}

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

} // namespace

Result<std::string> TracefsCapture::tracingDir()
{
    const char* dir = tracefs_tracing_dir();
    if (!dir || !isDirectory(std::string(dir) + "/instances"))
        return Error{"tracefs is not mounted (mount it: mount -t tracefs nodev /sys/kernel/tracing)"};
    if (::access((std::string(dir) + "/instances").c_str(), W_OK) != 0)
        return Error{std::string(dir) + "/instances: " + std::strerror(errno) +
                     " (capturing needs root, or a tracefs the user may write)"};
    return std::string(dir);
}

std::vector<std::string> TracefsCapture::removeStaleInstances()
{
    std::vector<std::string> removed;
    auto dir = tracingDir();
    if (!dir) return removed;
    const std::string prefix = kInstancePrefix;
    for (const std::string& name : subdirectories(*dir + "/instances")) {
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string digits = name.substr(prefix.size());
        if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit)) continue;
        const pid_t owner = pid_t(std::stol(digits));
        if (owner == ::getpid() || processAlive(owner)) continue;
        tracefs_instance* instance = tracefs_instance_alloc(nullptr, name.c_str());
        if (!instance) continue;
        tracefs_trace_off(instance);
        if (tracefs_instance_destroy(instance) == 0) removed.push_back(name);
        tracefs_instance_free(instance);
    }
    return removed;
}

Result<std::unique_ptr<TracefsCapture>> TracefsCapture::start(const CaptureConfig& config)
{
    auto dir = tracingDir();
    if (!dir) return dir.error();
    if (config.events.empty() && config.tracer.empty())
        return Error{"no event to record (-e EVENT) and no tracer (-p TRACER)"};
    if (config.tracer.empty() && (!config.functionFilters.empty() || !config.notraceFunctions.empty() ||
                                  !config.graphFunctions.empty() || config.maxGraphDepth >= 0))
        return Error{"function filters and the graph depth apply to a tracer: name one (-p TRACER)"};
    const std::string events = *dir + "/events/";
    // The kernel's answer to each part first, before an instance exists.
    auto resolved = resolveEvents(events, config.events);
    if (!resolved) return Error{resolved.error().message + " (see " + *dir + "/available_events)"};
    const std::vector<CaptureConfig::Event>& enabled = *resolved;
    std::unique_ptr<TracefsCapture> capture(new TracefsCapture);
    capture->m_name = kInstancePrefix + std::to_string(::getpid());
    if (tracefs_instance_exists(capture->m_name.c_str())) {
        // Left by an earlier process with this pid.
        if (tracefs_instance* old = tracefs_instance_alloc(nullptr, capture->m_name.c_str())) {
            tracefs_instance_destroy(old);
            tracefs_instance_free(old);
        }
    }
    capture->m_instance = tracefs_instance_create(capture->m_name.c_str());
    if (!capture->m_instance)
        return Error{"cannot create the tracing instance " + capture->m_name + ": " + std::strerror(errno)};
    tracefs_instance* instance = capture->m_instance;
    tracefs_trace_off(instance);

    if (!config.clock.empty()) {
        const std::string offered = instanceText(instance, "trace_clock");
        std::string names = " " + offered + " ";
        std::replace(names.begin(), names.end(), '[', ' ');
        std::replace(names.begin(), names.end(), ']', ' ');
        std::replace(names.begin(), names.end(), '\n', ' ');
        if (names.find(" " + config.clock + " ") == std::string::npos)
            return Error{"clock " + config.clock + " is not offered by this kernel (it offers: " + trimmed(offered) +
                         ")"};
        if (tracefs_instance_file_write(instance, "trace_clock", config.clock.c_str()) < 0)
            return Error{"the kernel refused clock " + config.clock + ": " + std::strerror(errno)};
    }
    if (config.bufferKb && tracefs_instance_set_buffer_size(instance, config.bufferKb, -1) < 0)
        return Error{"the kernel refused a buffer of " + std::to_string(config.bufferKb) +
                     " KB per CPU: " + std::strerror(errno)};
    for (const CaptureConfig::Event& e : enabled) {
        const bool whole = e.name.empty();
        const std::string label = e.system + (whole ? "" : ":" + e.name);
        const std::string systemRegex = "^" + e.system + "$";
        const std::string nameRegex = "^" + e.name + "$";
        if (tracefs_event_enable(instance, systemRegex.c_str(), whole ? nullptr : nameRegex.c_str()) < 0)
            return Error{"the kernel refused to enable " + label + ": " + std::strerror(errno)};
        if (e.filter.empty()) continue;
        const std::string file = "events/" + e.system + (whole ? "" : "/" + e.name) + "/filter";
        if (tracefs_instance_file_write(instance, file.c_str(), e.filter.c_str()) < 0) {
            // The kernel says why in the filter file.
            std::string reason = trimmed(instanceText(instance, file.c_str()));
            std::replace(reason.begin(), reason.end(), '\n', ' ');
            return Error{"the kernel rejected the filter \"" + e.filter + "\" of " + label + ": " +
                         (reason.empty() ? std::string(std::strerror(errno)) : reason)};
        }
    }
    if (!config.tracer.empty()) {
        const std::string offered = " " + instanceText(instance, "available_tracers") + " ";
        std::string names = offered;
        std::replace(names.begin(), names.end(), '\n', ' ');
        if (names.find(" " + config.tracer + " ") == std::string::npos)
            return Error{"tracer " + config.tracer +
                         " is not offered by this kernel (it offers: " + trimmed(offered.substr(1)) + ")"};
        auto writeList = [&](const char* file, const std::vector<std::string>& list) -> std::string {
            for (const std::string& f : list)
                if (tracefs_instance_file_append(instance, file, (f + "\n").c_str()) < 0)
                    return std::string("the kernel rejected ") + f + " in " + file + ": " + functionTracingError(errno);
            return {};
        };
        if (std::string e = writeList("set_ftrace_filter", config.functionFilters); !e.empty()) return Error{e};
        if (std::string e = writeList("set_ftrace_notrace", config.notraceFunctions); !e.empty()) return Error{e};
        if (!config.graphFunctions.empty() && !tracefs_file_exists(instance, "set_graph_function"))
            return Error{"this kernel has set_graph_function for the top-level buffer only (or no function_graph "
                         "tracer), and Ringside records in an instance of its own"};
        if (std::string e = writeList("set_graph_function", config.graphFunctions); !e.empty()) return Error{e};
        if (config.maxGraphDepth >= 0) {
            // A setting of the whole kernel's graph tracer (at the top level): put back at the end.
            if (!tracefs_file_exists(nullptr, "max_graph_depth"))
                return Error{"this kernel has no max_graph_depth (its function_graph tracer is not built in): the "
                             "graph depth cannot be limited"};
            const std::string depth = std::to_string(config.maxGraphDepth);
            const std::string previous = trimmed(instanceText(nullptr, "max_graph_depth"));
            if (tracefs_instance_file_write(nullptr, "max_graph_depth", depth.c_str()) < 0)
                return Error{"the kernel refused max_graph_depth " + depth + ": " + std::strerror(errno)};
            capture->m_restoreGraphDepth = previous.empty() ? "0" : previous;
            capture->m_graphDepthWritten = depth;
        }
        if (!config.pids.empty()) {
            const std::string pids = pidList(config.pids);
            if (tracefs_instance_file_write(instance, "set_ftrace_pid", pids.c_str()) < 0)
                return Error{"the kernel refused the pids " + trimmed(pids) +
                             " in set_ftrace_pid: " + functionTracingError(errno)};
            if (config.followForks && tracefs_instance_file_write(instance, "options/function-fork", "1") < 0)
                return Error{"the kernel refused to trace the pids' children's functions: " +
                             std::string(std::strerror(errno))};
        }
        if (tracefs_instance_file_write(instance, "current_tracer", config.tracer.c_str()) < 0)
            return Error{"the kernel refused tracer " + config.tracer + ": " + functionTracingError(errno)};
    }
    capture->ignoreTasks(config.notracePids);
    if (!config.pids.empty()) {
        const std::string pids = pidList(config.pids);
        if (tracefs_instance_file_write(instance, "set_event_pid", pids.c_str()) < 0)
            return Error{"the kernel refused the pids " + trimmed(pids) + ": " + std::strerror(errno)};
        if (config.followForks && tracefs_instance_file_write(instance, "options/event-fork", "1") < 0)
            return Error{"the kernel refused to follow the pids' children: " + std::string(std::strerror(errno))};
    }

    // What readers of the pages need.
    CaptureMetadata& m = capture->m_metadata;
    m.pageSize = uint32_t(::getpagesize());
    m.longSize = int(sizeof(long));
    m.headerPage = readFile(events + "header_page");
    m.headerEvent = readFile(events + "header_event");
    for (const std::string& name : subdirectories(events + "ftrace"))
        m.ftraceFormats.push_back(readFile(events + "ftrace/" + name + "/format"));
    for (const CaptureConfig::Event& e : enabled) {
        const bool whole = e.name.empty();
        const std::vector<std::string> names = whole ? subdirectories(events + e.system) : std::vector{e.name};
        for (const std::string& name : names) {
            std::string format = readFile(events + e.system + "/" + name + "/format");
            if (format.empty()) continue;
            const bool known = std::any_of(m.eventFormats.begin(), m.eventFormats.end(),
                                           [&](const auto& f) { return f.system == e.system && f.text == format; });
            if (!known) m.eventFormats.push_back({e.system, std::move(format)});
        }
    }
    m.kallsyms = readFile("/proc/kallsyms");
    m.printkFormats = readFile(*dir + "/printk_formats");
    m.traceClock = instanceText(instance, "trace_clock");
    m.uname = CaptureMetadata::localUname();
    const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
    m.cpus = int(std::max(1L, cpus));
    for (int cpu = 0; cpu < m.cpus; ++cpu) capture->m_cpus.push_back(tracefs_cpu_open(instance, cpu, true));
    for (tracefs_cpu* cpu : capture->m_cpus)
        if (cpu) capture->m_page.resize(std::max<size_t>(capture->m_page.size(), size_t(tracefs_cpu_read_size(cpu))));
    if (capture->m_page.empty())
        return Error{"cannot open any CPU's trace_pipe_raw: " + std::string(std::strerror(errno))};
    if (tracefs_trace_on(instance) < 0) return Error{"cannot switch tracing on: " + std::string(std::strerror(errno))};
    return capture;
}

Result<std::vector<CaptureConfig::Event>> TracefsCapture::resolveEvents(const std::string& eventsDir,
                                                                        const std::vector<CaptureConfig::Event>& asked)
{
    const std::string root = eventsDir.empty() || eventsDir.back() == '/' ? eventsDir : eventsDir + "/";
    // ftrace's events are the tracers' records: they are not enabled.
    std::vector<std::string> systems = subdirectories(root);
    std::erase(systems, "ftrace");
    std::map<std::string, std::vector<std::string>> eventsOf; // each system's, read once
    auto events = [&](const std::string& system) -> const std::vector<std::string>& {
        auto [it, added] = eventsOf.try_emplace(system);
        if (added) it->second = subdirectories(root + system);
        return it->second;
    };
    auto matches = [](const std::string& pattern, const std::string& name) {
        return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
    };
    std::vector<CaptureConfig::Event> out;
    bool matched = false; // by the event asked for now, whether or not an earlier one had it
    auto add = [&](const std::string& system, const std::string& name, const std::string& filter) {
        matched = true;
        const bool known = std::any_of(out.begin(), out.end(), [&](const CaptureConfig::Event& e) {
            return e.system == system && (e.name.empty() || e.name == name);
        });
        if (!known) out.push_back({system, name, filter});
    };
    for (const CaptureConfig::Event& e : asked) {
        matched = false;
        const bool bare = e.name.empty(); // no colon: a system, or an event of any system
        const std::string systemPattern = bare && e.system == "all" ? "*" : e.system;
        for (const std::string& system : systems) {
            if (!matches(systemPattern, system)) continue;
            if (bare || e.name == "*") {
                add(system, "", e.filter);
                continue;
            }
            for (const std::string& name : events(system))
                if (matches(e.name, name)) add(system, name, e.filter);
        }
        if (bare && !matched)
            for (const std::string& system : systems)
                for (const std::string& name : events(system))
                    if (matches(e.system, name)) add(system, name, e.filter);
        if (!matched) {
            const std::string label = e.system + (bare ? "" : ":" + e.name);
            return Error{"event " + label + " is not in this kernel"};
        }
    }
    return out;
}

TracefsCapture::~TracefsCapture()
{
    for (tracefs_cpu* cpu : m_cpus)
        if (cpu) tracefs_cpu_close(cpu);
    if (m_instance) {
        tracefs_trace_off(m_instance);
        tracefs_instance_destroy(m_instance);
        tracefs_instance_free(m_instance);
    }
    // Put back unless someone changed it since (another capture, the user).
    if (!m_restoreGraphDepth.empty() && trimmed(instanceText(nullptr, "max_graph_depth")) == m_graphDepthWritten)
        tracefs_instance_file_write(nullptr, "max_graph_depth", m_restoreGraphDepth.c_str());
}

size_t TracefsCapture::readPages(const std::function<void(int cpu, const void* data, size_t size)>& page)
{
    size_t pages = 0;
    for (size_t cpu = 0; cpu < m_cpus.size(); ++cpu) {
        if (!m_cpus[cpu]) continue;
        // A bounded number per CPU and call, so that one busy CPU does not starve the others.
        for (int k = 0; k < 1024; ++k) {
            const int n = tracefs_cpu_read(m_cpus[cpu], m_page.data(), true);
            if (n <= 0) break;
            page(int(cpu), m_page.data(), size_t(n));
            ++pages;
        }
    }
    return pages;
}

void TracefsCapture::ignoreTasks(std::vector<int> pids)
{
    std::sort(pids.begin(), pids.end());
    std::vector<int> added;
    std::set_difference(pids.begin(), pids.end(), m_ignored.begin(), m_ignored.end(), std::back_inserter(added));
    if (added.empty()) return;
    const bool first = m_ignored.empty();
    std::vector<int> all;
    std::merge(m_ignored.begin(), m_ignored.end(), added.begin(), added.end(), std::back_inserter(all));
    m_ignored = std::move(all);
    // Only ever added to: rewriting the list empties it first, and the tasks already in it
    // would be recorded until it is written again. (Tasks gone stay listed: their pids come
    // back only after the kernel's pids wrap.) Older kernels lack the file: then the
    // capture's own events are recorded too.
    const std::string list = pidList(added);
    if (first)
        tracefs_instance_file_write(m_instance, "set_event_notrace_pid", list.c_str());
    else
        tracefs_instance_file_append(m_instance, "set_event_notrace_pid", list.c_str());
}

void TracefsCapture::stop()
{
    tracefs_trace_off(m_instance);
}

std::string TracefsCapture::cpuStats(int cpu) const
{
    return instanceText(m_instance, ("per_cpu/cpu" + std::to_string(cpu) + "/stats").c_str());
}

void TracefsCapture::finishMetadata()
{
    auto dir = tracingDir();
    if (dir) m_metadata.cmdlines = readFile(*dir + "/saved_cmdlines");
    m_metadata.cpuStats.clear();
    for (int cpu = 0; cpu < m_metadata.cpus; ++cpu) m_metadata.cpuStats.push_back(cpuStats(cpu));
}

} // namespace ringside
