// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QColor>

#include <cmath>
#include <cstdint>

namespace ringside {

// Every task has one colour, used in the timeline, the table and the call tree: a hue
// spread by the golden ratio from its pid, so that neighbouring pids differ clearly.
inline QColor taskColor(int32_t pid)
{
    if (pid == 0) return QColor(160, 160, 160);
    const double hue = std::fmod(double(static_cast<uint32_t>(pid)) * 0.618033988749895, 1.0);
    return QColor::fromHsvF(static_cast<float>(hue), 0.55f, 0.85f);
}

} // namespace ringside
