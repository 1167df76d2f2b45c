// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// The interface a Ringside plugin implements: a record consumer (see recordconsumer.h) that
// also says what it is for, whether the recording gave it anything to show, and the typed
// tables it made (plugintables.h). A plugin is a shared module with two C entry points,
// defined by RINGSIDE_PLUGIN(ClassName); the app checks the module's interface fingerprint
// (plugininterface.h, a hash of every header a plugin sees) before it creates anything.
// Plugins see no widgets and never change the core's rows.

#include "consume/recordconsumer.h"
#include "plugin/plugininterface.h"
#include "plugin/plugintables.h"

#include <functional>
#include <string>

namespace ringside {

// What a plugin may ask of the recording it is fed, besides its records.
struct RecordingInfo {
    std::string machine;    // from the file's uname: x86_64, aarch64, armv7l, i686 ...
    int kernelLongSize = 8; // bytes
    // A task's name: the recording's saved comm, or the name it ran under.
    std::function<std::string(int32_t pid)> taskName;
    // Event names of the recording, for requests by prefix (see EventRequest::prefix).
    std::function<std::string(uint16_t type)> eventName;
    // The kernel function at an address, from the recording's kallsyms; empty if unknown. Its
    // symbols are registered while the pages load: ask in tables(), not in consume().
    std::function<std::string(uint64_t address)> functionName;
};

class Plugin : public RecordConsumer {
public:
    // One line for the Plugins dialog and `--help`.
    virtual std::string description() const = 0;
    // Before bind(): the recording the records come from.
    virtual void setRecording(const RecordingInfo& info) { (void)info; }
    // After the load: why there is nothing to show ("no sched_switch events"), or empty.
    virtual std::string nothingToShow() const = 0;
    // The tables made from the records so far; statistics need names, hence `info`.
    virtual PluginTables tables(const RecordingInfo& info) const = 0;
};

} // namespace ringside

// The entry points of a plugin module: the fingerprint of the headers it was built against,
// and its factory.
extern "C" {
using RingsidePluginInterfaceFn = const char* (*)();
using RingsidePluginCreateFn = ringside::Plugin* (*)();
}

#define RINGSIDE_PLUGIN(Class)                                                                                         \
    extern "C" __attribute__((visibility("default"))) const char* ringside_plugin_interface()                          \
    {                                                                                                                  \
        return RINGSIDE_PLUGIN_INTERFACE;                                                                              \
    }                                                                                                                  \
    extern "C" __attribute__((visibility("default"))) ringside::Plugin* ringside_plugin_create()                       \
    {                                                                                                                  \
        return new Class();                                                                                            \
    }
