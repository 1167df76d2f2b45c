// SPDX-License-Identifier: GPL-2.0-or-later
#include "util/childprobe.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ringside {

namespace {

enum class ChildEnd { Finished, Crashed, Hung, ForkFailed };

// Runs the steps from `from` on in one child, calling `safe` as they finish; `*completed`
// counts them. `replayed`: how many steps the child runs silently first.
// The counter a child's Reporter increments, in a memfd both processes map.
class SharedCounter {
public:
    SharedCounter()
    {
        m_fd = memfd_create("ringside-probe-progress", MFD_CLOEXEC);
        if (m_fd < 0 || ftruncate(m_fd, kBytes) != 0) return;
        void* at = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, m_fd, 0);
        if (at != MAP_FAILED) m_counter = static_cast<std::atomic<uint64_t>*>(at);
    }
    ~SharedCounter()
    {
        if (m_counter) munmap(m_counter, kBytes);
        if (m_fd >= 0) close(m_fd);
    }
    SharedCounter(const SharedCounter&) = delete;
    SharedCounter& operator=(const SharedCounter&) = delete;
    bool ok() const { return m_counter != nullptr; }
    int fd() const { return m_fd; }
    uint64_t value() const { return m_counter->load(std::memory_order_acquire); }
    static constexpr size_t kBytes = 4096;

private:
    int m_fd = -1;
    std::atomic<uint64_t>* m_counter = nullptr;
};

// Runs the steps from `from` on in one child, calling `safe` as they finish; `*completed`
// counts them. `replayed`: how many steps the child runs silently first.
ChildEnd runOnce(const ChildProbe& probe, size_t from, const std::vector<size_t>& skip, size_t replayed,
                 const std::function<void(size_t)>& safe, size_t* completed)
{
    *completed = 0;
    const size_t steps = probe.count - from;
    SharedCounter counter;
    int fds[2];
    if (!counter.ok() || pipe2(fds, O_CLOEXEC) != 0) return ChildEnd::ForkFailed;
    const pid_t pid = probe.start(ChildProbe::Channel{fds[1], counter.fd()}, from, skip);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return ChildEnd::ForkFailed;
    }
    auto catchUp = [&] {
        const size_t done = std::min<size_t>(counter.value(), steps);
        while (*completed < done) safe(from + (*completed)++);
    };
    bool hung = false;
    size_t seen = 0; // steps done at the last wait
    const int timeout = static_cast<int>(probe.stepTimeout.count());
    for (;;) {
        pollfd pfd{fds[0], POLLIN, 0};
        // The replay gets the same patience per step as the steps themselves.
        const int wait = *completed == 0 ? timeout * static_cast<int>(1 + std::min<size_t>(replayed, 1000)) : timeout;
        const int ready = poll(&pfd, 1, wait);
        if (ready < 0 && errno == EINTR) continue;
        catchUp();
        if (ready == 0) {
            // Wake-ups come every few steps: only a step that made no progress hangs.
            if (*completed != seen) {
                seen = *completed;
                continue;
            }
            hung = true;
            kill(pid, SIGKILL);
            break;
        }
        seen = *completed;
        char buffer[4096];
        const ssize_t got = read(fds[0], buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; // the child ended
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!hung) catchUp();
    if (hung) return ChildEnd::Hung;
    if (*completed == steps && WIFEXITED(status) && WEXITSTATUS(status) == 0) return ChildEnd::Finished;
    return ChildEnd::Crashed;
}

} // namespace

bool ChildProbe::Reporter::attach(const Channel& channel)
{
    m_wakeFd = channel.wakeFd;
    void* at = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, channel.progressFd, 0);
    if (at == MAP_FAILED) return false;
    m_counter = at;
    return true;
}

bool ChildProbe::Reporter::stepDone()
{
    static_cast<std::atomic<uint64_t>*>(m_counter)->store(++m_done, std::memory_order_release);
    // A wake-up every few steps keeps the caller's work overlapping ours.
    const char wake = 1;
    return m_done % 32 != 0 || write(m_wakeFd, &wake, 1) == 1;
}

ChildProbe::Start ChildProbe::forking(std::function<void()> setup, std::function<void(size_t)> step, size_t count)
{
    return [setup = std::move(setup), step = std::move(step), count](const Channel& channel, size_t from,
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
        Reporter reporter;
        if (!reporter.attach(channel)) _exit(3);
        if (setup) setup();
        for (size_t i = 0; i < count; ++i) {
            if (std::find(skip.begin(), skip.end(), i) != skip.end()) continue;
            step(i);
            if (i >= from && !reporter.stepDone()) _exit(3);
        }
        _exit(0);
    };
}

ChildProbe::Start ChildProbe::spawning(std::string program, int inputFd)
{
    return
        [program = std::move(program), inputFd](const Channel& channel, size_t from, const std::vector<size_t>& skip) {
            std::vector<std::string> args{program, std::to_string(from)};
            for (size_t i : skip) args.push_back(std::to_string(i));
            std::vector<char*> argv;
            for (std::string& arg : args) argv.push_back(arg.data());
            argv.push_back(nullptr);
            // dup2 onto the same number would keep close-on-exec, and one target must not be
            // another's source: move both out of the way.
            const int input = fcntl(inputFd, F_DUPFD_CLOEXEC, 10);
            const int progress = fcntl(channel.progressFd, F_DUPFD_CLOEXEC, 10);
            if (input < 0 || progress < 0) {
                if (input >= 0) close(input);
                if (progress >= 0) close(progress);
                return pid_t(-1);
            }
            posix_spawn_file_actions_t actions;
            posix_spawn_file_actions_init(&actions);
            posix_spawn_file_actions_adddup2(&actions, channel.wakeFd, STDOUT_FILENO);
            posix_spawn_file_actions_adddup2(&actions, input, 3);
            posix_spawn_file_actions_adddup2(&actions, progress, 4);
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
            pid_t pid = -1;
            if (posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ) != 0) pid = -1;
            posix_spawn_file_actions_destroy(&actions);
            close(input);
            close(progress);
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
