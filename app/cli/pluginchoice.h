// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/pluginloader.h"
#include "trace.h"

#include <string>
#include <vector>

namespace ringside::cli {

// Which plugins a command loads: `--plugin NAME` (repeatable) loads only those named,
// `--no-plugin NAME` leaves one out; neither: every plugin found, or none for commands where
// plugins are off unless asked for.
struct PluginChoice {
    std::vector<std::string> only, without;
    bool defaultAll = true;

    // Takes --plugin/--no-plugin at args[i] (and its value); false when args[i] is neither.
    bool parse(const std::vector<std::string>& args, size_t& i);
    // The plugins chosen from the catalog of the search path; problems of the search (modules
    // that failed to load) are printed as warnings. False, with `error` set, for a name that
    // no module has.
    bool instantiate(std::vector<std::unique_ptr<Plugin>>& plugins, std::string& error) const;
};

// What failed in `trace`'s analyses (a plugin or analysis that threw and was stopped, or the
// analyses as a whole), noted once they ran, for main() to say on stderr, naming `path`, after
// the command's output (what did not fail is still right): the command then exits 1.
void noteFailures(const Trace& trace, const std::string& path);
// The failures noted, as lines to print; the exit status a command's `status` becomes.
std::vector<std::string> notedFailures();

} // namespace ringside::cli
