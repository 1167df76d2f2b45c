// SPDX-License-Identifier: GPL-2.0-or-later
// `ringside-cli stats FILE --plugin NAME [--json]`: a plugin's statistics tables.
#include "commands.h"
#include "jsonschema.h"

#include "plugin/statstext.h"
#include "pluginchoice.h"
#include "trace.h"

#include <cstdio>

namespace ringside::cli {

namespace {

const char* const kStatsUsage = "usage: ringside-cli stats FILE --plugin NAME [--json]\n";

} // namespace

int statsCommand(const std::vector<std::string>& args)
{
    std::string path;
    bool json = false;
    PluginChoice choice;
    choice.defaultAll = false;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--json")
            json = true;
        else if (choice.parse(args, i))
            continue;
        else if (path.empty() && args[i][0] != '-')
            path = args[i];
        else
            return std::fputs(kStatsUsage, stderr), 2;
    }
    if (path.empty() || choice.only.size() != 1) return std::fputs(kStatsUsage, stderr), 2;
    std::vector<std::unique_ptr<Plugin>> plugins;
    std::string error;
    if (!choice.instantiate(plugins, error)) {
        std::fprintf(stderr, "ringside-cli: %s\n", error.c_str());
        return 1;
    }
    auto trace = Trace::open(path, LoadOptions(), {}, std::move(plugins));
    if (!trace) {
        std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
        return 1;
    }
    const Trace& t = **trace;
    noteFailures(t, path);
    const Plugin& plugin = *t.plugins().front();
    if (!t.pluginFailure(plugin).empty()) return 1; // said with the other failures
    if (const std::string nothing = t.nothingToShow(plugin); !nothing.empty())
        std::fprintf(stderr, "ringside-cli: plugin %s has nothing to show for %s: %s\n", plugin.name().c_str(),
                     path.c_str(), nothing.c_str());
    const auto tables = t.statistics(plugin);
    const StatsContext context = t.statsContext();
    if (json) {
        std::printf("{\"schema\": \"%s\", \"file\": %s, \"plugin\": %s, \"plugin_schema\": %d", schema::kStats,
                    jsonQuoted(path).c_str(), jsonQuoted(plugin.name()).c_str(), plugin.statisticsVersion());
        for (const StatsTable& table : *tables)
            std::printf(",\n%s: %s", jsonQuoted(table.key).c_str(), tableJson(table, context).c_str());
        std::printf("}\n");
        return 0;
    }
    bool first = true;
    for (const StatsTable& table : *tables) {
        std::printf("%s%s", first ? "" : "\n", tableText(table, context).c_str());
        first = false;
    }
    return 0;
}

} // namespace ringside::cli
