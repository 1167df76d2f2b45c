// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/simpleprint.h"

#include <traceevent/event-parse.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace ringside {

namespace {

// The value an argument reads: a plain number field, or `field[constant]` of a number array.
bool argumentLocation(tep_event* event, tep_print_arg* arg, uint32_t* offset, uint32_t* bytes)
{
    if (arg->type == TEP_PRINT_FIELD) {
        tep_format_field* f = arg->field.field ? arg->field.field : tep_find_any_field(event, arg->field.name);
        if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING | TEP_FIELD_IS_POINTER)))
            return false;
        *offset = uint32_t(f->offset);
        *bytes = uint32_t(f->size);
        return true;
    }
    if (arg->type == TEP_PRINT_OP && arg->op.op && std::strcmp(arg->op.op, "[") == 0 && arg->op.left && arg->op.right &&
        arg->op.left->type == TEP_PRINT_FIELD && arg->op.right->type == TEP_PRINT_ATOM) {
        tep_format_field* f =
            arg->op.left->field.field ? arg->op.left->field.field : tep_find_any_field(event, arg->op.left->field.name);
        if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)))
            return false;
        char* end = nullptr;
        const long index = std::strtol(arg->op.right->atom.atom, &end, 10);
        if (*end || index < 0 || unsigned(index) >= f->arraylen) return false;
        *offset = uint32_t(f->offset) + uint32_t(index) * f->elementsize;
        *bytes = f->elementsize;
        return true;
    }
    return false;
}

} // namespace

std::unique_ptr<SimplePrint> SimplePrint::compile(tep_event* event)
{
    if (!event || event->handler || !event->print_fmt.format ||
        (event->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_PRINTRAW)) || tep_get_long_size(event->tep) != 8 ||
        (event->system && std::strcmp(event->system, "ftrace") == 0))
        return nullptr;
    auto out = std::make_unique<SimplePrint>();
    out->m_bigEndian = tep_is_file_bigendian(event->tep);
    tep_print_arg* arg = event->print_fmt.args;
    Part part;
    for (const char* p = event->print_fmt.format; *p; ++p) {
        if (*p == '\\') return nullptr;
        if (*p != '%') {
            part.literal += *p;
            continue;
        }
        ++p;
        if (*p == '%') {
            part.literal += '%';
            continue;
        }
        int longs = 0;
        while (*p == 'l') ++longs, ++p;
        const char c = *p == 'i' ? 'd' : *p;
        if ((c != 'd' && c != 'u' && c != 'x') || longs > 2 || !arg) return nullptr;
        if (!argumentLocation(event, arg, &part.offset, &part.bytes)) return nullptr;
        if (part.bytes != (longs ? 8u : 4u)) return nullptr;
        part.conversion = c;
        out->m_parts.push_back(std::move(part));
        part = Part();
        arg = arg->next;
    }
    if (arg) return nullptr; // more arguments than conversions
    out->m_parts.push_back(std::move(part));
    return out;
}

bool SimplePrint::print(const uint8_t* data, int size, std::string& out) const
{
    for (const Part& part : m_parts)
        if (part.bytes && part.offset + part.bytes > uint32_t(size)) return false;
    char text[24];
    for (const Part& part : m_parts) {
        out += part.literal;
        if (!part.bytes) continue;
        uint64_t raw = 0;
        if (part.bytes == 8) {
            std::memcpy(&raw, data + part.offset, 8);
            if (m_bigEndian) raw = __builtin_bswap64(raw);
        } else {
            uint32_t v = 0;
            std::memcpy(&v, data + part.offset, 4);
            if (m_bigEndian) v = __builtin_bswap32(v);
            raw = v;
        }
        std::to_chars_result r;
        if (part.conversion == 'x')
            r = std::to_chars(text, text + sizeof text, raw, 16);
        else if (part.conversion == 'u')
            r = std::to_chars(text, text + sizeof text, raw);
        else if (part.bytes == 8)
            r = std::to_chars(text, text + sizeof text, static_cast<int64_t>(raw));
        else
            r = std::to_chars(text, text + sizeof text, static_cast<int32_t>(static_cast<uint32_t>(raw)));
        out.append(text, r.ptr);
    }
    return true;
}

} // namespace ringside
