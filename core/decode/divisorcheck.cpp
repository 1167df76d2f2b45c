// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/divisorcheck.h"

#include <traceevent/event-parse.h>

#include <cstdlib>
#include <cstring>

namespace ringside {

namespace {
// Deeper than any print format a kernel writes; past it the divisors are not looked for.
constexpr int kDeepest = 4096;
} // namespace

DivisorCheck::DivisorCheck(const tep_event* event) : m_event(event)
{
    if (!event) return;
    for (const tep_print_arg* arg = event->print_fmt.args; arg; arg = arg->next) collect(arg, 0);
}

void DivisorCheck::collect(const tep_print_arg* arg, int depth)
{
    if (!arg) return;
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
        collect(arg->hex.field, depth);
        collect(arg->hex.size, depth);
        break;
    case TEP_PRINT_INT_ARRAY:
        collect(arg->int_array.field, depth);
        collect(arg->int_array.count, depth);
        collect(arg->int_array.el_size, depth);
        break;
    case TEP_PRINT_FUNC:
        for (const tep_print_arg* a = arg->func.args; a; a = a->next) collect(a, depth);
        break;
    case TEP_PRINT_DYNAMIC_ARRAY: collect(arg->dynarray.index, depth); break;
    default: break;
    }
}

void DivisorCheck::addDivisor(const tep_print_arg* divisor)
{
    bool cast = false;
    if (divisor && divisor->type == TEP_PRINT_TYPE) {
        cast = true;
        divisor = divisor->typecast.item;
    }
    if (!divisor) {
        m_always = true;
        return;
    }
    if (divisor->type == TEP_PRINT_ATOM) {
        // As libtraceevent reads an atom.
        const unsigned long long value = divisor->atom.atom ? std::strtoull(divisor->atom.atom, nullptr, 0) : 0;
        if ((cast ? value & 0xff : value) == 0) m_always = true;
        return;
    }
    if (divisor->type == TEP_PRINT_FIELD) {
        const tep_format_field* field = divisor->field.field;
        if (!field && divisor->field.name)
            field = tep_find_any_field(const_cast<tep_event*>(m_event), divisor->field.name);
        if (!field) m_always = true; // libtraceevent takes a field it cannot find as 0
        else m_fields.push_back({field, cast});
        return;
    }
    m_always = true;
}

bool DivisorCheck::mayDivideByZero(const uint8_t* data) const
{
    if (m_always) return true;
    for (const FieldDivisor& d : m_fields) {
        // Read as libtraceevent reads it: sizes other than 1, 2, 4 and 8 read as 0.
        const unsigned long long value =
            tep_read_number(m_event->tep, data + d.field->offset, d.field->size);
        if ((d.cast ? value & 0xff : value) == 0) return true;
    }
    return false;
}

std::string divisionByZeroText()
{
    return "[its print format would divide by zero here; the fields:]";
}

} // namespace ringside
