// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/pluginloader.h"

#include <QStringList>

#include <memory>
#include <vector>

namespace ringside {

// The plugins the app found (once per process, on the search path) and which of them the user
// switched off (remembered in the settings). Every plugin found is on unless switched off.
class PluginSettings {
public:
    static const PluginCatalog& catalog();
    static QStringList disabled();
    static void setDisabled(const QStringList& names);
    static bool isEnabled(const std::string& name);
    // A fresh instance of each enabled plugin, for one load; one that throws while it is made
    // is left out and added to problems() (any thread).
    static std::vector<std::unique_ptr<Plugin>> instantiateEnabled();
    // The catalog's problems, then those of plugins that failed to be made for a load.
    static std::vector<std::string> problems();
};

} // namespace ringside
