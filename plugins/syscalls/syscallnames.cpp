// SPDX-License-Identifier: GPL-2.0-or-later
#include "syscalltables.h"

#include "util/errnonames.h"

#include <algorithm>
#include <cstring>

namespace ringside::syscalls {

Architecture architectureOf(std::string_view machine)
{
    if (machine == "x86_64" || machine == "amd64") return Architecture::X86_64;
    if (machine == "aarch64" || machine == "arm64") return Architecture::Arm64;
    if (machine.size() == 4 && machine[0] == 'i' && machine.substr(2) == "86") return Architecture::I386;
    if (machine.substr(0, 3) == "arm") return Architecture::Arm;
    return Architecture::Unknown;
}

std::span<const SyscallName> syscallTable(Architecture arch)
{
    switch (arch) {
    case Architecture::X86_64: return kX86_64Names;
    case Architecture::I386: return kI386Names;
    case Architecture::Arm64: return kArm64Names;
    case Architecture::Arm: return kArmNames;
    case Architecture::Unknown: break;
    }
    return {};
}

std::string syscallName(Architecture arch, int64_t number)
{
    const std::span<const SyscallName> table = syscallTable(arch);
    const auto it = std::lower_bound(table.begin(), table.end(), number,
                                     [](const SyscallName& s, int64_t n) { return s.number < n; });
    if (it != table.end() && it->number == number) return it->name;
    return "NR " + std::to_string(number);
}

std::string errnoName(int64_t ret)
{
    // The kernel returns -1 ... -4095 for errors.
    if (ret >= 0 || ret < -4095) return {};
    const char* name = kernelErrnoName(ret);
    return name ? name : "errno " + std::to_string(-ret);
}

} // namespace ringside::syscalls
