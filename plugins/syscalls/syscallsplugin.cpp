// SPDX-License-Identifier: GPL-2.0-or-later
#include "syscallsplugin.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ringside::syscalls {

namespace {

// The requests, in this order.
enum Request : size_t { kRawEnter, kRawExit, kEnter, kExit, kEnterOld, kExitOld, kRequests };

constexpr const char* kEnterPrefix = "sys_enter_";
constexpr const char* kExitPrefix = "sys_exit_";

} // namespace

std::string SyscallsPlugin::description() const
{
    return "System calls as slices on the task rows, failures by errno name, statistics per system call and task";
}

std::vector<EventRequest> SyscallsPlugin::requests() const
{
    return {
        {"raw_syscalls", "sys_enter", {"id"}, false},
        {"raw_syscalls", "sys_exit", {"id", "ret"}, false},
        {"syscalls", kEnterPrefix, {"__syscall_nr"}, true},
        {"syscalls", kExitPrefix, {"__syscall_nr", "ret"}, true},
        // Kernels before 5.x name the number field "nr".
        {"syscalls", kEnterPrefix, {"nr"}, true},
        {"syscalls", kExitPrefix, {"nr", "ret"}, true},
    };
}

void SyscallsPlugin::setRecording(const RecordingInfo& info)
{
    m_arch = architectureOf(info.machine);
    m_eventName = info.eventName;
}

void SyscallsPlugin::bind(const std::vector<bool>& bound)
{
    m_bound = bound;
}

uint32_t SyscallsPlugin::nameId(const std::string& name)
{
    auto [it, added] = m_nameIds.try_emplace(name, uint32_t(m_names.size()));
    if (added) m_names.push_back(name);
    return it->second;
}

uint32_t SyscallsPlugin::numberName(int64_t number)
{
    if (number < 0 || number >= 4096) return nameId(syscallName(m_arch, number));
    if (m_numberNames.empty()) m_numberNames.assign(4096, -1);
    int64_t& id = m_numberNames[size_t(number)];
    if (id < 0) id = nameId(syscallName(m_arch, number));
    return uint32_t(id);
}

int64_t SyscallsPlugin::nameOfEvent(uint16_t type, const char* prefix)
{
    auto [it, added] = m_eventNames.try_emplace(type, -1);
    if (added && m_eventName) {
        const std::string event = m_eventName(type);
        const std::string p = prefix;
        if (event.size() > p.size() && event.compare(0, p.size(), p) == 0) it->second = nameId(event.substr(p.size()));
    }
    return it->second;
}

SyscallsPlugin::TaskState& SyscallsPlugin::taskOf(const ConsumedRecord& record)
{
    // Records of one CPU mostly come from the task running there: one lookup per switch.
    if (record.stream.value >= m_lastTask.size()) m_lastTask.resize(record.stream.value + 1u, {-1, nullptr});
    auto& [pid, state] = m_lastTask[record.stream.value];
    if (pid != record.pid || !state) {
        pid = record.pid;
        state = &m_tasks[record.pid]; // nodes of an unordered_map never move
    }
    return *state;
}

int SyscallsPlugin::cpuOf(StreamId stream) const
{
    return stream.value < m_streams.size() ? m_streams[stream.value].cpu : -1;
}

void SyscallsPlugin::consume(const ConsumedRecord& record)
{
    switch (record.request) {
    case kRawEnter: enter(record, record.field(0).asSigned(), -1); break;
    case kRawExit: exit(record, record.field(0).asSigned(), record.field(1).asSigned(), -1); break;
    case kEnter:
    case kEnterOld: enter(record, record.field(0).asSigned(), nameOfEvent(record.type, kEnterPrefix)); break;
    case kExit:
    case kExitOld:
        exit(record, record.field(0).asSigned(), record.field(1).asSigned(), nameOfEvent(record.type, kExitPrefix));
        break;
    default: break;
    }
}

