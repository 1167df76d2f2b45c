// SPDX-License-Identifier: GPL-2.0-or-later
#include "util/childprobe.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ringside {

namespace {

enum class ChildEnd { Finished, Crashed, Hung, ForkFailed };

// Runs the steps from `from` on in one child, calling `safe` as they finish; `*completed`
// counts them. `replayed`: how many steps the child runs silently first.
ChildEnd runOnce(const ChildProbe& probe, size_t from, const std::vector<size_t>& skip, size_t replayed,
                 const std::function<void(size_t)>& safe, size_t* completed)
{
    *completed = 0;
    const size_t steps = probe.count - from;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return ChildEnd::ForkFailed;
    const pid_t pid = probe.start(fds[1], from, skip);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return ChildEnd::ForkFailed;
    }
    bool hung = false;
    const int timeout = static_cast<int>(probe.stepTimeout.count());
    for (;;) {
        pollfd pfd{fds[0], POLLIN, 0};
        // The replay gets the same patience per step as the steps themselves.
        const int wait = *completed == 0 ? timeout * static_cast<int>(1 + std::min<size_t>(replayed, 1000)) : timeout;
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
        for (ssize_t i = 0; i < got && *completed < steps; ++i) safe(from + (*completed)++);
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (hung) return ChildEnd::Hung;
    if (*completed == steps && WIFEXITED(status) && WEXITSTATUS(status) == 0) return ChildEnd::Finished;
    return ChildEnd::Crashed;
}

} // namespace

ChildProbe::Start ChildProbe::forking(std::function<void()> setup, std::function<void(size_t)> step, size_t count)
{
    return [setup = std::move(setup), step = std::move(step), count](int reportFd, size_t from,
                                                                     const std::vector<size_t>& skip) -> pid_t {
        const pid_t pid = fork();
        if (pid != 0) return pid;
        // The child: no core files, no messages (the caller repeats the safe steps and says what
        // they say). The caller's crash handlers (a test framework's, a sanitizer's) must not run
        // here: a crashing step ends the child, which is what the parent watches for.
        const rlimit noCore{0, 0};
        setrlimit(RLIMIT_CORE, &noCore);
        for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) signal(sig, SIG_DFL);
        if (int null = open("/dev/null", O_WRONLY); null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        if (setup) setup();
        const char done = 1;
        for (size_t i = 0; i < count; ++i) {
            if (std::find(skip.begin(), skip.end(), i) != skip.end()) continue;
            step(i);
            if (i >= from && write(reportFd, &done, 1) != 1) _exit(3);
        }
        _exit(0);
    };
}

ChildProbe::Start ChildProbe::spawning(std::string program, int inputFd)
{
    return [program = std::move(program), inputFd](int reportFd, size_t from, const std::vector<size_t>& skip) {
        std::vector<std::string> args{program, std::to_string(from)};
        for (size_t i : skip) args.push_back(std::to_string(i));
        std::vector<char*> argv;
        for (std::string& arg : args) argv.push_back(arg.data());
        argv.push_back(nullptr);
        // dup2 onto the same number would keep close-on-exec: move the input out of the way.
        const int input = inputFd == 3 ? fcntl(inputFd, F_DUPFD_CLOEXEC, 10) : inputFd;
        if (input < 0) return pid_t(-1);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, reportFd, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, input, 3);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        pid_t pid = -1;
        if (posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ) != 0) pid = -1;
        posix_spawn_file_actions_destroy(&actions);
        if (input != inputFd) close(input);
        return pid;
    };
}

ChildProbe::Outcome ChildProbe::run(const std::function<void(size_t)>& safe) const
{
    Outcome outcome;
    size_t from = 0;
    std::vector<size_t> skip; // the steps found unsafe, all before `from`
    while (from < count) {
        size_t completed = 0;
        const ChildEnd end = runOnce(*this, from, skip, from - skip.size(), safe, &completed);
        if (end == ChildEnd::ForkFailed) {
            // Some steps may be checked already: the rest cannot be, so they are left out.
            if (outcome.probed || from > 0) outcome.gaveUp = true;
            return outcome;
        }
        outcome.probed = true;
        if (end == ChildEnd::Finished) return outcome;
        from += completed;
        // A child that died after its last step (e.g. while exiting) blames no step.
        if (from == count) return outcome;
        (end == ChildEnd::Hung ? outcome.hung : outcome.crashed).push_back(from);
        skip.push_back(from++);
        if (skip.size() > maxUnsafe) {
            outcome.gaveUp = true;
            return outcome;
        }
    }
    return outcome;
}

} // namespace ringside
