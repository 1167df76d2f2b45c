// SPDX-License-Identifier: GPL-2.0-or-later
#include "commands.h"
#include "pluginchoice.h"
#include "util/memorypolicy.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <traceevent/event-parse.h>

namespace {

void usage(FILE* out)
{
    std::fputs("usage: ringside-cli COMMAND FILE [options]\n"
               "       ringside-cli --help | --version\n"
               "\n"
               "  info FILE [--json]     file version, compression, buffers, CPUs, events per CPU\n"
               "                         and per event type, lost events, time range, diagnostics\n"
               "  dump FILE [FILE...]    every event, one line each, as `trace-cmd report` prints it;\n"
               "                         several files merged as `trace-cmd report -i A -i B`\n"
               "  bench FILE [--repeat N] [--threads N] [--growing] [--plugin NAME]... [--no-plugin NAME]...\n"
               "                         load the file and print load time, events/s and peak memory\n"
               "                         (with every plugin found, only those named, or without some)\n"
               "  calltree FILE [--pid P] [--cpu C] [--from SEC] [--to SEC] [--json]\n"
               "                         the function_graph calls merged top-down: calls, total and\n"
               "                         self time, return values (errors named)\n"
               "  calltree FILE --calls  one line per call in start order:\n"
               "                         START_NS CPU PID DEPTH DURATION_NS FUNCTION [RETVAL]\n"
               "  calltree FILE --each FUNCTION\n"
               "                         each call of FUNCTION with its own tree and the system\n"
               "                         call it ran in (the syscalls plugin's pairing)\n"
               "  funcstats FILE [--per-cpu] [--json]\n"
               "                         per function: hits, total, self, average, standard\n"
               "                         deviation, min and max time, overall and per CPU;\n"
               "                         for the function tracer: hits and callers\n"
               "  stats FILE --plugin NAME [--json]\n"
               "                         a plugin's statistics (syscalls: per system call, the\n"
               "                         failures, per task), as tables or JSON\n"
               "  latency FILE (--preset NAME | --from SYSTEM/EVENT --to SYSTEM/EVENT)\n"
               "         [--match FIELD[=FIELD]]... [--by task|cpu]... [--nesting]\n"
               "         [--filter-from CONDITION] [--filter-to CONDITION] [--top N] [--json]\n"
               "                         durations from each start event to the end event that\n"
               "                         matches it: count, unmatched, percentiles, a log2 histogram,\n"
               "                         per key and the slowest; presets irq, softirq, block,\n"
               "                         wakeup, waking, syscall, workqueue, kmalloc, offcpu, print\n"
               "  kvm HOST.dat [GUEST.dat...] [--json]\n"
               "                         per vCPU thread of a KVM host: time in the guest, exits by\n"
               "                         reason; a paired guest's CPUs and the host tasks that ran them\n"
               "  export FILE --format csv|jsonl|perfetto [--filter EXPR] [-o OUT]\n"
               "                         every event (or those the filter shows) with each of its\n"
               "                         fields, as CSV or JSON Lines, to OUT or standard output;\n"
               "                         perfetto: a JSON trace for Perfetto UI and chrome://tracing,\n"
               "                         with the plugins' tables ([--plugin NAME]... [--no-plugin NAME]...)\n"
               "  query FILE [SQL | --file Q.sql] [--format table|csv|json] [--timing]\n"
               "                         SQL over the recording: every event (ftrace_event), one table\n"
               "                         per event type with its fields, tasks, CPU slices, task\n"
               "                         states, calls and the plugins' tables; without SQL on a\n"
               "                         terminal, an interactive prompt (.tables, .schema)\n"
               "  record -e EVENT [-f FILTER]... [-p TRACER] [-l FUNC] [-n FUNC] [-g FUNC]\n"
               "         [--max-graph-depth N] [-P PID] [-c] [-b KB] [-C CLOCK] [--file-version 6|7]\n"
               "         [--compression zstd|none] -o OUT.dat [-- CMD ARGS]\n"
               "                         record the running kernel's events into OUT.dat (a private\n"
               "                         tracing instance), until CMD exits or Ctrl+C; version 7,\n"
               "                         zstd-compressed, unless asked otherwise\n"
               "\n"
               "  -h, --help             this text\n"
               "  --version              the program's version\n",
               out);
}

} // namespace

int main(int argc, char** argv)
{
    ringside::returnLargeBuffersWhenFreed();
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!std::strcmp(argv[1], "--version")) {
        std::printf("ringside-cli %s\n", RINGSIDE_VERSION);
        return 0;
    }
    // libtraceevent reports unparseable formats itself; Ringside counts them in diagnostics.
    tep_set_loglevel(TEP_LOG_NONE);
    std::vector<std::string> args(argv + 2, argv + argc);
    const std::string command = argv[1];
    int status = -1;
    if (command == "info")
        status = ringside::cli::infoCommand(args);
    else if (command == "query")
        status = ringside::cli::queryCommand(args);
    else if (command == "dump")
        status = ringside::cli::dumpCommand(args);
    else if (command == "bench")
        status = ringside::cli::benchCommand(args);
    else if (command == "calltree")
        status = ringside::cli::calltreeCommand(args);
    else if (command == "funcstats")
        status = ringside::cli::funcstatsCommand(args);
    else if (command == "stats")
        status = ringside::cli::statsCommand(args);
    else if (command == "export")
        status = ringside::cli::exportCommand(args);
    else if (command == "latency")
        status = ringside::cli::latencyCommand(args);
    else if (command == "kvm")
        status = ringside::cli::kvmCommand(args);
    else if (command == "record")
        status = ringside::cli::recordCommand(args);
    if (status >= 0) {
        // The trace is not torn down block by block: the process ends and the kernel takes the
        // memory back at once (on a 27M-event trace teardown took as long as a third of the load).
        if (std::fflush(stdout) != 0) status = 1;
        // A plugin or analysis that failed: said after the output, and the exit status says so.
        for (const std::string& failure : ringside::cli::notedFailures()) {
            std::fprintf(stderr, "ringside-cli: %s\n", failure.c_str());
            if (status == 0) status = 1;
        }
        std::fflush(stderr);
        std::_Exit(status);
    }
    std::fprintf(stderr, "ringside-cli: unknown command '%s'\n", command.c_str());
    usage(stderr);
    return 2;
}
