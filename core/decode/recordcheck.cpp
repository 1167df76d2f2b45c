// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/recordcheck.h"

#include "file/pagesource.h"

#include <traceevent/event-parse.h>

#include <cstring>

namespace ringside {

RecordCheck::RecordCheck(const tep_event* event)
{
    if (!event) return;
    m_bigEndian = tep_is_file_bigendian(event->tep);
    for (const tep_format_field* f = event->format.common_fields; f; f = f->next) m_fields.push_back(f);
    for (const tep_format_field* f = event->format.fields; f; f = f->next) m_fields.push_back(f);
}

bool RecordCheck::fieldFits(const tep_format_field* field, const uint8_t* data, int size, bool bigEndian)
{
    if (field->offset < 0 || field->size < 0) return false;
    // A fixed field may run past a short record (kernel_stack's caller[8] holds the frames
    // there are): the reader's zero padding after every page keeps that read in bounds.
    // It must start inside, though: libtraceevent sizes a flexible char[] as the record's size
    // minus the offset.
    if (!(field->flags & TEP_FIELD_IS_DYNAMIC))
        return field->offset <= size &&
               int64_t(field->offset) + field->size <= int64_t(size) + int64_t(PageSource::kPadding);
    if (int64_t(field->offset) + field->size > size) return false;
    // A dynamic field holds where its data is: offset in the low 16 bits, length in the high.
    uint32_t where = 0;
    if (field->size == 4) {
        std::memcpy(&where, data + field->offset, 4);
        if (bigEndian) where = __builtin_bswap32(where);
    } else if (field->size == 2) {
        uint16_t offset = 0;
        std::memcpy(&offset, data + field->offset, 2);
        where = bigEndian ? __builtin_bswap16(offset) : offset;
    } else {
        return false;
    }
    int64_t start = where & 0xffff;
    const int64_t length = field->size == 4 ? where >> 16 : 0;
    if (field->flags & TEP_FIELD_IS_RELATIVE) start += field->offset + field->size;
    return start + length <= size;
}

const tep_format_field* RecordCheck::firstBadField(const uint8_t* data, int size) const
{
    for (const tep_format_field* f : m_fields)
        if (!fieldFits(f, data, size, m_bigEndian)) return f;
    return nullptr;
}

std::string damagedRecordText(const tep_format_field* field)
{
    return std::string("[damaged record: field '") + (field->name ? field->name : "?") + "' lies outside it]";
}

} // namespace ringside
