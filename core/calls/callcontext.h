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
// mixes two CPUs' clocks and may reach past the exit. Uses the tep handle: one thread.
std::optional<SyscallExit> syscallExitAfter(const Trace& trace, int32_t pid, uint64_t time,
                                            uint64_t horizon = 1000000000);

} // namespace ringside
