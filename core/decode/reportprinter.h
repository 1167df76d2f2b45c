// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdio>

namespace ringside {

class Trace;

// Prints events exactly as `trace-cmd report` does: the same columns, the same per-event
// text (libtraceevent with its plugins, plus the function_graph folding of leaf calls), the
// same "CPU:N [M EVENTS DROPPED]" lines and the same instance-name prefix.
//
// The merged order is cut into pieces of consecutive rows; workers (one ReportWorker each,
// with its own tep handle) format pieces in parallel and the calling thread writes them in
// order. The only state a line depends on beyond its record is the function_graph folding,
// which needs just the next record of the buffer, so pieces are independent (see
// ReportWorker::dumpRows). libtraceevent's function plugin keeps a per-CPU call stack in
// global state, so a recording with `function` events is printed by one thread, in order.
class ReportPrinter {
public:
    explicit ReportPrinter(const Trace& trace);

    // The whole report, `cpus=N` first, to `out`, on `threads` threads (0: all cores), in
    // pieces of `pieceRows` rows (0: a default; tests use small pieces to cross boundaries).
    // Returns the number of event lines. The trace's own tep handle is used meanwhile.
    size_t dump(FILE* out, int threads = 0, size_t pieceRows = 0);

    // The CPU count the report's first line gives.
    static int cpuCount(const Trace& trace);

private:
    const Trace& m_trace;
};

} // namespace ringside
