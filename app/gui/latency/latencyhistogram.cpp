// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/latencyhistogram.h"

#include "timeline/timelinemath.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace ringside {

namespace {
constexpr int kAxisHeight = 18;

QString rangeText(const HistogramBucket& b, timeline::ClockUnit unit)
{
    return QStringLiteral("%1 – %2").arg(timeline::formatDuration(int64_t(b.from), unit),
                                         timeline::formatDuration(int64_t(b.to), unit));
}
} // namespace

LatencyHistogram::LatencyHistogram(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void LatencyHistogram::setBuckets(std::vector<HistogramBucket> buckets, timeline::ClockUnit unit)
{
    m_buckets = std::move(buckets);
    m_unit = unit;
    m_first = m_last = -1;
    update();
}

void LatencyHistogram::select(int first, int last)
{
    if (first > last) std::swap(first, last);
    if (first < 0 || last >= int(m_buckets.size())) first = last = -1;
    if (first == m_first && last == m_last) return;
    m_first = first;
    m_last = last;
    update();
    announce();
}

void LatencyHistogram::announce()
{
    if (m_first < 0) return emit rangeSelected(0, 0);
    emit rangeSelected(m_buckets[size_t(m_first)].from, m_buckets[size_t(m_last)].to);
}

QRect LatencyHistogram::plotArea() const
{
    return rect().adjusted(countWidth(), 6, -6, -kAxisHeight);
}

int LatencyHistogram::countWidth() const
{
    // The largest count's label, whole ("4,234,401"), left of the bars.
    uint64_t most = 0;
    for (const HistogramBucket& b : m_buckets) most = std::max(most, b.count);
    return fontMetrics().horizontalAdvance(QLocale().toString(qulonglong(most))) + 10;
}

int LatencyHistogram::bucketAt(int x) const
{
    const QRect area = plotArea();
    if (m_buckets.empty() || x < area.left() || x > area.right()) return -1;
    const int i = int(double(x - area.left()) * double(m_buckets.size()) / double(area.width()));
    return std::clamp(i, 0, int(m_buckets.size()) - 1);
}

void LatencyHistogram::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect area = plotArea();
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(area.bottomLeft(), area.bottomRight());
    if (m_buckets.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No pairs"));
        return;
    }
    uint64_t most = 1;
    for (const HistogramBucket& b : m_buckets) most = std::max(most, b.count);
    const QLocale locale;
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(0, area.top(), area.left() - 6, 16), Qt::AlignRight | Qt::AlignTop,
               locale.toString(qulonglong(most)));
    p.drawText(QRect(0, area.bottom() - 16, area.left() - 6, 16), Qt::AlignRight | Qt::AlignBottom, "0");
    const double width = double(area.width()) / double(m_buckets.size());
    const QColor bar(0x3a, 0x6e, 0xa5), chosen(0xe0, 0x8a, 0x1e);
    const QFontMetrics metrics(font());
    int lastLabelEnd = -1000;
    for (size_t i = 0; i < m_buckets.size(); ++i) {
        const HistogramBucket& b = m_buckets[i];
        const int left = area.left() + int(double(i) * width);
        const int right = area.left() + int(double(i + 1) * width) - 1;
        if (b.count) {
            // A bucket with any pair shows at least three pixels: one slow pair is what users look
            // for, and a pixel's line beside a bar of thousands went unseen.
            const int h =
                std::min(area.height(), std::max(3, int(double(area.height()) * double(b.count) / double(most))));
            const bool selected = m_first >= 0 && int(i) >= m_first && int(i) <= m_last;
            p.fillRect(QRect(QPoint(left, area.bottom() - h + 1), QPoint(std::max(left, right - 1), area.bottom())),
                       selected ? chosen : bar);
        }
        // The lower edge of every bucket whose label fits after the last one drawn.
        const QString label = timeline::formatDuration(int64_t(b.from), m_unit);
        if (left >= lastLabelEnd + 8) {
            p.setPen(palette().color(QPalette::Text));
            p.drawLine(left, area.bottom(), left, area.bottom() + 3);
            p.drawText(QPoint(left + 2, height() - 4), label);
            lastLabelEnd = left + 2 + metrics.horizontalAdvance(label);
        }
    }
}

bool LatencyHistogram::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = bucketAt(help->pos().x());
        if (i < 0) {
            QToolTip::hideText();
        } else {
            const HistogramBucket& b = m_buckets[size_t(i)];
            QToolTip::showText(help->globalPos(),
                               tr("%1: %2 pairs").arg(rangeText(b, m_unit), QLocale().toString(qulonglong(b.count))),
                               this);
        }
        return true;
    }
    return QWidget::event(event);
}

void LatencyHistogram::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    m_dragFrom = bucketAt(int(event->position().x()));
    m_pressedSelection = m_dragFrom >= 0 && m_first >= 0 && m_dragFrom >= m_first && m_dragFrom <= m_last;
    if (m_dragFrom >= 0 && !m_pressedSelection) select(m_dragFrom, m_dragFrom);
}

void LatencyHistogram::mouseMoveEvent(QMouseEvent* event)
{
    if (!(event->buttons() & Qt::LeftButton) || m_dragFrom < 0) return;
    const int at = bucketAt(int(event->position().x()));
    if (at < 0) return;
    if (at != m_dragFrom) m_pressedSelection = false;
    select(m_dragFrom, at);
}

void LatencyHistogram::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_pressedSelection) select(-1, -1);
    m_dragFrom = -1;
    m_pressedSelection = false;
}

void LatencyHistogram::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && m_first >= 0) return select(-1, -1);
    QWidget::keyPressEvent(event);
}

} // namespace ringside
