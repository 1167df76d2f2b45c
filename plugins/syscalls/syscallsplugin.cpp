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
    // A system call's number is an int kept in a long: 4 bytes of it are the number.
    return {
        {"raw_syscalls", "sys_enter", {"id"}, false, {4}},
        {"raw_syscalls", "sys_exit", {"id", "ret"}, false, {4}},
        {"syscalls", kEnterPrefix, {"__syscall_nr"}, true, {4}},
        {"syscalls", kExitPrefix, {"__syscall_nr", "ret"}, true, {4}},
        // Kernels before 5.x name the number field "nr".
        {"syscalls", kEnterPrefix, {"nr"}, true, {4}},
        {"syscalls", kExitPrefix, {"nr", "ret"}, true, {4}},
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

uint16_t SyscallsPlugin::nameId(const std::string& name)
{
    constexpr size_t kMostNames = (1 << 14) - 1;
    auto found = m_nameIds.find(name);
    if (found != m_nameIds.end()) return found->second;
    if (m_names.size() + 1 >= kMostNames) return nameId("(other system calls)");
    m_names.push_back(name);
    return m_nameIds.emplace(name, uint16_t(m_names.size() - 1)).first->second;
}

uint16_t SyscallsPlugin::numberName(int64_t number)
{
    if (number < 0 || number >= 4096) return nameId(syscallName(m_arch, number));
    if (m_numberNames.empty()) m_numberNames.assign(4096, -1);
    int64_t& id = m_numberNames[size_t(number)];
    if (id < 0) id = nameId(syscallName(m_arch, number));
    return uint16_t(id);
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

namespace {

constexpr uint64_t kWide48 = (uint64_t(1) << 48) - 1; // a stored time kept aside
constexpr int64_t kWideReturn = -(int64_t(1) << 47);  // a stored return kept aside
constexpr uint32_t kWideDuration = UINT32_MAX;

void put48(uint64_t value, uint32_t& low, uint16_t& high)
{
    low = uint32_t(value), high = uint16_t(value >> 32);
}
uint64_t get48(uint32_t low, uint16_t high)
{
    return uint64_t(high) << 32 | low;
}

} // namespace

void SyscallsPlugin::setCpu(StoredCall& call, StreamId stream) const
{
    const int cpu = cpuOf(stream);
    call.cpuPlusOne = cpu >= 0 && cpu < UINT16_MAX ? uint16_t(cpu + 1) : 0;
}

void SyscallsPlugin::setEnter(size_t call, uint64_t enter)
{
    StoredCall& c = m_calls[call];
    const uint64_t sinceFirst = enter - m_firstEnter;
    if (enter >= m_firstEnter && sinceFirst < kWide48) {
        put48(sinceFirst, c.enterLow, c.enterHigh);
        return;
    }
    put48(kWide48, c.enterLow, c.enterHigh);
    m_wideEnters.set(call, enter);
}

uint64_t SyscallsPlugin::enterOf(size_t call) const
{
    const StoredCall& c = m_calls[call];
    const uint64_t sinceFirst = get48(c.enterLow, c.enterHigh);
    return sinceFirst == kWide48 ? *m_wideEnters.find(call) : m_firstEnter + sinceFirst;
}

void SyscallsPlugin::setExit(size_t call, uint64_t exit)
{
    StoredCall& c = m_calls[call];
    const uint64_t duration = exit - enterOf(call);
    if (duration < kWideDuration) {
        c.duration = uint32_t(duration);
        return;
    }
    c.duration = kWideDuration;
    m_wideDurations.set(call, duration);
}

void SyscallsPlugin::setReturn(size_t call, int64_t ret)
{
    StoredCall& c = m_calls[call];
    if (ret > kWideReturn && ret < -kWideReturn) {
        put48(uint64_t(ret), c.returnLow, c.returnHigh);
        return;
    }
    put48(uint64_t(kWideReturn), c.returnLow, c.returnHigh);
    m_wideReturns.set(call, uint64_t(ret));
}

int64_t SyscallsPlugin::returnOf(size_t call) const
{
    const StoredCall& c = m_calls[call];
    // Sign-extend the 48 bits.
    const int64_t ret = int64_t(get48(c.returnLow, c.returnHigh) << 16) >> 16;
    return ret == kWideReturn ? int64_t(*m_wideReturns.find(call)) : ret;
}

SyscallsPlugin::Call SyscallsPlugin::call(size_t i) const
{
    const StoredCall& s = m_calls[i];
    Call c;
    c.enter = enterOf(i);
    c.exit = c.enter + (s.duration == kWideDuration ? *m_wideDurations.find(i) : s.duration);
    c.ret = returnOf(i);
    c.pid = s.pid;
    c.name = s.name;
    c.cpu = int(s.cpuPlusOne) - 1;
    c.enterSeen = s.enterSeen;
    c.exitSeen = s.exitSeen;
    return c;
}

size_t SyscallsPlugin::addCall(const ConsumedRecord& record, uint16_t name)
{
    if (m_calls.empty()) m_firstEnter = record.timestamp;
    StoredCall call;
    call.pid = record.pid;
    call.name = name & 0x3fff;
    const size_t index = m_calls.size();
    m_calls.push_back(call);
    setEnter(index, record.timestamp);
    return index;
}

void SyscallsPlugin::enter(const ConsumedRecord& record, int64_t number, int64_t nameFromEvent)
{
    TaskState& task = taskOf(record);
    if (task.open >= 0) {
        // The same entry seen through the other kind of event (raw_syscalls and syscalls).
        if (task.openNumber == number) {
            if (nameFromEvent >= 0) m_calls[size_t(task.open)].name = uint16_t(nameFromEvent);
            return;
        }
        // A call that never returned (exit_group, or its exit was lost) stays open.
    }
    const size_t index = addCall(record, nameFromEvent >= 0 ? uint16_t(nameFromEvent) : numberName(number));
    StoredCall& call = m_calls[index];
    setCpu(call, record.stream);
    call.enterSeen = 1;
    task.open = int64_t(index);
    task.openNumber = number;
    task.lastExited = -1;
}

void SyscallsPlugin::exit(const ConsumedRecord& record, int64_t number, int64_t ret, int64_t nameFromEvent)
{
    TaskState& task = taskOf(record);
    if (task.open < 0 && task.lastExited >= 0 && task.lastExitedNumber == number) {
        // The same return seen through the other kind of event.
        if (nameFromEvent >= 0) m_calls[size_t(task.lastExited)].name = uint16_t(nameFromEvent);
        return;
    }
    // rt_sigreturn (and a call whose number a tracer changed) returns as NR -1: it ends the
    // call that was entered.
    const bool matches = task.open >= 0 && (task.openNumber == number || number < 0);
    if (!matches) {
        // Entered before the recording began (or its entry was not recorded).
        task.open = int64_t(addCall(record, nameFromEvent >= 0 ? uint16_t(nameFromEvent) : numberName(number)));
        task.openNumber = number;
    }
    const size_t index = size_t(task.open);
    StoredCall& call = m_calls[index];
    setCpu(call, record.stream);
    call.exitSeen = 1;
    if (nameFromEvent >= 0) call.name = uint16_t(nameFromEvent);
    setReturn(index, ret);
    setExit(index, record.timestamp);
    task.lastExited = task.open;
    task.lastExitedNumber = task.openNumber;
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
    for (size_t i = 0; i < m_calls.size(); ++i) {
        const Call c = call(i);
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
    for (size_t i = 0; i < m_calls.size(); ++i) {
        const Call c = call(i);
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
