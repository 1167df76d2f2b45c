// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/callcontext.h"

#include "calls/callslices.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <cstring>

namespace ringside {

std::vector<std::string> functionNames(tep_handle* tep, const std::vector<uint64_t>& addresses)
{
    std::vector<std::string> names;
    names.reserve(addresses.size());
    for (uint64_t address : addresses) {
        const char* name = tep ? tep_find_function(tep, address) : nullptr;
        if (name) {
            names.emplace_back(name);
        } else {
            char hex[32];
            std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
            names.emplace_back(hex);
        }
    }
    return names;
}

namespace {

// What a syscall event is: which end, raw_syscalls or syscalls:sys_*_NAME.
struct SyscallEvent {
    bool exit = false;
    bool raw = false;
    std::string name;
};

std::optional<SyscallEvent> syscallEventOf(tep_event* event)
{
    if (!event) return std::nullopt;
    if (!std::strcmp(event->system, "raw_syscalls")) {
        if (!std::strcmp(event->name, "sys_exit")) return SyscallEvent{true, true, {}};
        if (!std::strcmp(event->name, "sys_enter")) return SyscallEvent{false, true, {}};
        return std::nullopt;
    }
    if (std::strcmp(event->system, "syscalls") != 0) return std::nullopt;
    if (!std::strncmp(event->name, "sys_exit_", 9)) return SyscallEvent{true, false, event->name + 9};
    if (!std::strncmp(event->name, "sys_enter_", 10)) return SyscallEvent{false, false, event->name + 10};
    return std::nullopt;
}

// A number field of a record, sign-extended from 4 bytes (ret and id are longs of the kernel).
std::optional<int64_t> numberField(tep_event* event, const RawRecord& raw, const char* name)
{
    tep_format_field* field = tep_find_field(event, name);
    if (!field) return std::nullopt;
    unsigned long long value = 0;
    if (tep_read_number_field(field, raw.data, &value) != 0) return std::nullopt;
    if (field->size == 4) return int64_t(int32_t(uint32_t(value)));
    return int64_t(value);
}

// The syscall's name: "execve", or "NR 59" for raw_syscalls, whose record says the number
// (read only for them).
std::string syscallName(const EventStore& store, tep_event* event, const SyscallEvent& kind, EventRef e,
                        const RawRecord* read = nullptr)
{
    if (!kind.raw) return kind.name;
    RawRecord raw;
    if (!read && !store.readRecord(e, raw, nullptr)) return "?";
    const std::optional<int64_t> id = numberField(event, read ? *read : raw, "id");
    return id ? "NR " + std::to_string(*id) : std::string("?");
}

bool hasCallsIn(const CallSlices& calls, int32_t pid, uint64_t from, uint64_t to)
{
    for (size_t i = 0; i < calls.size(); ++i)
        if (calls.pid(i) == pid && calls.start(i) >= from && calls.start(i) <= to) return true;
    return false;
}

} // namespace

std::optional<EventRef> callRecord(const Trace& trace, const CallSlices& calls, size_t call)
{
    if (call >= calls.size()) return std::nullopt;
    // An exit record is written a little after its rettime; 4096 rows is far past that.
    return trace.store().taskEventAt(calls.pid(call),
                                     (calls.flags(call) & kCallNoEntry) ? calls.end(call) : calls.start(call));
}

std::optional<SyscallExit> syscallExitAfter(const Trace& trace, int32_t pid, uint64_t time, uint64_t horizon)
{
    const EventStore& store = trace.store();
    const TaskId task = trace.taskIndex().taskAt(pid, time);
    if (!task.valid()) return std::nullopt;
    std::optional<SyscallExit> found;
    for (const TaskIndex::StreamRuns& runs : trace.taskIndex().streams(task)) {
        const CpuColumns& columns = store.stream(runs.stream).columns;
        for (uint64_t k = TaskIndex::countBefore(store, runs, time); k < runs.events(); ++k) {
            const EventRef e = TaskIndex::eventAt(runs, k);
            const uint64_t ts = columns.timestamp[e.index];
            if (ts > time + horizon || (found && ts >= found->timestamp)) break;
            const TepAccess tep = trace.tep(); // for this record only: views wait for the handle
            tep_event* event = tep_find_event(tep, columns.eventType[e.index]);
            const std::optional<SyscallEvent> kind = syscallEventOf(event);
            if (!kind || !kind->exit) continue;
            RawRecord raw;
            if (!store.readRecord(e, raw, nullptr)) continue;
            const std::optional<int64_t> ret = numberField(event, raw, "ret");
            if (!ret) continue;
            SyscallExit exit;
            exit.event = e;
            exit.timestamp = ts;
            exit.name = event->name;
            exit.ret = *ret;
            exit.number = numberField(event, raw, "id").value_or(-1);
            found = exit;
            break;
        }
    }
    return found;
}

std::optional<SyscallSpan> syscallEndedBy(const Trace& trace, EventRef exit)
{
    const EventStore& store = trace.store();
    const CpuColumns& columns = store.stream(exit.stream).columns;
    std::optional<TepAccess> tep(trace.tep());
    tep_event* event = tep_find_event(*tep, columns.eventType[exit.index]);
    const std::optional<SyscallEvent> kind = syscallEventOf(event);
    if (!kind || !kind->exit) return std::nullopt;
    SyscallSpan span;
    span.pid = columns.pid[exit.index];
    span.exit = columns.timestamp[exit.index];
    span.exitEvent = exit;
    RawRecord raw;
    if (!store.readRecord(exit, raw, nullptr)) return std::nullopt;
    span.ret = numberField(event, raw, "ret").value_or(0);
    span.name = syscallName(store, event, *kind, exit, &raw);
    span.enter = store.firstTimestamp();
    tep.reset(); // taken again for each event of the task: the scan may be long
    // Back through the task's events to its sys_enter; another syscall's end means the enter
    // was not recorded, and this one began after that.
    const size_t row = store.rowOf(exit);
    for (size_t k = 1; k <= row && k < 4000000; ++k) {
        const EventRef e = store.eventAt(row - k);
        const CpuColumns& c = store.stream(e.stream).columns;
        if (c.pid[e.index] != span.pid) continue;
        const TepAccess taken = trace.tep();
        tep_event* other = tep_find_event(taken, c.eventType[e.index]);
        const std::optional<SyscallEvent> otherKind = syscallEventOf(other);
        if (!otherKind || otherKind->raw != kind->raw) continue;
        if (otherKind->exit) {
            span.enter = c.timestamp[e.index];
            break;
        }
        if (syscallName(store, other, *otherKind, e) == span.name) {
            span.enter = c.timestamp[e.index];
            span.enterSeen = true;
            break;
        }
    }
    return span;
}

std::optional<SyscallSpan> similarSucceededSyscall(const Trace& trace, const SyscallSpan& failed)
{
    const EventStore& store = trace.store();
    const uint16_t type = store.stream(failed.exitEvent.stream).columns.eventType[failed.exitEvent.index];
    const size_t at = store.rowOf(failed.exitEvent);
    auto candidate = [&](size_t row) -> std::optional<SyscallSpan> {
        const EventRef e = store.eventAt(row);
        if (store.stream(e.stream).columns.eventType[e.index] != type) return std::nullopt;
        std::optional<SyscallSpan> span = syscallEndedBy(trace, e);
        if (!span || span->ret < 0 || span->name != failed.name) return std::nullopt;
        if (!hasCallsIn(trace.callSlices(), span->pid, span->enter, span->exit)) return std::nullopt;
        return span;
    };
    for (size_t row = at; row-- > 0;)
        if (auto span = candidate(row)) return span;
    for (size_t row = at + 1; row < store.eventCount(); ++row)
        if (auto span = candidate(row)) return span;
    return std::nullopt;
}

} // namespace ringside
