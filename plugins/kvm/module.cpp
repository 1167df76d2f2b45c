// SPDX-License-Identifier: GPL-2.0-or-later
// The kvm plugin as a loadable module.
#include "kvmplugin.h"

RINGSIDE_PLUGIN(ringside::kvm::KvmPlugin)
