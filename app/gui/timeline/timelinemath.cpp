// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/timelinemath.h"

#include <QFontMetrics>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iterator>

namespace ringside::timeline {

double timeToX(uint64_t t, const TimeRange& range, double width)
{
    if (range.span() == 0) return 0;
    const double offset = t >= range.start ? double(t - range.start) : -double(range.start - t);
    // Far outside the view (a nanosecond-wide view of a long recording) is still within an
    // int, which callers convert to: the pixel is off-screen either way.
    constexpr double kFar = 1e9;
    return std::clamp(offset * width / double(range.span()), -kFar, kFar);
}

uint64_t xToTime(double x, const TimeRange& range, double width)
{
    if (width <= 0 || range.span() == 0) return range.start;
    x = std::clamp(x, 0.0, width);
    return range.start + static_cast<uint64_t>(std::llround(x / width * double(range.span())));
}

namespace {

// `span` (never narrower than `minSpan`) with `anchor` at `fraction` of it, held within the
// limits (all of them when it is wider).
TimeRange placeSpan(uint64_t anchor, double fraction, double span, const TimeRange& limits, uint64_t minSpan)
{
    span = std::max(double(std::min(minSpan, limits.span())), span);
    double start = double(anchor) - fraction * span;
    start = std::min(start, double(limits.end) - span);
    start = std::max(start, double(limits.start));
    const double end = std::min(start + span, double(limits.end));
    TimeRange out{uint64_t(std::llround(start)), uint64_t(std::llround(end))};
    if (out.end <= out.start) out.end = out.start + 1;
    return out;
}

} // namespace

TimeRange zoomAround(const TimeRange& range, uint64_t anchor, double factor, const TimeRange& limits, uint64_t minSpan)
{
    if (range.span() == 0 || factor <= 0) return range;
    anchor = std::clamp(anchor, range.start, range.end);
    const double fraction = double(anchor - range.start) / double(range.span());
    return placeSpan(anchor, fraction, double(range.span()) * factor, limits, minSpan);
}

TimeRange zoomKeepingInView(const TimeRange& range, uint64_t t, double factor, const TimeRange& limits, double margin,
                            uint64_t minSpan)
{
    if (range.span() == 0) return range;
    const double span = double(range.span());
    const bool inView = t >= range.start && t <= range.end;
    const double fraction = inView ? std::clamp(double(t - range.start) / span, margin, 1 - margin) : 0.5;
    return placeSpan(t, fraction, span * factor, limits, minSpan);
}

TimeRange pan(const TimeRange& range, int64_t delta, const TimeRange& limits)
{
    const uint64_t span = range.span();
    int64_t start = static_cast<int64_t>(range.start) + delta;
    start = std::max<int64_t>(start, static_cast<int64_t>(limits.start));
    start = std::min<int64_t>(start, static_cast<int64_t>(limits.end) - static_cast<int64_t>(span));
    start = std::max<int64_t>(start, static_cast<int64_t>(limits.start));
    return {static_cast<uint64_t>(start), static_cast<uint64_t>(start) + span};
}

uint64_t tickStep(uint64_t span, double width, double minPixels)
{
    if (span == 0 || width <= 0) return 1;
    const double wanted = double(span) * minPixels / width; // ns between ticks at least
    uint64_t step = 1;
    while (true) {
        for (uint64_t m : {1, 2, 5})
            if (double(step * m) >= wanted) return step * m;
        if (step > UINT64_MAX / 100) return step * 10;
        step *= 10;
    }
}

QString formatTimestamp(uint64_t ns, uint64_t step, ClockUnit clock)
{
    if (clock == ClockUnit::Ticks) return QString::number(ns);
    int decimals = 9;
    for (uint64_t s = step; s >= 10 && decimals > 0 && s % 10 == 0; s /= 10) --decimals;
    const uint64_t seconds = ns / 1000000000ull;
    QString text = QString::number(seconds);
    if (decimals > 0) {
        uint64_t fraction = ns % 1000000000ull;
        for (int i = 9; i > decimals; --i) fraction /= 10;
        text += '.' + QString::number(fraction).rightJustified(decimals, '0');
    }
    return text;
}

namespace {

// "1.500" -> "1.5", "2.000" -> "2": a number with only the decimals that say something.
QString withoutTrailingZeros(QString number)
{
    if (number.contains('.')) {
        while (number.endsWith('0')) number.chop(1);
        if (number.endsWith('.')) number.chop(1);
    }
    return number;
}

} // namespace

QString formatDuration(int64_t ns, ClockUnit clock)
{
    const double magnitude = std::abs(double(ns));
    struct Unit {
        double scale;
        const char* name;
    };
    Unit unit = magnitude >= 1e9   ? Unit{1e9, "s"}
                : magnitude >= 1e6 ? Unit{1e6, "ms"}
                : magnitude >= 1e3 ? Unit{1e3, "\u00b5s"}
                                   : Unit{1, "ns"};
    if (clock == ClockUnit::Ticks)
        unit = magnitude >= 1e9   ? Unit{1e9, "G ticks"}
               : magnitude >= 1e6 ? Unit{1e6, "M ticks"}
               : magnitude >= 1e3 ? Unit{1e3, "k ticks"}
                                  : Unit{1, "ticks"};
    return withoutTrailingZeros(QString::number(double(ns) / unit.scale, 'f', unit.scale == 1 ? 0 : 3)) + ' ' +
           unit.name;
}

QString formatCounterValue(int64_t value, const std::string& unit)
{
    auto scaled = [&](const std::initializer_list<const char*>& names, double step) {
        double v = double(value);
        auto name = names.begin();
        while (std::abs(v) >= step && std::next(name) != names.end()) v /= step, ++name;
        return withoutTrailingZeros(QString::number(v, 'f', name == names.begin() ? 0 : 2)) + ' ' +
               QString::fromUtf8(*name);
    };
    if (unit == "kHz") return scaled({"kHz", "MHz", "GHz"}, 1000);
    if (unit == "Hz") return scaled({"Hz", "kHz", "MHz", "GHz"}, 1000);
    if (unit == "bytes") return scaled({"bytes", "KiB", "MiB", "GiB", "TiB"}, 1024);
    if (unit == "ns") return formatDuration(value);
    // Other units as counts are shown everywhere: with the locale's thousands separators.
    const QString number = QLocale().toString(qlonglong(value));
    return unit.empty() ? number : number + ' ' + QString::fromStdString(unit);
}

QString elideRowLabel(const QFontMetrics& metrics, const QString& label, int width)
{
    if (metrics.horizontalAdvance(label) <= width) return label;
    static const QRegularExpression task(QStringLiteral("^(.* · )?(.+)(-\\d+)$"));
    const QRegularExpressionMatch m = task.match(label);
    if (!m.hasMatch()) return metrics.elidedText(label, Qt::ElideRight, width);
    const QString head = m.captured(1), tail = m.captured(3);
    const int room = width - metrics.horizontalAdvance(head) - metrics.horizontalAdvance(tail);
    const QString name = metrics.elidedText(m.captured(2), Qt::ElideRight, std::max(0, room));
    // Not even the pid fits beside the prefix: the end of the whole goes.
    if (name.isEmpty()) return metrics.elidedText(label, Qt::ElideRight, width);
    return head + name + tail;
}

} // namespace ringside::timeline