void SyscallsPlugin::enter(const ConsumedRecord& record, int64_t number, int64_t nameFromEvent)
{
    TaskState& task = taskOf(record);
    if (task.open >= 0) {
        Call& open = m_calls[size_t(task.open)];
        // The same entry seen through the other kind of event (raw_syscalls and syscalls).
        if (open.number == number) {
            if (nameFromEvent >= 0) open.name = uint32_t(nameFromEvent);
            return;
        }
        // A call that never returned (exit_group, or its exit was lost) stays open.
    }
    Call call;
    call.enter = call.exit = record.timestamp;
    call.pid = record.pid;
    call.cpu = int16_t(cpuOf(record.stream));
    call.number = int32_t(number);
    call.name = nameFromEvent >= 0 ? uint32_t(nameFromEvent) : numberName(number);
    call.enterSeen = true;
    task.open = int64_t(m_calls.size());
    task.lastExited = -1;
    m_calls.push_back(call);
}

void SyscallsPlugin::exit(const ConsumedRecord& record, int64_t number, int64_t ret, int64_t nameFromEvent)
{
    TaskState& task = taskOf(record);
    if (task.open < 0 && task.lastExited >= 0 && m_calls[size_t(task.lastExited)].number == number) {
        // The same return seen through the other kind of event.
        if (nameFromEvent >= 0) m_calls[size_t(task.lastExited)].name = uint32_t(nameFromEvent);
        return;
    }
    // rt_sigreturn (and a call whose number a tracer changed) returns as NR -1: it ends the
    // call that was entered.
    const bool matches = task.open >= 0 && (m_calls[size_t(task.open)].number == number || number < 0);
    if (!matches) {
        // Entered before the recording began (or its entry was not recorded).
        Call call;
        call.enter = record.timestamp;
        call.pid = record.pid;
        call.number = int32_t(number);
        call.name = nameFromEvent >= 0 ? uint32_t(nameFromEvent) : numberName(number);
        task.open = int64_t(m_calls.size());
        m_calls.push_back(call);
    }
    Call& call = m_calls[size_t(task.open)];
    call.exit = record.timestamp;
    call.cpu = int16_t(cpuOf(record.stream));
    call.ret = ret;
    call.exitSeen = true;
    if (nameFromEvent >= 0) call.name = uint32_t(nameFromEvent);
    task.lastExited = task.open;
    task.open = -1;
}

std::string SyscallsPlugin::nothingToShow() const
{
    if (!m_calls.empty()) return {};
    const bool anyBound = std::find(m_bound.begin(), m_bound.end(), true) != m_bound.end();
    return anyBound ? "the recording's raw_syscalls and syscalls events have no records"
                    : "the recording has no raw_syscalls or syscalls events";
}

