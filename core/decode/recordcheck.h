// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct tep_event;
struct tep_format_field;

namespace ringside {

// Whether a record holds what its event format says: every field inside the record (or the
// page padding after it), and the data of every dynamic field (__data_loc, __rel_loc) too. libtraceevent reads wherever a
// damaged record points (past its buffer, or gigabytes for a length read as -7), so a record
// is checked before it is printed, its fields shown or a filter evaluated on it.
class RecordCheck {
public:
    explicit RecordCheck(const tep_event* event);

    // The first field that does not fit, or null when the record is whole.
    const tep_format_field* firstBadField(const uint8_t* data, int size) const;

    static bool fieldFits(const tep_format_field* field, const uint8_t* data, int size, bool bigEndian);

private:
    std::vector<const tep_format_field*> m_fields;
    bool m_bigEndian = false;
};

// What a view shows instead of a damaged record's text.
std::string damagedRecordText(const tep_format_field* field);

} // namespace ringside
