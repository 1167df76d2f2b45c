// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/pluginloader.h"

#include "consume/consumerfailure.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace ringside {

namespace fs = std::filesystem;

PluginCatalog PluginCatalog::discover(const std::vector<std::string>& folders)
{
    PluginCatalog catalog;
    std::vector<std::string> seen;
    for (const std::string& folder : folders) {
        std::error_code error;
        const fs::path canonical = fs::weakly_canonical(folder, error);
        if (folder.empty() || std::find(seen.begin(), seen.end(), canonical.string()) != seen.end()) continue;
        seen.push_back(canonical.string());
        if (!fs::is_directory(folder, error)) continue;
        std::vector<std::string> files;
        for (const auto& entry : fs::directory_iterator(folder, error))
            if (entry.path().extension() == ".so") files.push_back(entry.path().string());
        std::sort(files.begin(), files.end());
        for (const std::string& file : files) catalog.load(file);
    }
    return catalog;
}

void PluginCatalog::load(const std::string& path)
{
    // RTLD_LOCAL: two modules may use the same internal names.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        m_problems.push_back("plugin module " + path + " cannot be loaded: " + (why ? why : "unknown error"));
        return;
    }
    auto interface = reinterpret_cast<RingsidePluginInterfaceFn>(dlsym(handle, "ringside_plugin_interface"));
    auto create = reinterpret_cast<RingsidePluginCreateFn>(dlsym(handle, "ringside_plugin_create"));
    if (!interface && dlsym(handle, "ringside_plugin_api_version")) {
        // Modules before fingerprints said a version number.
        m_problems.push_back("plugin module " + path +
                             " was built for an older plugin interface (a version number, not a fingerprint of "
                             "its headers): rebuild it against this version's headers");
        dlclose(handle);
        return;
    }
    if (!interface || !create) {
        m_problems.push_back("plugin module " + path + " is not a Ringside plugin: it lacks " +
                             (!interface ? "ringside_plugin_interface" : "ringside_plugin_create") +
                             " (define it with RINGSIDE_PLUGIN)");
        dlclose(handle);
        return;
    }
    const char* built = interface();
    if (!built || std::strcmp(built, RINGSIDE_PLUGIN_INTERFACE) != 0) {
        m_problems.push_back("plugin module " + path + " was built against other plugin headers (interface " +
                             (built ? std::string(built).substr(0, 32) : std::string("none")) +
                             "; this Ringside's is " + RINGSIDE_PLUGIN_INTERFACE +
                             "): rebuild it against this version's headers");
        dlclose(handle);
        return;
    }
    // Kept loaded for the life of the process: its plugins' code and vtables live in it.
    std::unique_ptr<Plugin> plugin;
    PluginModule module{{}, {}, path, create};
    try {
        plugin.reset(create());
        if (plugin) module.name = plugin->name(), module.description = plugin->description();
    } catch (...) {
        m_problems.push_back("plugin module " + path + " failed to make its plugin: " + failureOfCurrentException());
        return;
    }
    if (!plugin) {
        m_problems.push_back("plugin module " + path + " made no plugin");
        return;
    }
    if (const PluginModule* first = find(module.name)) {
        m_problems.push_back("plugin module " + path + " is another \"" + module.name + "\"; the one in " +
                             first->path + " is used");
        return;
    }
    m_modules.push_back(std::move(module));
}

const PluginModule* PluginCatalog::find(const std::string& name) const
{
    for (const PluginModule& m : m_modules)
        if (m.name == name) return &m;
    return nullptr;
}

std::vector<std::unique_ptr<Plugin>>
PluginCatalog::instantiate(const std::function<bool(const std::string&)>& wanted,
                           std::vector<std::string>* failures) const
{
    std::vector<std::unique_ptr<Plugin>> plugins;
    for (const PluginModule& module : m_modules) {
        if (!wanted(module.name)) continue;
        try {
            if (std::unique_ptr<Plugin> plugin = module.instantiate()) plugins.push_back(std::move(plugin));
        } catch (...) {
            // Made once when the catalog was read, it fails now: left out, and said so.
            if (failures)
                failures->push_back("plugin " + module.name + " failed to make its plugin: " +
                                    failureOfCurrentException());
        }
    }
    return plugins;
}

std::vector<std::string> PluginCatalog::searchPath()
{
    std::vector<std::string> folders;
    if (const char* env = std::getenv("RINGSIDE_PLUGIN_PATH")) {
        std::string list = env;
        for (size_t at = 0; at <= list.size();) {
            const size_t colon = std::min(list.find(':', at), list.size());
            if (colon > at) folders.push_back(list.substr(at, colon - at));
            at = colon + 1;
        }
    }
    if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data)
        folders.push_back(std::string(data) + "/ringside/plugins");
    else if (const char* home = std::getenv("HOME"); home && *home)
        folders.push_back(std::string(home) + "/.local/share/ringside/plugins");
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    const std::string exe = error ? std::string() : self.string();
#ifdef RINGSIDE_BUILD_ROOT
    // A program run from the build tree uses the plugins built beside it, not installed ones.
    const std::string buildRoot = RINGSIDE_BUILD_ROOT "/";
    if (exe.compare(0, buildRoot.size(), buildRoot) == 0) {
        folders.push_back(RINGSIDE_BUILD_PLUGIN_DIR);
        return folders;
    }
#endif
    if (!exe.empty()) {
        // bin/ringside -> lib/ringside/plugins; libexec/ringside/x -> lib/ringside/plugins too.
        folders.push_back((self.parent_path().parent_path() / "lib/ringside/plugins").string());
        folders.push_back((self.parent_path().parent_path().parent_path() / "lib/ringside/plugins").string());
    }
    return folders;
}

} // namespace ringside