PluginTables SyscallsPlugin::tables(const RecordingInfo& info) const
{
    PluginTables out;
    SliceTable slices;
    slices.name = "System calls";
    slices.labels = m_names;
    slices.start.reserve(m_calls.size()), slices.end.reserve(m_calls.size()), slices.ownerId.reserve(m_calls.size()),
        slices.depth.reserve(m_calls.size()), slices.label.reserve(m_calls.size()),
        slices.value.reserve(m_calls.size()), slices.flags.reserve(m_calls.size());
    for (const Call& c : m_calls) {
        uint8_t flags = c.failed() ? SliceTable::kError : 0;
        if (!c.exitSeen) flags |= SliceTable::kOpen;
        slices.add(c.enter, c.exit, c.pid, 0, c.name, c.ret, flags);
    }
    out.slices.push_back(std::move(slices));

    auto comm = [&](int32_t pid) { return info.taskName ? info.taskName(pid) : std::string(); };
    // Per system call and per task, in name and pid order.
    struct Sums {
        int64_t calls = 0, errors = 0;
        uint64_t total = 0, max = 0, timed = 0;
        StatsTable::Counts byErrno;
        void add(const Call& c)
        {
            ++calls;
            if (c.enterSeen && c.exitSeen) total += c.duration(), max = std::max(max, c.duration()), ++timed;
            if (!c.failed()) return;
            ++errors;
            const std::string name = errnoName(c.ret);
            auto it = std::find_if(byErrno.begin(), byErrno.end(), [&](const auto& e) { return e.first == name; });
            if (it == byErrno.end())
                byErrno.emplace_back(name, 1);
            else
                ++it->second;
        }
    };
    // Summed by ids (millions of calls), sorted by name and pid once at the end.
    std::vector<Sums> perName(m_names.size());
    std::unordered_map<int32_t, Sums> perTask;
    std::unordered_map<uint64_t, Sums> perTaskCall; // by pid << 32 | name id
    auto taskCallKey = [](int32_t pid, uint32_t name) { return uint64_t(uint32_t(pid)) << 32 | name; };
    StatsTable failures{"failures", "Failed system calls", {}, {}};
    failures.columns = {
        {"time", "Time (ns)"},   {"cpu", "CPU"},      {"pid", "PID"},     {"comm", "Task"},
        {"name", "System call"}, {"ret", "Returned"}, {"errno", "Error"}, {"duration_ns", "Duration (ns)"}};
    // Failures by (system call, errno).
    std::map<std::pair<std::string, std::string>, std::pair<int64_t, uint64_t>> groups;
    for (const Call& c : m_calls) {
        perName[c.name].add(c);
        perTask[c.pid].add(c);
        perTaskCall[taskCallKey(c.pid, c.name)].add(c);
        if (!c.failed()) continue;
        failures.rows.push_back({c.exit, int64_t(c.cpu), int64_t(c.pid), comm(c.pid), m_names[c.name], c.ret,
                                 errnoName(c.ret), c.duration()});
        auto& group = groups[{m_names[c.name], errnoName(c.ret)}];
        ++group.first;
        group.second += c.duration();
    }
    StatsTable bySyscall{"syscalls", "System calls", {}, {}};
    bySyscall.columns = {{"name", "System call"},    {"calls", "Calls"},         {"errors", "Errors"},
                         {"total_ns", "Total (ns)"}, {"avg_ns", "Average (ns)"}, {"max_ns", "Max (ns)"}};
    std::vector<uint32_t> byName;
    for (uint32_t id = 0; id < perName.size(); ++id)
        if (perName[id].calls) byName.push_back(id);
    std::sort(byName.begin(), byName.end(), [&](uint32_t a, uint32_t b) { return m_names[a] < m_names[b]; });
    for (uint32_t id : byName) {
        const Sums& s = perName[id];
        bySyscall.rows.push_back(
            {m_names[id], s.calls, s.byErrno, s.total, s.timed ? s.total / s.timed : uint64_t(0), s.max});
    }
    StatsTable byTask{"tasks", "System calls per task", {}, {}};
    byTask.columns = {
        {"pid", "PID"}, {"comm", "Task"}, {"calls", "Calls"}, {"errors", "Errors"}, {"total_ns", "Total (ns)"}};
    std::vector<int32_t> pids;
    for (const auto& entry : perTask) pids.push_back(entry.first);
    std::sort(pids.begin(), pids.end());
    for (int32_t pid : pids) {
        const Sums& s = perTask[pid];
        byTask.rows.push_back({int64_t(pid), comm(pid), s.calls, s.errors, s.total});
    }
    StatsTable byTaskCall{"task_syscalls", "System calls per task and system call", {}, {}};
    byTaskCall.columns = {{"pid", "PID"},       {"comm", "Task"},           {"name", "System call"}, {"calls", "Calls"},
                          {"errors", "Errors"}, {"total_ns", "Total (ns)"}, {"max_ns", "Max (ns)"}};
    std::vector<std::pair<int32_t, uint32_t>> taskCalls; // in pid and name order
    for (const auto& entry : perTaskCall) taskCalls.emplace_back(int32_t(entry.first >> 32), uint32_t(entry.first));
    std::sort(taskCalls.begin(), taskCalls.end(), [&](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : m_names[a.second] < m_names[b.second];
    });
    for (const auto& [pid, name] : taskCalls) {
        const Sums& s = perTaskCall[taskCallKey(pid, name)];
        byTaskCall.rows.push_back({int64_t(pid), comm(pid), m_names[name], s.calls, s.byErrno, s.total, s.max});
    }
    StatsTable grouped{"failure_groups", "Failures by system call and error", {}, {}};
    grouped.columns = {{"name", "System call"}, {"errno", "Error"}, {"count", "Failures"}, {"total_ns", "Total (ns)"}};
    for (const auto& [key, value] : groups) grouped.rows.push_back({key.first, key.second, value.first, value.second});
    out.statistics.push_back(std::move(bySyscall));
    out.statistics.push_back(std::move(grouped));
    out.statistics.push_back(std::move(failures));
    out.statistics.push_back(std::move(byTask));
    out.statistics.push_back(std::move(byTaskCall));
    return out;
}

} // namespace ringside::syscalls
