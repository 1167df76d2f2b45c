// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "benchsupport.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include <functional>

namespace ringside::bench {

// The timeline's frames zoomed out over the whole recording and at deeper zooms panned
// across (10 views each), beside what `alone(range)` measures in the same views (some rows
// painted alone, in ms): a line of medians and maxima per zoom.
inline void zoomSweep(ViewState& view, TimelineWidget& timeline, timeline::TimeRange full, const char* aloneName,
                      const std::function<double(timeline::TimeRange)>& alone)
{
    for (const uint64_t zoom : {uint64_t(1), uint64_t(10), uint64_t(1000), uint64_t(100000)}) {
        std::vector<double> frames, own;
        for (int f = 0; f < 10; ++f) {
            const uint64_t span = std::max<uint64_t>(full.span() / zoom, 1);
            const uint64_t start = full.start + (full.span() - span) * uint64_t(f) / 9;
            view.setVisibleRange({start, start + span}, false);
            timeline.renderRowsForBenchmark();
            frames.push_back(timeline.lastRenderMs());
            own.push_back(alone({start, start + span}));
        }
        std::printf("zoom 1/%-6llu frame median_ms=%.2f max_ms=%.2f  %s alone median_ms=%.2f max_ms=%.2f\n",
                    (unsigned long long)zoom, median(frames), *std::max_element(frames.begin(), frames.end()),
                    aloneName, median(own), *std::max_element(own.begin(), own.end()));
    }
}

} // namespace ringside::bench
