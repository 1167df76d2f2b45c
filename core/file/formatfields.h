// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ringside {

// One field line of an event format ("field:unsigned long args[6];	offset:16;	size:48;
// signed:0;"), read without libtraceevent.
struct FormatField {
    std::string name; // "args"
    std::string type; // "unsigned long args[6]" without the name: "unsigned long [6]"
    int offset = 0;
    int size = 0;
    bool isSigned = false;
    bool isArray = false;   // "name[n]"
    bool isDynamic = false; // __data_loc / __rel_loc: the bytes are elsewhere in the record
};

// The fields of a format's text, common ones included, in order; lines that do not parse are
// skipped. Costs a scan of the text: binding plugins to formats they may need (a few hundred
// syscalls:* formats) without parsing each format's print expression.
std::vector<FormatField> formatFields(std::string_view format);

} // namespace ringside
