// SPDX-License-Identifier: GPL-2.0-or-later
// ringside-cli record: records the local kernel's events headless into a .dat, through
// ringside-capture (a private tracing instance), printing events/s and lost events while it
// runs; stops when the command given exits, or on Ctrl+C or SIGTERM, and keeps all it got.
#include "commands.h"

#include "capture/captureclient.h"
#include "capture/capturemetadata.h"
#include "capture/captureprotocol.h"
#include "file/datwriter.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ringside::cli {

namespace {

volatile std::sig_atomic_t g_stop = 0;

void onSignal(int)
{
    g_stop = 1;
}

int recordUsage()
{
    std::fputs(
        "usage: ringside-cli record [-e EVENT [-f FILTER]]... [-p TRACER] [-l FUNC]... [-n FUNC]...\n"
        "                          [-g FUNC]... [--max-graph-depth N] [-P PID]... [-c] [-b KB] [-C CLOCK]\n"
        "                          [--file-version 6|7] [--compression zstd|none] -o OUT.dat [-- CMD ARGS...]\n",
        stderr);
    return 2;
}

// A number from a CPU's stats text ("overrun: 12"), or 0.
uint64_t statValue(const std::string& stats, const char* name)
{
    const std::string key = std::string("\n") + name + ": ";
    const size_t at = ("\n" + stats).find(key);
    return at == std::string::npos ? 0 : std::strtoull(stats.c_str() + at + key.size() - 1, nullptr, 10);
}

struct CpuCounters {
    uint64_t read = 0, overrun = 0, dropped = 0;
};

} // namespace

