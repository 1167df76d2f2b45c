// SPDX-License-Identifier: GPL-2.0-or-later
// The power plugin as a loadable module.
#include "powerplugin.h"

RINGSIDE_PLUGIN(ringside::power::PowerPlugin)
