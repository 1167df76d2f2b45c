// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/pluginsettings.h"

#include <QSettings>

#include <algorithm>
#include <mutex>

namespace ringside {

const PluginCatalog& PluginSettings::catalog()
{
    static const PluginCatalog found = PluginCatalog::discover(PluginCatalog::searchPath());
    return found;
}

QStringList PluginSettings::disabled()
{
    return QSettings().value("plugins/disabled").toStringList();
}

void PluginSettings::setDisabled(const QStringList& names)
{
    QSettings().setValue("plugins/disabled", names);
}

bool PluginSettings::isEnabled(const std::string& name)
{
    return !disabled().contains(QString::fromStdString(name));
}

namespace {
std::mutex g_madeLock;
std::vector<std::string> g_notMade; // plugins that failed to be made for a load
} // namespace

std::vector<std::unique_ptr<Plugin>> PluginSettings::instantiateEnabled()
{
    const QStringList off = disabled();
    std::vector<std::string> failures;
    auto plugins = catalog().instantiate(
        [&](const std::string& name) { return !off.contains(QString::fromStdString(name)); }, &failures);
    const std::lock_guard lock(g_madeLock);
    for (std::string& f : failures)
        if (std::find(g_notMade.begin(), g_notMade.end(), f) == g_notMade.end()) g_notMade.push_back(std::move(f));
    return plugins;
}

std::vector<std::string> PluginSettings::problems()
{
    std::vector<std::string> all = catalog().problems();
    const std::lock_guard lock(g_madeLock);
    all.insert(all.end(), g_notMade.begin(), g_notMade.end());
    return all;
}

} // namespace ringside