int recordCommand(const std::vector<std::string>& args)
{
    std::vector<std::string> helperArgs, command;
    std::string output;
    DatFormat format; // v7, zstd
    bool compressionGiven = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            command.assign(args.begin() + long(i) + 1, args.end());
            break;
        }
        if (a == "-c") { // the pids' children too
            helperArgs.push_back("--fork");
            continue;
        }
        if (i + 1 >= args.size()) return recordUsage();
        if (a == "-o") {
            output = args[++i];
        } else if (a == "--file-version") {
            const std::string& v = args[++i];
            if (v != "6" && v != "7") return recordUsage();
            format.version = v == "6" ? 6 : 7;
        } else if (a == "--compression") {
            const std::string& c = args[++i];
            if (c != "zstd" && c != "none") return recordUsage();
            format.codec = c == "zstd" ? Codec::Zstd : Codec::None;
            compressionGiven = true;
        } else if (a == "-e" || a == "-f" || a == "-p" || a == "-l" || a == "-n" || a == "-g" ||
                   a == "--max-graph-depth" || a == "-P" || a == "-b" || a == "-C") {
            helperArgs.push_back(a), helperArgs.push_back(args[++i]);
        } else {
            return recordUsage();
        }
    }
    if (output.empty()) return recordUsage();
    if (format.version == 6) {
        if (compressionGiven && format.codec != Codec::None) {
            std::fprintf(stderr, "ringside-cli record: a version 6 file is not compressed\n");
            return 2;
        }
        format.codec = Codec::None;
    }
    if (std::find(helperArgs.begin(), helperArgs.end(), "-e") == helperArgs.end() &&
        std::find(helperArgs.begin(), helperArgs.end(), "-p") == helperArgs.end()) {
        std::fprintf(stderr, "ringside-cli record: name the events to record (-e EVENT) or a tracer (-p)\n");
        return 2;
    }

    struct sigaction action = {};
    action.sa_handler = onSignal;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    auto started = CaptureProcess::start(helperArgs);
    if (!started) {
        std::fprintf(stderr, "ringside-cli record: %s\n", started.error().message.c_str());
        return 1;
    }
    CaptureProcess& helper = **started;
    CaptureStreamReader stream(helper.streamFd());
    CaptureMetadata metadata;
    bool haveMetadata = false, ended = false;
    std::vector<FILE*> cpuFiles;
    std::vector<std::string> cpuPaths;
    std::vector<CpuCounters> counters;
    std::string error;
    pid_t child = -1;
    int childStatus = 0;
    auto lastReport = std::chrono::steady_clock::now();
    uint64_t lastRead = 0;

    auto closeFiles = [&] {
        for (FILE* f : cpuFiles)
            if (f) std::fclose(f);
        cpuFiles.clear();
    };
    auto removeParts = [&] {
        for (const std::string& p : cpuPaths) std::remove(p.c_str());
    };
    auto totals = [&] {
        CpuCounters t;
        for (const CpuCounters& c : counters) t.read += c.read, t.overrun += c.overrun, t.dropped += c.dropped;
        return t;
    };

    bool stopping = false;
    while (!ended) {
        if (!stopping && (g_stop || (child > 0 && ::waitpid(child, &childStatus, WNOHANG) == child))) {
            if (!g_stop) child = -1;
            stopping = true;
            helper.stop();
        }
        pollfd in{helper.streamFd(), POLLIN, 0};
        const int ready = stream.hasMessage() ? 1 : ::poll(&in, 1, 100);
        if (ready < 0 && errno == EINTR) continue;
        if (ready > 0) {
            auto message = stream.next(&error);
            if (!message) break; // the helper is gone
            switch (message->type) {
            case CaptureMessage::Metadata: {
                auto parsed = CaptureMetadata::parse(message->body);
                if (!parsed) {
                    error = parsed.error().message;
                    helper.stop();
                    break;
                }
                metadata = std::move(*parsed);
                if (haveMetadata) break; // the end's: names and counters
                haveMetadata = true;
                counters.assign(size_t(metadata.cpus), {});
                for (int cpu = 0; cpu < metadata.cpus; ++cpu) {
                    cpuPaths.push_back(output + ".cpu" + std::to_string(cpu) + ".part");
                    cpuFiles.push_back(std::fopen(cpuPaths.back().c_str(), "wb"));
                    if (!cpuFiles.back()) {
                        error = cpuPaths.back() + ": " + std::strerror(errno);
                        helper.stop();
                        stopping = true;
                    }
                }
                std::fprintf(stderr, "recording %d CPUs into %s%s\n", metadata.cpus, output.c_str(),
                             command.empty() ? " (Ctrl+C stops)" : "");
                if (!command.empty() && !stopping) {
                    child = ::fork();
                    if (child == 0) {
                        std::vector<char*> argv;
                        for (std::string& c : command) argv.push_back(c.data());
                        argv.push_back(nullptr);
                        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) std::signal(sig, SIG_DFL);
                        ::execvp(argv[0], argv.data());
                        std::fprintf(stderr, "ringside-cli record: cannot run %s: %s\n", argv[0], std::strerror(errno));
                        ::_exit(127);
                    }
                }
                break;
            }
            case CaptureMessage::Page:
                if (message->cpu >= 0 && size_t(message->cpu) < cpuFiles.size() && cpuFiles[size_t(message->cpu)]) {
                    // A partial page is stored whole: readers take its length from its header.
                    message->body.resize(metadata.pageSize, '\0');
                    if (std::fwrite(message->body.data(), 1, message->body.size(), cpuFiles[size_t(message->cpu)]) !=
                            message->body.size() &&
                        error.empty()) {
                        error = cpuPaths[size_t(message->cpu)] + ": " + std::strerror(errno);
                        helper.stop();
                        stopping = true;
                    }
                }
                break;
            case CaptureMessage::Stats:
                if (message->cpu >= 0 && size_t(message->cpu) < counters.size())
                    counters[size_t(message->cpu)] = {statValue(message->body, "read events"),
                                                      statValue(message->body, "overrun"),
                                                      statValue(message->body, "dropped events")};
                break;
            case CaptureMessage::Note: std::fprintf(stderr, "ringside-cli record: %s\n", message->body.c_str()); break;
            case CaptureMessage::Error:
                error = message->body;
                stopping = true;
                break;
            case CaptureMessage::End: ended = true; break;
            case CaptureMessage::Round: break;
            }
        }
        const auto now = std::chrono::steady_clock::now();
        if (haveMetadata && now - lastReport >= std::chrono::seconds(1)) {
            const CpuCounters t = totals();
            const double seconds = std::chrono::duration<double>(now - lastReport).count();
            std::fprintf(stderr, "  %llu events (%.0f/s), lost: %llu overwritten, %llu dropped\n",
                         static_cast<unsigned long long>(t.read), double(t.read - lastRead) / seconds,
                         static_cast<unsigned long long>(t.overrun), static_cast<unsigned long long>(t.dropped));
            lastRead = t.read;
            lastReport = now;
        }
    }
    const int helperStatus = helper.wait();
    if (child > 0) {
        // Recording stopped first (Ctrl+C): the command is left to finish on its own.
        std::fprintf(stderr, "ringside-cli record: %s (pid %d) is still running\n", command[0].c_str(), child);
    }
    closeFiles();
    if (!haveMetadata) {
        removeParts();
        std::fprintf(stderr, "ringside-cli record: %s\n",
                     error.empty() ? helper.endedBeforeRecording(helperStatus).c_str() : error.c_str());
        return 1;
    }
    if (!ended)
        std::fprintf(stderr, "ringside-cli record: the capture ended early%s; saving what arrived\n",
                     error.empty() ? "" : (" (" + error + ")").c_str());
    std::string why;
    const bool written =
        writeDat(output, metadata, cpuPaths, std::string("ringside ") + RINGSIDE_VERSION, format, &why);
    removeParts();
    if (!written) {
        std::fprintf(stderr, "ringside-cli record: %s\n", why.c_str());
        return 1;
    }
    const CpuCounters t = totals();
    std::fprintf(stderr, "%s: %llu events, lost: %llu overwritten, %llu dropped\n", output.c_str(),
                 static_cast<unsigned long long>(t.read), static_cast<unsigned long long>(t.overrun),
                 static_cast<unsigned long long>(t.dropped));
    if (!error.empty() && ended) std::fprintf(stderr, "ringside-cli record: %s\n", error.c_str());
    return error.empty() ? 0 : 1;
}

} // namespace ringside::cli
