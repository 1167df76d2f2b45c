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

// A system call's end: the event that reported its return value.
struct SyscallExit {
    EventRef event;
    uint64_t timestamp = 0;
    std::string name; // the event's name: sys_exit_execve, or sys_exit for raw_syscalls
    int64_t ret = 0;
    int64_t number = -1; // raw_syscalls' id, -1 for syscalls:sys_exit_*
};

// The first sys_exit event of `pid` at or after `time` (within `horizon` ns): given a kernel
// call's start, where the system call it ran in reported its result (no other system call of
// the task can end inside the call). Not its end: rettime - calltime of a call that migrated
// mixes two CPUs' clocks and may reach past the exit. Takes the tep handle record by record.
std::optional<SyscallExit> syscallExitAfter(const Trace& trace, int32_t pid, uint64_t time,
                                            uint64_t horizon = 1000000000);

// A system call as the recording shows it: from its sys_enter event (or, without one, the
// task's previous sys_exit) to its sys_exit event, with what it returned.
struct SyscallSpan {
    int32_t pid = 0;
    uint64_t enter = 0; // when it began (its sys_enter, or the earliest time it can have)
    uint64_t exit = 0;  // its sys_exit's time
    EventRef exitEvent;
    std::string name; // "execve", or "NR 59" for raw_syscalls without a name
    int64_t ret = 0;
    bool enterSeen = false;
};

// The system call that `exit` (a syscalls:sys_exit_* or raw_syscalls:sys_exit event) ends;
// nullopt for other events. Takes the tep handle record by record.
std::optional<SyscallSpan> syscallEndedBy(const Trace& trace, EventRef exit);

// Another call of the same system call that succeeded (returned >= 0) and ran kernel calls
// the recording has: the nearest one before `failed`, else the nearest after. Takes the tep
// handle record by record.
std::optional<SyscallSpan> similarSucceededSyscall(const Trace& trace, const SyscallSpan& failed);

} // namespace ringside
