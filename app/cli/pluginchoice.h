// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/pluginloader.h"

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

} // namespace ringside::cli
