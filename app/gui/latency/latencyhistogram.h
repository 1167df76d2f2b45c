// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "latency/latencystats.h"
#include "timeline/timelinemath.h"

#include <QWidget>

#include <vector>

namespace ringside {

// A latency distribution as bars, one per power-of-two bucket of durations (empty ones kept: the
// axis is logarithmic), the tallest filling the height. Hovering a bar says its range and
// count; a click selects its bucket, a drag a run of buckets, a click on the selection (or
// Escape) clears it. The selection is what the pairs list shows.
class LatencyHistogram : public QWidget {
    Q_OBJECT
public:
    explicit LatencyHistogram(QWidget* parent = nullptr);
    void setBuckets(std::vector<HistogramBucket> buckets, timeline::ClockUnit unit = timeline::ClockUnit::Nanoseconds);
    const std::vector<HistogramBucket>& buckets() const { return m_buckets; }
    // The selected buckets [first, last], or first < 0 when none.
    int selectedFirst() const { return m_first; }
    int selectedLast() const { return m_last; }
    void select(int first, int last);
    // The bucket under x (widget coordinates), or -1.
    int bucketAt(int x) const;
    QSize sizeHint() const override { return {480, 110}; }
    QSize minimumSizeHint() const override { return {160, 70}; }

signals:
    // The selection changed: durations in [from, to) ns; from == to == 0 when cleared.
    void rangeSelected(quint64 from, quint64 to);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRect plotArea() const;
    int countWidth() const;
    void announce();

    std::vector<HistogramBucket> m_buckets;
    timeline::ClockUnit m_unit = timeline::ClockUnit::Nanoseconds;
    int m_first = -1, m_last = -1;
    int m_dragFrom = -1;
    bool m_pressedSelection = false; // the press was on the selected run: a click clears it
};

} // namespace ringside
