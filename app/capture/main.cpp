// SPDX-License-Identifier: GPL-2.0-or-later
// ringside-capture: records the running kernel's events in a private tracing instance and
// streams the raw pages to its caller over stdout (see captureprotocol.h). The only part of
// Ringside that may run as root (started through pkexec when the user is not). Stops when
// its stdin ends or says so (the caller stopped, exited or died), on SIGINT, SIGTERM or
// SIGHUP, or when stdout is gone; the instance is removed in every case.
#include "capture/captureprotocol.h"
#include "capture/tracefscapture.h"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <mutex>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ringside;

namespace {

volatile std::sig_atomic_t g_stop = 0;

void onSignal(int)
{
    g_stop = 1;
}

int usage()
{
    std::fprintf(stderr, "usage: ringside-capture [-e EVENT [-f FILTER]]... [-P PID]... [--fork] "
                         "[-b KB] [-C CLOCK] [-p TRACER] [-l FUNC]... [-n FUNC]... [-g FUNC]... "
                         "[--max-graph-depth N]\n"
                         "Streams raw ring-buffer pages to stdout; started by ringside and ringside-cli record.\n");
    return 2;
}

bool parse(int argc, char** argv, CaptureConfig* config)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--fork") {
            config->followForks = true;
        } else if (!hasValue) {
            return false;
        } else if (arg == "-e") {
            const std::string spec = argv[++i];
            const size_t colon = spec.find(':');
            config->events.push_back(
                {spec.substr(0, colon), colon == std::string::npos ? "" : spec.substr(colon + 1), ""});
        } else if (arg == "-f") {
            if (config->events.empty()) return false;
            config->events.back().filter = argv[++i];
        } else if (arg == "-P") {
            config->pids.push_back(std::atoi(argv[++i]));
        } else if (arg == "-b") {
            config->bufferKb = size_t(std::strtoull(argv[++i], nullptr, 10));
        } else if (arg == "-C") {
            config->clock = argv[++i];
        } else if (arg == "-p") {
            config->tracer = argv[++i];
        } else if (arg == "-l") {
            config->functionFilters.push_back(argv[++i]);
        } else if (arg == "-n") {
            config->notraceFunctions.push_back(argv[++i]);
        } else if (arg == "-g") {
            config->graphFunctions.push_back(argv[++i]);
        } else if (arg == "--max-graph-depth") {
            char* end = nullptr;
            const long depth = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || depth < 0 || depth > 1000000) return false;
            config->maxGraphDepth = int(depth);
        } else {
            return false;
        }
    }
    return true;
}

bool send(CaptureMessage type, int cpu, const std::string& body)
{
    return writeCaptureMessage(STDOUT_FILENO, type, cpu, body.data(), body.size());
}

// This process and every thread of its caller (which relays and parses every page): at a
// million events a second their own system calls would feed the buffers they drain. Read
// again at each round, as the caller starts threads.
std::vector<int> ownTasks()
{
    std::vector<int> pids{int(::getpid()), int(::getppid())};
    const std::string dir = "/proc/" + std::to_string(::getppid()) + "/task";
    if (DIR* tasks = ::opendir(dir.c_str())) {
        while (const dirent* entry = ::readdir(tasks))
            if (const int tid = std::atoi(entry->d_name); tid > 0 && tid != ::getppid()) pids.push_back(tid);
        ::closedir(tasks);
    }
    return pids;
}

// Adding to the kernel's list of tasks not to trace waits for the tracepoints' readers (30-46
// ms measured at a new thread of the caller, when a 4 MB buffer fills in 40 ms at a million
// calls a second): the pages are read on while a thread of its own writes the list.
class TaskIgnorer {
public:
    explicit TaskIgnorer(TracefsCapture& capture) : m_capture(capture), m_thread([this] { run(); }) {}
    ~TaskIgnorer()
    {
        {
            const std::lock_guard lock(m_lock);
            m_done = true;
        }
        m_wake.notify_one();
        m_thread.join();
    }
    // The tasks as now: those new to the list are added to it soon.
    void ignore(std::vector<int> pids)
    {
        {
            const std::lock_guard lock(m_lock);
            m_pending = std::move(pids);
        }
        m_wake.notify_one();
    }

private:
    void run()
    {
        for (;;) {
            std::vector<int> pids;
            {
                std::unique_lock lock(m_lock);
                m_wake.wait(lock, [this] { return m_done || !m_pending.empty(); });
                if (m_pending.empty()) return;
                pids.swap(m_pending);
            }
            m_capture.ignoreTasks(std::move(pids));
        }
    }

