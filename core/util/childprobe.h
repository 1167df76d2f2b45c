// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace ringside {

// Runs steps that may crash or hang (code Ringside does not own, fed untrusted input) in a
// forked child first, and hands each one the child survived to the caller to run in its own
// process. The caller's work on step i overlaps the child's on step i+1, so the check costs
// little more than a fork on a machine with a core to spare.
struct ChildProbe {
    // Called once in the child before the steps (e.g. to build the state they work on).
    std::function<void()> setup;
    // Step i, in the child. Steps run in order; a later one may depend on the earlier ones.
    std::function<void(size_t)> step;
    size_t count = 0;
    // A step that makes no progress for this long is taken as a hang.
    std::chrono::milliseconds stepTimeout{5000};
    // Past this many unsafe steps the input is taken as garbage: see Outcome::gaveUp.
    size_t maxUnsafe = 32;

    struct Outcome {
        std::vector<size_t> crashed; // killed the child (signal or abnormal exit)
        std::vector<size_t> hung;    // ran longer than stepTimeout
        bool probed = false;         // false: no child could be started, `safe` was not called
        bool gaveUp = false;         // more than maxUnsafe; the steps after the last one found were not run
    };

    // Calls `safe(i)`, in order, for every step that a child finished. A child that crashes or
    // hangs on a step is replaced by one that replays the steps found safe, leaves that step
    // out and goes on with the rest.
    Outcome run(const std::function<void(size_t)>& safe) const;
};

} // namespace ringside
