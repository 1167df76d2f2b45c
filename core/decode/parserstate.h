// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <mutex>

namespace ringside {

// libtraceevent's format and filter parsers keep state in process-wide variables: the text
// being tokenized, and two flags that `__print_flags(` and `__print_symbolic(` set for the next
// `REC->field`. A format that sets a flag without reaching a field leaves it set, and the next
// format parsed anywhere in the process that names a field it lacks then crashes (seen by
// fuzz_formats: a probe in a fresh process passes such a format, ours crashes on it). So every
// parse, of a format or a filter, holds this lock, and a format parse ends by clearing the flags.
std::unique_lock<std::mutex> lockTraceEventParser();

// Clears the flags a parse may have left set. Call with the lock held, or in a process of
// one thread (a probe child).
void clearTraceEventParserLeftovers();

} // namespace ringside
