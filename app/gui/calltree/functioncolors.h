// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QColor>

#include <functional>
#include <string>

namespace ringside {

// Warm colours, stable per function name, as flame graphs draw them; the flame graph and the
// timeline's call lanes give a function the same one.
inline QColor functionColor(const std::string& name)
{
    const size_t h = std::hash<std::string>()(name);
    return QColor::fromHsv(int(h % 55), 120 + int((h >> 8) % 90), 215 + int((h >> 16) % 40));
}

// Calls that ran in interrupt context: cool colours, so an interrupt inside a task's call
// stands out from the task's own calls.
inline QColor interruptColor(const std::string& name)
{
    const size_t h = std::hash<std::string>()(name);
    return QColor::fromHsv(190 + int(h % 40), 70 + int((h >> 8) % 60), 220 + int((h >> 16) % 30));
}

// Calls merged into one box at the current zoom.
inline QColor mergedCallsColor()
{
    return QColor(0xb8, 0xc4, 0xd6);
}

} // namespace ringside
