// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/captureclient.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ringside {

namespace {

bool isExecutable(const std::string& path)
{
    return ::access(path.c_str(), X_OK) == 0;
}

std::string findInPath(const char* program)
{
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        const size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::string candidate = dirs.substr(start, end - start) + "/" + program;
        if (isExecutable(candidate)) return candidate;
        start = end + 1;
    }
    return {};
}

} // namespace

std::string CaptureProcess::helperPath()
{
    if (const char* overridden = std::getenv("RINGSIDE_CAPTURE_HELPER"); overridden && *overridden) return overridden;
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        std::string dir(self, size_t(n));
        dir.erase(dir.rfind('/'));
        const std::string installed = dir + "/" RINGSIDE_INSTALLED_CAPTURE;
        if (isExecutable(installed)) return installed;
    }
#ifdef RINGSIDE_BUILD_CAPTURE
    if (isExecutable(RINGSIDE_BUILD_CAPTURE)) return RINGSIDE_BUILD_CAPTURE;
#endif
    return {};
}

Result<std::unique_ptr<CaptureProcess>> CaptureProcess::start(const std::vector<std::string>& arguments)
{
    const std::string helper = helperPath();
    if (helper.empty()) return Error{"ringside-capture is not installed beside this program"};
    std::vector<std::string> command;
    if (::geteuid() != 0) {
        // The GUI never runs as root: the helper alone does, after polkit asked.
        const std::string pkexec = findInPath("pkexec");
        if (pkexec.empty())
            return Error{"capturing needs root: run as root, or install pkexec (policykit-1) so that "
                         "ringside-capture can ask for it"};
        command.push_back(pkexec);
    }
    command.push_back(helper);
    command.insert(command.end(), arguments.begin(), arguments.end());

    // A helper that ended closes its pipe: writing the word to stop then must fail, not kill
    // this process.
    std::signal(SIGPIPE, SIG_IGN);
    int toHelper[2], fromHelper[2];
    if (::pipe2(toHelper, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
    if (::pipe2(fromHelper, O_CLOEXEC) != 0) {
        ::close(toHelper[0]), ::close(toHelper[1]);
        return Error{std::string("pipe: ") + std::strerror(errno)};
    }
    std::vector<char*> argv;
    for (std::string& a : command) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) return Error{std::string("fork: ") + std::strerror(errno)};
    if (pid == 0) {
        ::dup2(toHelper[0], STDIN_FILENO);
        ::dup2(fromHelper[1], STDOUT_FILENO);
        // A terminal's Ctrl+C reaches the whole group: the caller decides when the helper stops.
        ::setpgid(0, 0);
        ::execv(argv[0], argv.data());
        std::fprintf(stderr, "ringside: cannot start %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
    }
    ::close(toHelper[0]);
    ::close(fromHelper[1]);
    // Room for a quarter of a second of pages at a million events a second, should this
    // side be slow for a moment.
    ::fcntl(fromHelper[0], F_SETPIPE_SZ, 4 << 20);
    std::unique_ptr<CaptureProcess> process(new CaptureProcess);
    process->m_pid = pid;
    process->m_stream = fromHelper[0];
    process->m_control = toHelper[1];
    process->m_throughPkexec = command.front() != helper;
    return process;
}

Result<std::string> CaptureProcess::listOffer()
{
    auto started = start({"--list"});
    if (!started) return started.error();
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read((*started)->streamFd(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buffer, size_t(n));
    }
    const int status = (*started)->wait();
    if (text.compare(0, 6, "error ") == 0) return Error{text.substr(6, text.find('\n') - 6)};
    if (status != 0) return Error{(*started)->endedBeforeRecording(status)};
    return text;
}

std::string CaptureProcess::endedBeforeRecording(int status) const
{
    // pkexec exits 126 when the user is refused or dismisses the dialog, 127 when it cannot
    // ask (no polkit daemon or agent).
    if (m_throughPkexec && status == 126) return "permission to capture was not given (pkexec refused)";
    if (m_throughPkexec && status == 127)
        return "pkexec could not ask for permission to capture (is polkit running, with an authentication agent?); "
               "run as root instead";
    return "the capture helper ended before recording (status " + std::to_string(status) + ")";
}

void CaptureProcess::stop()
{
    if (m_control < 0) return;
    const char word = 'q';
    [[maybe_unused]] const ssize_t n = ::write(m_control, &word, 1);
    ::close(m_control);
    m_control = -1;
}

int CaptureProcess::wait()
{
    if (m_waited) return -1;
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {}
    m_waited = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

CaptureProcess::~CaptureProcess()
{
    stop();
    if (m_stream >= 0) ::close(m_stream); // a helper still writing sees its reader gone
    if (!m_waited && m_pid > 0) wait();
}

} // namespace ringside
