// SPDX-License-Identifier: GPL-2.0-or-later
// `ringside-cli export FILE --format csv|jsonl|perfetto [--filter EXPR] [-o OUT] [--plugin NAME]...
// [--no-plugin NAME]...`: events out to other tools, streamed; a Perfetto trace also carries the
// plugins' tables (every plugin found unless chosen).
#include "commands.h"
#include "pluginchoice.h"

#include "export/eventexporter.h"
#include "query/eventfilter.h"
#include "trace.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ringside::cli {

namespace {

const char* const kExportUsage = "usage: ringside-cli export FILE --format csv|jsonl|perfetto [--filter EXPR] [-o OUT]\n"
                                  "                          [--plugin NAME]... [--no-plugin NAME]... (perfetto)\n";

} // namespace

int exportCommand(const std::vector<std::string>& args)
{
    std::string path, format, filter, output;
    bool hasFilter = false;
    PluginChoice choice;
    for (size_t i = 0; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == "--format" && hasValue)
            format = args[++i];
        else if (args[i] == "--filter" && hasValue)
            filter = args[++i], hasFilter = true;
        else if ((args[i] == "-o" || args[i] == "--output") && hasValue)
            output = args[++i];
        else if (choice.parse(args, i))
            continue;
        else if (path.empty() && !args[i].empty() && args[i][0] != '-')
            path = args[i];
        else
            return std::fputs(kExportUsage, stderr), 2;
    }
    if (path.empty() || format.empty()) return std::fputs(kExportUsage, stderr), 2;
    ExportOptions options;
    if (format == "csv") {
        options.format = ExportFormat::Csv;
    } else if (format == "jsonl") {
        options.format = ExportFormat::JsonLines;
    } else if (format == "perfetto") {
        options.format = ExportFormat::Perfetto;
    } else {
        std::fprintf(stderr, "ringside-cli: unknown export format '%s' (csv, jsonl or perfetto)\n", format.c_str());
        return 2;
    }

    // The plugins' tables are tracks of a Perfetto trace; the other formats hold events alone.
    std::vector<std::unique_ptr<Plugin>> plugins;
    if (options.format == ExportFormat::Perfetto) {
        std::string error;
        if (!choice.instantiate(plugins, error)) {
            std::fprintf(stderr, "ringside-cli: %s\n", error.c_str());
            return 2;
        }
    }
    auto trace = Trace::open(path, LoadOptions(), {}, std::move(plugins));
    if (!trace) {
        std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
        return 1;
    }
    const Trace& t = **trace;
    noteFailures(t, path);
    std::shared_ptr<FilterResult> shown;
    if (hasFilter) {
        auto expression = FilterExpression::compile(t, filter);
        if (!expression) {
            std::fprintf(stderr, "ringside-cli: filter '%s': %s\n", filter.c_str(), expression.error().message.c_str());
            return 2;
        }
        FilterSpec spec;
        spec.expression = filter;
        auto result = applyFilter(t.store(), spec, expression->get());
        if (!result) {
            std::fprintf(stderr, "ringside-cli: %s: %s\n", path.c_str(), result.error().message.c_str());
            return 1;
        }
        shown = *result;
        options.rows = &shown->merged;
    }

    FILE* out = stdout;
    if (!output.empty() && !(out = std::fopen(output.c_str(), "wb"))) {
        std::fprintf(stderr, "ringside-cli: cannot write %s: %s\n", output.c_str(), std::strerror(errno));
        return 1;
    }
    static char buffer[1 << 20];
    std::setvbuf(out, buffer, _IOFBF, sizeof buffer);
    const auto start = std::chrono::steady_clock::now();
    auto summary = exportEvents(t, out, output.empty() ? "standard output" : output, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool closed = out == stdout || std::fclose(out) == 0;
    if (!summary || !closed) {
        std::fprintf(stderr, "ringside-cli: %s\n",
                     summary ? (output + ": cannot write").c_str() : summary.error().message.c_str());
        return 1;
    }
    if (!output.empty())
        std::fprintf(stderr, "ringside-cli: %zu events written to %s in %.2f s (%.2fM rows/s)\n", summary->rows,
                     output.c_str(), seconds, double(summary->rows) / std::max(seconds, 1e-9) / 1e6);
    return 0;
}

} // namespace ringside::cli
