// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/statstext.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ringside::cli {

// A timestamp as trace-cmd prints it: seconds with microseconds.
inline std::string seconds(uint64_t ns)
{
    char text[64];
    std::snprintf(text, sizeof text, "%" PRIu64 ".%06" PRIu64, ns / 1000000000, (ns / 1000) % 1000000);
    return text;
}

// A duration in microseconds with nanoseconds: 785.694.
inline std::string micros(uint64_t ns)
{
    char text[64];
    std::snprintf(text, sizeof text, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    return text;
}

inline std::string jsonString(const std::string& s)
{
    return jsonQuoted(s);
}

// "33.470282" (seconds, as the CLI prints them) in nanoseconds; false if it is not a number.
inline bool parseSeconds(const std::string& text, uint64_t& ns)
{
    const size_t dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
    if (whole.empty() || whole.size() > 10 || fraction.size() > 9) return false;
    for (char c : whole + fraction)
        if (c < '0' || c > '9') return false;
    fraction.resize(9, '0');
    ns = std::stoull(whole) * 1000000000ull + std::stoull(fraction);
    return true;
}

} // namespace ringside::cli
