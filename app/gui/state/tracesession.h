// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/cpuoccupancy.h"
#include "calls/callcontext.h"
#include "calls/callslices.h"
#include "capture/livecapture.h"
#include "decode/eventformatter.h"
#include "trace.h"

#include <QString>

#include <memory>
#include <mutex>

namespace ringside {

// An opened recording as the GUI holds it: the trace and the formatter the views decode
// through. Owned by the GUI thread.
struct TraceSession {
    QString path;
    bool isSample = false;
    std::unique_ptr<Trace> trace;
    std::unique_ptr<EventFormatter> formatter;
    // A live capture growing the trace's store (see LiveCapture); goes before the trace does.
    std::shared_ptr<LiveCapture> live;
    // A capture shown (live, or once ended, loaded from `captureCopy` for the analyses a
    // growing store lacks); whether the user saved it.
    bool isCapture = false;
    bool liveSaved = false;
    QString captureCopy;
    const EventStore& store() const { return trace->store(); }
    const CpuOccupancy& occupancy() const { return trace->occupancy(); }

    // The task's name: the recording's saved comm, or else the name it had in a context
    // switch (saved comms cover only the tasks the kernel still remembered).
    std::string taskName(int32_t pid) const
    {
        std::string comm = formatter->comm(pid);
        if (comm == "<...>")
            if (const std::string* seen = occupancy().name(pid)) return *seen;
        return comm;
    }

    // What each of the trace's plugins made (in the order of trace->plugins()), once the load
    // is done; empty tables for a plugin that failed.
    std::vector<PluginTables> pluginTables;
    void makePluginTables()
    {
        RecordingInfo info = trace->recordingInfo();
        info.taskName = [this](int32_t pid) { return taskName(pid); };
        pluginTables.clear();
        pluginTableErrors.clear();
        for (const Plugin* plugin : trace->plugins()) {
            pluginTables.emplace_back();
            pluginTableErrors.emplace_back();
            if (!trace->pluginFailure(*plugin).empty()) continue;
            try {
                pluginTables.back() = plugin->tables(info);
            } catch (const std::exception& e) {
                pluginTableErrors.back() = e.what();
            }
        }
    }
    // Why a plugin's tables could not be made (it threw), per plugin; empty when they were.
    std::vector<std::string> pluginTableErrors;

    // The names of the call slices' functions (see functionNames), looked up once and again
    // when calls of new functions arrived; GUI thread.
    std::shared_ptr<const std::vector<std::string>> callNames() const
    {
        const auto& addresses = trace->callSlices().functionAddresses();
        if (!m_callNames || m_callNames->size() != addresses.size())
            m_callNames =
                std::make_shared<const std::vector<std::string>>(ringside::functionNames(trace->tep(), addresses));
        return m_callNames;
    }

    ~TraceSession()
    {
        live.reset(); // its thread appends to the trace's store
    }

private:
    mutable std::shared_ptr<const std::vector<std::string>> m_callNames;
};

} // namespace ringside
