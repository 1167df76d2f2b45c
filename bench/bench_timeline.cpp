// SPDX-License-Identifier: GPL-2.0-or-later
// Timeline benchmark: how long opening a recording takes until the timeline is drawn, and
// the paint time per frame at full view and five zoom levels (each level panned across).
// With --calls, the task with the most function_graph calls and the first CPU show their
// calls (flame-chart tracks) in a taller window, and the zoom goes three levels deeper.
// usage: bench_timeline FILE [--frames N] [--calls]   (runs offscreen)
#include "benchsupport.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include <QApplication>
#include <QFile>

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <vector>

using namespace ringside;

namespace {

// The process's resident memory now, in MB (Linux).
double rssMb()
{
    QFile status("/proc/self/status");
    if (!status.open(QIODevice::ReadOnly)) return 0;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ')[0].toDouble() / 1024;
    return 0;
}

// Shows the calls of the task with the most and of the first CPU, laid out now.
bool showCalls(ViewState& view, TimelineWidget& timeline, const TraceSession& session)
{
    const CallSlices& calls = session.trace->callSlices();
    if (!calls.available()) {
        std::fprintf(stderr, "bench_timeline: the recording has no function_graph calls\n");
        return false;
    }
    std::unordered_map<int32_t, size_t> perTask;
    for (size_t i = 0; i < calls.size(); ++i) ++perTask[calls.pid(i)];
    const auto busiest = std::max_element(perTask.begin(), perTask.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    timeline.resize(1600, 1000);
    view.setTaskShowsCalls(busiest->first, true);
    view.setCpuShowsCalls(session.store().buffers()[0].streams[0], true);
    QElapsedTimer clock;
    clock.start();
    const double rssBefore = rssMb();
    timeline.layOutCallsNow();
    std::printf("rss_before_lanes_mb=%.0f rss_after_lanes_mb=%.0f\n", rssBefore, rssMb());
    for (const auto& row : timeline.rows().rows())
        if (row.kind == TimelineRows::Kind::Calls)
            std::printf("calls row %s: lanes=%d height=%d\n", qPrintable(row.label.trimmed()), row.lanes, row.height);
    std::printf("calls=%zu task=%d task_calls=%zu lanes_laid_out_ms=%.1f (both rows)\n", calls.size(), busiest->first,
                busiest->second, clock.nsecsElapsed() / 1e6);
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_timeline FILE [--frames N]\n");
        return 2;
    }
    int frames = 30;
    bool calls = false;
    for (int i = 2; i < argc; ++i) {
        if (QByteArray(argv[i]) == "--frames" && i + 1 < argc) frames = std::max(1, atoi(argv[i + 1]));
        if (QByteArray(argv[i]) == "--calls") calls = true;
    }

    ViewState view;
    TimelineWidget timeline(&view);
    timeline.resize(1600, 600);
    QElapsedTimer clock;
    clock.start();
    std::shared_ptr<TraceSession> session = bench::loadSession(argv[1], "bench_timeline");
    if (!session) return 1;
    const double loaded = clock.nsecsElapsed() / 1e9;
    view.reset({session->store().firstTimestamp(), session->store().lastTimestamp() + 1});
    timeline.setSession(session.get());
    timeline.renderRowsForBenchmark();
    const double drawn = clock.nsecsElapsed() / 1e9;
    std::printf("open_to_drawn_s=%.3f (load_and_occupancy_s=%.3f, first_frame_ms=%.1f) events=%zu\n", drawn, loaded,
                timeline.lastRenderMs(), session->store().eventCount());
    int levels = 5;
    if (calls) {
        // The window runs the analyses after the first frame; the calls are theirs.
        clock.restart();
        if (!session->trace->analyse()) {
            std::fprintf(stderr, "bench_timeline: the analyses failed\n");
            return 1;
        }
        session->trace->finishAnalyses(); // as the window's last batch: the calls still open end
        std::printf("analysed_s=%.3f\n", clock.nsecsElapsed() / 1e9);
        timeline.tablesGrew();
    }
    if (calls && !showCalls(view, timeline, *session)) return 1;
    if (calls) levels = 8;

    const auto full = view.fullRange();
    std::vector<double> all;
    for (int level = 0; level <= levels; ++level) {
        // Level k shows 1/10^k of the trace, panned from start to end over the frames.
        double fraction = 1.0;
        for (int k = 0; k < level; ++k) fraction /= 10;
        const uint64_t span = std::max<uint64_t>(100, uint64_t(double(full.span()) * fraction));
        std::vector<double> times;
        for (int f = 0; f < frames; ++f) {
            const uint64_t room = full.span() > span ? full.span() - span : 0;
            const uint64_t start = full.start + (frames > 1 ? room * uint64_t(f) / uint64_t(frames - 1) : 0);
            view.setVisibleRange({start, start + span}, false);
            timeline.renderRowsForBenchmark();
            times.push_back(timeline.lastRenderMs());
        }
        std::sort(times.begin(), times.end());
        all.insert(all.end(), times.begin(), times.end());
        std::printf("zoom 1/%-7.0f visible=%.6f s  median_ms=%.2f max_ms=%.2f\n", 1 / fraction, span / 1e9,
                    times[times.size() / 2], times.back());
    }
    std::sort(all.begin(), all.end());
    std::printf("all frames: median_ms=%.2f max_ms=%.2f frames=%zu\n", all[all.size() / 2], all.back(), all.size());
    return 0;
}
