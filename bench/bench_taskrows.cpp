// SPDX-License-Identifier: GPL-2.0-or-later
// Task rows benchmark: what adding a task's or a process's timeline rows costs on the GUI
// thread (the per-task index makes it independent of the trace's size), and one paint with
// those rows; for comparison, what the scan-and-sort that rows used to do costs.
// usage: bench_taskrows FILE   (runs offscreen)
#include "benchsupport.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include <QApplication>

#include <algorithm>
#include <cstdio>

using namespace ringside;

namespace {

double msSince(const QElapsedTimer& t)
{
    return t.nsecsElapsed() / 1e6;
}

// The previous way to gather a task row: every event of every stream, then a sort by time.
double scanAndSortMs(const EventStore& store, int32_t pid)
{
    QElapsedTimer t;
    t.start();
    std::vector<EventRef> events;
    for (size_t s = 0; s < store.streamCount(); ++s) {
        const auto& columns = store.stream(StreamId(uint16_t(s))).columns;
        for (size_t i = 0; i < columns.size(); ++i)
            if (columns.pid[i] == pid) events.push_back({StreamId(uint16_t(s)), uint32_t(i)});
    }
    std::stable_sort(events.begin(), events.end(),
                     [&](EventRef a, EventRef b) { return store.timestamp(a) < store.timestamp(b); });
    return msSince(t);
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_taskrows FILE\n");
        return 2;
    }
    std::shared_ptr<TraceSession> session = bench::loadSession(argv[1], "bench_taskrows");
    if (!session) return 1;
    const EventStore& store = session->store();
    const TaskIndex& index = session->trace->taskIndex();
    std::printf("events=%zu tasks=%zu index_mb=%.2f\n", store.eventCount(), index.size(),
                index.memoryBytes() / 1048576.0);

    // The busiest task that is not idle, the idle task, and the process with the most tasks.
    TaskId busiest;
    for (size_t t = 0; t < index.size(); ++t) {
        const TaskId id{uint32_t(t)};
        if (index.task(id).pid != 0 && (!busiest.valid() || index.task(id).events > index.task(busiest).events))
            busiest = id;
    }
    int32_t process = -1;
    size_t members = 0;
    for (const Task& t : store.tasks().all()) {
        const size_t n = session->trace->processes().members(t.pid).size();
        if (n > members) members = n, process = t.pid;
    }

    ViewState view;
    TimelineWidget timeline(&view);
    timeline.resize(1600, 900);
    view.reset({store.firstTimestamp(), store.lastTimestamp() + 1});
    timeline.setSession(session.get());
    timeline.renderRowsForBenchmark();

    auto addAndPaint = [&](const char* what, int32_t pid, bool wholeProcess, uint64_t events) {
        QElapsedTimer t;
        t.start();
        if (wholeProcess)
            timeline.rows().addProcess(pid);
        else
            timeline.rows().addTask(pid);
        const double add = msSince(t);
        timeline.renderRowsForBenchmark();
        std::printf("%-28s pid=%-7d %s=%-9llu add_ms=%.3f paint_ms=%.2f (scan+sort it replaces: %.0f ms)\n", what, pid,
                    wholeProcess ? "tasks" : "events", (unsigned long long)events, add, timeline.lastRenderMs(),
                    scanAndSortMs(store, pid));
    };
    if (busiest.valid()) addAndPaint("busiest task", index.task(busiest).pid, false, index.task(busiest).events);
    const TaskId idle = index.busiestTaskOf(0);
    if (idle.valid()) addAndPaint("idle task", 0, false, index.task(idle).events);
    if (members > 1)
        addAndPaint("largest process", process, true, members);
    else
        std::printf("largest process: the recording has no process with several tasks (no task_newtask)\n");

    // Painting the rows while zoomed in, panned across.
    std::vector<double> frames;
    const auto full = view.fullRange();
    for (int f = 0; f < 20; ++f) {
        const uint64_t span = full.span() / 1000;
        const uint64_t start = full.start + (full.span() - span) * uint64_t(f) / 19;
        view.setVisibleRange({start, start + span}, false);
        timeline.renderRowsForBenchmark();
        frames.push_back(timeline.lastRenderMs());
    }
    std::sort(frames.begin(), frames.end());
    std::printf("paint with those rows at 1/1000 zoom: median_ms=%.2f max_ms=%.2f\n", frames[frames.size() / 2],
                frames.back());
    return 0;
}
