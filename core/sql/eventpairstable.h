// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <atomic>
#include <string>

struct sqlite3;

namespace ringside {
class Trace;
struct PairSpec;
}

namespace ringside::sql {

// The table-valued function that pairs events in a query (core/latency, as `ringside-cli
// latency` pairs them):
//   SELECT * FROM event_pairs('irq')                                   -- a preset
//   SELECT * FROM event_pairs('irq/irq_handler_entry', 'irq/irq_handler_exit', 'irq', 'cpu')
// Arguments: a preset's name, or the start event, the end event, the fields matched ("irq",
// "pid=next_pid", several separated by commas; '' for none), the options ("task", "cpu",
// "nesting", separated by commas) and the conditions the start and end records must meet
// (libtraceevent's filter syntax: 'prio < 100'). A row per pair, in the order of the starts: ts (the
// start's), dur, end_ts, key (the matched values, or the task's pid or CPU), utid and cpu of
// the start event, start_id and end_id (the events' ids, as ftrace_event's). The pairing
// runs when a statement first reads it, then is kept for the same arguments.
int registerEventPairs(sqlite3* db, const Trace& trace, const std::atomic<bool>* interrupt);

// The call of event_pairs that makes `spec`'s pairs: its events, fields, options and
// conditions; or, for a preset's pair with what the arguments cannot say (print's B| and E|
// marks), the preset's name and the conditions.
std::string eventPairsCall(const PairSpec& spec);

} // namespace ringside::sql
