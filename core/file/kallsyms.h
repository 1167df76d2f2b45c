// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <string_view>

struct tep_handle;

namespace ringside {

// Registers the functions of a /proc/kallsyms text with libtraceevent, with the same rules
// as tep_parse_kallsyms (absolute symbols and ARM '$' mapping symbols skipped, parsing stops
// at the first malformed line) but without its sscanf per line, which dominates file opening.
// Returns the number of functions registered.
size_t registerKallsyms(tep_handle* tep, std::string_view text);

} // namespace ringside
