// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugin.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ringside {

// A plugin module found and checked: its interface version matched and it made a plugin.
struct PluginModule {
    std::string name;
    std::string description;
    std::string path;
    RingsidePluginCreateFn create = nullptr;

    std::unique_ptr<Plugin> instantiate() const { return std::unique_ptr<Plugin>(create()); }
};

// The plugin modules of the search path. Each `*.so` of each folder is loaded (and stays
// loaded); one that fails to load, lacks an entry point, was built for another interface
// version or makes no plugin is a problem naming the file, and the rest are found. A name
// found twice keeps the first (the search path is in order of preference).
class PluginCatalog {
public:
    static PluginCatalog discover(const std::vector<std::string>& folders);
    // $RINGSIDE_PLUGIN_PATH (colon-separated), the user's data folder
    // ($XDG_DATA_HOME/ringside/plugins), then lib/ringside/plugins beside the installed
    // program, or the build tree's plugins for a program run from the build tree.
    static std::vector<std::string> searchPath();

    const std::vector<PluginModule>& modules() const { return m_modules; }
    const std::vector<std::string>& problems() const { return m_problems; }
    const PluginModule* find(const std::string& name) const;
    // A fresh instance of each plugin `wanted` names, in catalog order, for one load; one that
    // throws while it is made is left out and `failures` (if given) says so.
    std::vector<std::unique_ptr<Plugin>> instantiate(const std::function<bool(const std::string&)>& wanted,
                                                     std::vector<std::string>* failures = nullptr) const;

private:
    void load(const std::string& path);
    std::vector<PluginModule> m_modules;
    std::vector<std::string> m_problems;
};

} // namespace ringside
