// SPDX-License-Identifier: GPL-2.0-or-later
// Counter rows benchmark: number fields plotted as counters per CPU (each a query track made
// as the details pane's "Plot field as a counter" makes it), then the timeline painted with
// those rows shown, zoomed out over the whole recording and at deeper zooms panned across:
// the frame's time, and the counter rows' own share (painted alone).
// usage: bench_counters FILE [EVENT.FIELD ...]   (default: sys_enter.id sys_exit.ret; runs offscreen)
#include "benchzoom.h"
#include "sql/recordingsql.h"
#include "sql/resulttrack.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace ringside;

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // figures as they come
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_counters FILE [EVENT.FIELD ...]\n");
        return 2;
    }
    std::vector<std::pair<std::string, std::string>> fields;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const size_t dot = arg.find('.');
        if (dot == std::string::npos) {
            std::fprintf(stderr, "bench_counters: %s: give EVENT.FIELD\n", argv[i]);
            return 2;
        }
        fields.emplace_back(arg.substr(0, dot), arg.substr(dot + 1));
    }
    if (fields.empty()) fields = {{"sys_enter", "id"}, {"sys_exit", "ret"}};
    std::shared_ptr<TraceSession> session = bench::loadSession(argv[1], "bench_counters");
    if (!session) return 1;
    const Trace& trace = *session->trace;
    auto sql = sql::RecordingSql::open(trace);
    if (!sql) {
        std::fprintf(stderr, "bench_counters: %s\n", sql.error().message.c_str());
        return 1;
    }
    for (const auto& [event, field] : fields) {
        std::optional<uint16_t> type;
        for (const Trace::EventFormatNames& f : trace.recordedFormats())
            if (f.name == event) type = f.type;
        const std::string query = type ? sql::fieldCounterQuery(trace, *type, field, RowOwner::Cpu) : std::string();
        if (query.empty()) {
            std::fprintf(stderr, "bench_counters: the recording has no %s events\n", event.c_str());
            return 1;
        }
        QElapsedTimer clock;
        clock.start();
        sql::ResultTrack track(trace, "query_" + std::to_string(session->queryTracks.size()), event + "." + field);
        const sql::RunOutcome run = (*sql)->run(query, track);
        auto tables = track.take();
        if (!run.ok || !tables) {
            std::fprintf(stderr, "bench_counters: %s\n", (!run.ok ? run.message : track.error()).c_str());
            return 1;
        }
        std::printf("%s.%s per CPU: values=%zu made_s=%.2f\n", event.c_str(), field.c_str(), track.rows(),
                    clock.nsecsElapsed() / 1e9);
        session->queryTracks.push_back(std::move(tables));
    }

    // The same counters through SQL's counter tables, as the window hands them over.
    {
        std::vector<std::shared_ptr<const AnalysisTables>> extra(session->queryTracks.begin(),
                                                                 session->queryTracks.end());
        (*sql)->setExtraTables(std::move(extra));
        struct Count : sql::ResultSink {
            std::string first;
            void columns(const std::vector<std::string>&) override {}
            bool row(const std::vector<sql::Value>& values) override
            {
                if (first.empty()) first = values.empty() ? "" : values[0].toString();
                return true;
            }
        };
        const uint64_t middle = (session->store().firstTimestamp() + session->store().lastTimestamp()) / 2;
        const std::string queries[] = {
            "SELECT count(*) FROM counter",
            "SELECT t.name, t.cpu, count(*), avg(c.value) FROM counter c JOIN cpu_counter_track t ON c.track_id = "
            "t.id GROUP BY t.id",
            "SELECT count(*) FROM counter c JOIN cpu_counter_track t ON c.track_id = t.id WHERE t.name = '" +
                fields.back().first + "." + fields.back().second + "' AND t.cpu = 0",
            "SELECT count(*) FROM counter WHERE track_id = 0 AND ts BETWEEN " + std::to_string(middle) + " AND " +
                std::to_string(middle + 100000000),
            "SELECT ts, value FROM counter WHERE id = 5000000",
        };
        for (const std::string& q : queries) {
            QElapsedTimer clock;
            clock.start();
            Count count;
            const sql::RunOutcome run = (*sql)->run(q, count);
            std::printf("sql_s=%.3f first=%s  %s%s\n", clock.nsecsElapsed() / 1e9, count.first.c_str(), q.c_str(),
                        run.ok ? "" : (" FAILED: " + run.message).c_str());
        }
    }

    ViewState view;
    const timeline::TimeRange full{session->store().firstTimestamp(), session->store().lastTimestamp() + 1};
    view.reset(full);
    TimelineWidget timeline(&view);
    timeline.resize(1920, 1080);
    timeline.setSession(session.get());
    int counterRows = 0;
    for (const auto& row : timeline.rows().rows()) counterRows += row.kind == TimelineRows::Kind::Counters;
    std::printf("events=%zu counter_rows=%d\n", session->store().eventCount(), counterRows);

    // The counter rows alone, as a frame paints them (their summaries made by the first).
    TrackRenderer tracks;
    tracks.setSession(session.get());
    QImage image(1920 - 200, 36, QImage::Format_ARGB32_Premultiplied);
    auto countersOnly = [&](timeline::TimeRange range) {
        QElapsedTimer clock;
        clock.start();
        QPainter p(&image);
        for (uint16_t s = 0; s < session->store().streamCount(); ++s)
            for (const CounterGroup& g : counterGroups(*session, RowOwner::Cpu, s))
                tracks.paintCounters(p, g, s, QRect(0, 0, image.width(), 36), range);
        return clock.nsecsElapsed() / 1e6;
    };
    std::printf("first paint (summaries made): counters_ms=%.1f\n", countersOnly(full));

    bench::zoomSweep(view, timeline, full, "counter rows", countersOnly);
    return 0;
}
