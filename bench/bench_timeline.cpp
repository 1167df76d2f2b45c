// SPDX-License-Identifier: GPL-2.0-or-later
// Timeline benchmark: how long opening a recording takes until the timeline is drawn, and
// the paint time per frame at full view and five zoom levels (each level panned across).
// usage: bench_timeline FILE [--frames N]   (runs offscreen)
#include "benchsupport.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include <QApplication>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace ringside;

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_timeline FILE [--frames N]\n");
        return 2;
    }
    int frames = 30;
    for (int i = 2; i + 1 < argc; ++i)
        if (QByteArray(argv[i]) == "--frames") frames = std::max(1, atoi(argv[i + 1]));

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

    const auto full = view.fullRange();
    std::vector<double> all;
    for (int level = 0; level <= 5; ++level) {
        // Level k shows 1/10^k of the trace, panned from start to end over the frames.
        double fraction = 1.0;
        for (int k = 0; k < level; ++k) fraction /= 10;
        const uint64_t span = std::max<uint64_t>(1000, uint64_t(double(full.span()) * fraction));
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
