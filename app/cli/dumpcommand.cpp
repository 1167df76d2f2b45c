// SPDX-License-Identifier: GPL-2.0-or-later
#include "commands.h"
#include "pluginchoice.h"

#include "decode/mergedreport.h"
#include "decode/reportprinter.h"
#include "trace.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace ringside::cli {

int dumpCommand(const std::vector<std::string>& args)
{
    if (args.empty() ||
        std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.empty() || a[0] == '-'; })) {
        std::fputs("usage: ringside-cli dump FILE [FILE...]\n", stderr);
        return 2;
    }
    std::vector<std::unique_ptr<Trace>> traces;
    for (const std::string& path : args) {
        auto trace = Trace::open(path);
        if (!trace) {
            std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
            return 1;
        }
        noteFailures(**trace, path);
        traces.push_back(std::move(*trace));
    }
    static char buffer[1 << 20];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    if (traces.size() == 1) {
        ReportPrinter printer(*traces.front());
        printer.dump(stdout);
    } else {
        std::vector<const Trace*> all;
        for (const auto& t : traces) all.push_back(t.get());
        for (const std::string& note : pairRecordings(all, args).notes)
            std::fprintf(stderr, "ringside-cli: %s\n", note.c_str());
        printMergedReport(all, args, stdout);
    }
    return std::fflush(stdout) == 0 && !std::ferror(stdout) ? 0 : 1;
}

} // namespace ringside::cli
