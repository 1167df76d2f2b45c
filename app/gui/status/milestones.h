// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

namespace ringside::milestones {

// The moments a user waits for as the window starts ("first-rows": a recording's first rows
// are in the views; "store-complete": all of them), printed once each to stderr as
// "ringside milestone NAME SECONDS" (from start()) when RINGSIDE_MILESTONES is set:
// bench/gui-keys.sh reads them. Costs one flag test otherwise. GUI thread only.
void start();
void reached(const char* name);

} // namespace ringside::milestones
