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
    const QStringList off = disabled();
    return catalog().instantiate([&](const std::string& name) { return !off.contains(QString::fromStdString(name)); });
}

} // namespace ringside
