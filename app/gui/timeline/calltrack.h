// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "calls/calllanes.h"
#include "jobs/jobtracker.h"
#include "state/tracesession.h"
#include "timeline/timelinemath.h"
#include "timeline/timelinerows.h"

#include <QColor>
#include <QObject>
#include <QPainter>

#include <map>
#include <memory>
#include <optional>
#include <set>

namespace ringside {

// The timeline's flame-chart tracks: for each Calls row (a task's calls, or a CPU's), the calls
// laid out a lane per depth (CallLanes, built on a worker thread the first time a row asks),
// painted as boxes coloured by function and labelled where there is room. Zoomed out, calls
// closer than a pixel are one box ("N calls"), so a frame paints about one box per pixel
// column and lane, however many calls the range holds.
class CallTrack : public QObject {
    Q_OBJECT
public:
    explicit CallTrack(QObject* parent = nullptr) : QObject(parent) {}

    void setSession(const TraceSession* session);
    // The lanes of a Calls row; nullptr while they are laid out (lanesReady follows).
    std::shared_ptr<const CallLanes> lanes(const TimelineRows::Row& callsRow);
    // Lays out a row's lanes now, on this thread; for tests and benchmarks.
    void layOutNow(const TimelineRows::Row& callsRow);

    // `area`: the lanes' rectangle (lane 0 at its top), covering `range`.
    void paint(QPainter& p, const CallLanes& lanes, const QRect& area, timeline::TimeRange range) const;

    // What is under a point of a Calls row: a call, or calls merged at this zoom.
    struct Hit {
        uint32_t call = 0; // the one under the point (the nearest, in a merged box)
        uint32_t merged = 1;
        uint64_t start = 0, end = 0; // of the box
        int lane = 0;
    };
    std::optional<Hit> hitAt(const CallLanes& lanes, const QRect& area, timeline::TimeRange range, QPoint pos) const;
    // Where a call is drawn in a Calls row's `area`.
    QRect callRect(uint32_t call, const QRect& area, timeline::TimeRange range) const;

    QString functionName(uint32_t call) const;
    QString toolTip(const Hit& hit) const;

    static constexpr int kMinLabelWidth = 28;

signals:
    void lanesReady();

private:
    static int64_t keyOf(const TimelineRows::Row& row) { return TimelineRows::laneKey(row); }
    std::shared_ptr<const CallLanes> build(int64_t key) const;
    // Takes the names (and colours) of functions named since.
    void refreshNames();
    void startBuilds();

    const TraceSession* m_session = nullptr;
    timeline::ClockUnit m_unit = timeline::ClockUnit::Nanoseconds;
    std::vector<QColor> m_colors, m_interruptColors; // by function id
    std::map<int64_t, std::shared_ptr<const CallLanes>> m_lanes;
    std::set<int64_t> m_wanted; // asked for, not laid out yet
    JobTracker m_jobs;
};

} // namespace ringside
