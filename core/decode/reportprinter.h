// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/ids.h"

#include <cstdio>
#include <string>

namespace ringside {

class Trace;

// Prints events exactly as `trace-cmd report` does: the same columns, the same per-event
// text (libtraceevent with its plugins, plus the function_graph folding of leaf calls), the
// same "CPU:N [M EVENTS DROPPED]" lines and the same instance-name prefix.
class ReportPrinter {
public:
    explicit ReportPrinter(const Trace& trace);

    // The whole report, `cpus=N` first, to `out`. Returns the number of event lines.
    size_t dump(FILE* out);

    // One event as its report line (without the drop notice or the instance prefix);
    // function_graph entries look ahead in their own CPU only.
    std::string line(EventRef event);

    // Only the event's own text (what follows "name:" in the line), with the same look-ahead.
    std::string info(EventRef event);

private:
    const Trace& m_trace;
};

} // namespace ringside
