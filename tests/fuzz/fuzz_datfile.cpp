// SPDX-License-Identifier: GPL-2.0-or-later
// The whole reader on an arbitrary file: header, options and sections (v6 and v7, compressed
// or not), the metadata handed to libtraceevent (through the child-process check), the CPU
// data, the decoding of the first rows, and the syscalls (requests by event-name prefix),
// sched, workqueue and power plugins fed whatever the file holds.
#include "fuzzsupport.h"
#include "plugin/statstext.h"
#include "powerplugin.h"
#include "schedplugin.h"
#include "syscallsplugin.h"
#include "workqueueplugin.h"

#include <traceevent/event-parse.h>

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    tep_set_loglevel(TEP_LOG_NONE);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ringside::fuzz::MemoryFile file(data, size);
    ringside::LoadOptions options;
    options.threads = 1;
    std::vector<std::unique_ptr<ringside::Plugin>> plugins;
    plugins.push_back(std::make_unique<ringside::syscalls::SyscallsPlugin>());
    plugins.push_back(std::make_unique<ringside::sched::SchedPlugin>());
    plugins.push_back(std::make_unique<ringside::workqueue::WorkqueuePlugin>());
    plugins.push_back(std::make_unique<ringside::power::PowerPlugin>());
    auto trace = ringside::Trace::open(file.path(), options, {}, std::move(plugins));
    if (!trace) return 0;
    ringside::fuzz::formatRows(**trace, 256);
    const ringside::StatsContext context = (*trace)->statsContext();
    for (const ringside::Plugin* plugin : (*trace)->plugins())
        for (const ringside::StatsTable& table : *(*trace)->statistics(*plugin))
            (void)ringside::tableText(table, context);
    return 0;
}
