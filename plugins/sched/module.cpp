// SPDX-License-Identifier: GPL-2.0-or-later
// The sched plugin as a loadable module.
#include "schedplugin.h"

RINGSIDE_PLUGIN(ringside::sched::SchedPlugin)
