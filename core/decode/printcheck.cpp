// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/printcheck.h"

#include "file/pagesource.h"

#include <traceevent/event-parse.h>

#include <cstdlib>
#include <cstring>

namespace ringside {

namespace {
// Deeper than any print format a kernel writes; past it the format is not looked into.
constexpr int kDeepest = 4096;
} // namespace

PrintCheck::PrintCheck(const tep_event* event) : m_event(event)
{
    if (!event) return;
    for (const tep_print_arg* arg = event->print_fmt.args; arg; arg = arg->next) collect(arg, 0);
}

const tep_format_field* PrintCheck::fieldNamed(const char* name) const
{
    return name ? tep_find_any_field(const_cast<tep_event*>(m_event), name) : nullptr;
}

void PrintCheck::collect(const tep_print_arg* arg, int depth)
{
    if (!arg || m_always) return;
    if (depth > kDeepest) {
        m_always = true;
        return;
    }
    ++depth;
    switch (arg->type) {
    case TEP_PRINT_OP:
        if (arg->op.op && (std::strcmp(arg->op.op, "/") == 0 || std::strcmp(arg->op.op, "%") == 0))
            addDivisor(arg->op.right);
        collect(arg->op.left, depth);
        collect(arg->op.right, depth);
        break;
    case TEP_PRINT_TYPE: collect(arg->typecast.item, depth); break;
    case TEP_PRINT_FLAGS: collect(arg->flags.field, depth); break;
    case TEP_PRINT_SYMBOL: collect(arg->symbol.field, depth); break;
    case TEP_PRINT_HEX:
    case TEP_PRINT_HEX_STR:
        addSpan(arg->hex.field, arg->hex.size, nullptr);
        collect(arg->hex.size, depth);
        break;
    case TEP_PRINT_INT_ARRAY:
        addSpan(arg->int_array.field, arg->int_array.count, arg->int_array.el_size);
        collect(arg->int_array.count, depth);
        collect(arg->int_array.el_size, depth);
        break;
    case TEP_PRINT_BITMASK:
    case TEP_PRINT_CPUMASK:
        if (!arg->bitmask.field && !fieldNamed(arg->bitmask.bitmask)) m_always = true;
        break;
    case TEP_PRINT_FUNC:
        for (const tep_print_arg* a = arg->func.args; a; a = a->next) collect(a, depth);
        break;
    case TEP_PRINT_DYNAMIC_ARRAY: collect(arg->dynarray.index, depth); break;
    default: break;
    }
}

void PrintCheck::addDivisor(const tep_print_arg* divisor)
{
    // A field or atom, or a cast of one (mayCrash keeps only the low byte a cast may leave).
    const tep_print_arg* item = divisor && divisor->type == TEP_PRINT_TYPE ? divisor->typecast.item : divisor;
    if (item && (item->type == TEP_PRINT_ATOM || item->type == TEP_PRINT_FIELD))
        m_divisors.push_back(divisor);
    else
        m_always = true;
}

void PrintCheck::addSpan(const tep_print_arg* array, const tep_print_arg* count, const tep_print_arg* elementSize)
{
    if (!array || !count) {
        m_always = true;
        return;
    }
    if (array->type == TEP_PRINT_FIELD) {
        // A field it cannot find is skipped, not read.
        if (!array->field.field && !fieldNamed(array->field.name)) return;
    } else if (array->type != TEP_PRINT_DYNAMIC_ARRAY || !array->dynarray.field) {
        m_always = true;
        return;
    }
    m_spans.push_back({array, count, elementSize});
}

std::optional<unsigned long long> PrintCheck::value(const tep_print_arg* arg, const uint8_t* data) const
{
    if (!arg) return std::nullopt;
    tep_handle* tep = m_event->tep;
    switch (arg->type) {
    case TEP_PRINT_ATOM: return arg->atom.atom ? std::strtoull(arg->atom.atom, nullptr, 0) : 0;
    case TEP_PRINT_FIELD: {
        const tep_format_field* f = arg->field.field ? arg->field.field : fieldNamed(arg->field.name);
        // Sizes other than 1, 2, 4 and 8 read as 0, and so does a field it cannot find.
        return f ? tep_read_number(tep, data + f->offset, f->size) : 0;
    }
    case TEP_PRINT_DYNAMIC_ARRAY_LEN:
        if (!arg->dynarray.field) return std::nullopt;
        return tep_read_number(tep, data + arg->dynarray.field->offset, arg->dynarray.field->size) >> 16;
    case TEP_PRINT_OP: {
        if (!arg->op.op || std::strlen(arg->op.op) != 1) return std::nullopt;
        const auto left = value(arg->op.left, data), right = value(arg->op.right, data);
        if (!left || !right) return std::nullopt;
        switch (arg->op.op[0]) {
        case '+': return *left + *right;
        case '-': return *left - *right;
        case '*': return *left * *right;
        case '/': return *right ? std::optional(*left / *right) : std::nullopt;
        default: return std::nullopt;
        }
    }
    default: return std::nullopt;
    }
}

bool PrintCheck::mayCrash(const uint8_t* data, int size) const
{
    if (m_always) return true;
    for (const tep_print_arg* divisor : m_divisors) {
        const bool cast = divisor->type == TEP_PRINT_TYPE;
        const auto v = value(cast ? divisor->typecast.item : divisor, data);
        if (!v || (cast ? *v & 0xff : *v) == 0) return true;
    }
    const int64_t readable = int64_t(size) + int64_t(PageSource::kPadding);
    for (const Span& span : m_spans) {
        const auto count = value(span.count, data);
        if (!count) return true;
        // libtraceevent counts in an int; elements of a size other than 1, 2, 4 or 8 are read a
        // byte each.
        const int64_t n = int32_t(*count);
        int64_t bytes = 1;
        if (span.elementSize) {
            const auto each = value(span.elementSize, data);
            if (!each) return true;
            const int32_t e = int32_t(*each);
            bytes = e == 2 || e == 4 || e == 8 ? e : 1;
        }
        if (n <= 0) continue;
        int64_t start = 0;
        if (span.array->type == TEP_PRINT_DYNAMIC_ARRAY) {
            const tep_format_field* f = span.array->dynarray.field;
            start = int64_t(tep_read_number(m_event->tep, data + f->offset, f->size) & 0xffff);
            if (f->flags & TEP_FIELD_IS_RELATIVE) start += f->offset + f->size;
        } else {
            const tep_format_field* f =
                span.array->field.field ? span.array->field.field : fieldNamed(span.array->field.name);
            start = f->offset;
        }
        if (n > readable || start + n * bytes > readable) return true;
    }
    return false;
}

std::string unprintableRecordText()
{
    return " [not printed by its format: it would crash libtraceevent]";
}

} // namespace ringside
