// SPDX-License-Identifier: GPL-2.0-or-later
#include "util/childprobe.h"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ringside {

namespace {

enum class ChildEnd { Finished, Crashed, Hung, ForkFailed };

// The child: no core files, no messages (the caller repeats the safe steps and says what they
// say). Replays `replay` silently, then writes one byte on `fd` after each step of `steps`.
[[noreturn]] void runChild(const ChildProbe& probe, const std::vector<size_t>& replay, const std::vector<size_t>& steps,
                           int fd)
{
    const rlimit noCore{0, 0};
    setrlimit(RLIMIT_CORE, &noCore);
    // The caller's crash handlers (a test framework's, a sanitizer's) must not run here: a
    // crashing step ends the child, which is what the parent watches for.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) signal(sig, SIG_DFL);
    if (int null = open("/dev/null", O_WRONLY); null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    if (probe.setup) probe.setup();
    for (size_t step : replay) probe.step(step);
    const char done = 1;
    for (size_t step : steps) {
        probe.step(step);
        if (write(fd, &done, 1) != 1) _exit(3);
    }
    _exit(0);
}

// Runs `steps` in one child, calling `safe` as they finish; `*completed` counts them.
ChildEnd runOnce(const ChildProbe& probe, const std::vector<size_t>& replay, const std::vector<size_t>& steps,
                 const std::function<void(size_t)>& safe, size_t* completed)
{
    *completed = 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return ChildEnd::ForkFailed;
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return ChildEnd::ForkFailed;
    }
    if (pid == 0) {
        close(fds[0]);
        runChild(probe, replay, steps, fds[1]);
    }
    close(fds[1]);
    bool hung = false;
    const int timeout = static_cast<int>(probe.stepTimeout.count());
    for (;;) {
        pollfd pfd{fds[0], POLLIN, 0};
        // The replay gets the same patience per step as the steps themselves.
        const int wait =
            *completed == 0 ? timeout * static_cast<int>(1 + std::min<size_t>(replay.size(), 1000)) : timeout;
        const int ready = poll(&pfd, 1, wait);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            hung = true;
            kill(pid, SIGKILL);
            break;
        }
        char buffer[4096];
        const ssize_t got = read(fds[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; // the child ended
        for (ssize_t i = 0; i < got && *completed < steps.size(); ++i) safe(steps[(*completed)++]);
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (hung) return ChildEnd::Hung;
    if (*completed == steps.size() && WIFEXITED(status) && WEXITSTATUS(status) == 0) return ChildEnd::Finished;
    return ChildEnd::Crashed;
}

} // namespace

ChildProbe::Outcome ChildProbe::run(const std::function<void(size_t)>& safe) const
{
    Outcome outcome;
    std::vector<size_t> done, rest(count);
    for (size_t i = 0; i < count; ++i) rest[i] = i;
    while (!rest.empty()) {
        size_t completed = 0;
        const ChildEnd end = runOnce(*this, done, rest, safe, &completed);
        if (end == ChildEnd::ForkFailed) {
            if (!outcome.probed && done.empty()) return outcome;
            // Some steps are checked already: the rest cannot be, so they are left out.
            outcome.gaveUp = true;
            return outcome;
        }
        outcome.probed = true;
        if (end == ChildEnd::Finished) return outcome;
        done.insert(done.end(), rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(completed));
        rest.erase(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(completed));
        // A child that died after its last step (e.g. while exiting) blames no step.
        if (rest.empty()) return outcome;
        (end == ChildEnd::Hung ? outcome.hung : outcome.crashed).push_back(rest.front());
        rest.erase(rest.begin());
        if (outcome.crashed.size() + outcome.hung.size() > maxUnsafe) {
            outcome.gaveUp = true;
            return outcome;
        }
    }
    return outcome;
}

} // namespace ringside
