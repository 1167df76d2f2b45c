// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QString>

class QFontMetrics;
#include <cstdint>
#include <string>

namespace ringside::timeline {

// A time interval in trace nanoseconds, end exclusive.
struct TimeRange {
    uint64_t start = 0;
    uint64_t end = 0;
    uint64_t span() const { return end > start ? end - start : 0; }
    bool contains(uint64_t t) const { return t >= start && t < end; }
    friend bool operator==(const TimeRange& a, const TimeRange& b) { return a.start == b.start && a.end == b.end; }
};

// Pixel x of time t when `range` spans `width` pixels (may be outside [0, width], never
// beyond ±1e9).
double timeToX(uint64_t t, const TimeRange& range, double width);
// Time at pixel x, clamped to the range.
uint64_t xToTime(double x, const TimeRange& range, double width);

// Zooms by `factor` (< 1 zooms in) keeping `anchor` at the same pixel, within `limits`,
// never narrower than `minSpan`.
TimeRange zoomAround(const TimeRange& range, uint64_t anchor, double factor, const TimeRange& limits,
                     uint64_t minSpan = 100);
// The zoom keys' zoom around a selected event at `t`: it stays where it is on screen unless
// that is within `margin` (a share of the width) of an edge, where it moves in to the margin;
// out of view, it comes to the middle. Within `limits`, never narrower than `minSpan`.
TimeRange zoomKeepingInView(const TimeRange& range, uint64_t t, double factor, const TimeRange& limits,
                            double margin = 0.1, uint64_t minSpan = 100);
// Moves the range by `delta` ns, stopping at the limits.
TimeRange pan(const TimeRange& range, int64_t delta, const TimeRange& limits);

// A "nice" tick spacing (1, 2 or 5 times a power of ten, in ns) so that ticks are at least
// `minPixels` apart.
uint64_t tickStep(uint64_t span, double width, double minPixels);

// Whether trace timestamps are nanoseconds or the raw ticks of a counter clock (x86-tsc,
// counter) that the file gives no conversion for; ticks are never shown as seconds.
enum class ClockUnit { Nanoseconds, Ticks };

// Time as seconds with as many decimals as the tick step needs ("1022.9035"); in ticks, the
// plain count.
QString formatTimestamp(uint64_t ns, uint64_t step, ClockUnit unit = ClockUnit::Nanoseconds);
// A duration with its unit ("12.345 ms", "-3 us", "1.5 s"; "1.25 M ticks", "640 ticks").
QString formatDuration(int64_t ns, ClockUnit unit = ClockUnit::Nanoseconds);
// A counter's value in its unit, scaled to read ("1.1 GHz" for 1100000 kHz, "12 MiB", a
// duration for "ns"); other units follow the number ("37 %").
QString formatCounterValue(int64_t value, const std::string& unit);

// A row label fitted to `width` pixels: a task's "NAME-PID" (after a "vCPU 0 · " or other
// prefix ending in " · ") loses the end of its name, never the prefix or the pid
// ("vCPU 0 · qemu-sy…-483882"); other labels are elided at the end.
QString elideRowLabel(const QFontMetrics& metrics, const QString& label, int width);

} // namespace ringside::timeline
