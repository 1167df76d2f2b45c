// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/fileinfo.h"

#include <cstdint>

namespace ringside {

// Turns a ring buffer's raw timestamp into the trace's time, the way trace-cmd does:
// guest-to-host correction (TIME_SHIFT), TSC to nanoseconds (TSC2NSEC), then the fixed
// offsets of the DATE and OFFSET options. Stateless and safe to share between threads.
class TimestampConverter {
public:
    explicit TimestampConverter(const FileInfo& info) : m_info(info) {}

    uint64_t convert(uint64_t raw, int cpu) const
    {
        uint64_t ts = raw;
        if (m_info.timeShift) ts = hostSync(ts, cpu);
        if (m_info.tsc2nsec && m_info.tsc2nsec->mult)
            ts = static_cast<uint64_t>((static_cast<unsigned __int128>(ts) * m_info.tsc2nsec->mult) >>
                                       m_info.tsc2nsec->shift);
        return ts + static_cast<uint64_t>(m_info.tsOffset);
    }

private:
    uint64_t hostSync(uint64_t ts, int cpu) const;

    const FileInfo& m_info;
};

} // namespace ringside
