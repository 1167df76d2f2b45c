# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin interface: the headers a plugin module is built against (installed under
# include/ringside), and its fingerprint, a hash of their text without comments and spacing.
# Any change to a type a plugin sees changes the fingerprint, so a module built against other
# headers is refused by name instead of being called through a vtable of another shape.

set(RINGSIDE_PLUGIN_HEADERS
    plugin/plugin.h
    plugin/plugintables.h
    consume/recordconsumer.h
    store/ids.h
    store/blocklist.h
    util/flatindex.h
    util/errnonames.h
    analysis/guesttime.h)

# ringside_plugin_interface(OUT ROOT HEADERS...): the fingerprint of the headers (paths
# relative to ROOT), in the order given.
function(ringside_plugin_interface out root)
  set(text "")
  foreach(header ${ARGN})
    file(READ ${root}/${header} content)
    # Comments and spacing do not change what a module is built to.
    string(REGEX REPLACE "//[^\n]*" "" content "${content}")
    string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" content "${content}")
    string(REGEX REPLACE "[ \t\r\n]+" " " content "${content}")
    string(APPEND text "${header}:${content}\n")
  endforeach()
  string(SHA256 hash "${text}")
  string(SUBSTRING ${hash} 0 16 hash)
  set(${out} ${hash} PARENT_SCOPE)
endfunction()

# ringside_plugin_sdk(DIR ROOT FINGERPRINT HEADERS...): the headers copied from ROOT into
# DIR, as an installation lays them out, with plugin/plugininterface.h saying FINGERPRINT.
# Modules built against DIR alone see what a third party sees.
function(ringside_plugin_sdk dir root fingerprint)
  foreach(header ${ARGN})
    configure_file(${root}/${header} ${dir}/${header} COPYONLY)
  endforeach()
  ringside_plugin_interface_header(${dir} ${fingerprint})
endfunction()

# ringside_plugin_interface_header(DIR FINGERPRINT): DIR/plugin/plugininterface.h.
function(ringside_plugin_interface_header dir fingerprint)
  file(CONFIGURE OUTPUT ${dir}/plugin/plugininterface.h CONTENT
"// SPDX-License-Identifier: GPL-2.0-or-later
// Generated from the plugin headers: their fingerprint (see core/plugin/plugininterface.cmake).
#pragma once

#define RINGSIDE_PLUGIN_INTERFACE \"${fingerprint}\"
" @ONLY)
endfunction()
