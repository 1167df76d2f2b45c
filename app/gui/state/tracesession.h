// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/cpuoccupancy.h"
#include "calls/callcontext.h"
#include "calls/callslices.h"
#include "capture/livecapture.h"
#include "decode/eventformatter.h"
#include "jobs/analysisjob.h"
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
    // A capture shown (running or ended: its pages stay in memory until saved); whether the
    // user saved it.
    bool isCapture = false;
    bool liveSaved = false;
    // Its pages are still being read: a recording shown while it loads (LoadJob). Its store
    // grows, its diagnostics are the loader's until then, its analyses not begun. GUI thread.
    bool loading = false;
    // Its store still grows: a recording being read, or a capture running.
    bool growing() const { return loading || (live && !live->progress().ended); }
    const EventStore& store() const { return trace->store(); }
    // The pid of the task running on the stream's CPU at `t` (0: idle), or -1 when not known.
    int32_t pidRunningAt(StreamId stream, uint64_t t) const
    {
        const TaskId task = trace->runningTasks().taskAt(stream, t);
        return task.valid() && task.value < trace->taskIndex().size() ? trace->taskIndex().task(task).pid : -1;
    }

    // The task's name, as the trace names tasks (the same in the CLI).
    std::string taskName(int32_t pid) const { return trace->taskName(pid); }

    // Query results drawn as timeline tracks (the Query pane makes them from the view's
    // queryTracks); GUI thread. The timeline draws them with the analyses' tables; SQL's
    // counter tables hold them too (shared: a query reading one keeps it alive).
    std::vector<std::shared_ptr<AnalysisTables>> queryTracks;

    // The analyses of the trace, run on a thread of their own (see AnalysisJob); goes before
    // the trace does.
    std::unique_ptr<AnalysisJob> analyses;

    // The names of the call slices' functions (as the trace named them after each batch) as
    // one snapshot, for call trees that keep them with the tree they name; copied again when
    // calls of new functions arrived; GUI thread. One name: CallSlices::functionName.
    std::shared_ptr<const std::vector<std::string>> callNames() const
    {
        const CallSlices& calls = trace->callSlices();
        if (!m_callNames || m_callNames->size() != calls.labelCount())
            m_callNames = std::make_shared<const std::vector<std::string>>(calls.functionNames());
        return m_callNames;
    }

    ~TraceSession()
    {
        analyses.reset(); // its thread reads the trace
        live.reset();     // its thread appends to the trace's store
    }

private:
    mutable std::shared_ptr<const std::vector<std::string>> m_callNames;
};

} // namespace ringside
