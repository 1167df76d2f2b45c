// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/pluginsettings.h"

#include <QSettings>

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

std::vector<std::unique_ptr<Plugin>> PluginSettings::instantiateEnabled()
{
    std::vector<std::unique_ptr<Plugin>> plugins;
    const QStringList off = disabled();
    for (const PluginModule& module : catalog().modules())
        if (!off.contains(QString::fromStdString(module.name))) plugins.push_back(module.instantiate());
    return plugins;
}

} // namespace ringside
