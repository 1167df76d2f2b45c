// SPDX-License-Identifier: GPL-2.0-or-later
#include "commands.h"

#include "decode/reportprinter.h"
#include "trace.h"

#include <cstdio>

namespace ringside::cli {

int dumpCommand(const std::vector<std::string>& args)
{
    if (args.size() != 1) {
        std::fputs("usage: ringside-cli dump FILE\n", stderr);
        return 2;
    }
    auto trace = Trace::open(args[0]);
    if (!trace) {
        std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
        return 1;
    }
    static char buffer[1 << 20];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    ReportPrinter printer(**trace);
    printer.dump(stdout);
    return std::fflush(stdout) == 0 && !std::ferror(stdout) ? 0 : 1;
}

} // namespace ringside::cli
