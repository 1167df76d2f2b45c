// SPDX-License-Identifier: GPL-2.0-or-later
#include "load/timestampconverter.h"

#include <cstdlib>

namespace ringside {

namespace {

uint64_t correct(uint64_t ts, uint32_t flags, const TimeShiftSample& min, const TimeShiftSample& max)
{
    constexpr uint32_t kInterpolate = 1;
    int64_t correction;
    if (flags & kInterpolate) {
        int64_t delta = max.time - min.time;
        int64_t offset = (static_cast<int64_t>(ts) - min.time) * (max.offset - min.offset);
        correction = delta ? min.offset + (offset + delta / 2) / delta : min.offset;
    } else {
        correction = min.offset;
    }
    ts = (ts * static_cast<uint64_t>(min.scaling)) >> (min.fraction & 63);
    if (correction < 0) return ts - static_cast<uint64_t>(std::llabs(correction));
    return ts + static_cast<uint64_t>(correction);
}

} // namespace

uint64_t TimestampConverter::hostSync(uint64_t ts, int cpu) const
{
    const TimeShift& shift = *m_info.timeShift;
    if (cpu < 0 || static_cast<size_t>(cpu) >= shift.cpus.size()) return ts;
    const auto& s = shift.cpus[static_cast<size_t>(cpu)];
    if (s.empty()) return ts;
    if (s.size() == 1) return ts + static_cast<uint64_t>(s[0].offset);
    if (s.size() == 2) return correct(ts, shift.flags, s[0], s[1]);
    const int64_t t = static_cast<int64_t>(ts);
    if (t <= s.front().time) return correct(ts, shift.flags, s[0], s[1]);
    if (t >= s.back().time) return correct(ts, shift.flags, s[s.size() - 2], s[s.size() - 1]);
    // The sample pair around ts, found as trace-cmd finds it.
    int lo = 0, hi = static_cast<int>(s.size()) - 1, mid = (lo + hi) / 2;
    while (lo <= hi) {
        if (t < s[mid].time)
            hi = mid - 1;
        else if (t > s[mid].time)
            lo = mid + 1;
        else
            break;
        mid = (lo + hi) / 2;
    }
    return correct(ts, shift.flags, s[mid], s[mid + 1]);
}

} // namespace ringside
