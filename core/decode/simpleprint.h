// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct tep_event;
struct tep_format_field;

namespace ringside {

// The print format of an event whose text is literal text and integers read straight from
// fields or fixed array elements ("NR %ld (%lx, %lx, ...)" of raw_syscalls, which are most
// events of a busy trace), compiled once and printed without libtraceevent's per-event
// format interpretation and vsnprintf calls. Only conversions whose result cannot differ
// from libtraceevent's are accepted: %d %i %u %x on 4-byte values and %ld %lu %lx (and
// ll) on 8-byte ones, no flags or widths, 8-byte longs, no plugin handler. compile()
// returns null for anything else, and the caller prints through libtraceevent.
// Immutable after compile(); any thread.
class SimplePrint {
public:
    static std::unique_ptr<SimplePrint> compile(tep_event* event);

    // Appends the text; false (nothing appended) if the record is too short for a field.
    bool print(const uint8_t* data, int size, std::string& out) const;

private:
    struct Part {
        std::string literal; // printed before the value
        uint32_t offset = 0;
        uint32_t bytes = 0;  // 4 or 8; 0 for the trailing literal
        char conversion = 0; // 'd' (and 'i'), 'u' or 'x'
    };
    std::vector<Part> m_parts;
    bool m_bigEndian = false;
};

} // namespace ringside
