// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct tep_event;
struct tep_format_field;
struct tep_handle;
struct tep_print_arg;

namespace ringside {

// Whether printing a record with its event's print format would divide by zero. libtraceevent
// evaluates `a / b` and `a % b` in integers as it prints, so a divisor that is 0 (a field that
// holds 0, a field the format lacks, an atom like `s`) kills the process with SIGFPE. Kernels
// divide by constants (`/ sizeof(u64)`); a divisor that is a field, or a cast of one, is read
// from each record; any other divisor is not worked out, and the event's records are taken as
// unsafe to print by the format.
class DivisorCheck {
public:
    explicit DivisorCheck(const tep_event* event);

    // `data` must hold every field (RecordCheck::firstBadField found none outside it).
    bool mayDivideByZero(const uint8_t* data) const;

private:
    struct FieldDivisor {
        const tep_format_field* field;
        bool cast; // only its low byte is sure to survive the cast
    };
    void collect(const tep_print_arg* arg, int depth);
    void addDivisor(const tep_print_arg* divisor);

    const tep_event* m_event = nullptr;
    std::vector<FieldDivisor> m_fields;
    bool m_always = false;
};

// What a view shows instead of a record its format would divide by zero to print.
std::string divisionByZeroText();

} // namespace ringside