    TracefsCapture& m_capture;
    std::mutex m_lock;
    std::condition_variable m_wake;
    std::vector<int> m_pending;
    bool m_done = false;
    std::thread m_thread;
};

} // namespace

// `--list`: what the kernel offers, one per line ("tracer NAME", "clock NAME", "event
// SYSTEM:NAME"), for the capture settings to show; or why it cannot be read.
int list()
{
    auto dir = TracefsCapture::tracingDir();
    if (!dir) {
        std::printf("error %s\n", dir.error().message.c_str());
        return 1;
    }
    auto words = [](const std::string& path) {
        std::vector<std::string> out;
        if (FILE* f = std::fopen(path.c_str(), "r")) {
            char word[512];
            while (std::fscanf(f, "%511s", word) == 1) out.push_back(word);
            std::fclose(f);
        }
        return out;
    };
    for (const std::string& t : words(*dir + "/available_tracers")) std::printf("tracer %s\n", t.c_str());
    for (std::string c : words(*dir + "/trace_clock")) {
        if (c.front() == '[') c = c.substr(1, c.size() - 2);
        std::printf("clock %s\n", c.c_str());
    }
    for (const std::string& e : words(*dir + "/available_events")) std::printf("event %s\n", e.c_str());
    return std::fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char** argv)
{
    if (argc == 2 && std::string(argv[1]) == "--list") return list();
    CaptureConfig config;
    if (!parse(argc, argv, &config)) return usage();
    config.notracePids = ownTasks();
    std::signal(SIGPIPE, SIG_IGN);
    struct sigaction action = {};
    action.sa_handler = onSignal;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);

    for (const std::string& name : TracefsCapture::removeStaleInstances())
        send(CaptureMessage::Note, -1,
             "removed the tracing instance " + name + ", left by a capture that ended without removing it");
    auto started = TracefsCapture::start(config);
    if (!started) {
        // Said once: by the caller, or here when there is none to tell.
        if (!send(CaptureMessage::Error, -1, started.error().message))
            std::fprintf(stderr, "ringside-capture: %s\n", started.error().message.c_str());
        return 1;
    }
    TracefsCapture& capture = **started;
    if (!send(CaptureMessage::Metadata, -1, capture.metadata().serialize())) return 1;

    bool readerGone = false;
    auto sendPage = [&](int cpu, const void* data, size_t size) {
        if (!readerGone && !writeCaptureMessage(STDOUT_FILENO, CaptureMessage::Page, cpu, data, size))
            readerGone = true;
    };
    auto sendStats = [&] {
        for (int cpu = 0; cpu < capture.metadata().cpus && !readerGone; ++cpu)
            if (!send(CaptureMessage::Stats, cpu, capture.cpuStats(cpu))) readerGone = true;
    };
    auto lastStats = std::chrono::steady_clock::now();
    TaskIgnorer ignorer(capture);
    while (!g_stop && !readerGone) {
        // The caller's threads, its reading thread among them (started once it has the
        // metadata, however long that takes): looked for at each round (a look at /proc).
        ignorer.ignore(ownTasks());
        const size_t pages = capture.readPages(sendPage);
        if (pages && !readerGone && !send(CaptureMessage::Round, -1, {})) readerGone = true;
        // The caller's word, or its end: stdin readable means either. Between rounds the
        // buffers fill: pages read whole, not a few events each (a 4 MB buffer holds some 70
        // ms at a million events a second; a busy round goes on at once).
        pollfd in{STDIN_FILENO, POLLIN, 0};
        if (::poll(&in, 1, pages >= 256 ? 0 : 20) > 0) {
            char byte;
            const ssize_t n = ::read(STDIN_FILENO, &byte, 1);
            if (n <= 0 || byte == 'q') break;
        }
        if (std::chrono::steady_clock::now() - lastStats >= std::chrono::seconds(1)) {
            sendStats();
            lastStats = std::chrono::steady_clock::now();
        }
    }
    // What the buffers still hold, then the end's metadata.
    capture.stop();
    for (int round = 0; round < 1000 && !readerGone && capture.readPages(sendPage) > 0; ++round) {}
    capture.finishMetadata();
    if (!readerGone) {
        sendStats();
        send(CaptureMessage::Metadata, -1, capture.metadata().serialize());
        send(CaptureMessage::End, -1, {});
    }
    return 0; // the instance goes with `capture`
}
