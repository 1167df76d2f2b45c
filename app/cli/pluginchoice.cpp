// SPDX-License-Identifier: GPL-2.0-or-later
#include "pluginchoice.h"

#include <algorithm>
#include <cstdio>

namespace ringside::cli {

bool PluginChoice::parse(const std::vector<std::string>& args, size_t& i)
{
    if (i + 1 >= args.size() || (args[i] != "--plugin" && args[i] != "--no-plugin")) return false;
    (args[i] == "--plugin" ? only : without).push_back(args[i + 1]);
    ++i;
    return true;
}

bool PluginChoice::instantiate(std::vector<std::unique_ptr<Plugin>>& plugins, std::string& error) const
{
    if (only.empty() && !defaultAll) return true;
    static const PluginCatalog catalog = PluginCatalog::discover(PluginCatalog::searchPath());
    static bool warned = false;
    if (!std::exchange(warned, true))
        for (const std::string& problem : catalog.problems())
            std::fprintf(stderr, "ringside-cli: warning: %s\n", problem.c_str());
    for (const std::string& name : only)
        if (!catalog.find(name)) {
            std::string found;
            for (const PluginModule& m : catalog.modules()) found += (found.empty() ? "" : ", ") + m.name;
            error = "no plugin named \"" + name + "\" (found: " + (found.empty() ? "none" : found) + ")";
            return false;
        }
    std::vector<std::string> failures;
    plugins = catalog.instantiate(
        [&](const std::string& name) {
            const bool named = std::find(only.begin(), only.end(), name) != only.end();
            const bool left = std::find(without.begin(), without.end(), name) != without.end();
            return (only.empty() ? defaultAll : named) && !left;
        },
        &failures);
    if (!failures.empty() && !only.empty()) {
        error = failures.front(); // a plugin asked for by name that cannot be made
        return false;
    }
    for (const std::string& failure : failures) std::fprintf(stderr, "ringside-cli: warning: %s\n", failure.c_str());
    return true;
}

namespace {
std::vector<std::string> g_failures;
}

void noteFailures(const Trace& trace, const std::string& path)
{
    for (const Trace::Failure& f : trace.failures()) {
        if (f.who.empty()) {
            g_failures.push_back(path + ": the analyses stopped: " + f.what);
            continue;
        }
        const bool plugin = std::any_of(trace.plugins().begin(), trace.plugins().end(),
                                        [&](const Plugin* p) { return p->name() == f.who; });
        g_failures.push_back(std::string(plugin ? "plugin " : "analysis ") + f.who + " failed on " + path +
                             " and was stopped: " + f.what);
    }
}

std::vector<std::string> notedFailures()
{
    return g_failures;
}

} // namespace ringside::cli
