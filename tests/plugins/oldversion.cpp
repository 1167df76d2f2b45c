// SPDX-License-Identifier: GPL-2.0-or-later
// A module built for another plugin interface version: refused by name, never created.
#include "plugin/plugin.h"

extern "C" __attribute__((visibility("default"))) int ringside_plugin_api_version()
{
    return ringside::kPluginApiVersion + 1;
}

extern "C" __attribute__((visibility("default"))) ringside::Plugin* ringside_plugin_create()
{
    __builtin_trap(); // must never be called
}
