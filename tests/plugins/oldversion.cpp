// SPDX-License-Identifier: GPL-2.0-or-later
// A module of an older Ringside, whose plugins said an interface version number: refused by
// name, never created.
extern "C" __attribute__((visibility("default"))) int ringside_plugin_api_version()
{
    return 4;
}

extern "C" __attribute__((visibility("default"))) void* ringside_plugin_create()
{
    __builtin_trap(); // must never be called
}
