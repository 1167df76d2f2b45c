// SPDX-License-Identifier: GPL-2.0-or-later
// Query track benchmark: a query's result made into a track as "Add as Timeline Track" makes
// it, then the timeline painted with its one row under "query tracks", zoomed out over the
// whole recording and at deeper zooms panned across: the frame's time, and the row's own
// share (painted alone, after its slices were laid out in lanes: a worker's work when they
// are many, the first frame's when few).
// usage: bench_querytrack FILE [SQL]   (default: every system call as a slice; runs offscreen)
#include "benchzoom.h"
#include "sql/recordingsql.h"
#include "sql/resulttrack.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include <QApplication>
#include <QPainter>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace ringside;

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // figures as they come
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: bench_querytrack FILE [SQL]\n");
        return 2;
    }
    const std::string query = argc == 3 ? argv[2] : "SELECT ts, dur, utid, name FROM syscalls";
    std::shared_ptr<TraceSession> session = bench::loadSession(argv[1], "bench_querytrack");
    if (!session) return 1;
    // The window runs the analyses after the first frame; the plugins' tables are theirs.
    if (!session->trace->analyse()) {
        std::fprintf(stderr, "bench_querytrack: the analyses failed\n");
        return 1;
    }
    session->trace->finishAnalyses(); // as the window's last batch: the calls still open end
    const Trace& trace = *session->trace;
    auto sql = sql::RecordingSql::open(trace);
    if (!sql) {
        std::fprintf(stderr, "bench_querytrack: %s\n", sql.error().message.c_str());
        return 1;
    }
    QElapsedTimer clock;
    clock.start();
    sql::ResultTrack track(trace, "query_0", "bench");
    const sql::RunOutcome run = (*sql)->run(query, track);
    auto tables = track.take();
    if (!run.ok || !tables) {
        std::fprintf(stderr, "bench_querytrack: %s\n", (!run.ok ? run.message : track.error()).c_str());
        return 1;
    }
    std::printf("track rows=%zu made_s=%.2f  %s\n", track.rows(), clock.nsecsElapsed() / 1e9, query.c_str());
    session->queryTracks.push_back(std::move(tables));
    const TrackTable* table = session->queryTracks[0]->find("query_0");
    if (!table || table->kind() != TrackTable::Kind::Slices) {
        std::fprintf(stderr, "bench_querytrack: the query's result is not slices (give ts, dur and utid or cpu)\n");
        return 1;
    }
    const auto& slices = static_cast<const SliceTable&>(*table);

    ViewState view;
    const timeline::TimeRange full{session->store().firstTimestamp(), session->store().lastTimestamp() + 1};
    view.reset(full);
    view.addQueryTrack({"bench", QString::fromStdString(query)});
    TimelineWidget timeline(&view);
    timeline.resize(1920, 1080);
    timeline.setSession(session.get());
    int queryRows = 0;
    for (const auto& row : timeline.rows().rows()) queryRows += row.kind == TimelineRows::Kind::QueryTrack;
    std::printf("events=%zu query_rows=%d\n", session->store().eventCount(), queryRows);
    // The window's first frame: a row of many slices is laid out on a worker meanwhile.
    QElapsedTimer ready;
    ready.start();
    timeline.renderRowsForBenchmark();
    std::printf("first frame frame_ms=%.1f (the row %s)\n", timeline.lastRenderMs(),
                timeline.tracks().layingOut(slices) ? "being laid out on a worker" : "laid out in it");
    while (timeline.tracks().layingOut(slices)) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    std::printf("row ready after ready_ms=%.1f\n", ready.nsecsElapsed() / 1e6);

    TrackRenderer tracks;
    tracks.setSession(session.get());
    QImage image(1920 - 200, TimelineRows::kQuerySlicesHeight, QImage::Format_ARGB32_Premultiplied);
    auto rowOnly = [&](timeline::TimeRange range) {
        QElapsedTimer c;
        c.start();
        QPainter p(&image);
        tracks.paintSliceRow(p, slices, TrackRenderer::kEveryOwner, image.rect(), range);
        return c.nsecsElapsed() / 1e6;
    };
    QElapsedTimer layout;
    layout.start();
    const size_t lanes = tracks.laneCount(slices, TrackRenderer::kEveryOwner); // lays them out
    const double layoutMs = layout.nsecsElapsed() / 1e6;
    const double first = rowOnly(full);
    std::printf("lanes=%zu laid out on one thread in layout_ms=%.1f, then the first paint row_ms=%.1f\n", lanes,
                layoutMs, first);
    bench::zoomSweep(view, timeline, full, "query row", rowOnly);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak_rss_kb=%ld\n", usage.ru_maxrss);
    return 0;
}
