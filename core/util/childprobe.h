// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ringside {

// Runs steps that may crash or hang (code Ringside does not own, fed untrusted input) in a
// child process first, and hands each one the child survived to the caller to run in its own
// process. The caller's work on step i overlaps the child's on step i+1, so the check costs
// little more than starting the child on a machine with a core to spare.
struct ChildProbe {
    // How a child says how far it got: a step counter in memory shared with the caller, which
    // reads it exactly after a crash, and a pipe it writes to now and then to wake the caller
    // (a byte per step woke the caller for every step: ~1000 wake-ups cost a 0.1 s open 50%).
    struct Channel {
        int wakeFd = -1;
        int progressFd = -1; // a memfd holding the counter
    };
    // The child's side of a Channel.
    class Reporter {
    public:
        // Maps the counter; false if it cannot.
        bool attach(const Channel& channel);
        // One more step done (from `from` on); false if the caller is gone.
        bool stepDone();

    private:
        int m_wakeFd = -1;
        void* m_counter = nullptr;
        uint64_t m_done = 0;
    };

    // Starts a child that runs steps 0..count-1 in order, leaving out `skip`: those before
    // `from` silently, then reports each one from `from` on through a Reporter attached to
    // `channel`. Returns the child's pid, or -1 if none could be started.
    using Start = std::function<pid_t(const Channel& channel, size_t from, const std::vector<size_t>& skip)>;

    // A forked copy of the caller runs `setup`, then `step(i)`. Simple, but while it lives
    // every page the caller writes is copied, which is slow in a process with many threads.
    static Start forking(std::function<void()> setup, std::function<void(size_t)> step, size_t count);
    // `program FROM [SKIP...]` is started with `inputFd` as its fd 3, the wake-up pipe as its
    // stdout and the progress counter as its fd 4 (Channel{1, 4}): no other memory is shared.
    static Start spawning(std::string program, int inputFd);

    Start start;
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
