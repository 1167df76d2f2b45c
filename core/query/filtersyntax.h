// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <string>
#include <vector>

struct tep_handle;

namespace ringside {

// Checks a filter in libtraceevent's syntax ("system/event[,event...]: condition") before it
// reaches libtraceevent, whose parser crashes on some malformed input (e.g. a comparison with
// no right-hand side) and silently accepts unknown field names. Returns an empty string when
// the expression is well formed and every compared field exists in the named events,
// otherwise what is wrong and where.
std::string checkFilterSyntax(tep_handle* tep, const std::string& expression);

// libtraceevent copies the condition (the text after ':') into a 1024-byte error buffer, with a
// caret line under it, and overflows it when a longer one is refused: longer conditions are
// refused before they reach it.
inline constexpr size_t kMaxFilterCondition = 500;

// libtraceevent 1.7.1 compares signed fields as unsigned 64-bit numbers, so
// `raw_syscalls/sys_exit: ret < 0` matches nothing (in trace-cmd report -F too). Rewrites each
// `field OP number` on a signed field into the equivalent comparison in that unsigned space,
// so the filter means what it says. Expects an expression checkFilterSyntax accepted.
std::string withSignedComparisons(tep_handle* tep, const std::string& expression);

} // namespace ringside
