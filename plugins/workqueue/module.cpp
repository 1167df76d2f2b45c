// SPDX-License-Identifier: GPL-2.0-or-later
// The workqueue plugin as a loadable module.
#include "workqueueplugin.h"

RINGSIDE_PLUGIN(ringside::workqueue::WorkqueuePlugin)
