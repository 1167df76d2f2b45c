// SPDX-License-Identifier: GPL-2.0-or-later
#include "commands.h"

#include "calls/calltree.h"
#include "pluginchoice.h"
#include "trace.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>

namespace ringside::cli {

// Prints the figures compared side by side with the reference loaders: wall time of a whole
// open (metadata, parallel page parsing, merge), events per second and peak resident memory.
// With --growing, the store is published as it is parsed, as the window shows it: how long
// until its first rows are out is printed too.
int benchCommand(const std::vector<std::string>& args)
{
    std::string path;
    int repeat = 1;
    LoadOptions options;
    PluginChoice plugins;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--growing")
            options.growing = true;
        else if (args[i] == "--repeat" && i + 1 < args.size())
            repeat = std::max(1, std::atoi(args[++i].c_str()));
        else if (args[i] == "--threads" && i + 1 < args.size())
            options.threads = std::atoi(args[++i].c_str());
        else if (plugins.parse(args, i))
            continue;
        else if (path.empty())
            path = args[i];
        else
            path.clear(), i = args.size();
    }
    if (path.empty()) {
        std::fputs("usage: ringside-cli bench FILE [--repeat N] [--threads N] [--growing] [--plugin NAME]... "
                   "[--no-plugin NAME]...\n",
                   stderr);
        return 2;
    }
    for (int r = 0; r < repeat; ++r) {
        std::vector<std::unique_ptr<Plugin>> chosen;
        std::string error;
        if (!plugins.instantiate(chosen, error)) {
            std::fprintf(stderr, "ringside-cli: %s\n", error.c_str());
            return 1;
        }
        std::string names;
        for (const auto& p : chosen) names += (names.empty() ? "" : ",") + p->name();
        // The store first, then the analyses on it, as the window does: each timed apart.
        auto start = std::chrono::steady_clock::now();
        LoadOptions storeOnly = options;
        storeOnly.analyse = false;
        auto trace = Trace::unloaded(path, {}, std::move(chosen));
        if (!trace) {
            std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
            return 1;
        }
        Trace& t = **trace;
        double firstRowsSeconds = -1;
        storeOnly.progress = [&](const LoadProgress&) {
            if (firstRowsSeconds < 0 && t.store().eventCount() > 0)
                firstRowsSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        };
        if (auto loaded = t.load(storeOnly); !loaded) {
            std::fprintf(stderr, "ringside-cli: %s\n", loaded.error().message.c_str());
            return 1;
        }
        const double loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const auto analysing = std::chrono::steady_clock::now();
        t.analyse();
        t.finishAnalyses();
        if (r == 0) noteFailures(t, path);
        const auto done = std::chrono::steady_clock::now();
        const double analysisSeconds = std::chrono::duration<double>(done - analysing).count();
        const double seconds = std::chrono::duration<double>(done - start).count();
        struct rusage usage {};
        getrusage(RUSAGE_SELF, &usage);
        size_t events = t.store().eventCount();
        std::printf("ringside load_s=%.3f events=%zu events_per_s=%.0f store_mb=%.1f peak_rss_kb=%ld\n", seconds,
                    events, events / (seconds > 0 ? seconds : 1e-9), t.store().memoryBytes() / 1048576.0,
                    usage.ru_maxrss);
        if (options.growing) std::printf("growing first_rows_s=%.3f\n", firstRowsSeconds);
        std::printf("plugins=%s store_s=%.3f analyses_s=%.3f consumers_s=%.3f analyses_mb=%.1f\n",
                    names.empty() ? "none" : names.c_str(), loadSeconds, analysisSeconds, t.consumersSeconds(),
                    t.analysisMemoryBytes() / 1048576.0);
        const TaskIndex& index = t.taskIndex();
        std::printf("task_index tasks=%zu index_mb=%.2f\n", index.size(), index.memoryBytes() / 1048576.0);
        // Where analyses_mb goes: each track table that holds rows.
        for (const Trace::Analysis& a : t.analyses()) {
            if (!a.tables) continue;
            for (const auto& table : a.tables->tables())
                if (table->rows() > 0)
                    std::printf("table analysis=%s key=%s rows=%zu mb=%.1f\n", a.name.c_str(), table->key().c_str(),
                                table->rows(), table->memoryBytes() / 1048576.0);
        }
        const CallSlices& calls = t.callSlices();
        if (calls.available()) {
            // The slices are built while the consumers take in the records: funcgraph records per
            // second of that, and what the whole-trace top-down tree costs.
            const uint64_t records = calls.pairing().entries + calls.pairing().exits;
            const double feed = t.consumersSeconds();
            std::printf("call_slices calls=%zu records=%" PRIu64 " consumers_s=%.3f records_per_s=%.0f "
                        "bytes_per_call=%.1f\n",
                        calls.size(), records, feed, records / (feed > 0 ? feed : 1e-9),
                        calls.size() ? double(calls.memoryBytes()) / double(calls.size()) : 0.0);
            start = std::chrono::steady_clock::now();
            const CallTree tree = CallTree::topDown(calls, CallSelection());
            const double treeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::printf("call_tree top_down_s=%.3f nodes=%zu\n", treeSeconds, tree.size());
        }
    }
    return 0;
}

} // namespace ringside::cli
