// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct tep_event;
struct tep_format_field;
struct tep_print_arg;

namespace ringside {

// Whether libtraceevent can print a record by its event's print format without crashing. It
// works out parts of the format as it prints, trusting them:
// - `a / b` and `a % b` in integers (SIGFPE when b is 0: a field holding 0, a field the format
//   lacks, an atom such as `s`);
// - `__print_hex(x, n)` and `__print_array(x, n, size)` read n elements wherever x is, however
//   far past the record n reaches;
// - `__get_cpumask(f)` and `__get_bitmask(f)` read a field it looks up by name, and crash when
//   the format has none.
// Kernels divide by constants (`sizeof` becomes one) and size their arrays by a field or a
// dynamic array's length: those are read from each record. A part it cannot work out makes
// every record of the event unsafe to print by the format; the views show its fields instead.
class PrintCheck {
public:
    explicit PrintCheck(const tep_event* event);

    // `data` must hold every field (RecordCheck::firstBadField found none outside it).
    bool mayCrash(const uint8_t* data, int size) const;

private:
    struct Span {
        const tep_print_arg* array; // the field or dynamic array read
        const tep_print_arg* count;
        const tep_print_arg* elementSize; // null: one byte each (__print_hex)
    };
    void collect(const tep_print_arg* arg, int depth);
    void addDivisor(const tep_print_arg* divisor);
    void addSpan(const tep_print_arg* array, const tep_print_arg* count, const tep_print_arg* elementSize);
    const tep_format_field* fieldNamed(const char* name) const;
    // The value libtraceevent works out for `arg`, when it is simple enough to repeat exactly.
    std::optional<unsigned long long> value(const tep_print_arg* arg, const uint8_t* data) const;

    const tep_event* m_event = nullptr;
    std::vector<const tep_print_arg*> m_divisors;
    std::vector<Span> m_spans;
    bool m_always = false;
};

// What a view shows after the fields of a record PrintCheck finds unsafe to print by its format.
std::string unprintableRecordText();

} // namespace ringside
