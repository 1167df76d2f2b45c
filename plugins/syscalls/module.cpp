// SPDX-License-Identifier: GPL-2.0-or-later
// The syscalls plugin as a loadable module.
#include "syscallsplugin.h"

RINGSIDE_PLUGIN(ringside::syscalls::SyscallsPlugin)
