// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/ids.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct tep_handle;

namespace ringside {

class Trace;

// The names of kernel function addresses as trace-cmd prints them (%ps: the symbol, no
// offset), or the address in hex where kallsyms has none. Uses the tep handle: one thread.
std::vector<std::string> functionNames(tep_handle* tep, const std::vector<uint64_t>& addresses);

class CallSlices;

// The record a call came from: its funcgraph_entry, or its exit when the entry was not
// recorded (the first event of its task at that time); nullopt when the store has none.
std::optional<EventRef> callRecord(const Trace& trace, const CallSlices& calls, size_t call);

// System calls as an analysis paired them (the slice table it declares as system calls,
// SliceTableSpec::systemCalls: the syscalls plugin's): the one pairing of entries and
// returns, named as it names them. Without that analysis (the plugin off) or
// before it reached a call, these find nothing.

// Whether the trace has the syscalls analysis's table to look in.
bool hasSyscallTable(const Trace& trace);

// A system call as the syscalls analysis paired it: from its entry (or, without one, the
// earliest it can have begun) to the event that reported its return value.
struct SyscallSpan {
    int32_t pid = 0;
    uint64_t enter = 0; // when it began
    uint64_t exit = 0;  // when it returned
    EventRef exitEvent;
    std::string name; // "execve"
    int64_t ret = 0;
    bool enterSeen = false;
};

// The system call `exit` (a return event: raw_syscalls or syscalls:sys_exit_*) ended.
std::optional<SyscallSpan> syscallEndedBy(const Trace& trace, EventRef exit);

// Given a kernel call's start: the system call of `pid` it ran in, which returned at or after
// `time` (within `horizon` ns). Not the kernel call's end: rettime - calltime of a call that
// migrated mixes two CPUs' clocks and may reach past the return.
std::optional<SyscallSpan> syscallAround(const Trace& trace, int32_t pid, uint64_t time,
                                         uint64_t horizon = 1000000000);

// Another call of the same system call that succeeded (returned >= 0) and ran kernel calls
// the recording has: the nearest one before `failed`, else the nearest after.
std::optional<SyscallSpan> similarSucceededSyscall(const Trace& trace, const SyscallSpan& failed);

} // namespace ringside
