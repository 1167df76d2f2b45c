// SPDX-License-Identifier: GPL-2.0-or-later
#include "commands.h"

#include <cstdio>
#include <cstring>
#include <traceevent/event-parse.h>

namespace {

void usage(FILE* out)
{
    std::fputs("usage: ringside-cli COMMAND FILE [options]\n"
               "\n"
               "  info FILE [--json]     file version, compression, buffers, CPUs, events per CPU\n"
               "                         and per event type, lost events, time range, diagnostics\n"
               "  dump FILE              every event, one line each, as `trace-cmd report` prints it\n"
               "  bench FILE [--repeat N] [--threads N]\n"
               "                         load the file and print load time, events/s and peak memory\n",
               out);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    // libtraceevent reports unparseable formats itself; Ringside counts them in diagnostics.
    tep_set_loglevel(TEP_LOG_NONE);
    std::vector<std::string> args(argv + 2, argv + argc);
    const std::string command = argv[1];
    if (command == "info") return ringside::cli::infoCommand(args);
    if (command == "dump") return ringside::cli::dumpCommand(args);
    if (command == "bench") return ringside::cli::benchCommand(args);
    std::fprintf(stderr, "ringside-cli: unknown command '%s'\n", command.c_str());
    usage(stderr);
    return 2;
}
