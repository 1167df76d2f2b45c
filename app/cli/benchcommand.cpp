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
int benchCommand(const std::vector<std::string>& args)
{
    std::string path;
    int repeat = 1;
    LoadOptions options;
    PluginChoice plugins;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--repeat" && i + 1 < args.size())
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
        std::fputs(
            "usage: ringside-cli bench FILE [--repeat N] [--threads N] [--plugin NAME]... [--no-plugin NAME]...\n",
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
        auto start = std::chrono::steady_clock::now();
        auto trace = Trace::open(path, options, {}, std::move(chosen));
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!trace) {
            std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
            return 1;
        }
        struct rusage usage {};
        getrusage(RUSAGE_SELF, &usage);
        size_t events = (*trace)->store().eventCount();
        std::printf("ringside load_s=%.3f events=%zu events_per_s=%.0f store_mb=%.1f peak_rss_kb=%ld\n", seconds,
                    events, events / (seconds > 0 ? seconds : 1e-9), (*trace)->store().memoryBytes() / 1048576.0,
                    usage.ru_maxrss);
        std::printf("plugins=%s consumers_s=%.3f\n", names.empty() ? "none" : names.c_str(),
                    (*trace)->consumersSeconds());
        // The per-task index is part of the load above; built again here alone to show its cost.
        const Trace& t = **trace;
        std::vector<TaskIndex::Creation> creations;
        for (const auto& [pid, time] : t.processes().creations()) creations.push_back({pid, time});
        start = std::chrono::steady_clock::now();
        const TaskIndex index = TaskIndex::build(t.store(), creations, &t.occupancy(), options.threads);
        const double indexSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("task_index build_s=%.3f tasks=%zu index_mb=%.2f\n", indexSeconds, index.size(),
                    index.memoryBytes() / 1048576.0);
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
