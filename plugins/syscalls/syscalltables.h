// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ringside::syscalls {

enum class Architecture { Unknown, X86_64, I386, Arm64, Arm };

struct SyscallName {
    int number;
    const char* name;
};

// The machine a recording names in its uname (x86_64, i686, aarch64, armv7l ...).
Architecture architectureOf(std::string_view machine);
// Sorted by number; generated from the kernel's headers (syscalltable_ARCH.cpp, one each).
extern const std::span<const SyscallName> kX86_64Names, kI386Names, kArm64Names, kArmNames;
std::span<const SyscallName> syscallTable(Architecture arch);
// "read" for 0 on x86_64; "NR 1234" for a number the table lacks.
std::string syscallName(Architecture arch, int64_t number);
// "E2BIG" for -7; empty when `ret` is not a negative errno value.
std::string errnoName(int64_t ret);

} // namespace ringside::syscalls
